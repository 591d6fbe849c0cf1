"""The Rules page (`/rules`): topics and their routing rules, the live "test this message", retention."""

from __future__ import annotations

from dataclasses import dataclass

from playwright.sync_api import Locator, expect

from tests.e2e.pages.shell import PAGE_LOAD_MS, Shell

# For `locator.evaluate`: the text of each cell of a table that is not wholly in view: cut off by the table's
# edge (a column behind a sideways scroll) or by the window's, or with content sticking out over its neighbour.
CELLS_OUT_OF_VIEW = """(root) => {
  const edge = Math.min(root.getBoundingClientRect().right, window.innerWidth) + 1;
  return [...root.querySelectorAll("td")]
    .filter((cell) => {
      const box = cell.getBoundingClientRect();
      const over = [...cell.querySelectorAll("*")].some((e) => e.getBoundingClientRect().right > box.right + 1);
      return box.left < -1 || box.right > edge || over;
    })
    .map((cell) => cell.textContent);
}"""

# For `page.evaluate`: what sticks out past the window's right edge (the outermost such elements, as
# tag#id.class), to say what made the page scroll sideways.
PAST_THE_WINDOW = """() => {
  const past = [...document.body.querySelectorAll("*")].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1);
  return past.filter((e) => !past.includes(e.parentElement))
    .map((e) => `${e.tagName.toLowerCase()}#${e.id}.${[...e.classList].join(".")} ${Math.round(e.getBoundingClientRect().right)}`);
}"""

# For `locator.evaluate`: the words of an element's text that a line break cuts in two (a whole word's box is
# one rectangle; "Custo/mer" is two).
WORDS_BROKEN = """(element) => {
  const broken = [];
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const word of node.data.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(node, word.index);
      range.setEnd(node, word.index + word[0].length);
      if (range.getClientRects().length > 1) broken.push(word[0]);
    }
  }
  return broken;
}"""


