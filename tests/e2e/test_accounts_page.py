"""The Accounts page in a real browser: an admin adds a person (who logs in with the one-time password and
chooses their own), changes a role, resets a password, disables and deletes an account, creates an API
token that works over REST and revokes it; every step is in the audit trail naming the admin; what the
tables show is what the database holds; a viewer sees neither the page's link nor its data."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect
from sqlmodel import Session, col, select

from tests.e2e.accounts_support import PAGE_LOAD_MS, log_in, submit_login, unique
from tests.e2e.conftest import E2EApp, screenshot_path
from tests.e2e.pages.accounts import AccountsPage
from tests.e2e.pages.shell import Shell
from topic_dashboard.models import AuditLog, User
from topic_dashboard.services import accounts

pytestmark = [pytest.mark.e2e, pytest.mark.private_instance]

NEW_PASSWORD = "my own long passphrase"


def _user(app: E2EApp, username: str) -> User | None:
    with Session(app.engine) as session:
        return session.exec(select(User).where(User.username == username)).first()


def test_an_admin_manages_people_and_tokens_and_every_change_is_audited(
    page: Page, browser: Browser, e2e_app: E2EApp
) -> None:
    admin, newcomer = unique("acc-admin"), unique("acc-new")
    log_in(page, e2e_app, admin, role="admin")
    page.set_viewport_size({"width": 1400, "height": 1000})
    people = AccountsPage(page, e2e_app.url).open_from_nav()
    expect(people.person(admin)).to_contain_text("you")

    # A new person: a one-time password, shown once.
    one_time = people.add_person(newcomer)
    row = people.person(newcomer)
    expect(row).to_contain_text("must choose a password")
    stored = _user(e2e_app, newcomer)
    assert stored is not None and stored.role == "viewer" and stored.must_change_password

    # What the table lists is what the database holds.
    with Session(e2e_app.engine) as session:
        everyone = accounts.list_users(session=session)
    expect(people.people_rows()).to_have_count(len(everyone))
    admins = sum(1 for u in everyone if u.role == "admin" and u.is_active)
    expect(people.people_summary()).to_have_text(
        f"{len(everyone)} accounts · {admins} active admin{'' if admins == 1 else 's'}"
    )

    # They log in with it in their own browser and must choose their own password first.
    context = browser.new_context()
    other = context.new_page()
    try:
        submit_login(other, e2e_app, newcomer, one_time)
        theirs = Shell(other, e2e_app.url)
        theirs.choose_password(one_time, NEW_PASSWORD)
        expect(theirs.current_user()).to_have_text(newcomer, timeout=PAGE_LOAD_MS)
        expect(theirs.nav_link("accounts")).to_have_count(0)  # a viewer has no Accounts link
    finally:
        context.close()
    page.reload()
    expect(people.person(newcomer)).not_to_contain_text("must choose a password", timeout=PAGE_LOAD_MS)

    # A role change through the row's select.
    people.set_role(newcomer, "admin")
    expect(people.role_of(newcomer)).to_have_text("admin")
    assert (_user(e2e_app, newcomer) or User()).role == "admin"

    # Reset: a new one-time password; the old password no longer works.
    people.act(newcomer, f"Reset the password of {newcomer}")
    people.confirm("Reset password")
    second = people.shown_secret()
    assert second != one_time
    assert (_user(e2e_app, newcomer) or User()).must_change_password

    # Disable, then delete (each after a confirmation).
    people.act(newcomer, f"Disable {newcomer}")
    people.confirm("Disable")
    expect(people.person(newcomer)).to_contain_text("disabled")
    assert not (_user(e2e_app, newcomer) or User(is_active=True)).is_active
    page.screenshot(path=str(screenshot_path("accounts-light.png")), full_page=True)
    people.act(newcomer, f"Delete {newcomer}")
    people.confirm("Delete")
    expect(people.person(newcomer)).to_have_count(0)
    assert _user(e2e_app, newcomer) is None

    # Your own row offers nothing that could lock you out.
    own = people.person(admin)
    expect(own.get_by_role("button")).to_have_count(0)

    # An API token: shown once, works over REST, then revoked and refused.
    token_name = unique("acc-token")
    token = people.create_token(token_name, days="7")
    expect(people.new_token_role()).to_have_text("viewer")  # never kept
    headers = {"Authorization": f"Bearer {token}"}
    assert httpx.get(e2e_app.path("/api/bots"), headers=headers, timeout=30).status_code == 200
    people.revoke(token_name)
    people.confirm("Revoke")
    expect(people.token_row(token_name)).to_contain_text("revoked")
    assert httpx.get(e2e_app.path("/api/bots"), headers=headers, timeout=30).status_code == 401

    page.emulate_media(color_scheme="dark")
    page.screenshot(path=str(screenshot_path("accounts-dark.png")), full_page=True)

    # On a phone, with a name as long as a username may be, each row's actions stay on screen.
    long_name = ("p" + unique("x") + "x" * 64)[:64]
    people.add_person(long_name)
    page.set_viewport_size({"width": 390, "height": 844})
    actions = people.actions_for(long_name)
    actions.scroll_into_view_if_needed()
    box = actions.bounding_box()
    assert box is not None and box["x"] + box["width"] <= 390, box
    page.screenshot(path=str(screenshot_path("accounts-phone.png")), full_page=True)
    people.act(long_name, f"Delete {long_name}")
    people.confirm("Delete")

    # Every change names the admin; no row holds a secret.
    with Session(e2e_app.engine) as session:
        trail = list(session.exec(select(AuditLog).where(AuditLog.actor == admin).order_by(col(AuditLog.id))))
    actions = [row.tool for row in trail]
    for action in (
        "user.create",
        "user.set_role",
        "user.reset_password",
        "user.disable",
        "user.delete",
        "api_token.create",
        "api_token.revoke",
    ):
        assert action in actions, (action, actions)
    texts = " ".join(row.detail or "" for row in trail)
    assert one_time not in texts and second not in texts and token not in texts


def test_a_viewer_has_no_accounts_link_and_the_page_shows_no_data(page: Page, e2e_app: E2EApp) -> None:
    viewer = unique("acc-viewer")
    log_in(page, e2e_app, viewer, role="viewer")
    people = AccountsPage(page, e2e_app.url)
    expect(people.nav_link("audit")).to_be_visible()
    expect(people.nav_link("accounts")).to_have_count(0)
    page.goto(e2e_app.path("/accounts"))
    expect(page.get_by_text("Only admins manage accounts")).to_be_visible(timeout=PAGE_LOAD_MS)
    expect(people.people_table()).to_have_count(0)
    expect(people.new_username()).to_have_count(0)


def test_the_token_form_names_its_boxes_plainly_and_its_errors_name_them_so(page: Page, e2e_app: E2EApp) -> None:
    """A walkthrough read "expires in … days" beside the box and "expires_days: …" or "expires in: …"
    under it. The boxes are labelled ("Name", "Role", "Expires in (days)"), and an error names its box so."""
    admin = unique("acc-admin")
    log_in(page, e2e_app, admin, role="admin", landing="/accounts")
    page.set_viewport_size({"width": 1280, "height": 900})
    people = AccountsPage(page, e2e_app.url)
    people.expect_open()
    expect(page.get_by_label("Name", exact=True)).to_have_id("new-token-name")
    expect(page.get_by_label("Expires in (days)", exact=True)).to_have_id("new-token-days")
    expect(page.locator("label[for=new-token-role]")).to_have_text("Role")

    people.token_name_field().fill(unique("acc-token"))
    in_range = f"Expires in (days): a whole number of days from 1 to {accounts.MAX_API_TOKEN_DAYS}"
    for days in ("0", "soon", str(accounts.MAX_API_TOKEN_DAYS + 1)):
        people.token_days_field().fill(days)
        people.press_create_token()
        expect(people.token_error()).to_have_text(in_range)
    page.screenshot(path=str(screenshot_path("accounts-token-form-error.png")))

    people.token_name_field().fill(" ")
    people.token_days_field().fill("7")
    people.press_create_token()
    expect(people.token_error()).to_have_text("Name: 1-100 characters")
