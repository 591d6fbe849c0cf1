"""The nanobot config.json the dashboard manages: the locked topic_mcp entry, the SSRF allowance, atomic writes.

Pure tests: no database, no server. What nanobot itself makes of these files is proven in
tests/nanobot/test_nanobot_config_compat.py.
"""

from __future__ import annotations

import copy
import ipaddress
import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from topic_dashboard.bot_config import (
    LOCKED_SERVER,
    ensure_topic_mcp,
    managed_entry,
    mcp_servers_of,
    merge_mcp_servers,
    read_config,
    ssrf_entries_for,
    validate_server_entry,
    write_config_atomic,
)
from topic_dashboard.errors import AppError

ROOT = Path(__file__).resolve().parents[3]
URL = "http://127.0.0.1:3000/api/mcp/topic"
TOKEN = "tdb_current-token"
ENTRY = managed_entry(mcp_url=URL, token=TOKEN)
OTHER_SERVERS = {
    "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
    "remote": {"type": "sse", "url": "https://mcp.example.com/sse", "headers": {"Authorization": "Bearer x"}},
}


def _adopted() -> dict[str, Any]:
    """A config.json a user already has: unknown keys everywhere, other servers, a whitelist of its own."""
    return {
        "agents": {"defaults": {"model": "anthropic/claude-opus-4-5", "workspace": "~/.nanobot/workspace"}},
        "zzUnknownTopLevel": {"kept": [1, 2, 3]},
        "tools": {
            "web": {"search": {"apiKey": "brave-key"}},
            "mcpServers": copy.deepcopy(OTHER_SERVERS),
            "futureToolsKey": True,
            "ssrfWhitelist": ["100.64.0.0/10"],
        },
        "channels": {"sendProgress": False, "telegram": {"enabled": True, "token": "t"}},
    }


def _refusal(code: str, fn: Any, *args: Any) -> AppError:
    with pytest.raises(AppError) as excinfo:
        fn(*args)
    assert excinfo.value.code == code, excinfo.value
    return excinfo.value


# --- managed entry and ensure_topic_mcp ---------------------------------------------------------


def test_managed_entry_is_exactly_what_the_issue_prescribes() -> None:
    assert ENTRY == {
        "type": "streamableHttp",
        "url": URL,
        "headers": {"x-topic-mcp-token": TOKEN},
        "toolTimeout": 30,
    }


def test_a_new_config_gets_topic_mcp_and_the_loopback_allowance() -> None:
    config = ensure_topic_mcp({}, ENTRY, mcp_url=URL)
    assert config == {"tools": {"mcpServers": {LOCKED_SERVER: ENTRY}, "ssrfWhitelist": ["127.0.0.1/32"]}}


def test_everything_else_in_an_adopted_config_survives_in_order() -> None:
    original = _adopted()
    before = copy.deepcopy(original)

    config = ensure_topic_mcp(original, ENTRY, mcp_url=URL)

    assert original == before, "the caller's dict must not be changed"
    assert list(config) == list(before)
    assert list(config["tools"]) == list(before["tools"])
    for key in ("agents", "zzUnknownTopLevel", "channels"):
        assert config[key] == before[key]
    assert config["tools"]["web"] == before["tools"]["web"]
    assert config["tools"]["futureToolsKey"] is True
    servers = config["tools"]["mcpServers"]
    assert list(servers) == ["filesystem", "remote", LOCKED_SERVER]
    assert {name: servers[name] for name in OTHER_SERVERS} == OTHER_SERVERS
    assert servers[LOCKED_SERVER] == ENTRY
    assert config["tools"]["ssrfWhitelist"] == ["100.64.0.0/10", "127.0.0.1/32"]
    # What is written must round-trip through JSON in the same order.
    assert list(json.loads(json.dumps(config))["tools"]["mcpServers"]) == ["filesystem", "remote", LOCKED_SERVER]


