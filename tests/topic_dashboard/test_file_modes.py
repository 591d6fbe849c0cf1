"""State files and the data dir are their owner's only (harden_file_modes), on a temp dir."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from topic_dashboard.file_modes import harden_file_modes


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def restore_umask() -> Iterator[None]:
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def test_existing_state_files_and_the_data_dir_become_owner_only(tmp_path: Path, restore_umask: None) -> None:
    data_dir, states_dir = tmp_path / "data", tmp_path / ".states"
    data_dir.mkdir(mode=0o755)
    states_dir.mkdir(mode=0o755)
    pickle = states_dir / "0494a597c8208af845bf057006047d3f.pkl"
    pickle.write_bytes(b"session token inside")
    pickle.chmod(0o644)

    previous = harden_file_modes(data_dir=data_dir, states_dir=states_dir)

    assert previous == 0o022
    assert (_mode(data_dir), _mode(states_dir), _mode(pickle)) == (0o700, 0o700, 0o600)


def test_files_and_dirs_created_afterwards_are_owner_only(tmp_path: Path, restore_umask: None) -> None:
    harden_file_modes(data_dir=tmp_path / "missing", states_dir=tmp_path / "also-missing")
    assert not (tmp_path / "missing").exists()  # nothing is created here: whoever needs it creates it

    states_dir = tmp_path / ".states"
    states_dir.mkdir()  # as Reflex's disk state manager does, with the default mode
    pickle = states_dir / "new.pkl"
    pickle.write_bytes(b"a new bot's token")  # as Reflex writes a state: Path.write_bytes
    assert (_mode(states_dir), _mode(pickle)) == (0o700, 0o600)


def test_a_symlink_in_the_states_dir_is_not_followed(tmp_path: Path, restore_umask: None) -> None:
    states_dir, elsewhere = tmp_path / ".states", tmp_path / "shared.txt"
    states_dir.mkdir()
    elsewhere.write_text("not ours to change")
    elsewhere.chmod(0o644)
    (states_dir / "link.pkl").symlink_to(elsewhere)
    harden_file_modes(data_dir=tmp_path, states_dir=states_dir)
    assert _mode(elsewhere) == 0o644
