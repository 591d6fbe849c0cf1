"""A real `nanobot serve` (nanobot-ai 0.3.5, own venv) with a scripted LLM, publishing through the live app.

One nanobot per module (and database backend), on the config the dashboard wrote for a bot, with an
API key; each test gives the scripted LLM its own script and its own nanobot session ids.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from tests.support.nanobot_serve import NanobotServe, nanobot_serve_available
from tests.support.scripted_llm import (
    Reply,
    ScriptedLLM,
    Text,
    ToolCall,
    called,
    last_user_text,
    tool_names,
    tool_results,
    user_texts,
)
from tests.support.server import LiveServer
from tests.support.topics import CI_CONTENT, CI_RULE
from topic_dashboard.db import create_db_engine
from topic_dashboard.models import TopicItem
from topic_dashboard.services.bots import BotPublic, create_bot
from topic_dashboard.services.topics import TopicCreate, create_topic

PUBLISH = "mcp_topic_mcp_topic_publish"
TOPIC_TOOLS = {
    "mcp_topic_mcp_topic_list_topics",
    "mcp_topic_mcp_topic_get_schema",
    "mcp_topic_mcp_topic_route",
    PUBLISH,
}
API_KEY = "test-api-key"

pytestmark = [
    pytest.mark.nanobot,
    pytest.mark.skipif(
        not nanobot_serve_available(),
        reason="nanobot's venv (with aiohttp) is missing in .tools/nanobot-venv; `make test` installs it",
    ),
]


def _no_script(request: dict[str, Any]) -> Reply:
    raise AssertionError(f"no script for {last_user_text(request)!r}")


@pytest.fixture(scope="module")
def db(server: LiveServer) -> Iterator[Engine]:
    """The live server's database. Sessions on it stay short: an open transaction would hold the
    SQLite writer (the dashboard's, serving nanobot) until it times out."""
    engine = create_db_engine(server.database_url)
    yield engine
    engine.dispose()


@pytest.fixture(scope="module")
def bot(db: Engine) -> BotPublic:
    with Session(db) as session:
        bot, _ = create_bot(session=session, name="nanobot-serve")
        create_topic(
            session=session,
            bot_id=bot.bot_id,
            actor="test",
            data=TopicCreate(topic_key="ci", name="CI", routing_json=CI_RULE),
        )
    return bot


def _items(db: Engine, bot: BotPublic) -> list[TopicItem]:
    with Session(db) as session:
        return list(session.exec(select(TopicItem).where(TopicItem.bot_id == bot.bot_id).order_by(TopicItem.id)))  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def llm_server() -> Iterator[ScriptedLLM]:
    with ScriptedLLM(_no_script) as llm:
        yield llm


@pytest.fixture(scope="module")
def nanobot(
    server: LiveServer, bot: BotPublic, llm_server: ScriptedLLM, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[NanobotServe]:
    assert bot.config_path
    bot_config = json.loads(Path(bot.config_path).read_text(encoding="utf-8"))  # as the dashboard wrote it
    assert bot_config["tools"]["mcpServers"]["topic_mcp"]["url"] == server.topic_mcp_url
    with NanobotServe(
        bot_config, llm_base_url=llm_server.base_url, workdir=tmp_path_factory.mktemp("nanobot"), api_key=API_KEY
    ) as serve:
        yield serve


@pytest.fixture
def llm(llm_server: ScriptedLLM) -> Iterator[ScriptedLLM]:
    """The module's scripted LLM, with an empty log; each test sets its `script`."""
    llm_server.clear()
    yield llm_server
    llm_server.script = _no_script
    assert not llm_server.errors, llm_server.errors[-1]


def _chat(nanobot: NanobotServe, text: str, session_id: str) -> tuple[str, list[dict[str, Any]]]:
    """POST one user turn with stream=true; returns the answer text and every event of the stream."""
    body = {"messages": [{"role": "user", "content": text}], "session_id": session_id, "stream": True}
    events: list[dict[str, Any]] = []
    with httpx.Client(timeout=60, trust_env=False) as client:
        with client.stream("POST", nanobot.url + "/v1/chat/completions", json=body, headers=nanobot.headers) as resp:
            assert resp.status_code == 200, resp.read().decode() + "\n" + nanobot.log_tail()
            assert resp.headers["content-type"].startswith("text/event-stream")
            done = False
            for line in resp.iter_lines():
                if not line.startswith("data: "):
                    continue
                assert not done, "an event after [DONE]"
                if line == "data: [DONE]":
                    done = True
                else:
                    events.append(json.loads(line[len("data: ") :]))
    assert done, "the stream ended without [DONE] (nanobot failed the turn):\n" + nanobot.log_tail()
    answer = "".join(e["choices"][0]["delta"].get("content", "") for e in events)
    return answer, events


def test_a_user_turn_makes_nanobot_publish_through_the_dashboard_and_stream_the_answer(
    nanobot: NanobotServe, llm: ScriptedLLM, bot: BotPublic, db: Engine
) -> None:
    def script(request: dict[str, Any]) -> Reply:
        assert last_user_text(request) == "run the build and tell me"
        if called(request, PUBLISH):
            return Text("Done: ", "published.", delay=0.05)
        arguments = {"title": "CI build #42 failed", "content": CI_CONTENT, "topic_key": "ci", "message_type": "result"}
        return [ToolCall(PUBLISH, arguments)]

    llm.script = script
    answer, events = _chat(nanobot, "run the build and tell me", "conv-1")

    assert answer == "Done: published."
    content_events = [e for e in events if e["choices"][0]["delta"].get("content")]
    assert len(content_events) >= 2  # streamed as the model produced it, not in one piece
    assert events[-1]["choices"][0]["finish_reason"] == "stop"
    assert {e["object"] for e in events} == {"chat.completion.chunk"}

    first, second = llm.requests  # one model call for the tool, one for the answer
    assert TOPIC_TOOLS <= set(tool_names(first))  # nanobot connected to the dashboard's topic_mcp
    [result] = tool_results(second)
    assert result.name == PUBLISH
    published = json.loads(result.text)  # the model is shown the tool's JSON text
    assert published["ok"] is True and published["topic_key"] == "ci" and published["deduplicated"] is False

    items = _items(db, bot)
    assert [(i.id, i.topic_key, i.title, i.content, i.message_type, i.source) for i in items] == [
        (published["item_id"], "ci", "CI build #42 failed", CI_CONTENT, "result", "mcp")
    ]


def test_each_session_id_is_one_nanobot_session(nanobot: NanobotServe, llm: ScriptedLLM) -> None:
    llm.script = lambda request: Text(f"noted: {last_user_text(request)}")

    assert _chat(nanobot, "the build is green", "conv-a")[0] == "noted: the build is green"
    assert _chat(nanobot, "what did I say?", "conv-a")[0] == "noted: what did I say?"
    assert _chat(nanobot, "what did I say?", "conv-b")[0] == "noted: what did I say?"

    first, same_session, other_session = llm.requests
    assert user_texts(first) == ["the build is green"]
    assert user_texts(same_session) == ["the build is green", "what did I say?"]
    assistant = [m["content"] for m in same_session["messages"] if m["role"] == "assistant"]
    assert assistant == ["noted: the build is green"]
    assert user_texts(other_session) == ["what did I say?"]


def test_with_an_api_key_a_request_without_it_is_refused(nanobot: NanobotServe, llm: ScriptedLLM) -> None:
    body = {"messages": [{"role": "user", "content": "hello"}], "session_id": "conv-401", "stream": True}
    url = nanobot.url + "/v1/chat/completions"
    with httpx.Client(timeout=30, trust_env=False) as client:
        missing = client.post(url, json=body)
        wrong = client.post(url, json=body, headers={"Authorization": "Bearer not-the-key"})
        models = client.get(nanobot.url + "/v1/models")
        health = client.get(nanobot.url + "/health")

    assert missing.status_code == 401
    assert missing.json()["error"]["code"] == 401 and "Authorization" in missing.json()["error"]["message"]
    assert wrong.status_code == 401 and wrong.json()["error"]["message"] == "Invalid API key"
    assert models.status_code == 401  # every route but /health
    assert health.status_code == 200
    assert llm.requests == []  # refused before any turn ran


def test_a_refused_publish_reaches_the_model_as_a_tool_error_and_stores_nothing(
    nanobot: NanobotServe, llm: ScriptedLLM, bot: BotPublic, db: Engine
) -> None:
    before = _items(db, bot)

    def script(request: dict[str, Any]) -> Reply:
        if called(request, PUBLISH):
            return Text("Could not publish that.")
        return [ToolCall(PUBLISH, {"title": "Working on it", "content": "step 2 of 5", "message_type": "progress"})]

    llm.script = script
    assert _chat(nanobot, "how far along are you?", "conv-refused")[0] == "Could not publish that."

    [result] = tool_results(llm.requests[-1])
    assert result.name == PUBLISH
    # nanobot marks a tool error by appending its own hint to the tool's JSON text.
    error_json, hint = result.text.split("\n\n", 1)
    assert json.loads(error_json)["error"]["code"] == "filtered_progress"
    assert hint == "[Analyze the error above and try a different approach.]"
    assert [i.id for i in _items(db, bot)] == [i.id for i in before]


def test_the_stream_carries_the_text_of_every_model_call_of_the_turn(nanobot: NanobotServe, llm: ScriptedLLM) -> None:
    """nanobot streams what the model says before a tool call too, glued to the final answer
    (no separator); only the non-streaming answer is the final text alone."""

    def script(request: dict[str, Any]) -> Reply:
        if called(request, "list_dir"):
            return Text("final answer")
        return [Text("Let me look first."), ToolCall("list_dir", {"path": "."})]

    llm.script = script
    assert _chat(nanobot, "look around", "conv-interim")[0] == "Let me look first.final answer"

    body = {"messages": [{"role": "user", "content": "look around"}], "session_id": "conv-interim-2"}
    answer = httpx.post(nanobot.url + "/v1/chat/completions", json=body, headers=nanobot.headers, timeout=60)
    assert answer.json()["choices"][0]["message"]["content"] == "final answer"