def test_an_existing_topic_mcp_is_rewritten_in_place() -> None:
    stale = {
        "type": "sse",
        "url": "http://elsewhere:1/mcp",
        "headers": {"x-topic-mcp-token": "tdb_old", "X-Extra": "1"},
        "command": "rogue",
    }
    servers = {"first": OTHER_SERVERS["remote"], LOCKED_SERVER: stale, "last": OTHER_SERVERS["filesystem"]}
    original = {"tools": {"mcpServers": servers}}

    servers = ensure_topic_mcp(original, ENTRY, mcp_url=URL)["tools"]["mcpServers"]

    assert list(servers) == ["first", LOCKED_SERVER, "last"]
    assert servers[LOCKED_SERVER] == ENTRY


@pytest.mark.parametrize("timeout", [1, 45, 600])
def test_a_tool_timeout_the_user_chose_is_kept(timeout: int) -> None:
    original = {"tools": {"mcpServers": {LOCKED_SERVER: {**ENTRY, "toolTimeout": timeout}}}}
    servers = ensure_topic_mcp(original, ENTRY, mcp_url=URL)["tools"]["mcpServers"]
    assert servers[LOCKED_SERVER]["toolTimeout"] == timeout


@pytest.mark.parametrize("timeout", [0, 601, "45", 4.5, True, None])
def test_an_out_of_bounds_tool_timeout_is_replaced_by_the_default(timeout: Any) -> None:
    original = {"tools": {"mcpServers": {LOCKED_SERVER: {**ENTRY, "toolTimeout": timeout}}}}
    assert ensure_topic_mcp(original, ENTRY, mcp_url=URL)["tools"]["mcpServers"][LOCKED_SERVER] == ENTRY


def test_snake_case_files_stay_snake_case() -> None:
    original = {"tools": {"mcp_servers": {"filesystem": OTHER_SERVERS["filesystem"]}, "ssrf_whitelist": ["10.0.0.0/8"]}}

    tools = ensure_topic_mcp(original, ENTRY, mcp_url=URL)["tools"]

    assert set(tools) == {"mcp_servers", "ssrf_whitelist"}
    assert list(tools["mcp_servers"]) == ["filesystem", LOCKED_SERVER]
    assert tools["ssrf_whitelist"] == ["10.0.0.0/8", "127.0.0.1/32"]
    assert mcp_servers_of({"tools": tools})[LOCKED_SERVER] == ENTRY


def test_a_file_with_both_spellings_is_written_in_camel_case() -> None:
    original = {"tools": {"mcpServers": {}, "mcp_servers": {"old": OTHER_SERVERS["filesystem"]}}}
    tools = ensure_topic_mcp(original, ENTRY, mcp_url=URL)["tools"]
    assert tools["mcpServers"] == {LOCKED_SERVER: ENTRY}
    assert tools["mcp_servers"] == {"old": OTHER_SERVERS["filesystem"]}


def test_existing_whitelist_entries_are_kept_and_not_duplicated() -> None:
    original = {"tools": {"ssrfWhitelist": ["100.64.0.0/10", "127.0.0.1/32", "not a cidr"]}}
    config = original
    for _ in range(3):  # every rewrite (rotation, PUT) goes through here again
        config = ensure_topic_mcp(config, ENTRY, mcp_url=URL)
    assert config["tools"]["ssrfWhitelist"] == ["100.64.0.0/10", "127.0.0.1/32", "not a cidr"]


@pytest.mark.parametrize("covering", ["127.0.0.0/8", "127.0.0.1", "127.0.0.1/32", "0.0.0.0/0"])
def test_an_entry_already_covering_the_address_means_nothing_is_added(covering: str) -> None:
    config = ensure_topic_mcp({"tools": {"ssrfWhitelist": [covering]}}, ENTRY, mcp_url=URL)
    assert config["tools"]["ssrfWhitelist"] == [covering]


def test_a_wider_entry_of_another_range_does_not_count() -> None:
    config = ensure_topic_mcp({"tools": {"ssrfWhitelist": ["10.0.0.0/8"]}}, ENTRY, mcp_url=URL)
    assert config["tools"]["ssrfWhitelist"] == ["10.0.0.0/8", "127.0.0.1/32"]


