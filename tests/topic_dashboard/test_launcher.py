"""The start command skips Reflex's frontend compile and build when the build on disk was made from the
same sources, Reflex packages and addresses (topic_dashboard/launcher.py), and builds otherwise.

Reflex's two steps are replaced here by recorders (building for real takes 35-65 s; the browser suite
starts the real command on every run and reuses its builds)."""

from __future__ import annotations

import gzip
import json
import logging
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from reflex import reflex as reflex_cli
from reflex.utils import build

from topic_dashboard import launcher
from topic_dashboard.settings import reset_settings_cache


def _tree(root: Path) -> None:
    (root / "topic_dashboard").mkdir(parents=True)
    (root / "topic_dashboard" / "page.py").write_text("PAGE = 1\n")
    (root / "topic_dashboard" / "__pycache__").mkdir()
    (root / "topic_dashboard" / "__pycache__" / "page.cpython-311.pyc").write_bytes(b"\0")
    (root / "assets").mkdir()
    (root / "assets" / "styles.css").write_text("body {}\n")
    (root / "rxconfig.py").write_text("config = None\n")


def test_the_source_digest_follows_pages_assets_and_rxconfig_but_not_bytecode(tmp_path: Path) -> None:
    _tree(tmp_path)
    first = launcher.source_digest(tmp_path)
    (tmp_path / "topic_dashboard" / "__pycache__" / "page.cpython-311.pyc").write_bytes(b"\1")
    assert launcher.source_digest(tmp_path) == first
    for path in ("topic_dashboard/page.py", "assets/styles.css", "rxconfig.py"):
        before = launcher.source_digest(tmp_path)
        (tmp_path / path).write_text((tmp_path / path).read_text() + "# changed\n")
        assert launcher.source_digest(tmp_path) != before, path
    (tmp_path / "topic_dashboard" / "page.py").rename(tmp_path / "topic_dashboard" / "renamed.py")
    assert launcher.source_digest(tmp_path) != first


def test_the_fingerprint_names_every_reflex_package_and_the_baked_addresses() -> None:
    env = {"PING": "http://127.0.0.1:4000/ping"}
    value = launcher.fingerprint(env)
    assert value["env"] == env and len(value["sources"]) == 64
    assert {"reflex", "reflex-base"} <= set(value["reflex"])
    assert launcher.fingerprint({"PING": "http://127.0.0.1:4001/ping"}) != value


@dataclass
class WebDir:
    """A build folder of its own, and the Reflex steps a start ran there."""

    path: Path
    calls: list[str] = field(default_factory=list)

    def start(self) -> list[str]:
        """The two wrapped steps as one `reflex run --env prod` start calls them; which of them ran."""
        self.calls.clear()
        reflex_cli._compile_app(avoid_dirty_check=False)
        build.setup_frontend_prod(Path.cwd())
        return list(self.calls)