@dataclass
class RulesPage(Shell):
    # Selectors that scripts run in the page or checks taking a selector also need.
    TABLE = "#rules-table"
    EDITOR_KEY = "#editor-key"
    BOT_SELECT = "#rules-bot-select"

    def open(self, bot_id: str, *, until_topic: str = "inbox") -> RulesPage:
        """The page on `bot_id`, once the table lists `until_topic` (the fallback, unless told)."""
        self.page.goto(self.path(f"/rules?bot={bot_id}"))
        expect(self.rule_row(until_topic)).to_be_visible(timeout=PAGE_LOAD_MS)
        return self

    def open_link(self, query: str, *, until_topic: str = "inbox") -> RulesPage:
        """The page at `/rules?<query>` (a shared link, a bookmark), once the table lists `until_topic`."""
        self.page.goto(self.path(f"/rules?{query}"))
        expect(self.rule_row(until_topic)).to_be_visible(timeout=PAGE_LOAD_MS)
        return self

    def link_note(self) -> Locator:
        """Why the topic a link named was not opened."""
        return self.page.locator("#rules-link-note")

    def table(self) -> Locator:
        return self.page.locator(self.TABLE)

    def rule_row(self, topic_key: str) -> Locator:
        """The topic's row in the table; a click opens it in the editor."""
        return self.page.locator(f"#rule-row-{topic_key}")

    def editor_key(self) -> Locator:
        return self.page.locator(self.EDITOR_KEY)

    def description(self) -> Locator:
        return self.page.locator("#rule-description")

    def purpose(self) -> Locator:
        return self.page.locator("#rule-purpose")

    def condition(self, kind: str, index: int) -> Locator:
        """A condition field of the rule: `include_when` or `exclude_when`, by position."""
        return self.page.locator(f"#{kind}-{index}")

    def example(self, kind: str, index: int) -> Locator:
        """An example of the rule: `positive` or `negative`, by position."""
        return self.page.locator(f"#{kind}-{index}")

    def history(self) -> Locator:
        """The rule's history: one `details` per change (before/after JSON inside)."""
        return self.page.locator("#rule-history")

    def history_entries(self) -> Locator:
        return self.history().locator(":scope > details")

    @staticmethod
    def open_change(entry: Locator) -> tuple[Locator, Locator]:
        """Unfold a history entry and its full JSON; returns the JSON before and after."""
        # opened, not toggled: React may keep an entry open when another topic's history takes its place
        if entry.get_attribute("open") is None:
            entry.locator(":scope > summary").click()
        json_versions = entry.locator(".history-json")
        if json_versions.get_attribute("open") is None:
            json_versions.locator(":scope > summary").click()
        return entry.locator("pre").nth(0), entry.locator("pre").nth(1)

    @staticmethod
    def changed_fields(entry: Locator) -> Locator:
        """An unfolded entry's rows of changed fields (Field, Before, After)."""
        return entry.locator(".history-changes tbody tr")

    # The table and a new topic ----------------------------------------------------------------
    def read_only_note(self) -> Locator:
        return self.page.locator("#read-only-note")

    def new_topic_button(self) -> Locator:
        return self.page.locator("#new-topic")

    def choose_template(self, label: str) -> None:
        """New topic → a template (it fills the key, name and rule; not yet created)."""
        self.new_topic_button().click()
        self.page.locator("#new-template").click()
        self.page.get_by_role("option", name=label, exact=True).click()

    def new_key(self) -> Locator:
        return self.page.locator("#new-key")

    def new_name(self) -> Locator:
        return self.page.locator("#new-name")

    def create_new(self) -> None:
        self.page.locator("#new-create").click()

    def new_error(self) -> Locator:
        return self.page.locator("#new-error")

    def add_from_template(self, label: str, topic_key: str) -> None:
        """New topic → a template → Create; the editor then shows it."""
        self.choose_template(label)
        expect(self.new_key()).to_have_value(topic_key)
        self.create_new()
        expect(self.editor_key()).to_have_text(topic_key)

    def select(self, topic_key: str) -> None:
        self.rule_row(topic_key).click()
        expect(self.editor_key()).to_have_text(topic_key)

    # The editor ----------------------------------------------------------------------------------
    def name_field(self) -> Locator:
        return self.page.locator("#rule-name")

    def mode(self, label: str) -> None:
        """The editor's mode: Form or JSON."""
        self.page.locator("#rule-mode").get_by_role("radio", name=label).click()

    def json_editor(self) -> Locator:
        return self.page.locator("#rule-json")

    def rule_error(self) -> Locator:
        return self.page.locator("#rule-error")

    def priority_value(self) -> Locator:
        return self.page.locator("#rule-priority-value")

    def active_switch(self) -> Locator:
        return self.page.locator("#rule-active-switch")

    def active_state(self) -> Locator:
        """The topic's Active state in words, for those who cannot change it (their switch is greyed)."""
        return self.page.locator("#rule-active-state")

    def add_button(self, kind: str) -> Locator:
        """The "add" button of a list in the rule: include_when, exclude_when, positive (the tested message)."""
        return self.page.locator(f"#add-{kind}")

    def save_button(self) -> Locator:
        return self.page.locator("#rule-save")

    def delete_button(self) -> Locator:
        return self.page.locator("#rule-delete")

    def delete_items_choice(self) -> Locator:
        """What happens to a deleted topic's items (radios: move them to the fallback, delete them)."""
        return self.page.locator("#delete-items-choice")

    def confirm_delete_button(self) -> Locator:
        return self.page.locator("#delete-confirm")

    # "Test this message" ---------------------------------------------------------------------------
    def test_message(self, text: str) -> Locator:
        """Type a message into "test this message"; returns where the decision shows ("→ key")."""
        self.page.locator("#test-message").fill(text)
        return self.decision("topic")

    def test_title(self, text: str) -> None:
        """Give the tested message a title (optional, as topic_publish takes one)."""
        self.page.locator("#test-title").fill(text)

    def decision(self, part: str) -> Locator:
        """A part of the tested message's decision: topic, reason, scores, publish, confidence."""
        return self.page.locator(f"#decision-{part}")

    def add_include_condition(self, text: str) -> None:
        fields = self.page.locator("[id^='include_when-']")
        count = fields.count()
        self.add_button("include_when").click()
        self.condition("include_when", count).fill(text)

    def save(self) -> None:
        self.save_button().click()
        # a save embeds the rule's new texts and their glosses first: seconds on a loaded machine
        expect(self.page.get_by_text("Saved: bots route by this rule")).to_be_visible(timeout=20_000)

    # Retention ---------------------------------------------------------------------------------------
    def open_retention(self) -> None:
        self.page.locator("#rule-retention").click()

    def keep_days(self) -> Locator:
        return self.page.locator("#keep-days")

    def keep_items(self) -> Locator:
        return self.page.locator("#keep-items")

    def save_retention(self) -> None:
        self.page.locator("#retention-save").click()

    def save_retention_button(self) -> Locator:
        return self.page.locator("#retention-save")

    def retention_error(self) -> Locator:
        return self.page.locator("#retention-error")

    def retention_dry_run(self) -> Locator:
        """What a purge would delete now."""
        return self.page.locator("#retention-dry-run")

    def purge_button(self) -> Locator:
        return self.page.locator("#retention-purge")

    def close_retention(self) -> None:
        self.page.locator("#retention-close").click()

    def set_retention(self, *, days: str = "", items: str = "") -> Locator:
        """Open the topic's Retention dialog, save the limits; returns the dry-run line."""
        self.open_retention()
        self.keep_days().fill(days)
        self.keep_items().fill(items)
        self.save_retention()
        expect(self.page.get_by_text("saved").first).to_be_visible()
        return self.retention_dry_run()

    def purge_now(self) -> None:
        self.purge_button().click()
