"""Which bot a page opens on when its address names none: the one this person last chose (on any page, kept by
their browser); on a first visit the one with unread items for them; a remembered bot that is gone is passed
over without a word. Walkthroughs with several bots always landed on the alphabetically first one."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from playwright.sync_api import Locator, Page, expect
from sqlmodel import Session, col, select

from tests.e2e.accounts_support import PAGE_LOAD_MS, ensure_user, log_in, unique
from tests.e2e.conftest import E2EApp, screenshot_path
from tests.e2e.pages.bots import BotsPage
from tests.e2e.pages.conversations import ConversationsPage
from tests.e2e.pages.topic_panel import TopicPanel
from topic_dashboard.models import TopicItem, User
from topic_dashboard.services.bots import create_bot, delete_bot
from topic_dashboard.services.items import set_read
from topic_dashboard.services.publishing import PublishRequest, publish_item

pytestmark = [pytest.mark.e2e, pytest.mark.private_instance]

STORAGE_KEY = "td-last-bot"  # where the browser keeps the bot last chosen (components/last_bot.py)


@dataclass
class Made:
    id: str
    name: str


def _bot(app: E2EApp, prefix: str) -> Made:
    with Session(app.engine) as session:
        bot, _ = create_bot(session=session, name=unique(prefix))
    return Made(bot.bot_id, bot.name)


def _publish(app: E2EApp, bot_id: str, count: int) -> None:
    with Session(app.engine) as session:
        for index in range(count):
            publish_item(
                session=session,
                bot_id=bot_id,
                request=PublishRequest(topic_key="inbox", title=f"landing {index}", content="x", message_type="result"),
            )


def _user_id(app: E2EApp, username: str, role: str) -> int:
    ensure_user(app, username, role)
    with Session(app.engine) as session:
        user = session.exec(select(User).where(User.username == username)).one()
    assert user.id is not None
    return user.id


def _read_everything_but(app: E2EApp, user_id: int, bot_id: str) -> None:
    """Every other bot's items read for this person: the e2e database is shared, and other flows' bots have
    unread items too."""
    with Session(app.engine) as session:
        rows = session.exec(select(TopicItem.id, TopicItem.bot_id).where(col(TopicItem.bot_id) != bot_id)).all()
        ids = [item_id for item_id, _ in rows if item_id is not None]
        if ids:
            owners = tuple(sorted({owner for _, owner in rows}))
            set_read(session=session, bot_id=owners, item_ids=ids, is_read=True, reader=user_id)


def _conversations_bot(page: Page) -> Locator:
    return ConversationsPage.on(page).bot_select()


def _insights_bot(page: Page) -> Locator:
    return page.get_by_role("combobox", name="Bot", exact=True)


def _open(page: Page, app: E2EApp, route: str, title: str) -> None:
    """A page loaded afresh (a typed address, a bookmark), its address naming no bot."""
    page.goto(app.path(route))
    expect(page.locator("#page-title")).to_have_text(title, timeout=PAGE_LOAD_MS)
    ConversationsPage.on(page).expect_live()


def test_the_bot_chosen_on_one_page_is_the_one_the_others_open_on(page: Page, e2e_app: E2EApp) -> None:
    alpha, zeta = _bot(e2e_app, "Alpha"), _bot(e2e_app, "Zeta")
    log_in(page, e2e_app, unique("landing-admin"), "admin", landing=f"/conversations?bot={alpha.id}")
    conversations = ConversationsPage(page, e2e_app.url)
    expect(_conversations_bot(page)).to_have_text(alpha.name)

    # Zeta chosen on Conversations; the address says so (a reload stays on it).
    _conversations_bot(page).click()
    page.get_by_role("option", name=zeta.name, exact=True).click()
    expect(_conversations_bot(page)).to_have_text(zeta.name)
    expect(page).to_have_url(re.compile(rf"/conversations/?\?bot={zeta.id}$"))

    # The other pages, by the navigation (their addresses name no bot): Zeta.
    conversations.nav("bots")
    bots = BotsPage(page, e2e_app.url)
    expect(bots.config_title()).to_have_text(f"Settings of {zeta.name}")
    conversations.nav("insights")
    expect(_insights_bot(page)).to_have_text(zeta.name)
    # Loaded afresh, and in another tab of the same browser: Zeta.
    _open(page, e2e_app, "/conversations", "Conversations")
    expect(_conversations_bot(page)).to_have_text(zeta.name)
    other_tab = page.context.new_page()
    _open(other_tab, e2e_app, "/insights", "Insights")
    expect(_insights_bot(other_tab)).to_have_text(zeta.name)

    # Alpha chosen on the Bots page (its settings opened): the others follow.
    _open(page, e2e_app, "/bots", "Bots")
    expect(bots.config_title()).to_have_text(f"Settings of {zeta.name}")
    bots.open_config(alpha.id)
    expect(bots.config_title()).to_have_text(f"Settings of {alpha.name}")
    _open(page, e2e_app, "/conversations", "Conversations")
    expect(_conversations_bot(page)).to_have_text(alpha.name)
    _open(other_tab, e2e_app, "/insights", "Insights")
    expect(_insights_bot(other_tab)).to_have_text(alpha.name)

    # "All bots" chosen on Insights stays (in its address) and is no bot to remember.
    _insights_bot(other_tab).click()
    other_tab.get_by_role("option", name="All bots", exact=True).click()
    expect(other_tab).to_have_url(re.compile(r"/insights/?\?bot=all$"))
    other_tab.reload()
    expect(_insights_bot(other_tab)).to_have_text("All bots", timeout=PAGE_LOAD_MS)
    _open(page, e2e_app, "/conversations", "Conversations")
    expect(_conversations_bot(page)).to_have_text(alpha.name)
    other_tab.close()


def test_a_viewers_first_visit_lands_on_the_bot_with_unread_items(page: Page, e2e_app: E2EApp) -> None:
    _bot(e2e_app, "Alpha")  # first by name, nothing unread
    zeta = _bot(e2e_app, "Zeta")
    _publish(e2e_app, zeta.id, 2)
    viewer = unique("landing-viewer")
    _read_everything_but(e2e_app, _user_id(e2e_app, viewer, "viewer"), zeta.id)

    log_in(page, e2e_app, viewer, "viewer", landing="/conversations")
    expect(_conversations_bot(page)).to_have_text(zeta.name)
    # The Topic panel too (its selector counts the unread).
    _open(page, e2e_app, "/", "Topics")
    expect(TopicPanel.on(page).bot_select()).to_contain_text(f"{zeta.name} · 2 unread")
    page.screenshot(path=str(screenshot_path("landing-unread-first.png")))
    # Insights reads all bots until one is chosen: unread items are no reason to narrow it.
    _open(page, e2e_app, "/insights", "Insights")
    expect(_insights_bot(page)).to_have_text("All bots")


def test_a_remembered_bot_that_is_gone_is_passed_over_without_a_word(page: Page, e2e_app: E2EApp) -> None:
    zeta, gone = _bot(e2e_app, "Zeta"), _bot(e2e_app, "Gone")
    _publish(e2e_app, zeta.id, 1)
    admin = unique("landing-admin")
    user_id = _user_id(e2e_app, admin, "admin")
    _read_everything_but(e2e_app, user_id, zeta.id)
    log_in(page, e2e_app, admin, "admin", landing=f"/conversations?bot={gone.id}")  # a link followed: chosen
    expect(_conversations_bot(page)).to_have_text(gone.name)
    with Session(e2e_app.engine) as session:
        delete_bot(session=session, bot_id=gone.id)
    toasts = page.locator("[data-sonner-toast]")

    _open(page, e2e_app, "/conversations", "Conversations")
    expect(_conversations_bot(page)).to_have_text(zeta.name)  # the unread one, as on a first visit
    expect(toasts).to_have_count(0)
    _open(page, e2e_app, "/bots", "Bots")
    expect(BotsPage.on(page).bot_row(zeta.id)).to_be_visible()
    expect(BotsPage.on(page).config_editor()).to_have_count(0)
    expect(toasts).to_have_count(0)
    _open(page, e2e_app, "/insights", "Insights")
    expect(_insights_bot(page)).to_have_text("All bots")
    expect(toasts).to_have_count(0)

    # What the browser keeps is only a hint: a value written there by hand names no bot, and is passed over too.
    page.evaluate("([key, value]) => localStorage.setItem(key, value)", [STORAGE_KEY, f"{user_id}:<b>x</b>"])
    _open(page, e2e_app, "/conversations", "Conversations")
    expect(_conversations_bot(page)).to_have_text(zeta.name)
    expect(toasts).to_have_count(0)


def _rules_bot(page: Page) -> Locator:
    return page.locator("#rules-bot-select")


def _choose(page: Page, select: Locator, name: str) -> None:
    select.click()
    page.get_by_role("option", name=re.compile(rf"^{re.escape(name)}( · \d+ unread)?$")).click()


def test_the_topic_panel_and_rules_remember_the_bot_too_and_the_panel_all_bots(page: Page, e2e_app: E2EApp) -> None:
    """The two pages a person spends the day on follow and set the same memory; the panel's All bots is
    remembered for the panel (no other page shows all bots' topics, so they land as on a first visit)."""
    alpha, zeta = _bot(e2e_app, "Alpha"), _bot(e2e_app, "Zeta")
    log_in(page, e2e_app, unique("landing-admin"), "admin", landing=f"/?bot={alpha.id}")
    panel = TopicPanel.on(page)
    expect(panel.bot_select()).to_contain_text(alpha.name)

    _choose(page, panel.bot_select(), zeta.name)  # chosen on the panel
    expect(panel.bot_select()).to_contain_text(zeta.name)
    _open(page, e2e_app, "/rules", "Rules")
    expect(_rules_bot(page)).to_have_text(zeta.name)

    _choose(page, _rules_bot(page), alpha.name)  # chosen on Rules
    expect(_rules_bot(page)).to_have_text(alpha.name)
    _open(page, e2e_app, "/", "Topics")
    expect(panel.bot_select()).to_contain_text(alpha.name)
    _open(page, e2e_app, "/conversations", "Conversations")
    expect(_conversations_bot(page)).to_have_text(alpha.name)

    _open(page, e2e_app, "/", "Topics")
    _choose(page, panel.bot_select(), "All bots")
    expect(panel.bot_select()).to_contain_text("All bots")
    _open(page, e2e_app, "/", "Topics")
    expect(panel.bot_select()).to_contain_text("All bots")
    page.screenshot(path=str(screenshot_path("landing-panel-all-bots.png")))
