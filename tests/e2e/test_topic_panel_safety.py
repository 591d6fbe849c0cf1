"""Bot text is untrusted: XSS payloads in titles, content, tags, markdown links and view fields
never execute in the panel.

Every page carries a trap: `window.__xss` starts at 0 and every payload would increment it (or
open a dialog, which fails the test). Payloads the server refuses (tags with `<`, non-http(s)
card links) are asserted refused; the accepted ones are opened one by one and the detail pane
is checked for event-handler attributes, scripts and unsafe links.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlmodel import Session

from tests.e2e.conftest import E2EApp
from tests.e2e.pages.topic_panel import TopicPanel
from tests.e2e.topic_panel_support import item_ids, log_in, make_bot, mcp_publish, open_panel, seed
from topic_dashboard.services.topics import TopicSettingsUpdate, update_topic_settings

pytestmark = [pytest.mark.e2e, pytest.mark.private_instance]

TRAP = "window.__xss++"
IMG = f'<img src=x onerror="{TRAP}">'
SCRIPT = f"<script>{TRAP}</script>"
SVG = f'<svg onload="{TRAP}"></svg>'

MARKDOWN = "\n\n".join(
    [
        SCRIPT,
        IMG,
        SVG,
        f'<iframe src="javascript:{TRAP}"></iframe>',
        f'<a href="data:text/html,<script>{TRAP}</script>">data link</a>',
        f"[js link](javascript:{TRAP})",
        "[mixed case](JaVaScRiPt:alert(1))",
        "[vbscript](vbscript:msgbox(1))",
        "[data link](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
        "[entity](&#106;avascript:alert(1))",
        "<javascript:alert(1)>",
        "[reference][r]\n\n[r]: javascript:alert(1)",
        f'![image](x" onerror="{TRAP})',
        f"**bold {IMG}** and `code {SCRIPT}`",
        "[a safe link](https://example.com/safe) and <mailto:ops@example.com>",
    ]
)

ACCEPTED: list[dict[str, Any]] = [
    {"title": f"{IMG} {SCRIPT} title", "content": MARKDOWN, "tags": ["xss", "safe-tag"]},
    {"title": "markdown view", "content": "", "view": {"type": "markdown", "text": MARKDOWN}},
    {
        "title": "card view",
        "content": SCRIPT,
        "view": {
            "type": "card",
            "title": SCRIPT,
            "subtitle": IMG,
            "body": MARKDOWN,
            "fields": [{"label": IMG, "value": SCRIPT}, {"label": "n", "value": 1}],
            "link": {"label": IMG, "url": "https://example.com/pr/1"},
        },
    },
    {
        "title": "table view",
        "content": "",
        "view": {
            "type": "table",
            "columns": [SCRIPT, IMG],
            "rows": [[SCRIPT, IMG], [SVG, f"javascript:{TRAP}"]],
            "caption": IMG,
        },
    },
    {
        "title": "checklist view",
        "content": "",
        "view": {"type": "checklist", "title": IMG, "items": [{"text": SCRIPT, "done": True}, {"text": SVG}]},
    },
    {
        "title": "metric view",
        "content": "",
        "view": {
            "type": "metric",
            "label": SCRIPT,
            "value": "<img src=x onerror=alert(1)>",
            "unit": "<b>",
            "caption": IMG,
        },
    },
    {
        "title": "timeline view",
        "content": "",
        "view": {"type": "timeline", "events": [{"time": SVG, "title": IMG, "detail": SCRIPT, "level": "error"}]},
    },
]

REFUSED: list[tuple[dict[str, Any], str, str]] = [
    ({"tags": ["<img src=x onerror=alert(1)>"]}, "validation_error", "tags[0]"),
    ({"tags": ["ok", "<script>"]}, "validation_error", "tags[1]"),
    ({"tags": ["javascript:alert(1)"]}, "validation_error", "tags[0]"),
    *[
        ({"view": {"type": "card", "title": "t", "link": {"url": url, "label": "x"}}}, "invalid_view", "view.link.url")
        for url in (
            f"javascript:{TRAP}",
            "JavaScript:alert(1)",
            " javascript:alert(1)",
            "java\tscript:alert(1)",
            "data:text/html,<script>alert(1)</script>",
            "vbscript:msgbox(1)",
            "//evil.example/x",
            "/relative",
        )
    ],
]

# Facts about the detail pane (#item-detail) that must hold whatever a bot sent.
INSPECT_DETAIL = """(detail) => {
  const root = document.querySelector(detail);
  const all = [...document.querySelectorAll('*')];
  return {
    handlers: all.flatMap((el) => [...el.attributes].filter((a) => a.name.toLowerCase().startsWith('on'))
      .map((a) => `${el.tagName}[${a.name}]`)),
    scripts: root.querySelectorAll('script').length,
    frames: document.querySelectorAll('iframe, object, embed, svg[onload]').length,
    images: [...root.querySelectorAll('img')].map((img) => img.getAttribute('src')),
    links: [...root.querySelectorAll('a')]
      .map((a) => ({href: a.getAttribute('href') || '', rel: a.getAttribute('rel') || ''})),
    styles: root.querySelectorAll('[style*="javascript" i], [href^="javascript" i], [src^="javascript" i]').length,
  };
}"""


@pytest.fixture
def trapped(page: Page) -> Iterator[Page]:
    """A page where any executed payload is noticed: the counter, and any dialog fails the test."""
    dialogs: list[str] = []

    def on_dialog(dialog: Any) -> None:
        dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    page.add_init_script("window.__xss = 0;")
    page.on("dialog", on_dialog)
    yield page
    assert dialogs == [], dialogs


def _assert_detail_is_inert(page: Page) -> None:
    facts = page.evaluate(INSPECT_DETAIL, TopicPanel.ITEM_DETAIL)
    assert facts["handlers"] == [], facts
    assert facts["scripts"] == 0, facts
    assert facts["frames"] == 0, facts
    assert facts["styles"] == 0, facts
    for link in facts["links"]:
        assert link["href"].startswith(("https://", "http://", "mailto:")), facts
        assert "noopener" in link["rel"].split(), facts
    assert page.evaluate("window.__xss") == 0


def test_the_trap_springs_when_a_payload_does_run(page: Page, browser: Browser, e2e_app: E2EApp) -> None:
    """The control: the same payloads, inserted as HTML on purpose, do increment the counter once nothing
    stops them; on the app's own pages its Content-Security-Policy refuses their inline handlers first."""
    insert = "(html) => { const box = document.createElement('div'); box.innerHTML = html; document.body.append(box); }"
    page.add_init_script(
        "window.__xss = 0; window.__refused = 0;"
        "document.addEventListener('securitypolicyviolation', () => window.__refused++);"
    )
    page.goto(e2e_app.path("/login"))
    page.evaluate(insert, IMG + SVG)
    page.wait_for_function("window.__refused >= 1")
    assert page.evaluate("window.__xss") == 0

    unprotected = browser.new_context(bypass_csp=True)
    try:
        bare = unprotected.new_page()
        bare.add_init_script("window.__xss = 0;")
        bare.goto(e2e_app.path("/login"))
        bare.evaluate(insert, IMG + SVG)
        bare.wait_for_function("window.__xss >= 1")
    finally:
        unprotected.close()