@pytest.mark.parametrize("url", ["https://93.184.216.34/api/mcp/topic", "http://[2606:4700::1111]:8080/api/mcp/topic"])
def test_a_public_address_adds_nothing(url: str) -> None:
    config = ensure_topic_mcp({}, managed_entry(mcp_url=url, token=TOKEN), mcp_url=url)
    assert "ssrfWhitelist" not in config["tools"]
    kept = ensure_topic_mcp({"tools": {"ssrfWhitelist": ["10.0.0.0/8"]}}, ENTRY, mcp_url=url)
    assert kept["tools"]["ssrfWhitelist"] == ["10.0.0.0/8"]


def test_an_unresolvable_host_adds_nothing() -> None:
    assert ssrf_entries_for("http://no-such-host.invalid/api/mcp/topic") == []


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://127.0.0.1:3000/api/mcp/topic", ["127.0.0.1/32"]),
        ("http://127.5.6.7/api/mcp/topic", ["127.5.6.7/32"]),
        ("http://10.1.2.3:3000/api/mcp/topic", ["10.1.2.3/32"]),
        ("http://172.20.0.4/api/mcp/topic", ["172.20.0.4/32"]),
        ("http://192.168.1.20:3000/api/mcp/topic", ["192.168.1.20/32"]),
        ("http://100.101.102.103/api/mcp/topic", ["100.101.102.103/32"]),  # CGNAT (Tailscale)
        ("http://169.254.10.10/api/mcp/topic", ["169.254.10.10/32"]),
        ("http://[::1]:3000/api/mcp/topic", ["::1/128"]),
        ("http://[fd12:3456::1]/api/mcp/topic", ["fd12:3456::1/128"]),
        ("http://[fe80::1]/api/mcp/topic", ["fe80::1/128"]),
        ("http://[::ffff:127.0.0.1]:3000/api/mcp/topic", ["127.0.0.1/32"]),  # nanobot normalises mapped v4
    ],
)
def test_private_addresses_get_the_narrowest_entry(url: str, expected: list[str]) -> None:
    assert ssrf_entries_for(url) == expected
    assert ensure_topic_mcp({}, ENTRY, mcp_url=url)["tools"]["ssrfWhitelist"] == expected


def test_localhost_gets_an_entry_for_each_loopback_address_it_resolves_to() -> None:
    entries = ssrf_entries_for("http://localhost:3000/api/mcp/topic")
    assert entries
    networks = [ipaddress.ip_network(entry) for entry in entries]
    assert all(net.network_address.is_loopback and net.prefixlen == net.max_prefixlen for net in networks)
    config = ensure_topic_mcp({}, ENTRY, mcp_url="http://localhost:3000/api/mcp/topic")
    assert config["tools"]["ssrfWhitelist"] == entries


def test_a_non_object_tools_section_is_replaced() -> None:
    config = ensure_topic_mcp({"tools": "garbage", "keep": 1}, ENTRY, mcp_url=URL)
    assert config == {"tools": {"mcpServers": {LOCKED_SERVER: ENTRY}, "ssrfWhitelist": ["127.0.0.1/32"]}, "keep": 1}


# --- merge_mcp_servers: the lock --------------------------------------------------------------------


def test_a_missing_topic_mcp_is_restored() -> None:
    servers, restored = merge_mcp_servers(copy.deepcopy(OTHER_SERVERS), ENTRY)
    assert restored is True
    assert list(servers) == ["filesystem", "remote", LOCKED_SERVER]
    assert servers[LOCKED_SERVER] == ENTRY
    assert {name: servers[name] for name in OTHER_SERVERS} == OTHER_SERVERS


def test_an_empty_map_is_restored_to_topic_mcp_alone() -> None:
    assert merge_mcp_servers({}, ENTRY) == ({LOCKED_SERVER: ENTRY}, True)


def test_an_unchanged_topic_mcp_is_not_restored() -> None:
    submitted = {LOCKED_SERVER: dict(ENTRY), **copy.deepcopy(OTHER_SERVERS)}
    servers, restored = merge_mcp_servers(submitted, ENTRY)
    assert restored is False
    assert list(servers) == [LOCKED_SERVER, "filesystem", "remote"]
    assert servers[LOCKED_SERVER] == ENTRY


