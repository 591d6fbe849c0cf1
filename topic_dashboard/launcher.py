"""The start command (`make run`): Reflex's `reflex run --env prod`, minus a frontend rebuild when
nothing it is built from changed.

`reflex run --env prod` compiles the pages and builds the frontend (35-65 s on two cores) on every
start, though the result depends only on the app's sources, the Reflex packages and the addresses
baked into it (the backend's URL and port). This runs the same command in-process and skips those
two steps when `.web/topic-dashboard-build.json` (written after a successful build) records the same
fingerprint: a restart then answers in seconds. A build made for another address (a port changed, a
second app of the browser suite) is moved to the new one by rewriting the address in its files
(`relocate_build`), not built again. Everything else (ports, the backend's server, its
workers, the frontend served by the backend on one port) is Reflex's own code path.

Run as `python -m topic_dashboard.launcher` (scripts/run.sh). `TOPIC_DASHBOARD_REBUILD_FRONTEND=1`
builds anyway.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.metadata
import json
import logging
import os
import re
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from topic_dashboard.settings import get_settings

ROOT = Path(__file__).resolve().parent.parent
STAMP_NAME = "topic-dashboard-build.json"
# What the compiled frontend is made of, besides Reflex itself and the addresses in env.json.
SOURCES = ("topic_dashboard", "assets", "rxconfig.py")


def source_digest(root: Path = ROOT) -> str:
    """SHA-256 over the names and contents of every file the pages are compiled from."""
    digest = hashlib.sha256()
    for name in SOURCES:
        base = root / name
        files = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file())
        for path in files:
            if "__pycache__" in path.parts or path.suffix == ".pyc":
                continue
            digest.update(str(path.relative_to(root)).encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def reflex_versions() -> dict[str, str]:
    """Every installed Reflex distribution (reflex, reflex_base, the component packages) and its version."""
    found = {}
    for dist in importlib.metadata.distributions():
        name = dist.metadata["Name"] or ""
        if name.lower().replace("_", "-").startswith("reflex"):
            found[name.lower()] = dist.version
    return dict(sorted(found.items()))


def fingerprint(env_json: dict[str, Any]) -> dict[str, Any]:
    """What a built frontend depends on: sources, Reflex's versions and the endpoints baked into it."""
    return {"sources": source_digest(), "reflex": reflex_versions(), "env": env_json}


def stamp_path(web_dir: Path) -> Path:
    return web_dir / STAMP_NAME