def test_unsafe_tags_and_card_links_are_refused(e2e_app: E2EApp) -> None:
    bot_id, token = make_bot(e2e_app)
    for extra, code, field in REFUSED:
        is_error, body = mcp_publish(e2e_app, token, title="refused", content="x", **extra)
        assert is_error, (extra, body)
        assert body["error"]["code"] == code, (extra, body)
        assert body["error"]["field"] == field, (extra, body)
    assert item_ids(e2e_app, bot_id) == []  # a refused call stores nothing


def test_payloads_in_text_markdown_and_views_do_not_execute(trapped: Page, e2e_app: E2EApp) -> None:
    page = trapped
    bot_id, token = make_bot(e2e_app)
    published = []
    for fields in ACCEPTED:
        is_error, body = mcp_publish(e2e_app, token, topic_key="inbox", message_type="result", **fields)
        assert not is_error, (fields["title"], body)
        published.append((body["item_id"], fields))

    log_in(page, e2e_app)
    panel = open_panel(page, e2e_app, bot_id)
    expect(panel.rows()).to_have_count(len(ACCEPTED))
    # The list shows the title and tags as text.
    first_id = published[0][0]
    expect(panel.row_title(first_id)).to_have_text(f"{IMG} {SCRIPT} title")
    expect(panel.row(first_id).get_by_text("safe-tag", exact=True)).to_be_visible()

    for item_id, fields in published:
        panel.row(item_id).click()
        expect(panel.detail_title()).to_have_text(fields["title"])
        view = fields.get("view")
        if view is not None:
            expect(panel.detail_view(view["type"])).to_be_visible()
        _assert_detail_is_inert(page)

    # Spot checks that the payloads are shown as text, not dropped silently.
    panel.row(first_id).click()
    content = panel.detail_content()
    expect(content).to_contain_text(SCRIPT)
    expect(content).to_contain_text("[js link](javascript:")
    expect(content.locator("a")).to_have_count(2)  # only the https and mailto links became links
    expect(content.locator("a").first).to_have_attribute("href", "https://example.com/safe")
    expect(content.locator("a").first).to_have_attribute("target", "_blank")
    expect(content.locator("a").nth(1)).to_have_attribute("href", "mailto:ops@example.com")

    card_id = published[2][0]
    panel.row(card_id).click()
    card = panel.detail_view("card")
    expect(card).to_contain_text(SCRIPT)
    expect(card.get_by_text(IMG).first).to_be_visible()
    expect(card.locator("a[href='https://example.com/pr/1']")).to_have_attribute("rel", "noopener noreferrer nofollow")
    table_id = published[3][0]
    panel.row(table_id).click()
    expect(panel.detail_view("table").locator("td").first).to_have_text(SCRIPT)
    timeline_id = published[6][0]
    panel.row(timeline_id).click()
    expect(panel.detail_view("timeline")).to_contain_text(IMG)

    # The detail pane was replaced seven times; nothing sprang meanwhile.
    assert page.evaluate("window.__xss") == 0
    assert page.locator('img[src="x"], svg[onload], iframe').count() == 0  # no payload became an element anywhere


