"""Bots on every backend: creation with a nanobot config, token rotation, deletion, statuses, the locked MCP config."""

from __future__ import annotations

import copy
import json
import stat
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlmodel import Session, select

from topic_dashboard.bot_config import CCWEB_SERVER, LOCKED_SERVER, managed_entry
from topic_dashboard.errors import AppError
from topic_dashboard.models import AuditLog, Bot, Conversation, Message, Topic, TopicBotSettings, TopicItem, utcnow
from topic_dashboard.services import bots
from topic_dashboard.services.audit import record_call
from topic_dashboard.services.publishing import PublishRequest, publish_item
from topic_dashboard.services.topics import TopicCreate, create_topic, set_topic_enabled
from topic_dashboard.settings import get_settings

OTHER_SERVERS = {
    "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
    "remote": {"type": "sse", "url": "https://mcp.example.com/sse", "headers": {"Authorization": "Bearer x"}},
}


def _adopted_config() -> dict[str, Any]:
    return {
        "agents": {"defaults": {"model": "anthropic/claude-opus-4-5"}},
        "zzUnknown": {"nested": [1, {"b": 2, "a": 1}]},
        "tools": {
            "web": {"search": {"apiKey": "brave-key"}},
            "mcpServers": copy.deepcopy(OTHER_SERVERS),
            "ssrfWhitelist": ["100.64.0.0/10"],
            "futureKey": "kept",
        },
        "channels": {"sendProgress": False},
    }


def _write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def _config(bot: bots.BotPublic) -> dict[str, Any]:
    assert bot.config_path
    return json.loads(Path(bot.config_path).read_text(encoding="utf-8"))


def _topic_mcp(bot: bots.BotPublic) -> dict[str, Any]:
    return _config(bot)["tools"]["mcpServers"][LOCKED_SERVER]


def _managed(token: str, **overrides: Any) -> dict[str, Any]:
    return {**managed_entry(mcp_url=get_settings().mcp_topic_url, token=token), **overrides}


def _ccweb(token: str) -> dict[str, Any]:
    return managed_entry(mcp_url=get_settings().mcp_ccweb_url, token=token)


def _both(token: str, **overrides: Any) -> dict[str, Any]:
    """Both managed entries as written: topic_mcp (with `overrides`) and ccweb."""
    return {LOCKED_SERVER: _managed(token, **overrides), CCWEB_SERVER: _ccweb(token)}


def _both_masked(token: str) -> dict[str, Any]:
    masked = {"x-topic-mcp-token": "***"}
    return {LOCKED_SERVER: _masked(token), CCWEB_SERVER: {**_ccweb(token), "headers": masked}}


def _masked(token: str, **overrides: Any) -> dict[str, Any]:
    """topic_mcp as reads show it: the bot's token is never read back."""
    return {**_managed(token, **overrides), "headers": {"x-topic-mcp-token": "***"}}


@pytest.fixture
def home() -> Path:
    """A directory a bot's config.json may be adopted from: inside the data directory."""
    return get_settings().data_dir / "home"


def _refused(code: str, fn: Any, **kwargs: Any) -> AppError:
    with pytest.raises(AppError) as excinfo:
        fn(**kwargs)
    assert excinfo.value.code == code, excinfo.value
    return excinfo.value


def _rows(session: Session, model: Any, bot_id: str) -> int:
    return session.exec(select(sa.func.count()).select_from(model).where(model.bot_id == bot_id)).one()


# --- creation ------------------------------------------------------------------------------------


def test_create_writes_a_workspace_config_only_the_owner_can_read(session: Session) -> None:
    bot, token = bots.create_bot(session=session, name="  Researcher  ")

    assert bot.name == "Researcher"
    assert token.startswith("tdb_")
    expected_path = (get_settings().data_dir / "bots" / bot.bot_id / ".nanobot" / "config.json").resolve()
    assert bot.config_path == str(expected_path)
    assert stat.S_IMODE(expected_path.stat().st_mode) == 0o600
    config = _config(bot)
    assert config["tools"]["mcpServers"] == _both(token)
    assert config["tools"]["ssrfWhitelist"] == ["127.0.0.1/32"]  # the test settings' base URL is on loopback
    assert list(expected_path.parent.iterdir()) == [expected_path]
    assert session.get(Bot, bot.bot_id).workspace_dir == str(expected_path.parent.parent)