def test_topic_mcp_may_omit_the_managed_fields_and_gets_them_back() -> None:
    servers, restored = merge_mcp_servers({LOCKED_SERVER: {"toolTimeout": 90}}, ENTRY)
    assert restored is False
    assert servers[LOCKED_SERVER] == {**ENTRY, "toolTimeout": 90}


def test_snake_case_tool_timeout_on_topic_mcp_is_read() -> None:
    servers, _ = merge_mcp_servers(
        {LOCKED_SERVER: {**{k: v for k, v in ENTRY.items() if k != "toolTimeout"}, "tool_timeout": 75}}, ENTRY
    )
    assert servers[LOCKED_SERVER] == {**ENTRY, "toolTimeout": 75}


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("type", "sse"),
        ("type", "stdio"),
        ("url", "http://evil.example:3000/api/mcp/topic"),
        ("url", URL + "/"),
        ("headers", {"x-topic-mcp-token": "tdb_someone-else"}),
        ("headers", {"x-topic-mcp-token": TOKEN, "X-Extra": "1"}),
        ("headers", {}),
    ],
)
def test_changing_a_managed_field_is_refused_naming_it(field: str, value: Any) -> None:
    error = _refusal("locked_field", merge_mcp_servers, {LOCKED_SERVER: {**ENTRY, field: value}}, ENTRY)
    assert error.field == f"mcpServers.{LOCKED_SERVER}.{field}"
    assert field in error.message and error.status == 422


@pytest.mark.parametrize("extra", ["command", "args", "env", "enabledTools", "auth", "somethingNew"])
def test_other_keys_on_topic_mcp_are_refused(extra: str) -> None:
    error = _refusal("locked_field", merge_mcp_servers, {LOCKED_SERVER: {**ENTRY, extra: ["x"]}}, ENTRY)
    assert error.field == f"mcpServers.{LOCKED_SERVER}.{extra}"


@pytest.mark.parametrize("timeout", [1, 30, 600])
def test_tool_timeout_may_be_set_within_bounds(timeout: int) -> None:
    servers, _ = merge_mcp_servers({LOCKED_SERVER: {**ENTRY, "toolTimeout": timeout}}, ENTRY)
    assert servers[LOCKED_SERVER] == {**ENTRY, "toolTimeout": timeout}


@pytest.mark.parametrize("timeout", [0, -5, 601, 10**9, "30", 30.5, True, None, [30]])
def test_tool_timeout_out_of_bounds_or_not_an_integer_is_refused(timeout: Any) -> None:
    error = _refusal("invalid_mcp_config", merge_mcp_servers, {LOCKED_SERVER: {**ENTRY, "toolTimeout": timeout}}, ENTRY)
    assert error.field == f"mcpServers.{LOCKED_SERVER}.toolTimeout"


@pytest.mark.parametrize("entry", ["streamableHttp", None, ["url"]])
def test_a_non_object_topic_mcp_is_refused(entry: Any) -> None:
    error = _refusal("invalid_mcp_config", merge_mcp_servers, {LOCKED_SERVER: entry}, ENTRY)
    assert error.field == f"mcpServers.{LOCKED_SERVER}"


@pytest.mark.parametrize("submitted", [None, [], "mcpServers", [{"topic_mcp": {}}]])
def test_a_map_that_is_not_an_object_is_refused(submitted: Any) -> None:
    assert _refusal("invalid_mcp_config", merge_mcp_servers, submitted, ENTRY).field == "mcpServers"


def test_a_blank_server_name_is_refused() -> None:
    error = _refusal("invalid_mcp_config", merge_mcp_servers, {"  ": OTHER_SERVERS["remote"]}, ENTRY)
    assert error.field == "mcpServers"


# --- merge_mcp_servers: other servers, the way nanobot reads them ---------------------------------------------


