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
from tests.e2e.pages.topic_panel import TopicPanel
from tests.e2e.topic_panel_support import log_in, make_bot, mcp_publish, open_panel, seed
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
    panel = open_panel(page, e2e_app, alpha)

    # Chosen from the bot selector, like a person would.
    panel.choose_bot(re.compile(r"^All bots"))
    expect(panel.heading()).to_have_text("All bots")
    expect(page).to_have_url(re.compile(r"bot=\*"))
    expected = _first_page(e2e_app, user)
    expect(panel.rows()).to_have_count(len(expected))
    assert panel.shown_ids() == expected  # newest first across bots, none missing
    assert panel.shown_ids()[:6] == mine[::-1]
    for item_id, bot_id in zip(mine, [alpha, beta] * 3, strict=True):
        expect(panel.row_bot(item_id)).to_have_text(_name(e2e_app, bot_id))
    # The sidebar lists the bots with what is unread in each; the topic switch is a bot's, not shown.
    expect(panel.bot_unread(alpha)).to_have_text("3")
    expect(panel.bot_unread(beta)).to_have_text("3")
    expect(panel.switch()).to_have_count(0)

    # An item any bot publishes arrives live.
    is_error, published = mcp_publish(e2e_app, beta_token, topic_key="ci", title="live from beta", content="x")
    assert not is_error
    live = published["item_id"]
    expect(panel.rows().first).to_have_id(f"item-{live}")
    expect(panel.row_bot(live)).to_have_text(_name(e2e_app, beta))
    for scheme in ("dark", "light"):
        page.emulate_media(color_scheme=scheme)  # type: ignore[arg-type]
        page.screenshot(path=str(screenshot_path(f"panel-all-bots-{scheme}.png")))

    # Opening a row reads it on its own bot, for this person.
    panel.row_title(mine[0]).click()
    expect(panel.detail_title()).to_have_text("report 0")
    expect(panel.row(mine[0])).to_have_class(re.compile(r"\bitem-read\b"))
    with Session(e2e_app.engine) as session:
        assert mine[0] not in unread_in_view(session=session, bot_id=alpha, reader=_reader(e2e_app, user))
    page.keyboard.press("Escape")

    # Mark all read: exactly what the view shows, across bots, and undo.
    with Session(e2e_app.engine) as session:
        newest = max(panel.shown_ids())
        unread = [
            i
            for i in unread_in_view(session=session, bot_id=_all_bots(e2e_app), reader=_reader(e2e_app, user))
            if i <= newest
        ]
    expect(panel.ask_mark_all_read()).to_contain_text(f"Mark {len(unread)} items read?")
    panel.confirm_mark_all_read()
    expect(page.get_by_text(f"Marked {len(unread)} items read")).to_be_visible()
    expect(panel.unread_rows()).to_have_count(0)
    expect(panel.bot_unread(alpha)).to_have_count(0)
    panel.undo()
    expect(page.get_by_text(f"{len(unread)} items are unread again")).to_be_visible()
    expect(panel.bot_unread(beta)).to_have_text("4")
    expect(panel.bot_unread(alpha)).to_have_text("2")  # the one opened stays read

    # A bot in the sidebar shows that bot alone.
    panel.sidebar_bot(beta).click()
    expect(panel.heading()).to_have_text("All items")
    expect(page).to_have_url(re.compile(f"bot={beta}"))
    expect(panel.rows()).to_have_count(4)


def test_on_a_phone_the_all_bots_view_opens_an_item_and_back_returns_to_it(page: Page, e2e_app: E2EApp) -> None:
    user = unique("allbots-phone")
    alpha, _ = make_bot(e2e_app, "ci")
    item = seed(e2e_app, alpha, topic_key="ci", title="phone report")
    log_in(page, e2e_app, user, role="viewer")
    page.set_viewport_size({"width": 390, "height": 844})
    panel = TopicPanel(page, e2e_app.url)
    page.goto(e2e_app.path("/?bot=*"))
    expect(panel.heading()).to_have_text("All bots")
    expect(panel.row_bot(item)).to_have_text(_name(e2e_app, alpha))
    assert panel.shown_ids() == _first_page(e2e_app, user)
    page.screenshot(path=str(screenshot_path("panel-all-bots-phone.png")))
    panel.row_title(item).click()
    expect(panel.detail_title()).to_have_text("phone report")
    # The item's address is pushed after the detail shows: Back before it would leave the view (seen once).
    expect(page).to_have_url(re.compile(rf"[?&]item={item}\b"))
    page.go_back()
    expect(panel.detail_title()).to_have_count(0)
    expect(panel.heading()).to_have_text("All bots")


def test_several_ticked_items_move_to_a_topic_at_once_and_the_undo_puts_them_back(page: Page, e2e_app: E2EApp) -> None:
    bot_id, _ = make_bot(e2e_app, "ci", "deploys")
    ids = [seed(e2e_app, bot_id, topic_key="ci", title=f"deploy {n}") for n in range(4)]
    log_in(page, e2e_app)
    page.set_viewport_size({"width": 1400, "height": 900})
    panel = open_panel(page, e2e_app, bot_id)
    expect(panel.rows()).to_have_count(4)
    panel.row_checkbox(ids[3]).click()
    panel.row_checkbox(ids[1]).click(modifiers=["Shift"])
    expect(panel.bulk_count()).to_have_text("3 selected")
    panel.bulk_move_to("Deploys")
    page.screenshot(path=str(screenshot_path("panel-bulk-move.png")))
    panel.bulk_move_confirm()
    toast = panel.toast("Moved 3 items to Deploys")
    expect(toast).to_be_visible()
    with Session(e2e_app.engine) as session:
        topics = {row.id: row.topic_key for row in session.exec(select(TopicItem).where(TopicItem.bot_id == bot_id))}
    assert [topics[i] for i in ids] == ["ci", "deploys", "deploys", "deploys"]
    expect(panel.topic("deploys")).to_contain_text("3")
    expect(panel.row(ids[2])).to_contain_text("Deploys")
    toast.hover()
    panel.undo_in(toast).click()
    expect(page.get_by_text("3 items moved back")).to_be_visible()
    with Session(e2e_app.engine) as session:
        topics = {row.id: row.topic_key for row in session.exec(select(TopicItem).where(TopicItem.bot_id == bot_id))}
    assert [topics[i] for i in ids] == ["ci"] * 4
    expect(panel.topic("deploys")).to_contain_text("0")
