"""Reading and writing config.json: order kept, written atomically, readable by its owner only."""

from __future__ import annotations

import errno
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from topic_dashboard.errors import AppError

_NOT_A_FILE = (errno.EISDIR, errno.ENOTDIR, errno.ENAMETOOLONG)


def read_config(path: Path) -> dict[str, Any]:
    """The JSON object in `path` (key order kept). Raises invalid_mcp_config or config_io_error."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise AppError("invalid_mcp_config", f"no config file at {path}", field="config_path") from None
    except UnicodeDecodeError as exc:
        raise AppError(
            "invalid_mcp_config", f"{path} is not UTF-8 text: fix or replace it", field="config_path"
        ) from exc
    except OSError as exc:
        if exc.errno in _NOT_A_FILE:  # the path names no file: the caller's to fix, not a server fault
            raise AppError(
                "invalid_mcp_config", f"{path} is not a config file ({exc.strerror})", field="config_path"
            ) from exc
        raise AppError("config_io_error", f"cannot read {path}: {exc.strerror}") from exc
    try:
        data = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        raise AppError(
            "invalid_mcp_config",
            f"{path} is not valid JSON (line {exc.lineno}): fix or replace it",
            field="config_path",
        ) from exc
    if not isinstance(data, dict):
        raise AppError("invalid_mcp_config", f"{path} must hold a JSON object", field="config_path")
    return data


def write_config_atomic(path: Path, data: dict[str, Any]) -> None:
    """Write `data` to `path` through a temp file and a rename, mode 0600 (it holds the bot's token).

    Raises config_io_error.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=".config.", suffix=".tmp", dir=path.parent)
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle, ensure_ascii=False, indent=2)
                handle.write("\n")
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp_name, path)
            _fsync_directory(path.parent)  # make the rename itself durable
        except BaseException:
            Path(tmp_name).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise AppError("config_io_error", f"cannot write {path}: {exc.strerror}") from exc


def _fsync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