@pytest.mark.parametrize(
    "entry",
    [
        {"command": "npx", "args": ["-y", "pkg"], "env": {"A": "1"}, "cwd": "/srv"},
        {"type": "stdio", "command": "uvx", "toolTimeout": 600, "enabledTools": ["read_file"]},
        {"type": "sse", "url": "https://mcp.example.com/sse"},
        {
            "type": "streamableHttp",
            "url": "http://10.0.0.2:9000/mcp",
            "headers": {"Authorization": "Bearer t"},
            "tool_timeout": 5,
            "enabled_tools": ["*"],
        },
        {"url": "https://mcp.example.com/mcp", "auth": "oauth"},
        {"url": "https://mcp.example.com/mcp", "auth": None},
    ],
)
def test_valid_other_servers_are_kept_as_given(entry: dict[str, Any]) -> None:
    servers, restored = merge_mcp_servers({"other": copy.deepcopy(entry)}, ENTRY)
    assert servers["other"] == entry and restored is True


@pytest.mark.parametrize(
    ("entry", "field"),
    [
        ({"type": "stdio"}, "command"),
        ({"type": "stdio", "command": "   "}, "command"),
        ({"type": "stdio", "command": ["npx"]}, "command"),
        ({}, "type"),
        ({"type": "websocket", "url": "ws://x/mcp"}, "type"),
        ({"type": "sse", "url": "ftp://mcp.example.com/sse"}, "url"),
        ({"type": "streamableHttp", "url": "mcp.example.com/mcp"}, "url"),
        ({"type": "streamableHttp"}, "url"),
        ({"type": "streamableHttp", "url": "http:///mcp"}, "url"),
        ({"command": "npx", "toolTimeout": "30"}, "toolTimeout"),
        ({"command": "npx", "toolTimeout": 12.5}, "toolTimeout"),
        ({"command": "npx", "toolTimeout": 0}, "toolTimeout"),
        ({"command": "npx", "tool_timeout": False}, "tool_timeout"),
        ({"url": "https://x.example/mcp", "headers": {"Authorization": 1}}, "headers"),
        ({"url": "https://x.example/mcp", "headers": ["Authorization: x"]}, "headers"),
        ({"command": "npx", "env": {"A": None}}, "env"),
        ({"command": "npx", "args": "-y pkg"}, "args"),
        ({"command": "npx", "args": ["-y", 3]}, "args"),
        ({"command": "npx", "enabledTools": "read_file"}, "enabledTools"),
        ({"command": "npx", "cwd": 7}, "cwd"),
        ({"url": "https://x.example/mcp", "auth": "basic"}, "auth"),
        ({"command": "npx", "unknownKey": 1}, "unknownKey"),
        ({"command": "npx", "timeout": 30}, "timeout"),
    ],
)
def test_invalid_other_servers_are_refused_naming_the_field(entry: dict[str, Any], field: str) -> None:
    error = _refusal("invalid_mcp_config", merge_mcp_servers, {"other": entry, LOCKED_SERVER: ENTRY}, ENTRY)
    assert error.field == f"mcpServers.other.{field}"
    assert error.status == 422


@pytest.mark.parametrize("entry", ["npx", None, 3, ["npx"]])
def test_a_server_entry_must_be_an_object(entry: Any) -> None:
    assert _refusal("invalid_mcp_config", validate_server_entry, "other", entry).field == "mcpServers.other"


# --- read_config ---------------------------------------------------------------------------------


