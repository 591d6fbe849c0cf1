"""Files that hold secrets are their owner's only.

Reflex's disk state manager (the default without Redis) pickles every session's state into
`.states/*.pkl`, live session tokens and a newly created bot's token included, with the process
umask (0644 by default); the data dir holds the database and each bot's config with its token.
"""

from __future__ import annotations

import os
from pathlib import Path

OWNER_ONLY_UMASK = 0o077
OWNER_ONLY_DIR = 0o700
OWNER_ONLY_FILE = 0o600


def harden_file_modes(*, data_dir: Path, states_dir: Path | None = None) -> int:
    """Make what this process writes from now on owner-only, and tighten what exists already.

    Sets the umask to 0o077; chmods `data_dir` to 0700 and, when they exist, `states_dir` to 0700
    and the files in it to 0600. Missing directories are left to whoever creates them (under the
    new umask they come out owner-only). Returns the previous umask. Raises OSError when a chmod
    is refused (e.g. the files belong to another user).
    """
    previous = os.umask(OWNER_ONLY_UMASK)
    if data_dir.is_dir():
        data_dir.chmod(OWNER_ONLY_DIR)
    if states_dir is not None and states_dir.is_dir():
        states_dir.chmod(OWNER_ONLY_DIR)
        for path in states_dir.iterdir():
            if path.is_file() and not path.is_symlink():
                path.chmod(OWNER_ONLY_FILE)
    return previous
