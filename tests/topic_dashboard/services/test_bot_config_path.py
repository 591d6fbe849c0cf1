"""Where a bot's config.json may be, on every backend: inside the data directory only, never another
bot's, never a file the dashboard did not create unless adoption is confirmed; refusals that do not
tell whether a path outside exists; and the bot's token never read back from its config."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlmodel import Session, select

from topic_dashboard.bot_config import CCWEB_SERVER, LOCKED_SERVER
from topic_dashboard.errors import AppError
from topic_dashboard.models import Bot
from topic_dashboard.services import bots
from topic_dashboard.settings import get_settings

NANOBOT_CONFIG = {
    "agents": {"defaults": {"model": "m"}},
    "tools": {"mcpServers": {"fs": {"command": "npx"}}, "ssrfWhitelist": []},
}


def _data_dir() -> Path:
    return get_settings().data_dir.resolve()


def _write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def _bot_count(session: Session) -> int:
    return session.exec(select(sa.func.count()).select_from(Bot)).one()


def _refused(session: Session, code: str, config_path: str, adopt_existing: bool = False) -> AppError:
    before = _bot_count(session)
    with pytest.raises(AppError) as excinfo:
        bots.create_bot(session=session, name="adopter", config_path=config_path, adopt_existing=adopt_existing)
    session.rollback()
    assert excinfo.value.code == code, excinfo.value
    assert excinfo.value.field == "config_path"
    assert _bot_count(session) == before
    return excinfo.value


# --- outside the data directory -------------------------------------------------------------------------


def test_a_path_outside_the_data_directory_is_refused_alike_whether_it_exists_or_not(
    session: Session, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere"
    existing = _write(outside / "config.json", NANOBOT_CONFIG)
    directory = outside / "dir.json"
    directory.mkdir()
    unreadable = _write(outside / "secret.json", {"a": 1})
    unreadable.chmod(0)
    before = existing.read_bytes()

    messages = {
        str(path): _refused(session, "config_path_not_allowed", str(path), adopt_existing=adopt).message
        for path in (
            existing,
            outside / "missing.json",
            outside / "no" / "dir" / "x.json",
            directory,
            unreadable,
            Path("/etc/hostname/config.json"),
            Path("/etc/no-such-file.json"),
        )
        for adopt in (False, True)
    }

    assert len(set(messages.values())) == 1, messages
    message = next(iter(messages.values()))
    assert str(outside) not in message and "exist" not in message
    assert existing.read_bytes() == before
    assert sorted(p.name for p in outside.iterdir()) == ["config.json", "dir.json", "secret.json"]


def test_traversal_out_of_the_data_directory_is_refused(session: Session, tmp_path: Path) -> None:
    target = _write(tmp_path / "victim.json", NANOBOT_CONFIG)
    before = target.read_bytes()
    _data_dir().mkdir(parents=True, exist_ok=True)
    for path in (
        f"{_data_dir()}/../victim.json",
        f"{_data_dir()}/bots/../../victim.json",
        f"{_data_dir()}/ok/../inside.json",
    ):
        _refused(session, "config_path_not_allowed", path, adopt_existing=True)
    assert target.read_bytes() == before


def test_a_symlink_out_of_the_data_directory_is_refused(session: Session, tmp_path: Path) -> None:
    target = _write(tmp_path / "outside" / "config.json", NANOBOT_CONFIG)
    before = target.read_bytes()
    link_dir = _data_dir() / "linked"
    link_dir.parent.mkdir(parents=True, exist_ok=True)
    link_dir.symlink_to(target.parent, target_is_directory=True)
    link_file = _data_dir() / "link.json"
    link_file.symlink_to(target)
    dangling = _data_dir() / "dangling.json"
    dangling.symlink_to(tmp_path / "outside" / "not-yet.json")

    for path in (link_dir / "config.json", link_file, dangling, link_dir / "new.json"):
        _refused(session, "config_path_not_allowed", str(path), adopt_existing=True)
        _refused(session, "config_path_not_allowed", str(path))

    assert target.read_bytes() == before
    assert sorted(p.name for p in target.parent.iterdir()) == ["config.json"]


def test_the_apps_own_files_are_out_of_reach(session: Session) -> None:
    web = Path.cwd() / ".web" / "package.json"
    _refused(session, "config_path_not_allowed", str(web), adopt_existing=True)
    _refused(session, "config_path_not_allowed", str(Path.cwd() / "pyproject.json"))


@pytest.mark.parametrize(
    "config_path", ["relative/config.json", "/tmp/nul\x00.json", "/tmp/config.txt", "/" + "a/" * 600 + "x.json"]
)
def test_a_malformed_path_is_a_validation_error(session: Session, config_path: str) -> None:
    _refused(session, "validation_error", config_path)


# --- inside the data directory --------------------------------------------------------------------------


def test_a_new_path_inside_the_data_directory_is_created_by_the_dashboard(session: Session) -> None:
    path = _data_dir() / "mine" / "nanobot" / "config.json"
    bot, token = bots.create_bot(session=session, name="fresh", config_path=str(path))
    assert bot.config_path == str(path)
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written["tools"]["mcpServers"][LOCKED_SERVER]["headers"] == {"x-topic-mcp-token": token}


def test_an_existing_file_is_adopted_only_when_confirmed(session: Session) -> None:
    path = _write(_data_dir() / "home" / ".nanobot" / "config.json", NANOBOT_CONFIG)
    before = path.read_bytes()

    error = _refused(session, "adoption_not_confirmed", str(path))

    assert "adopt_existing" in error.message and error.status == 409
    assert path.read_bytes() == before
    bot, _ = bots.create_bot(session=session, name="adopted", config_path=str(path), adopt_existing=True)
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written["agents"] == NANOBOT_CONFIG["agents"]
    assert list(written["tools"]["mcpServers"]) == ["fs", LOCKED_SERVER, CCWEB_SERVER]
    assert bot.config_path == str(path)


def test_a_symlink_within_the_data_directory_is_stored_resolved(session: Session) -> None:
    real = _write(_data_dir() / "real" / "config.json", NANOBOT_CONFIG)
    (_data_dir() / "alias").symlink_to(real.parent, target_is_directory=True)
    bot, _ = bots.create_bot(
        session=session, name="aliased", config_path=str(_data_dir() / "alias" / "config.json"), adopt_existing=True
    )
    assert bot.config_path == str(real)


@pytest.mark.parametrize(
    "contents",
    [
        '{"name": "topic-dashboard", "dependencies": {"react": "19"}}',
        "[1, 2]",
        "{broken",
        '{"tools": []}',
        '{"tools": {"mcpServers": []}}',
        '"text"',
    ],
)
def test_a_confirmed_adoption_must_be_a_nanobot_config(session: Session, contents: str) -> None:
    path = _write(_data_dir() / "web" / "package.json", contents)
    _refused(session, "invalid_mcp_config", str(path), adopt_existing=True)
    assert path.read_text(encoding="utf-8") == contents


def test_confirming_adoption_of_nothing_is_refused(session: Session) -> None:
    path = _data_dir() / "typo" / "config.json"
    _refused(session, "invalid_mcp_config", str(path), adopt_existing=True)
    assert not path.exists()


def test_another_bots_config_is_never_taken_over(session: Session) -> None:
    owner, owner_token = bots.create_bot(session=session, name="owner")
    assert owner.config_path
    owned = Path(owner.config_path)
    before = owned.read_bytes()
    workspace_file = owned.parent.parent / "memory.json"
    _write(workspace_file, {"agents": {}})

    for path in (str(owned), str(workspace_file), str(owned.parent / "other.json")):
        for adopt in (False, True):
            error = _refused(session, "config_path_in_use", path, adopt_existing=adopt)
            assert error.status == 409

    assert owned.read_bytes() == before
    assert bots.bot_id_for_token(session=session, token=owner_token) == owner.bot_id


def test_two_adoptions_of_one_file_the_second_is_refused(session: Session) -> None:
    path = _write(_data_dir() / "shared" / "config.json", NANOBOT_CONFIG)
    _, first_token = bots.create_bot(session=session, name="first", config_path=str(path), adopt_existing=True)
    before = path.read_bytes()
    _refused(session, "config_path_in_use", str(path), adopt_existing=True)
    assert path.read_bytes() == before and first_token in before.decode()


# --- the bot's token is not read back -------------------------------------------------------------------


def test_reads_of_the_mcp_config_mask_the_bots_token(session: Session) -> None:
    bot, token = bots.create_bot(session=session, name="masked")

    seen = bots.get_mcp_config(session=session, bot_id=bot.bot_id)

    assert token not in json.dumps(seen.model_dump())
    assert seen.servers[LOCKED_SERVER]["headers"] == {"x-topic-mcp-token": "***"}
    # putting back what was read changes nothing, the file keeps the real token
    saved = bots.put_mcp_config(session=session, bot_id=bot.bot_id, servers=seen.servers)
    assert token not in json.dumps(saved.model_dump()) and saved.restored is False
    assert token in Path(bot.config_path or "").read_text(encoding="utf-8")
    rotated = bots.rotate_token(session=session, bot_id=bot.bot_id)
    assert rotated not in json.dumps(bots.get_mcp_config(session=session, bot_id=bot.bot_id).model_dump())


# --- bots adopted before these rules -------------------------------------------------------------------------


def test_a_bot_whose_stored_path_is_outside_is_neither_read_nor_written(session: Session, tmp_path: Path) -> None:
    bot, _ = bots.create_bot(session=session, name="legacy")
    outside = _write(tmp_path / "etc" / "app.json", NANOBOT_CONFIG)
    before = outside.read_bytes()
    session.exec(sa.update(Bot).where(Bot.id == bot.bot_id).values(config_path=str(outside)))  # type: ignore[call-overload,arg-type]
    session.commit()

    for call in (
        lambda: bots.get_mcp_config(session=session, bot_id=bot.bot_id),
        lambda: bots.put_mcp_config(session=session, bot_id=bot.bot_id, servers={}),
    ):
        with pytest.raises(AppError) as excinfo:
            call()
        assert excinfo.value.code == "config_path_not_allowed"
        session.rollback()

    new_token = bots.rotate_token(session=session, bot_id=bot.bot_id)  # revoking a token must always work

    assert bots.bot_id_for_token(session=session, token=new_token) == bot.bot_id
    assert outside.read_bytes() == before
    stored = session.get(Bot, bot.bot_id)
    assert stored is not None and stored.config_path is None  # no longer managed: the UI shows no path
    assert os.listdir(outside.parent) == ["app.json"]
