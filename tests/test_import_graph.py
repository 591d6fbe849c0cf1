"""The layers hold: the domain imports no web framework, shared components import no feature."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "topic_dashboard"
DOMAIN = [
    "models",
    "services",
    "routing",
    "item_views",
    "user_inputs",
    "bot_config",
    "text_policy.py",
    "errors.py",
    "settings.py",
    "security.py",
    "db.py",
    "migrate.py",
    "file_modes.py",
    "instance.py",
]
FEATURES = [
    "topic_panel",
    "rules_editor",
    "bots_page",
    "conversations_page",
    "audit_page",
    "accounts_page",
    "insights_page",
]
WEB = ("reflex", "reflex_base", "starlette", "fastapi", "mcp_service", "mcp")


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _files(part: str) -> list[Path]:
    target = PACKAGE / part
    return [target] if target.is_file() else sorted(target.rglob("*.py"))


@pytest.mark.parametrize("part", DOMAIN)
def test_the_domain_imports_no_web_framework(part: str) -> None:
    for path in _files(part):
        bad = {name for name in _imports(path) if name.split(".")[0] in WEB}
        assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


def test_shared_components_import_no_feature() -> None:
    for path in _files("components"):
        bad = {name for name in _imports(path) if any(name.startswith(f"topic_dashboard.{f}") for f in FEATURES)}
        assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


def test_no_feature_imports_another_feature() -> None:
    for feature in FEATURES:
        for path in _files(feature):
            others = [f for f in FEATURES if f != feature]
            bad = {name for name in _imports(path) if any(name.startswith(f"topic_dashboard.{f}") for f in others)}
            assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


@pytest.mark.parametrize("part", [*FEATURES, "auth", "components"])
def test_adapters_get_public_shapes_not_table_rows(part: str) -> None:
    """Services hand out *Public models; no page, State or component imports a table class."""
    for path in _files(part):
        bad = {name for name in _imports(path) if name.startswith("topic_dashboard.models")}
        assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"


def test_the_mcp_and_rest_adapters_import_no_table_class() -> None:
    for path in sorted((ROOT / "mcp_service").rglob("*.py")):
        bad = {name for name in _imports(path) if name.startswith("topic_dashboard.models")}
        assert not bad, f"{path.relative_to(ROOT)} imports {sorted(bad)}"