def test_read_config_keeps_key_order(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text('{"z": 1, "a": {"y": 2, "b": 3}, "m": []}', encoding="utf-8")
    data = read_config(path)
    assert list(data) == ["z", "a", "m"] and list(data["a"]) == ["y", "b"]


def test_an_empty_file_reads_as_an_empty_config(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text("  \n", encoding="utf-8")
    assert read_config(path) == {}


@pytest.mark.parametrize(
    ("text", "name"),
    [(None, "missing.json"), ("{not json", "config.json"), ("[1, 2]", "config.json"), ('"text"', "config.json")],
)
def test_unreadable_configs_are_refused(tmp_path: Path, text: str | None, name: str) -> None:
    path = tmp_path / name
    if text is not None:
        path.write_text(text, encoding="utf-8")
    error = _refusal("invalid_mcp_config", read_config, path)
    assert error.field == "config_path"


def test_a_path_that_names_no_file_is_the_callers_to_fix(tmp_path: Path) -> None:
    (tmp_path / "dir.json").mkdir()
    (tmp_path / "file").write_text("{}", encoding="utf-8")
    for path in (tmp_path / "dir.json", tmp_path / "file" / "config.json", tmp_path / ("n" * 300 + ".json")):
        assert _refusal("invalid_mcp_config", read_config, path).field == "config_path"


def test_a_file_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_bytes(b'{"name": "\xff\xfe"}')
    assert _refusal("invalid_mcp_config", read_config, path).field == "config_path"


# --- write_config_atomic ----------------------------------------------------------------------------


def test_write_creates_directories_and_a_file_only_its_owner_can_read(tmp_path: Path) -> None:
    path = tmp_path / "bots" / "b1" / ".nanobot" / "config.json"
    data = ensure_topic_mcp(_adopted(), ENTRY, mcp_url=URL)

    write_config_atomic(path, data)

    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert os.listdir(path.parent) == ["config.json"]
    text = path.read_text(encoding="utf-8")
    assert json.loads(text) == data
    assert list(json.loads(text)) == list(data)
    assert list(json.loads(text)["tools"]["mcpServers"]) == ["filesystem", "remote", LOCKED_SERVER]


def test_rewriting_a_group_readable_file_makes_it_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text("{}", encoding="utf-8")
    path.chmod(0o644)
    write_config_atomic(path, {"tools": {"mcpServers": {LOCKED_SERVER: ENTRY}}})
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_config(path) == {"tools": {"mcpServers": {LOCKED_SERVER: ENTRY}}}
    assert os.listdir(tmp_path) == ["config.json"]


def test_write_replaces_the_file_rather_than_writing_into_it(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    write_config_atomic(path, {"v": 1})
    inode = path.stat().st_ino
    write_config_atomic(path, {"v": 2})
    assert path.stat().st_ino != inode
    assert read_config(path) == {"v": 2}


def test_non_ascii_text_is_written_as_utf8(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    write_config_atomic(path, {"agents": {"name": "Küchen-Bot ✓"}})
    assert read_config(path) == {"agents": {"name": "Küchen-Bot ✓"}}


def test_a_parent_that_is_a_regular_file_is_an_io_error(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("keep me", encoding="utf-8")
    error = _refusal("config_io_error", write_config_atomic, blocker / "config.json", {"a": 1})
    assert error.status == 500
    assert blocker.read_text(encoding="utf-8") == "keep me"
    assert os.listdir(tmp_path) == ["not-a-dir"]


def test_a_directory_in_the_way_is_an_io_error_and_no_temp_file_is_left(tmp_path: Path) -> None:
    target = tmp_path / "config.json"
    target.mkdir()
    (target / "inside").write_text("x", encoding="utf-8")
    _refusal("config_io_error", write_config_atomic, target, {"a": 1})
    assert sorted(os.listdir(tmp_path)) == ["config.json"]
    assert os.listdir(target) == ["inside"]


_FAILING_WRITE = textwrap.dedent(
    """
    import json, resource, signal, sys
    from pathlib import Path
    from topic_dashboard.bot_config import write_config_atomic
    from topic_dashboard.errors import AppError

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit then fails with EFBIG
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
    try:
        write_config_atomic(Path(sys.argv[1]), {"big": "x" * 100_000})
    except AppError as exc:
        print(json.dumps({"code": exc.code, "message": exc.message}))
    else:
        print(json.dumps({"code": None}))
    """
)


def test_a_write_that_fails_midway_raises_and_leaves_the_old_file_intact(tmp_path: Path) -> None:
    """The disk fills up mid-write (RLIMIT_FSIZE, in a child process): the old config.json stays whole."""
    path = tmp_path / "config.json"
    write_config_atomic(path, {"tools": {"mcpServers": {LOCKED_SERVER: ENTRY}}})
    before = path.read_bytes()

    done = subprocess.run(
        [sys.executable, "-c", _FAILING_WRITE, str(path)], capture_output=True, text=True, timeout=60, cwd=ROOT
    )

    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    assert outcome["code"] == "config_io_error", outcome
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["config.json"]
