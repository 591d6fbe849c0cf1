"""#15 "All bots at once": one stream of every bot's items with the bot on each row, the sidebar's
bots with their unread counts, live items from any bot, and reading across bots (open, mark all read
and its undo, bulk) that lands on each item's own bot; "Move…" for several ticked items of one bot
and its undo. The screen is counted against the database; light, dark and phone size (the walk through every
capability in both themes, test_topic_panel_walk.py, goes through this view too)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect
from sqlmodel import Session, select

from tests.e2e.accounts_support import unique
from tests.e2e.conftest import E2EApp, screenshot_path
from tests.e2e.topic_panel_support import log_in, make_bot, mcp_publish, open_panel, rows, seed
from topic_dashboard.models import TopicItem, User
from topic_dashboard.services.bots import get_bot, list_bots
from topic_dashboard.services.items import ItemFilters, list_items, unread_in_view

pytestmark = [pytest.mark.e2e, pytest.mark.private_instance]


def _reader(app: E2EApp, username: str) -> int:
    with Session(app.engine) as session:
        user = session.exec(select(User).where(User.username == username)).one()
        assert user.id is not None
        return user.id


def _all_bots(app: E2EApp) -> tuple[str, ...]:
    with Session(app.engine) as session:
        return tuple(bot.bot_id for bot in list_bots(session=session))


def _first_page(app: E2EApp, username: str, **filters: bool) -> list[int]:
    """What the All bots view should show first: every bot's newest 40, as `username` reads them."""
    with Session(app.engine) as session:
        page = list_items(
            session=session,
            bot_id=_all_bots(app),
            filters=ItemFilters(**filters),
            limit=40,
            reader=_reader(app, username),
        )
        return [item.id for item in page.items]


def _dom_ids(page: Page) -> list[int]:
    return [int(v.removeprefix("item-")) for v in rows(page).evaluate_all("(els) => els.map((el) => el.id)")]


def _name(app: E2EApp, bot_id: str) -> str:
    with Session(app.engine) as session:
        return get_bot(session=session, bot_id=bot_id).name


def test_all_bots_in_one_stream_each_row_names_its_bot_and_reading_acts_on_each_items_bot(
    page: Page, e2e_app: E2EApp
) -> None:
    user = unique("allbots")
    alpha, _ = make_bot(e2e_app, "ci")
    beta, beta_token = make_bot(e2e_app, "ci")
    mine = [seed(e2e_app, bot_id, topic_key="ci", title=f"report {n}") for n, bot_id in enumerate([alpha, beta] * 3)]
    log_in(page, e2e_app, user, role="admin")
    page.set_viewport_size({"width": 1400, "height": 900})
    open_panel(page, e2e_app, alpha)

    # Chosen from the bot selector, like a person would.
    page.locator("#bot-select").click()
    page.get_by_role("option", name=re.compile(r"^All bots")).click()
    expect(page.locator("#stream-heading")).to_have_text("All bots")
    expect(page).to_have_url(re.compile(r"bot=\*"))
    expected = _first_page(e2e_app, user)
    expect(rows(page)).to_have_count(len(expected))
    assert _dom_ids(page) == expected  # newest first across bots, none missing
    assert _dom_ids(page)[:6] == mine[::-1]
    for item_id, bot_id in zip(mine, [alpha, beta] * 3, strict=True):
        expect(page.locator(f"#item-{item_id} .row-bot")).to_have_text(_name(e2e_app, bot_id))
    # The sidebar lists the bots with what is unread in each; the topic switch is a bot's, not shown.
    expect(page.locator(f"#bot-{alpha} .rt-Badge")).to_have_text("3")
    expect(page.locator(f"#bot-{beta} .rt-Badge")).to_have_text("3")
    expect(page.locator("#topic-enabled-switch")).to_have_count(0)

    # An item any bot publishes arrives live.
    is_error, published = mcp_publish(e2e_app, beta_token, topic_key="ci", title="live from beta", content="x")
    assert not is_error
    live = published["item_id"]
    expect(rows(page).first).to_have_id(f"item-{live}")
    expect(page.locator(f"#item-{live} .row-bot")).to_have_text(_name(e2e_app, beta))
    for scheme in ("dark", "light"):
        page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
        page.screenshot(path=str(screenshot_path(f"panel-all-bots-{scheme}.png")))

    # Opening a row reads it on its own bot, for this person.
    page.locator(f"#item-{mine[0]} .item-title").click()
    expect(page.locator("#detail-title")).to_have_text("report 0")
    expect(page.locator(f"#item-{mine[0]}")).to_have_class(re.compile(r"\bitem-read\b"))
    with Session(e2e_app.engine) as session:
        assert mine[0] not in unread_in_view(session=session, bot_id=alpha, reader=_reader(e2e_app, user))
    page.keyboard.press("Escape")

    # Mark all read: exactly what the view shows, across bots, and undo.
    with Session(e2e_app.engine) as session:
        newest = max(_dom_ids(page))
        unread = [
            i
            for i in unread_in_view(session=session, bot_id=_all_bots(e2e_app), reader=_reader(e2e_app, user))
            if i <= newest
        ]
    page.locator("#mark-all-read").click()
    expect(page.locator("#mark-read-confirm")).to_contain_text(f"Mark {len(unread)} items read?")
    page.locator("#mark-read-ok").click()
    expect(page.get_by_text(f"Marked {len(unread)} items read")).to_be_visible()
    expect(page.locator("#item-list .item-unread")).to_have_count(0)
    expect(page.locator(f"#bot-{alpha} .rt-Badge")).to_have_count(0)
    page.get_by_role("button", name="Undo").click()
    expect(page.get_by_text(f"{len(unread)} items are unread again")).to_be_visible()
    expect(page.locator(f"#bot-{beta} .rt-Badge")).to_have_text("4")
    expect(page.locator(f"#bot-{alpha} .rt-Badge")).to_have_text("2")  # the one opened stays read

    # A bot in the sidebar shows that bot alone.
    page.locator(f"#bot-{beta}").click()
    expect(page.locator("#stream-heading")).to_have_text("All items")
    expect(page).to_have_url(re.compile(f"bot={beta}"))
    expect(rows(page)).to_have_count(4)