def read_stamp(web_dir: Path) -> dict[str, Any] | None:
    try:
        value = json.loads(stamp_path(web_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def built_port(web_dir: Path) -> int | None:
    """The port the frontend in `web_dir` was last built for (None: never built, or no record)."""
    stamp = read_stamp(web_dir)
    port = stamp.get("port") if stamp else None
    return port if isinstance(port, int) else None


def write_stamp(web_dir: Path, built: dict[str, Any]) -> None:
    """Record what the build in `web_dir` was made from (after it succeeded)."""
    stamp = {"fingerprint": built, "port": urlsplit(str(built["env"].get("PING", ""))).port}
    stamp_path(web_dir).write_text(json.dumps(stamp, indent=1), encoding="utf-8")


def is_current(web_dir: Path, expected: dict[str, Any]) -> bool:
    """A build in `web_dir` made from exactly `expected` (and still on disk)."""
    stamp = read_stamp(web_dir)
    if stamp is None or stamp.get("fingerprint") != expected:
        return False
    return (web_dir / "build" / "client" / "index.html").is_file()


def relocate_build(web_dir: Path, built: dict[str, Any], wanted: dict[str, Any]) -> bool:
    """Point a build made for one address at another, instead of building again (35-65 s).

    A build bakes its address into a few files (env.json's endpoints, the MCP address in the pages'
    initial state): when the wanted build differs from the one on disk only by that address (same
    sources, same Reflex, endpoints equal but for host:port), every `://old-host:port` in the built
    files becomes `://new-host:port` and their gzipped copies are written again. Files are replaced,
    not rewritten in place (a build folder may hard-link another's files). False: not relocatable.
    """
    if built.get("sources") != wanted.get("sources") or built.get("reflex") != wanted.get("reflex"):
        return False
    old_env, new_env = built.get("env") or {}, wanted.get("env") or {}
    old_netloc = urlsplit(str(old_env.get("PING", ""))).netloc
    new_netloc = urlsplit(str(new_env.get("PING", ""))).netloc
    if not old_netloc or not new_netloc:
        return False
    moved = {
        key: value.replace(old_netloc, new_netloc) if isinstance(value, str) else value
        for key, value in old_env.items()
    }
    if moved != new_env:
        return False  # something besides the address differs (transport, test mode, ...): build
    client = web_dir / "build" / "client"
    if not (client / "index.html").is_file():
        return False
    # `://127.0.0.1:3000` but not `://127.0.0.1:30001`.
    pattern = re.compile(re.escape(f"://{old_netloc}".encode()) + rb"(?![0-9])")
    replacement = f"://{new_netloc}".encode()
    for path in sorted(client.rglob("*")):
        if not path.is_file() or path.suffix == ".gz":
            continue
        data = path.read_bytes()
        if not pattern.search(data):
            continue
        fresh = pattern.sub(replacement, data)
        _replace_file(path, fresh)
        packed = path.with_name(path.name + ".gz")
        if packed.exists():
            _replace_file(packed, gzip.compress(fresh, compresslevel=9, mtime=0))
    return True


def _replace_file(path: Path, data: bytes) -> None:
    temporary = path.with_name(f".{path.name}.relocating")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def _install_build_skip() -> None:
    """Wrap Reflex's compile and build steps of `reflex run --env prod`: skipped when the build on
    disk matches, recorded after they succeed."""
    from reflex import reflex as reflex_cli
    from reflex.utils import build, prerequisites

    real_compile = reflex_cli._compile_app
    real_setup = build.setup_frontend_prod
    state: dict[str, Any] = {}

    def expected() -> dict[str, Any]:
        # The env.json this start would bake in (ports and URLs are set by now).
        build.set_env_json()
        web_dir = prerequisites.get_web_dir()
        env_json = json.loads((web_dir / "env.json").read_text(encoding="utf-8"))
        return fingerprint(env_json)

    def compile_app(*args: Any, **kwargs: Any) -> None:
        web_dir = prerequisites.get_web_dir()
        state["expected"] = expected()
        rebuild = get_settings().rebuild_frontend
        state["skip"] = not rebuild and is_current(web_dir, state["expected"])
        if state["skip"]:
            print(f"topic-dashboard: the frontend in {web_dir} is current; not rebuilding it", file=sys.stderr)
            return
        stamp = read_stamp(web_dir)
        if (
            not rebuild
            and stamp is not None
            and relocate_build(web_dir, stamp.get("fingerprint") or {}, state["expected"])
        ):
            write_stamp(web_dir, state["expected"])
            state["skip"] = True
            print(
                f"topic-dashboard: the frontend in {web_dir} was moved to the new address; not rebuilding it",
                file=sys.stderr,
            )
            return
        stamp_path(web_dir).unlink(missing_ok=True)  # a build that fails midway must not look current
        real_compile(*args, **kwargs)

    def setup_frontend_prod(root: Path) -> None:
        if state.get("skip"):
            build.setup_frontend(root)  # env.json and Reflex's last-run time, as a build would
            return
        real_setup(root)
        write_stamp(prerequisites.get_web_dir(), state.get("expected") or expected())

    reflex_cli._compile_app = compile_app
    build.setup_frontend_prod = setup_frontend_prod


class _StartingAlready(logging.Filter):
    """On a fresh clone `reflex run` first sets up the web project and logs Reflex's next steps for a new
    app, "Initialized topic_dashboard. Run `uv run reflex run` to start the app.", while it is starting the
    app already (a walkthrough read it as a step left to do). The first sentence stays."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if message.startswith("Initialized ") and "reflex run" in message:
            record.msg, record.args = message.split(". ", 1)[0] + ".", ()
        return True


class _NodeIsEnough(logging.Filter):
    """Reflex warns "Your version (20.x) of Node.js is out of date. Upgrade to 22…" on Debian's Node.js, and then
    builds with bun's own runtime (`bun --bun`), which `make run` installs: nothing is left to do, though a
    walkthrough read it as a step (the README asks only for npm). Said as what it is."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "of Node.js is out of date" in message:
            found = message.split("(", 1)[-1].split(")", 1)[0]
            record.levelno, record.levelname = logging.INFO, "INFO"
            record.msg, record.args = (
                f"Node.js {found} is older than Reflex asks for: the build runs on bun's runtime.",
                (),
            )
        return True


def quiet_next_steps() -> None:
    """Install `_StartingAlready` on Reflex's command-line logger and `_NodeIsEnough` on its runtime check's
    (once each)."""
    for name, kind in (("reflex.reflex", _StartingAlready), ("reflex.utils.js_runtimes", _NodeIsEnough)):
        target = logging.getLogger(name)
        if not any(isinstance(f, kind) for f in target.filters):
            target.addFilter(kind())


def main(argv: list[str] | None = None) -> None:
    """`reflex run --env prod [argv...]` with the build skipped when current."""
    from reflex.reflex import cli

    quiet_next_steps()
    _install_build_skip()
    sys.argv[0] = "reflex"
    cli(["run", "--env", "prod", *(argv if argv is not None else sys.argv[1:])])


if __name__ == "__main__":
    main()