@pytest.fixture
def web(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[WebDir]:
    """A web dir of its own, and Reflex's compile and build steps recorded instead of run (restored after)."""
    web = WebDir(tmp_path / "web")
    web.path.mkdir()
    monkeypatch.setenv("REFLEX_WEB_WORKDIR", str(web.path))
    monkeypatch.delenv("TOPIC_DASHBOARD_REBUILD_FRONTEND", raising=False)
    reset_settings_cache()

    def compile_app(*_args: Any, **_kwargs: Any) -> None:
        web.calls.append("compile")

    def setup_frontend_prod(_root: Path) -> None:
        web.calls.append("build")
        (web.path / "build" / "client").mkdir(parents=True, exist_ok=True)
        (web.path / "build" / "client" / "index.html").write_text("<html></html>")

    monkeypatch.setattr(reflex_cli, "_compile_app", compile_app)
    monkeypatch.setattr(build, "setup_frontend_prod", setup_frontend_prod)
    launcher._install_build_skip()  # wraps the recorders; monkeypatch puts Reflex's own back afterwards
    yield web
    monkeypatch.undo()
    reset_settings_cache()


def test_the_first_start_builds_and_records_the_build_and_its_port(web: WebDir) -> None:
    assert web.start() == ["compile", "build"]

    stamp = json.loads((web.path / launcher.STAMP_NAME).read_text())
    env_json = json.loads((web.path / "env.json").read_text())
    assert stamp["fingerprint"]["env"] == env_json and stamp["fingerprint"]["sources"] == launcher.source_digest()
    assert launcher.built_port(web.path) == stamp["port"] and isinstance(stamp["port"], int)


def test_a_start_with_a_current_build_neither_compiles_nor_builds(web: WebDir) -> None:
    web.start()
    assert web.start() == []
    assert launcher.is_current(web.path, launcher.read_stamp(web.path)["fingerprint"])  # type: ignore[index]


@pytest.mark.parametrize(
    "change", ["sources", "transport", "build removed", "asked to rebuild", "stamp unreadable", "reflex upgraded"]
)
def test_a_start_builds_again_when_anything_the_build_depends_on_changed(
    web: WebDir, change: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    web.start()
    stamp_file = web.path / launcher.STAMP_NAME
    stamp = json.loads(stamp_file.read_text())
    if change == "sources":
        stamp["fingerprint"]["sources"] = "0" * 64
        stamp_file.write_text(json.dumps(stamp))
    elif change == "transport":  # more than the address: not movable
        stamp["fingerprint"]["env"]["TRANSPORT"] = "polling"
        stamp_file.write_text(json.dumps(stamp))
    elif change == "reflex upgraded":
        stamp["fingerprint"]["reflex"]["reflex"] = "0.0.1"
        stamp_file.write_text(json.dumps(stamp))
    elif change == "build removed":
        (web.path / "build" / "client" / "index.html").unlink()
    elif change == "asked to rebuild":
        monkeypatch.setenv("TOPIC_DASHBOARD_REBUILD_FRONTEND", "true")
        reset_settings_cache()
    else:
        stamp_file.write_text("{not json")

    assert web.start() == ["compile", "build"]
    assert launcher.is_current(web.path, json.loads(stamp_file.read_text())["fingerprint"])


def test_a_build_that_fails_leaves_no_record_that_it_is_current(web: WebDir, monkeypatch: pytest.MonkeyPatch) -> None:
    web.start()
    stamp = json.loads((web.path / launcher.STAMP_NAME).read_text())
    stamp["fingerprint"]["sources"] = "0" * 64  # something changed: this start compiles and builds
    (web.path / launcher.STAMP_NAME).write_text(json.dumps(stamp))

    def broken_build(_root: Path) -> None:
        raise SystemExit(1)

    monkeypatch.setattr(build, "setup_frontend_prod", broken_build)
    launcher._install_build_skip()  # wraps the recording compile's wrapper and the broken build
    with pytest.raises(SystemExit):
        web.start()
    assert not (web.path / launcher.STAMP_NAME).exists()


def _as_if_built_for(web: WebDir, old_netloc: str) -> str:
    """Make the build in `web` look made for `old_netloc`: its stamp and the address in its files.
    Returns the address the next start wants."""
    stamp_file = web.path / launcher.STAMP_NAME
    stamp = json.loads(stamp_file.read_text())
    wanted = urlsplit(stamp["fingerprint"]["env"]["PING"]).netloc
    stamp["fingerprint"]["env"] = {
        key: value.replace(wanted, old_netloc) if isinstance(value, str) else value
        for key, value in stamp["fingerprint"]["env"].items()
    }
    stamp_file.write_text(json.dumps(stamp))
    client = web.path / "build" / "client"
    page = f'<script>window.env={{"EVENT":"ws://{old_netloc}/_event"}}</script>'
    (client / "index.html").write_text(page)
    (client / "index.html.gz").write_bytes(gzip.compress(page.encode()))
    (client / "assets").mkdir(exist_ok=True)
    script = f"const e={{PING:`http://{old_netloc}/ping`,other:`http://{old_netloc}1/x`}};"
    (client / "assets" / "env-ABC.js").write_text(script)
    (client / "assets" / "plain-DEF.js").write_text("const nothing = 1;")
    return wanted


def test_a_build_made_for_another_address_is_moved_to_this_one_not_built_again(web: WebDir) -> None:
    web.start()
    wanted = _as_if_built_for(web, "127.0.0.1:4001")
    untouched = (web.path / "build" / "client" / "assets" / "plain-DEF.js").stat().st_mtime_ns

    assert web.start() == []  # neither compiled nor built

    client = web.path / "build" / "client"
    page = (client / "index.html").read_text()
    assert f"ws://{wanted}/_event" in page and "4001" not in page
    assert gzip.decompress((client / "index.html.gz").read_bytes()).decode() == page
    script = (client / "assets" / "env-ABC.js").read_text()
    # Only the address itself: `127.0.0.1:40011` is another port and stays.
    assert script == f"const e={{PING:`http://{wanted}/ping`,other:`http://127.0.0.1:40011/x`}};"
    assert (client / "assets" / "plain-DEF.js").stat().st_mtime_ns == untouched
    assert launcher.is_current(web.path, json.loads((web.path / launcher.STAMP_NAME).read_text())["fingerprint"])
    assert web.start() == []  # and current from then on


def test_moving_a_build_leaves_a_hard_linked_original_as_it_was(web: WebDir, tmp_path: Path) -> None:
    web.start()
    _as_if_built_for(web, "127.0.0.1:4001")
    original = tmp_path / "original"
    shutil.copytree(web.path / "build", original, copy_function=os.link)  # as the browser suite seeds a folder
    web.start()
    assert "127.0.0.1:4001" in (original / "client" / "index.html").read_text()
    assert "127.0.0.1:4001" not in (web.path / "build" / "client" / "index.html").read_text()


def test_the_first_start_does_not_tell_the_person_to_run_reflex(caplog: pytest.LogCaptureFixture) -> None:
    # `reflex run` on a fresh clone initialises the web project and logs Reflex's next steps for a new app;
    # `make run` is starting the app already (a walkthrough read the line as a step left to do).
    launcher.quiet_next_steps()
    launcher.quiet_next_steps()  # installed once
    cli_logger = logging.getLogger(reflex_cli.__name__)
    assert sum(isinstance(f, launcher._StartingAlready) for f in cli_logger.filters) == 1
    with caplog.at_level(logging.INFO, logger=cli_logger.name):
        cli_logger.log(logging.INFO + 1, "Initialized %s. Run `uv run reflex run` to start the app.", "topic_dashboard")
        cli_logger.info("Compiling the app.")
    assert [record.getMessage() for record in caplog.records] == ["Initialized topic_dashboard.", "Compiling the app."]


def test_reflexs_node_warning_says_the_build_runs_on_bun(caplog: pytest.LogCaptureFixture) -> None:
    """Reflex warns that Debian's Node.js 20 is out of date, then builds on bun's runtime (which make run
    installs): a walkthrough read the warning as a step left to do."""
    from reflex.utils import js_runtimes

    launcher.quiet_next_steps()
    runtime_logger = logging.getLogger(js_runtimes.__name__)
    assert sum(isinstance(f, launcher._NodeIsEnough) for f in runtime_logger.filters) == 1
    with caplog.at_level(logging.INFO, logger=runtime_logger.name):
        runtime_logger.warning("Your version (20.20.2) of Node.js is out of date. Upgrade to 22.22.0 or higher.")
    [record] = caplog.records
    assert record.levelno == logging.INFO
    assert record.getMessage() == "Node.js 20.20.2 is older than Reflex asks for: the build runs on bun's runtime."
