"""The dashboard channel end to end: a person chats with a real `nanobot serve` (nanobot-ai 0.3.5,
its own venv) in the browser, the bot's scripted model reads the conversation back with
`ccweb_list_user_inputs` (no arguments), routes and publishes through `topic_mcp`, and the answer
streams into the page while the item appears in the Topic panel, linked to the conversation.
No network: the model is tests/support/scripted_llm.py."""

from __future__ import annotations

import json
import re
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from pytest_playwright import CreateContextCallback
from sqlmodel import Session, select

from tests.e2e.accounts_support import PAGE_LOAD_MS, log_in, unique
from tests.e2e.conftest import E2EApp, screenshot_path
from tests.e2e.pages.bots import BotsPage
from tests.e2e.pages.conversations import ConversationsPage
from tests.e2e.pages.topic_panel import TopicPanel
from tests.support.nanobot_serve import NanobotServe, nanobot_serve_available
from tests.support.scripted_llm import Reply, ScriptedLLM, Text, ToolCall, called, last_user_text, tool_results
from tests.support.topics import CI_RULE
from topic_dashboard.bot_config.skill import GUIDE_CARD_EXAMPLE
from topic_dashboard.errors import AppError
from topic_dashboard.models import TopicItem
from topic_dashboard.services import chat
from topic_dashboard.services.bots import create_bot
from topic_dashboard.services.conversations import create_conversation, get_conversation, list_messages
from topic_dashboard.services.topics import TopicCreate, create_topic

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.private_instance,
    pytest.mark.skipif(
        not nanobot_serve_available(), reason="nanobot's venv (with aiohttp) is missing; `make test` installs it"
    ),
]

ADMIN = "channel-admin"
API_KEY = "nanobot-api-key"
CCWEB = "mcp_ccweb_ccweb_list_user_inputs"
ROUTE = "mcp_topic_mcp_topic_route"
PUBLISH = "mcp_topic_mcp_topic_publish"
BUILD = "Build #88 on main passed: 412 tests green, artifact web-1.8.0.tar.gz uploaded."
ANSWER_PARTS = ("Build #88 ", "passed ", "on main. ", "I published ", "it to ", "Builds.")
CARD = GUIDE_CARD_EXAMPLE  # the model writes exactly what the dashboard's skill tells it to


def script(request: dict[str, Any]) -> Reply:
    """The bot's model: what a careful agent does with each kind of request."""
    user = last_user_text(request)
    if "run the build" in user:
        if not called(request, CCWEB):
            return [ToolCall(CCWEB, {})]  # no arguments: the conversation being answered
        if not called(request, ROUTE):
            return [ToolCall(ROUTE, {"content": BUILD, "title": "Build #88 passed", "message_type": "result"})]
        if not called(request, PUBLISH):
            return [ToolCall(PUBLISH, {"topic_key": "builds", "title": "Build #88 passed", "content": BUILD})]
        return Text(*ANSWER_PARTS, delay=0.4)
    if "tell me a long story" in user:
        return Text(*[f"part {n}. " for n in range(40)], delay=0.25)
    if "make a report" in user:
        return Text("Sure. A few details first:\n```guide_card\n" + json.dumps(CARD) + "\n```")
    if user.startswith("Before I start"):
        return Text("Thanks: starting on " + user.splitlines()[1].split(": ", 1)[1] + ".")
    if "what did I ask" in user:
        if not called(request, CCWEB):
            return [ToolCall(CCWEB, {})]
        inputs = json.loads(tool_results(request)[-1].text)
        return Text("You asked: " + " | ".join(item["content"] for item in inputs["items"]))
    return Text("Hello! (" + user[:40] + ")")


@pytest.fixture(scope="module")
def bot(e2e_app: E2EApp) -> tuple[str, Path]:
    with Session(e2e_app.engine) as session:
        bot, _ = create_bot(session=session, name=unique("channel-bot"))
        create_topic(
            session=session,
            bot_id=bot.bot_id,
            actor="test",
            data=TopicCreate(topic_key="builds", name="Builds", routing_json=CI_RULE),
        )
    assert bot.config_path
    return bot.bot_id, Path(bot.config_path)