def test_create_stores_the_settings_and_the_fallback_topic_and_not_the_token(session: Session) -> None:
    bot, token = bots.create_bot(session=session, name="r")
    stored = session.get(Bot, bot.bot_id)
    assert stored is not None and token not in stored.token_hash
    assert bots.bot_id_for_token(session=session, token=token) == bot.bot_id
    assert _rows(session, TopicBotSettings, bot.bot_id) == 1
    fallback = session.exec(select(Topic).where(Topic.bot_id == bot.bot_id)).one()
    assert (fallback.topic_key, fallback.is_default_fallback, fallback.is_active) == ("inbox", True, True)


def test_create_adopts_an_existing_config_and_keeps_everything_in_it(session: Session, home: Path) -> None:
    original = _adopted_config()
    path = _write(home / "home" / ".nanobot" / "config.json", original)

    bot, token = bots.create_bot(session=session, name="adopter", config_path=str(path), adopt_existing=True)

    assert bot.config_path == str(path)
    written = _config(bot)
    assert list(written) == list(original)
    assert list(written["tools"]) == list(original["tools"])
    for key in ("agents", "zzUnknown", "channels"):
        assert written[key] == original[key]
    assert written["tools"]["web"] == original["tools"]["web"] and written["tools"]["futureKey"] == "kept"
    assert list(written["tools"]["mcpServers"]) == ["filesystem", "remote", LOCKED_SERVER, CCWEB_SERVER]
    assert {k: written["tools"]["mcpServers"][k] for k in OTHER_SERVERS} == OTHER_SERVERS
    assert written["tools"]["mcpServers"][LOCKED_SERVER] == _managed(token)
    assert written["tools"]["ssrfWhitelist"] == ["100.64.0.0/10", "127.0.0.1/32"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in path.parent.iterdir()) == ["config.json"]


@pytest.mark.parametrize(
    ("config_path", "contents", "code"),
    [
        ("{tmp}/missing/config.json", None, "invalid_mcp_config"),
        ("{tmp}/config.json", "{broken", "invalid_mcp_config"),
        ("{tmp}/config.json", "[1, 2]", "invalid_mcp_config"),
        ("relative/config.json", None, "validation_error"),
        ("{tmp}/config.yaml", "{}", "validation_error"),
        ("{tmp}/dir.json", "<dir>", "invalid_mcp_config"),
        ("{tmp}/nul\x00.json", None, "validation_error"),
        ("{tmp}/" + "n" * 300 + ".json", None, "invalid_mcp_config"),
        ("{tmp}/" + "d/" * 500 + "config.json", None, "validation_error"),
    ],
)
def test_an_unusable_adopted_path_is_refused_with_nothing_stored(
    session: Session, home: Path, config_path: str, contents: str | None, code: str
) -> None:
    path = Path(config_path.format(tmp=home))
    home.mkdir(parents=True, exist_ok=True)
    if contents == "<dir>":
        path.mkdir()
    elif contents is not None:
        path.write_text(contents, encoding="utf-8")

    error = _refused(code, bots.create_bot, session=session, name="adopter", config_path=str(path), adopt_existing=True)

    assert error.field == "config_path"
    session.rollback()
    assert bots.count_bots(session=session) == 0
    assert session.exec(select(sa.func.count()).select_from(Topic)).one() == 0
    if contents not in (None, "<dir>"):
        assert path.read_text(encoding="utf-8") == contents


@pytest.mark.parametrize("name", ["", "   ", "x" * 101])
def test_a_bad_name_is_refused(session: Session, name: str) -> None:
    assert _refused("validation_error", bots.create_bot, session=session, name=name).field == "name"
    assert bots.count_bots(session=session) == 0