def test_remote_images_when_allowed_carry_no_handlers(trapped: Page, e2e_app: E2EApp) -> None:
    page = trapped
    bot_id, token = make_bot(e2e_app)
    with Session(e2e_app.engine) as session:
        update_topic_settings(session=session, bot_id=bot_id, update=TopicSettingsUpdate(allow_remote_images=True))
    # The image URL cannot load (nothing listens on port 9): if any onerror survived, it would run.
    content = "\n\n".join(
        [
            '![broken](http://127.0.0.1:9/x.png "title")',
            f'![injected](http://127.0.0.1:9/y.png" onerror="{TRAP})',
            f"![js](javascript:{TRAP})",
            IMG,
        ]
    )
    is_error, body = mcp_publish(e2e_app, token, topic_key="inbox", title="images", content=content)
    assert not is_error, body
    log_in(page, e2e_app)
    panel = open_panel(page, e2e_app, bot_id, f"&item={body['item_id']}")
    expect(panel.detail_title()).to_have_text("images")
    images = panel.detail_content().locator("img")
    expect(images).to_have_count(1)
    expect(images).to_have_attribute("src", "http://127.0.0.1:9/x.png")
    page.wait_for_function(
        "(detail) => [...document.querySelectorAll(`${detail} img`)].every((img) => img.complete)",
        arg=TopicPanel.ITEM_DETAIL,
    )
    _assert_detail_is_inert(page)
    expect(panel.detail_content()).to_contain_text(IMG)


RECORD_URL_WRITES = """
window.__urls = [];
const replaceState = history.replaceState.bind(history);
history.replaceState = (state, title, url) => {
  window.__urls.push(String(url));
  return replaceState(state, title, url);
};
"""


def test_a_crafted_link_cannot_inject_script_through_the_url(trapped: Page, e2e_app: E2EApp) -> None:
    """The panel writes its URL back with a script; a `view` parameter from a link must not break out of it."""
    page = trapped
    page.add_init_script(RECORD_URL_WRITES)
    bot_id, _ = make_bot(e2e_app)
    item_id = seed(e2e_app, bot_id, topic_key="inbox", title="harmless")
    log_in(page, e2e_app)
    panel = TopicPanel(page, e2e_app.url)
    for view in ("');window.__xss++;('", '"+alert(1)+"', "topic:x');window.__xss++;//", "topic:a b&c=d#e"):
        page.goto(e2e_app.path(f"/?bot={bot_id}&view={quote(view)}"))
        expect(panel.heading()).to_be_visible()
        panel.expect_live()
        writes = page.evaluate("window.__urls.length")
        panel.unread_only().click()  # a filter change writes the URL back
        page.wait_for_function(f"window.__urls.length > {writes}")
        assert page.evaluate("window.__xss") == 0, view
        written = page.evaluate("new URLSearchParams(window.__urls.at(-1).split('?')[1]).get('view')")
        assert written is None  # unknown views, and topics the bot does not have, fall back to "all"
        panel.unread_only().click()
        if not view.startswith("topic:"):
            panel.row(item_id).click()
            expect(panel.detail_title()).to_have_text("harmless")
            expect(page).to_have_url(re.compile(rf"/\?bot={bot_id}&item={item_id}$"))
            assert page.evaluate("window.__xss") == 0, view