@pytest.fixture(scope="module")
def llm() -> Iterator[ScriptedLLM]:
    with ScriptedLLM(script) as server:
        yield server


@pytest.fixture(scope="module")
def nanobot(
    bot: tuple[str, Path], llm: ScriptedLLM, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[NanobotServe]:
    config = json.loads(bot[1].read_text(encoding="utf-8"))  # exactly what the dashboard wrote
    assert set(config["tools"]["mcpServers"]) == {"topic_mcp", "ccweb"}
    with NanobotServe(
        config, llm_base_url=llm.base_url, workdir=tmp_path_factory.mktemp("nanobot"), api_key=API_KEY
    ) as serve:
        yield serve


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _open_conversation(page: Page, app: E2EApp, bot_id: str, title: str) -> tuple[ConversationsPage, str]:
    chats = ConversationsPage(page, app.url).open(bot_id)
    chats.start(title)
    expect(chats.draft()).to_be_visible()
    expect(page).to_have_url(re.compile(r"conversation=\w+"))
    return chats, page.url.split("conversation=", 1)[1].split("&", 1)[0]


def _write(chats: ConversationsPage, text: str) -> None:
    chats.draft().fill(text)
    chats.send_button().click()
    expect(chats.messages()).to_contain_text(text)


def _bot_down_then_write(page: Page, app: E2EApp, bot_id: str, title: str, text: str) -> ConversationsPage:
    """Point the bot's endpoint at a closed port, write `text` in a new conversation, see it fail."""
    with Session(app.engine) as session:
        chat.set_chat_endpoint(session=session, bot_id=bot_id, chat_url=f"http://127.0.0.1:{_free_port()}")
    log_in(page, app, ADMIN)
    chats, _ = _open_conversation(page, app, bot_id, title)
    _write(chats, text)
    expect(chats.run_error()).to_contain_text("cannot connect", timeout=30_000)
    return chats


def _wait_idle(app: E2EApp, conversation_id: str, timeout: float = 60.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with Session(app.engine) as session:
            status = get_conversation(session=session, conversation_id=conversation_id).run_status
        if status in ("idle", "failed", "stopped"):
            return status
        time.sleep(0.1)
    raise AssertionError("the run did not end")


def test_a_person_chats_with_a_real_nanobot_and_the_result_lands_in_topics(
    page: Page,
    new_context: CreateContextCallback,
    e2e_app: E2EApp,
    bot: tuple[str, Path],
    nanobot: NanobotServe,
    llm: ScriptedLLM,
) -> None:
    bot_id, _ = bot
    log_in(page, e2e_app, ADMIN)
    # Someone else has the bot's Topic panel open the whole time.
    reader = TopicPanel(new_context().new_page(), e2e_app.url)
    log_in(reader.page, e2e_app, ADMIN)
    reader.page.goto(e2e_app.path(f"/?bot={bot_id}"))
    expect(reader.heading()).to_be_visible(timeout=PAGE_LOAD_MS)

    # 1. The admin points the dashboard at the bot; "test connection" says what is wrong, then that it works.
    bots = BotsPage(page, e2e_app.url)
    page.goto(e2e_app.path("/bots"))
    bots.expect_live()
    bots.open_config(bot_id)
    bots.chat_url().fill(nanobot.url)
    bots.chat_key().fill("not-the-key")
    bots.check_chat_endpoint()
    expect(bots.chat_check()).to_contain_text("refused the key")
    bots.chat_key().fill(API_KEY)
    bots.check_chat_endpoint()
    expect(bots.chat_check()).to_contain_text("nanobot is answering")
    bots.chat_endpoint().screenshot(path=str(screenshot_path("bots-chat-endpoint.png")))
    bots.save_chat_endpoint()
    expect(bots.chat_key()).to_have_attribute("placeholder", "•••••• (type to replace)")

    # 2. The chat: the answer streams in live; the bot read this conversation back and published.
    chats, conversation_id = _open_conversation(page, e2e_app, bot_id, "Release")
    _write(chats, "run the build and tell me")
    expect(chats.streaming()).to_be_visible(timeout=30_000)  # seen while it arrives
    expect(chats.run_status()).to_have_attribute("data-status", "running")
    page.screenshot(path=str(screenshot_path("dashboard-channel-streaming.png")))
    expect(chats.messages()).to_contain_text("I published it to Builds.", timeout=30_000)
    expect(chats.streaming()).to_have_count(0)
    expect(chats.run_status()).to_have_attribute("data-status", "idle")
    expect(chats.published_results()).to_contain_text("1 result to Builds")
    page.screenshot(path=str(screenshot_path("dashboard-channel.png")), full_page=True)

    # The model was told about the dashboard (the skill the dashboard wrote into the bot's workspace).
    system = json.dumps(llm.requests[0]["messages"][0])
    assert "Topic Dashboard" in system and "guide_card" in system and "ccweb_list_user_inputs" in system
    seen = [r for request in llm.requests for r in tool_results(request) if r.name == CCWEB]
    assert seen, "the model never saw ccweb_list_user_inputs' answer"
    inputs = json.loads(seen[0].text)
    assert inputs["conversationId"] == conversation_id
    assert [item["content"] for item in inputs["items"]] == ["run the build and tell me"]
    with Session(e2e_app.engine) as session:
        items = session.exec(select(TopicItem).where(TopicItem.bot_id == bot_id)).all()
        assert [(i.topic_key, i.title, i.conversation_id) for i in items] == [
            ("builds", "Build #88 passed", conversation_id)
        ]
        messages = list_messages(session=session, conversation_id=conversation_id)
        assert [(m.role, m.content) for m in messages] == [
            ("user", "run the build and tell me"),
            ("assistant", "".join(ANSWER_PARTS)),
        ]

    # The open panel got the item live, linked to the conversation.
    live_row = reader.rows().filter(has_text="Build #88 passed")
    expect(live_row).to_be_visible(timeout=10_000)
    live_row.click()
    expect(reader.detail_conversation()).to_have_attribute(
        "href", f"/conversations?bot={bot_id}&conversation={conversation_id}"
    )

    # 3. From the result to the request that produced it, and back.
    panel = TopicPanel(page, e2e_app.url)
    chats.published_links().first.click()
    expect(panel.detail_title()).to_have_text("Build #88 passed", timeout=PAGE_LOAD_MS)
    panel.detail_conversation().click()
    expect(chats.messages()).to_contain_text("run the build and tell me", timeout=PAGE_LOAD_MS)

    # 4. A guide card from the bot: rendered as the form; the answers go back to the bot as the next message.
    _write(chats, "make a report")
    card = chats.cards().last
    expect(card).to_contain_text("Before I start", timeout=30_000)
    expect(chats.card_text(card)).to_have_text("Sure. A few details first:")  # the bot's words too
    chats.card_field(card, "scope").fill("Q3 revenue by region")
    chats.card_submit(card).click()
    expect(chats.messages()).to_contain_text("Thanks: starting on Q3 revenue by region.", timeout=30_000)
    expect(card).to_contain_text("submitted")


def test_a_bot_that_is_down_keeps_the_message_and_retry_delivers_it(
    page: Page, e2e_app: E2EApp, bot: tuple[str, Path], nanobot: NanobotServe
) -> None:
    bot_id, _ = bot
    chats = _bot_down_then_write(page, e2e_app, bot_id, "Down", "are you there?")
    expect(chats.run_error()).to_contain_text("your message is kept")
    expect(chats.messages()).to_contain_text("are you there?")
    page.screenshot(path=str(screenshot_path("dashboard-channel-down.png")))

    with Session(e2e_app.engine) as session:  # the bot is back
        chat.set_chat_endpoint(session=session, bot_id=bot_id, chat_url=nanobot.url, chat_key=API_KEY)
    chats.retry()
    expect(chats.messages()).to_contain_text("Hello! (are you there?)", timeout=30_000)
    expect(chats.run_error()).to_have_count(0)
    expect(chats.run_status()).to_have_attribute("data-status", "idle")


def test_two_conversations_at_once_each_reads_back_its_own_inputs(
    e2e_app: E2EApp, bot: tuple[str, Path], nanobot: NanobotServe
) -> None:
    """nanobot sends the same headers for both: the dashboard relays one at a time, so the header-less
    ccweb call always means the conversation being answered."""
    bot_id, _ = bot
    with Session(e2e_app.engine) as session:
        chat.set_chat_endpoint(session=session, bot_id=bot_id, chat_url=nanobot.url, chat_key=API_KEY)
        a = create_conversation(session=session, bot_id=bot_id, title="A").conversation_id
        b = create_conversation(session=session, bot_id=bot_id, title="B").conversation_id
        chat.send_message(session=session, conversation_id=a, content="alpha: what did I ask?")
        chat.send_message(session=session, conversation_id=b, content="beta: what did I ask?")
    assert _wait_idle(e2e_app, a) == "idle" and _wait_idle(e2e_app, b) == "idle"
    with Session(e2e_app.engine) as session:
        answers = {cid: list_messages(session=session, conversation_id=cid)[-1].content for cid in (a, b)}
    assert answers[a] == "You asked: alpha: what did I ask?"
    assert answers[b] == "You asked: beta: what did I ask?"


def test_stop_keeps_what_arrived_marked_as_cut_and_the_pane_follows_the_answer(
    page: Page, e2e_app: E2EApp, bot: tuple[str, Path], nanobot: NanobotServe
) -> None:
    bot_id, _ = bot
    with Session(e2e_app.engine) as session:
        chat.set_chat_endpoint(session=session, bot_id=bot_id, chat_url=nanobot.url, chat_key=API_KEY)
    log_in(page, e2e_app, ADMIN)
    page.set_viewport_size({"width": 1280, "height": 600})
    chats, _ = _open_conversation(page, e2e_app, bot_id, "Story")
    for n in range(6):  # more than a screenful, so following the end matters
        _write(chats, f"hello {n}")
        expect(chats.run_status()).to_have_attribute("data-status", "idle", timeout=30_000)
    _write(chats, "tell me a long story")
    expect(chats.streaming()).to_be_visible(timeout=30_000)
    expect(chats.send_button()).to_be_disabled()  # this conversation is being answered
    expect(chats.send_hint()).to_contain_text("the bot is answering")
    expect(chats.messages().get_by_text("part 3.", exact=False)).to_be_in_viewport(timeout=10_000)
    chats.stop()
    expect(chats.run_status()).to_have_attribute("data-status", "stopped", timeout=30_000)
    last = chats.messages_of("assistant").last
    expect(last).to_contain_text("[stopped before the end]")
    expect(last).to_be_in_viewport()
    expect(chats.send_button()).to_be_enabled()


def test_writing_again_after_a_failure_delivers_both_messages(
    page: Page, e2e_app: E2EApp, bot: tuple[str, Path], nanobot: NanobotServe
) -> None:
    bot_id, _ = bot
    chats = _bot_down_then_write(page, e2e_app, bot_id, "Twice", "first while down")
    with Session(e2e_app.engine) as session:
        chat.set_chat_endpoint(session=session, bot_id=bot_id, chat_url=nanobot.url, chat_key=API_KEY)
    _write(chats, "second")  # not Retry: the person just writes again
    expect(chats.messages()).to_contain_text("Hello! (first while down", timeout=30_000)


def test_a_conversation_is_renamed_deleted_and_ctrl_enter_sends(
    page: Page, e2e_app: E2EApp, bot: tuple[str, Path], nanobot: NanobotServe
) -> None:
    bot_id, _ = bot
    with Session(e2e_app.engine) as session:
        chat.set_chat_endpoint(session=session, bot_id=bot_id, chat_url=nanobot.url, chat_key=API_KEY)
    log_in(page, e2e_app, ADMIN)
    chats, conversation_id = _open_conversation(page, e2e_app, bot_id, "")
    chats.draft().fill("ping")
    chats.draft().press("Control+Enter")
    expect(chats.messages()).to_contain_text("Hello! (ping)", timeout=30_000)

    chats.rename("Ping test")
    expect(chats.title()).to_have_text("Ping test")
    expect(chats.conversation(conversation_id)).to_contain_text("Ping test")

    chats.delete_button().click()
    chats.confirm_delete()
    expect(page.get_by_text("Conversation deleted (2 messages)")).to_be_visible()
    expect(chats.conversation(conversation_id)).to_have_count(0)
    with Session(e2e_app.engine) as session:
        with pytest.raises(AppError):
            get_conversation(session=session, conversation_id=conversation_id)