def test_a_workspace_that_cannot_be_written_stores_nothing(session: Session) -> None:
    data_dir = get_settings().data_dir
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "bots").write_text("a file where the workspaces should go", encoding="utf-8")

    _refused("config_io_error", bots.create_bot, session=session, name="unlucky")

    session.rollback()  # what write_session does when a service raises
    assert bots.count_bots(session=session) == 0


def test_create_without_a_config_leaves_the_bot_without_one(session: Session) -> None:
    bot, _ = bots.create_bot(session=session, name="headless", write_config=False)
    assert bot.config_path is None
    assert not (get_settings().data_dir / "bots").exists()
    _refused("invalid_mcp_config", bots.get_mcp_config, session=session, bot_id=bot.bot_id)


# --- tokens --------------------------------------------------------------------------------------


def test_rotation_rewrites_the_config_and_the_old_token_stops_working(session: Session, home: Path) -> None:
    path = _write(home / "config.json", _adopted_config())
    bot, old = bots.create_bot(session=session, name="rotor", config_path=str(path), adopt_existing=True)
    created_at = session.get(Bot, bot.bot_id).token_created_at

    new = bots.rotate_token(session=session, bot_id=bot.bot_id)

    assert new != old and new.startswith("tdb_")
    assert bots.bot_id_for_token(session=session, token=old) is None
    assert bots.bot_id_for_token(session=session, token=new) == bot.bot_id
    assert _topic_mcp(bot) == _managed(new)
    assert old not in path.read_text(encoding="utf-8")
    written = _config(bot)
    assert list(written["tools"]["mcpServers"]) == ["filesystem", "remote", LOCKED_SERVER, CCWEB_SERVER]
    assert written["tools"]["ssrfWhitelist"] == ["100.64.0.0/10", "127.0.0.1/32"]
    assert written["zzUnknown"] == _adopted_config()["zzUnknown"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert session.get(Bot, bot.bot_id).token_created_at >= created_at


def test_rotation_keeps_a_tool_timeout_the_user_chose(session: Session) -> None:
    bot, token = bots.create_bot(session=session, name="patient")
    bots.put_mcp_config(session=session, bot_id=bot.bot_id, servers={LOCKED_SERVER: _managed(token, toolTimeout=120)})
    new = bots.rotate_token(session=session, bot_id=bot.bot_id)
    assert _topic_mcp(bot) == _managed(new, toolTimeout=120)


def test_rotation_rewrites_a_config_the_user_deleted(session: Session) -> None:
    bot, _ = bots.create_bot(session=session, name="phoenix")
    Path(bot.config_path or "").unlink()
    new = bots.rotate_token(session=session, bot_id=bot.bot_id)
    assert _topic_mcp(bot) == _managed(new)


def test_rotation_refused_by_a_broken_config_keeps_the_old_token(session: Session, home: Path) -> None:
    path = _write(home / "config.json", {})
    bot, old = bots.create_bot(session=session, name="broken", config_path=str(path), adopt_existing=True)
    path.write_text("{ hand-edited and broken", encoding="utf-8")

    _refused("invalid_mcp_config", bots.rotate_token, session=session, bot_id=bot.bot_id)

    session.rollback()
    assert bots.bot_id_for_token(session=session, token=old) == bot.bot_id
    assert path.read_text(encoding="utf-8") == "{ hand-edited and broken"


@pytest.mark.parametrize("token", [None, "", "tdb_unknown", "tda_not-a-bot-token"])
def test_unknown_tokens_resolve_to_nothing(session: Session, token: str | None) -> None:
    bots.create_bot(session=session, name="someone")
    assert bots.bot_id_for_token(session=session, token=token) is None


def test_rotating_an_unknown_bot_is_not_found(session: Session) -> None:
    _refused("bot_not_found", bots.rotate_token, session=session, bot_id="nope")


# --- deletion and statuses ----------------------------------------------------------------------


def test_delete_cascades_and_returns_counts(session: Session) -> None:
    bot, token = bots.create_bot(session=session, name="doomed")
    keep, keep_token = bots.create_bot(session=session, name="survivor")
    for bot_id in (bot.bot_id, keep.bot_id):
        create_topic(session=session, bot_id=bot_id, actor="test", data=TopicCreate(topic_key="ci", name="CI"))
        for n in range(3):
            publish_item(
                session=session, bot_id=bot_id, request=PublishRequest(title=f"t{n}", content="c", topic_key="ci")
            )
    conversation = Conversation(bot_id=bot.bot_id, title="chat")
    session.add(conversation)
    session.flush()
    session.add(Message(conversation_id=conversation.id, seq=1, role="user", content="hello"))
    record_call(session=session, bot_id=bot.bot_id, tool="topic_publish", outcome="ok")

    counts = bots.delete_bot(session=session, bot_id=bot.bot_id)

    assert counts == {"items": 3, "topics": 2, "conversations": 1}
    assert session.get(Bot, bot.bot_id) is None
    for model in (TopicItem, Topic, TopicBotSettings, Conversation):
        assert _rows(session, model, bot.bot_id) == 0, model
    assert session.exec(select(sa.func.count()).select_from(Message)).one() == 0
    assert bots.bot_id_for_token(session=session, token=token) is None
    assert _rows(session, AuditLog, bot.bot_id) == 2  # the trail (topic.create, the tool call) outlives the bot
    assert Path(bot.config_path or "").exists()  # left on disk, with a token that no longer works
    assert (_rows(session, TopicItem, keep.bot_id), _rows(session, Topic, keep.bot_id)) == (3, 2)
    assert bots.bot_id_for_token(session=session, token=keep_token) == keep.bot_id


def test_deleting_an_unknown_bot_is_not_found(session: Session) -> None:
    _refused("bot_not_found", bots.delete_bot, session=session, bot_id="nope")


def test_bot_statuses(session: Session) -> None:
    busy, _ = bots.create_bot(session=session, name="busy")
    idle, _ = bots.create_bot(session=session, name="idle")
    for n in range(2):
        publish_item(
            session=session, bot_id=busy.bot_id, request=PublishRequest(title=f"t{n}", content="c", topic_key="inbox")
        )
    session.add(
        TopicItem(
            bot_id=busy.bot_id, topic_key="inbox", title="old", content="c", created_at=utcnow() - timedelta(days=2)
        )
    )
    session.exec(sa.update(Bot).where(Bot.id == busy.bot_id).values(token_created_at=utcnow() - timedelta(days=3)))
    session.commit()
    record_call(session=session, bot_id=busy.bot_id, tool="topic_publish", outcome="ok")
    set_topic_enabled(session=session, bot_id=idle.bot_id, enabled=False)

    statuses = {status.name: status for status in bots.bot_statuses(session=session)}

    assert list(statuses) == ["busy", "idle"]
    assert (statuses["busy"].items_today, statuses["busy"].items_total) == (2, 3)
    assert (statuses["idle"].items_today, statuses["idle"].items_total) == (0, 0)
    assert 2.99 <= statuses["busy"].token_age_days <= 3.01
    assert statuses["idle"].token_age_days < 0.01
    assert statuses["busy"].last_mcp_call_at is not None and statuses["idle"].last_mcp_call_at is None
    assert (statuses["busy"].topic_enabled, statuses["idle"].topic_enabled) == (True, False)
    assert statuses["busy"].config_path == busy.config_path


# --- the locked MCP config ---------------------------------------------------------------------------


def test_get_mcp_config_marks_topic_mcp_locked(session: Session, home: Path) -> None:
    path = _write(home / "config.json", _adopted_config())
    bot, token = bots.create_bot(session=session, name="reader", config_path=str(path), adopt_existing=True)

    config = bots.get_mcp_config(session=session, bot_id=bot.bot_id)

    assert config.servers == {**OTHER_SERVERS, **_both_masked(token)}
    assert config.locked == {"filesystem": False, "remote": False, LOCKED_SERVER: True, CCWEB_SERVER: True}
    assert config.config_path == str(path) and config.restored is False


def test_get_mcp_config_of_a_deleted_file_is_refused(session: Session) -> None:
    bot, _ = bots.create_bot(session=session, name="gone")
    Path(bot.config_path or "").unlink()
    error = _refused("invalid_mcp_config", bots.get_mcp_config, session=session, bot_id=bot.bot_id)
    assert error.field == "config_path"


def test_put_replaces_the_whole_map_and_restores_topic_mcp(session: Session, home: Path) -> None:
    path = _write(home / "config.json", _adopted_config())
    bot, token = bots.create_bot(session=session, name="putter", config_path=str(path), adopt_existing=True)
    submitted = {"remote": OTHER_SERVERS["remote"], "local": {"type": "stdio", "command": "uvx", "args": ["tool"]}}

    config = bots.put_mcp_config(session=session, bot_id=bot.bot_id, servers=submitted)

    assert config.restored is True
    assert config.servers == {**submitted, **_both_masked(token)}
    assert config.locked == {"remote": False, "local": False, LOCKED_SERVER: True, CCWEB_SERVER: True}
    written = _config(bot)
    assert written["tools"]["mcpServers"] == {**submitted, **_both(token)}
    assert list(written["tools"]["mcpServers"]) == ["remote", "local", LOCKED_SERVER, CCWEB_SERVER]
    assert list(written) == list(_adopted_config())
    assert written["zzUnknown"] == _adopted_config()["zzUnknown"]
    assert written["tools"]["futureKey"] == "kept"
    assert written["tools"]["ssrfWhitelist"] == ["100.64.0.0/10", "127.0.0.1/32"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert bots.get_mcp_config(session=session, bot_id=bot.bot_id).servers == config.servers


def test_put_with_topic_mcp_unchanged_is_not_a_restore_and_may_set_the_timeout(session: Session) -> None:
    bot, token = bots.create_bot(session=session, name="timer")
    config = bots.put_mcp_config(session=session, bot_id=bot.bot_id, servers=_both(token, toolTimeout=300))
    assert config.restored is False
    assert _topic_mcp(bot) == _managed(token, toolTimeout=300)


def test_put_keeps_a_snake_case_file_snake_case(session: Session, home: Path) -> None:
    path = _write(
        home / "config.json",
        {"tools": {"mcp_servers": {"fs": OTHER_SERVERS["filesystem"]}, "ssrf_whitelist": ["127.0.0.0/8"]}},
    )
    bot, token = bots.create_bot(session=session, name="snake", config_path=str(path), adopt_existing=True)

    bots.put_mcp_config(session=session, bot_id=bot.bot_id, servers={"fs2": OTHER_SERVERS["filesystem"]})

    tools = _config(bot)["tools"]
    assert set(tools) == {"mcp_servers", "ssrf_whitelist"}
    assert tools["mcp_servers"] == {"fs2": OTHER_SERVERS["filesystem"], **_both(token)}
    assert tools["ssrf_whitelist"] == ["127.0.0.0/8"]


@pytest.mark.parametrize(
    ("servers", "code", "field"),
    [
        ({LOCKED_SERVER: {"url": "http://evil.example/api/mcp/topic"}}, "locked_field", "mcpServers.topic_mcp.url"),
        ({LOCKED_SERVER: {"type": "sse"}}, "locked_field", "mcpServers.topic_mcp.type"),
        (
            {LOCKED_SERVER: {"headers": {"x-topic-mcp-token": "tdb_other"}}},
            "locked_field",
            "mcpServers.topic_mcp.headers",
        ),
        ({LOCKED_SERVER: {"enabledTools": ["topic_publish"]}}, "locked_field", "mcpServers.topic_mcp.enabledTools"),
        ({LOCKED_SERVER: {"toolTimeout": 601}}, "invalid_mcp_config", "mcpServers.topic_mcp.toolTimeout"),
        ({"x": {"type": "stdio"}}, "invalid_mcp_config", "mcpServers.x.command"),
        ({"x": {"url": "file:///etc/passwd"}}, "invalid_mcp_config", "mcpServers.x.url"),
        ({"x": {"command": "npx", "toolTimeout": "9"}}, "invalid_mcp_config", "mcpServers.x.toolTimeout"),
        ({"x": {"url": "https://x.example/mcp", "headers": {"n": 1}}}, "invalid_mcp_config", "mcpServers.x.headers"),
        ({"x": {"command": "npx", "bogus": 1}}, "invalid_mcp_config", "mcpServers.x.bogus"),
        ([], "invalid_mcp_config", "mcpServers"),
    ],
)
def test_a_refused_put_writes_nothing(session: Session, home: Path, servers: Any, code: str, field: str) -> None:
    path = _write(home / "home" / "config.json", _adopted_config())
    bot, _ = bots.create_bot(session=session, name="guarded", config_path=str(path), adopt_existing=True)
    before = path.read_bytes()

    error = _refused(code, bots.put_mcp_config, session=session, bot_id=bot.bot_id, servers=servers)

    assert error.field == field
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["config.json"]


def test_put_on_a_config_holding_a_stale_token_is_refused(session: Session) -> None:
    bot, token = bots.create_bot(session=session, name="stale")
    path = Path(bot.config_path or "")
    edited = _config(bot)
    edited["tools"]["mcpServers"][LOCKED_SERVER]["headers"]["x-topic-mcp-token"] = "tdb_typed-by-hand"
    path.write_text(json.dumps(edited), encoding="utf-8")
    before = path.read_bytes()

    error = _refused("invalid_mcp_config", bots.put_mcp_config, session=session, bot_id=bot.bot_id, servers={})

    assert error.field == "config_path" and "rotate" in error.message
    assert path.read_bytes() == before
    bots.rotate_token(session=session, bot_id=bot.bot_id)  # the way out the message names
    assert bots.put_mcp_config(session=session, bot_id=bot.bot_id, servers={}).restored is True


def test_mcp_config_of_an_unknown_bot_is_not_found(session: Session) -> None:
    _refused("bot_not_found", bots.get_mcp_config, session=session, bot_id="nope")
    _refused("bot_not_found", bots.put_mcp_config, session=session, bot_id="nope", servers={})


# --- the skill that tells the bot's model about the dashboard ----------------------------------------


def test_a_new_bot_gets_a_workspace_with_the_dashboard_skill(session: Session) -> None:
    from topic_dashboard.bot_config.skill import SKILL_NAME, SKILL_TEXT

    bot, _ = bots.create_bot(session=session, name="skilled")
    workspace = Path(_config(bot)["agents"]["defaults"]["workspace"])
    assert workspace == Path(session.get(Bot, bot.bot_id).workspace_dir or "") / "workspace"
    skill = workspace / "skills" / SKILL_NAME / "SKILL.md"
    assert skill.read_text(encoding="utf-8") == SKILL_TEXT
    assert "always: true" in SKILL_TEXT and "ccweb_list_user_inputs" in SKILL_TEXT


def test_the_skills_guide_card_example_is_one_the_dashboard_renders() -> None:
    """What the model is told to write must be what the relay turns into a form."""
    from topic_dashboard.bot_config.skill import GUIDE_CARD_EXAMPLE, SKILL_TEXT
    from topic_dashboard.services.chat import split_guide_card

    block = SKILL_TEXT[
        SKILL_TEXT.index("```guide_card") : SKILL_TEXT.index("```\n", SKILL_TEXT.index("```guide_card") + 5) + 3
    ]
    rest, card = split_guide_card("Sure:\n" + block)
    assert rest == "Sure:" and card is not None and card["title"] == GUIDE_CARD_EXAMPLE["title"]


def test_no_skill_is_written_outside_the_data_directory(session: Session, home: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    path = _write(home / "cfg" / "config.json", {"agents": {"defaults": {"workspace": str(outside)}}})
    bots.create_bot(session=session, name="adopted", config_path=str(path), adopt_existing=True)
    assert not outside.exists()
    inside = home / "ws"
    path2 = _write(home / "cfg2" / "config.json", {"agents": {"defaults": {"workspace": str(inside)}}})
    bots.create_bot(session=session, name="adopted2", config_path=str(path2), adopt_existing=True)
    assert (inside / "skills" / "topic-dashboard" / "SKILL.md").exists()
