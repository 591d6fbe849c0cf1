"""Where a bot's config.json may be: a .json file inside the allowed roots (the data directory),
symlinks resolved, `..` refused; and what an adopted file must look like.

A refused path outside the roots gets one message whatever is there (a file, a directory,
nothing, something unreadable): the answer must not tell an admin's client what exists elsewhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from topic_dashboard.errors import AppError

MAX_CONFIG_PATH_LENGTH = 1000  # the column's size
# nanobot 0.3's top-level sections (nanobot.config.schema.Config); unknown keys are dropped by nanobot.
NANOBOT_SECTIONS = (
    "agents",
    "channels",
    "transcription",
    "providers",
    "api",
    "gateway",
    "tools",
    "modelPresets",
    "model_presets",
)


def _not_allowed(roots: Sequence[Path]) -> AppError:
    where = " or ".join(str(root.resolve()) for root in roots)
    return AppError(
        "config_path_not_allowed",
        f"config_path must name a file inside {where}, without '..' and without links leading out of it",
        field="config_path",
    )


def confined_config_path(raw: str, *, roots: Sequence[Path]) -> Path:
    """`raw` with every symlink resolved, when it is an absolute .json path inside one of `roots`.

    Looks at nothing outside the roots but the links on the way. Raises validation_error (a
    malformed path) and config_path_not_allowed (anything outside the roots, alike).
    """
    path = Path(raw)
    # NUL cannot be in a path (a ValueError, i.e. a 500, further down).
    if "\x00" in raw or len(raw) > MAX_CONFIG_PATH_LENGTH or not path.is_absolute() or path.suffix != ".json":
        raise AppError(
            "validation_error",
            f"config_path must be an absolute path to a .json file (at most {MAX_CONFIG_PATH_LENGTH} characters)",
            field="config_path",
        )
    if ".." in path.parts:
        raise _not_allowed(roots)
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError):  # a link loop, a name too long: nothing to tell apart
        raise _not_allowed(roots) from None
    for root in roots:
        base = root.resolve()
        if resolved != base and resolved.is_relative_to(base) and len(str(resolved)) <= MAX_CONFIG_PATH_LENGTH:
            return resolved
    raise _not_allowed(roots)


def check_nanobot_config(config: dict[str, Any], path: Path) -> None:
    """Raises invalid_mcp_config unless `config` reads as a nanobot config.json: an empty object, or
    one with at least one of nanobot's sections, each section (and tools.mcpServers) an object."""
    present = [key for key in NANOBOT_SECTIONS if key in config]
    if config and not present:
        raise AppError(
            "invalid_mcp_config",
            f"{path} does not look like a nanobot config.json (it has none of {', '.join(NANOBOT_SECTIONS[:7])})",
            field="config_path",
        )
    for key in present:
        if not isinstance(config[key], dict):
            raise AppError(
                "invalid_mcp_config", f"{path}: `{key}` must be an object in a nanobot config.json", field="config_path"
            )
    tools = config.get("tools") or {}
    for key in ("mcpServers", "mcp_servers"):
        if key in tools and not isinstance(tools[key], dict):
            raise AppError("invalid_mcp_config", f"{path}: `tools.{key}` must be an object", field="config_path")
