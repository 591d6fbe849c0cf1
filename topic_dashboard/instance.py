"""Which dashboard the `topic-dashboard` commands act on, wherever they are run.

`make run` records the settings the dashboard starts with (its data directory, database, port and public
address) in an instance file beside the checkout (`.topic-dashboard/instance.json`, owner-only: it may
hold a database password). A command run later in another shell, without those variables, adopts what
the file records, so `user create` writes into the running dashboard's database and `bot create` writes
the dashboard's real address into the bot's locked config, and it says on stderr which instance it acts
on. A variable set in that shell still wins, and the note says so.
"""

from __future__ import annotations

import json
import os
from collections.abc import MutableMapping
from datetime import UTC, datetime
from pathlib import Path

from topic_dashboard.file_modes import OWNER_ONLY_DIR, OWNER_ONLY_FILE
from topic_dashboard.settings import ENV_PREFIX, Settings

INSTANCE_FILE_ENV = f"{ENV_PREFIX}INSTANCE_FILE"
DEFAULT_INSTANCE_FILE = Path(__file__).resolve().parent.parent / ".topic-dashboard" / "instance.json"
# The settings that decide which dashboard a command reaches, and what it writes into bot configs.
RECORDED = ("DATA_DIR", "DATABASE_URL", "PORT", "PUBLIC_BASE_URL")


def instance_file(environ: MutableMapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    return Path(env.get(INSTANCE_FILE_ENV) or DEFAULT_INSTANCE_FILE)


def record_instance(settings: Settings, path: Path, *, pid: int | None = None) -> dict[str, str]:
    """Write what a starting dashboard runs with (absolute paths, the effective database URL)."""
    values = {
        f"{ENV_PREFIX}DATA_DIR": str(settings.data_dir.resolve()),
        f"{ENV_PREFIX}DATABASE_URL": settings.effective_database_url,
        f"{ENV_PREFIX}PORT": str(settings.port),
        f"{ENV_PREFIX}PUBLIC_BASE_URL": settings.public_base_url,
    }
    record = {
        "recorded_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "pid": pid if pid is not None else os.getppid(),
        "settings": values,
    }
    path.parent.mkdir(mode=OWNER_ONLY_DIR, parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, OWNER_ONLY_FILE)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(json.dumps(record, indent=2) + "\n")
    path.chmod(OWNER_ONLY_FILE)  # a file an earlier version wrote with other bits
    return values


def _read(path: Path) -> tuple[dict[str, str], int | None] | None:
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    values = record.get("settings") if isinstance(record, dict) else None
    if not isinstance(values, dict):
        return None
    pid = record.get("pid")
    kept = {k: v for k, v in values.items() if isinstance(k, str) and isinstance(v, str) and k.startswith(ENV_PREFIX)}
    return kept, pid if isinstance(pid, int) and not isinstance(pid, bool) else None


def _running(pid: int | None) -> bool:
    if pid is None or pid <= 1:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


def adopt_instance(environ: MutableMapping[str, str], path: Path) -> str | None:
    """Set in `environ` each recorded setting it does not set itself; return the note to print (None
    when nothing is recorded). A setting `environ` sets otherwise is kept, and named in the note."""
    found = _read(path)
    if not found or not found[0]:
        return None
    values, pid = found
    overridden = sorted(key for key, value in values.items() if key in environ and environ[key] != value)
    for key, value in values.items():
        environ.setdefault(key, value)
    where = environ.get(f"{ENV_PREFIX}PUBLIC_BASE_URL", "?")
    state = f"running, pid {pid}" if _running(pid) else "not running now"
    note = (
        f"topic-dashboard: acting on the dashboard `make run` started at {where} ({state}; "
        f"data dir {environ.get(f'{ENV_PREFIX}DATA_DIR', '?')}; recorded in {path})"
    )
    if overridden:
        verb = "differs and wins" if len(overridden) == 1 else "differ and win"
        note += f"; your shell's {', '.join(overridden)} {verb}"
    return note