def test_on_a_phone_the_all_bots_view_opens_an_item_and_back_returns_to_it(page: Page, e2e_app: E2EApp) -> None:
    user = unique("allbots-phone")
    alpha, _ = make_bot(e2e_app, "ci")
    item = seed(e2e_app, alpha, topic_key="ci", title="phone report")
    log_in(page, e2e_app, user, role="viewer")
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(e2e_app.path("/?bot=*"))
    expect(page.locator("#stream-heading")).to_have_text("All bots")
    expect(page.locator(f"#item-{item} .row-bot")).to_have_text(_name(e2e_app, alpha))
    assert _dom_ids(page) == _first_page(e2e_app, user)
    page.screenshot(path=str(screenshot_path("panel-all-bots-phone.png")))
    page.locator(f"#item-{item} .item-title").click()
    expect(page.locator("#detail-title")).to_have_text("phone report")
    page.go_back()
    expect(page.locator("#detail-title")).to_have_count(0)
    expect(page.locator("#stream-heading")).to_have_text("All bots")


def test_several_ticked_items_move_to_a_topic_at_once_and_the_undo_puts_them_back(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = make_bot(e2e_app, "ci", "deploys")
    ids = [seed(e2e_app, bot_id, topic_key="ci", title=f"deploy {n}") for n in range(4)]
    log_in(page, e2e_app)
    page.set_viewport_size({"width": 1400, "height": 900})
    open_panel(page, e2e_app, bot_id)
    expect(rows(page)).to_have_count(4)
    page.locator(f"#item-{ids[3]} .row-select").click()
    page.locator(f"#item-{ids[1]} .row-select").click(modifiers=["Shift"])
    expect(page.locator("#bulk-count")).to_have_text("3 selected")
    page.locator("#bulk-move").click()
    page.locator("#bulk-move-target").click()
    page.get_by_role("option", name="Deploys").click()
    page.screenshot(path=str(screenshot_path("panel-bulk-move.png")))
    page.locator("#bulk-move-confirm").click()
    toast = page.locator("[data-sonner-toast]").filter(has_text="Moved 3 items to Deploys")
    expect(toast).to_be_visible()
    with Session(e2e_app.engine) as session:
        topics = {row.id: row.topic_key for row in session.exec(select(TopicItem).where(TopicItem.bot_id == bot_id))}
    assert [topics[i] for i in ids] == ["ci", "deploys", "deploys", "deploys"]
    expect(page.locator("#topic-deploys")).to_contain_text("3")
    expect(page.locator(f"#item-{ids[2]}")).to_contain_text("Deploys")
    toast.hover()
    toast.get_by_role("button", name="Undo").click()
    expect(page.get_by_text("3 items moved back")).to_be_visible()
    with Session(e2e_app.engine) as session:
        topics = {row.id: row.topic_key for row in session.exec(select(TopicItem).where(TopicItem.bot_id == bot_id))}
    assert [topics[i] for i in ids] == ["ci"] * 4
    expect(page.locator("#topic-deploys")).to_contain_text("0")
