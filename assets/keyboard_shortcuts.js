// Global keyboard shortcuts: a key press clicks a hidden button bound to a State event.
// A page declares its keys on an element: <div data-td-shortcuts='{"j": "button-id", ...}'>.
// Served as a file (not an inline script) so the Content-Security-Policy needs no exception.
// Keys typed into inputs, text areas and selects, or with Ctrl/Alt/Meta held, are left alone;
// so are keys inside open menus and listboxes (their type-ahead), and Enter on a focused control.
(() => {
  if (window.__tdShortcuts) return;
  window.__tdShortcuts = true;
  // Elements marked data-td-stick-bottom follow what is added at their end (a chat's new messages,
  // a streaming answer) while the reader is at the end; scrolled up to read, they stay put.
  const wired = new WeakSet();
  const atEnd = (el) => el.scrollHeight - el.scrollTop - el.clientHeight < 80;
  const wire = (el) => {
    if (wired.has(el)) return;
    wired.add(el);
    el.__tdAtEnd = true;
    el.scrollTop = el.scrollHeight;
    el.addEventListener("scroll", () => { el.__tdAtEnd = atEnd(el); });
    new MutationObserver(() => { if (el.__tdAtEnd) el.scrollTop = el.scrollHeight; })
      .observe(el, { childList: true, subtree: true, characterData: true });
  };
  const wireAll = () => document.querySelectorAll("[data-td-stick-bottom]").forEach(wire);
  window.__tdStickToEnd = (id) => {
    const el = document.getElementById(id);
    if (!el) return;
    el.__tdAtEnd = true;
    requestAnimationFrame(() => { el.scrollTop = el.scrollHeight; });
  };
  // A link to an item (?item=) shows its row too, wherever it is in the list: tried for up to 30 frames,
  // until the list is drawn (topic_panel/state.py calls it once the item is opened).
  window.__tdShowRow = (id, tries = 30) => {
    const row = document.getElementById(id);
    if (row) row.scrollIntoView({ block: "center" });
    else if (tries > 0) requestAnimationFrame(() => window.__tdShowRow(id, tries - 1));
  };
  // Back (or Forward) to an address without an open item: a page that shows items closes the one
  // it shows (the item was opened with history.pushState; see topic_panel/state.py _url_script).
  window.addEventListener("popstate", () => {
    if (new URLSearchParams(window.location.search).has("item")) return;
    const close = document.getElementById("td-history-close");
    if (close) close.click();
  });
  // The Topic panel's item list (topic_panel/page.py) and the keyboard:
  // - The list cursor: an attribute on the row it is on (assets/styles.css draws it), moved between two
  //   rows at a time, so a key press restyles two elements, not the list.
  // - One Tab stop for the list (roving tabindex): page.py draws every row and tick box with tabindex=-1,
  //   and the cursor's row and its tick box are put back in the Tab order. So Tab enters the list at its
  //   current row, a second Tab reaches that row's box, the next one leaves the list. A focus in the list
  //   follows the cursor.
  // - html[data-td-keyboard] while the keyboard is in use (from a key press to the next pointer press):
  //   styles.css draws the cursor as the current row only then, so one row reads as current.
  const root = document.documentElement;
  const CURSOR = "data-td-cursor";
  const KEYBOARD = "data-td-keyboard";
  const ROW = "#item-list [data-td-row]";
  const BOX = "[data-td-select]";
  const firstRow = () => document.querySelector(ROW);
  // The open item's row (a deep link, Back): where a list without a cursor starts, so the first j goes on from it.
  const openRow = () => document.querySelector(`${ROW}[aria-current=true]`);
  const cursorRow = () => {
    const marked = document.querySelector(`#item-list [${CURSOR}]`);
    return marked || firstRow();
  };
  const setStop = (row, on) => {
    const value = on ? "0" : "-1";
    for (const el of [row, row.querySelector(BOX)]) {
      if (el && el.getAttribute("tabindex") !== value) el.setAttribute("tabindex", value);
    }
  };
  // Kept by the row's id: the list reuses row elements by position, so the attribute alone would
  // stay at its place while live rows push the items down.
  let cursorId = null;
  // Whether the cursor is where the page put it by itself (a list's first row, for the Tab order) rather than
  // where the person put it (a click, a focus, the keys): a j or k pressed while it is not drawn (the
  // keyboard not in use: html[data-td-keyboard] absent until that key) then shows it there rather than
  // moving on (a walkthrough's first j landed on the second row). With the keyboard in use it is drawn,
  // so j moves on from it; from an open item's row (a link to it) j goes on too.
  let cursorAuto = true;
  let keyboardWasOn = false;
  const putCursor = (row) => {
    cursorId = row ? row.id : null;
    const old = document.querySelector(`#item-list [${CURSOR}]`);
    if (old !== row) {
      if (old) old.removeAttribute(CURSOR);
      if (row) row.setAttribute(CURSOR, "");
    }
    document.querySelectorAll(`${ROW}[tabindex="0"]`).forEach((other) => { if (other !== row) setStop(other, false); });
    if (!row) return;
    setStop(row, true);
    const active = document.activeElement;
    const inRow = active && active.closest ? active.closest(ROW) : null;
    if (inRow && inRow !== row) row.focus({ preventScroll: true });  // moveCursor scrolls it into view
  };
  const moveCursor = (delta) => {
    const at = cursorRow();
    if (!at) return false;
    const unseen = cursorAuto && !keyboardWasOn && !openRow();
    cursorAuto = false;
    if (unseen) {
      putCursor(at);
      at.scrollIntoView({ block: "nearest" });
      return true;
    }
    // Rows are the list's children: the next (or previous) one, or stay at the end.
    const sibling = (el) => (delta > 0 ? el.nextElementSibling : el.previousElementSibling);
    let step = sibling(at);
    while (step && !step.hasAttribute("data-td-row")) step = sibling(step);
    const next = step || at;
    putCursor(next);
    // The list's header stays at the top of the column: a row scrolled up stops below it, not under it.
    const header = document.getElementById("stream-header");
    next.style.scrollMarginTop = header ? `${header.offsetHeight + 8}px` : "";
    next.scrollIntoView({ block: "nearest" });
    return true;
  };
  window.addEventListener("keydown", () => {
    keyboardWasOn = root.hasAttribute(KEYBOARD);
    if (!keyboardWasOn) root.setAttribute(KEYBOARD, "");
  }, true);
  // A row focused (Tab into the list, a click) is where the person is: the cursor is theirs there.
  document.addEventListener("focusin", (event) => {
    const row = event.target && event.target.closest ? event.target.closest(ROW) : null;
    if (row) { cursorAuto = false; if (row !== document.querySelector(`#item-list [${CURSOR}]`)) putCursor(row); }
  }, true);
  window.addEventListener("pointerdown", () => root.removeAttribute(KEYBOARD), true);
  // A tick box clicked with the mouse does not take the focus (it stays on the row it was on, with the
  // cursor), so the keys after a tick act where they did before it: v moves the ticked rows, j goes on.
  window.addEventListener("mousedown", (event) => {
    const target = event.target;
    if (target && target.matches && target.matches(`${ROW} ${BOX}`)) event.preventDefault();
  }, true);
  // A row opened by a click takes the cursor; a list that lost the cursor's row (a new view, a
  // filter, the row archived) starts again at its open item's row, else at its first row.
  document.addEventListener("click", (event) => {
    const target = event.target;
    if (!target || !target.closest || target.closest("[data-td-select], [data-td-toggle-read]")) return;
    const row = target.closest(ROW);
    if (row) { cursorAuto = false; putCursor(row); }
  }, true);
  // Times in the item list (<time datetime data-td-ago>): "5 min ago", written into an attribute
  // that CSS shows (React owns the element's text), the full local date and time as its title.
  // Again whenever a row's datetime changes and every 30 s.
  const ago = (ms) => {
    const seconds = (Date.now() - ms) / 1000;
    if (seconds < 45) return "just now";
    if (seconds < 3600) return `${Math.max(1, Math.round(seconds / 60))} min ago`;
    if (seconds < 86400) return `${Math.round(seconds / 3600)} h ago`;
    const days = Math.round(seconds / 86400);
    if (days < 7) return days === 1 ? "yesterday" : `${days} days ago`;
    return new Date(ms).toLocaleDateString(undefined, { month: "short", day: "numeric", year: "numeric" });
  };
  const stampTimes = () => {
    document.querySelectorAll("time[data-td-ago]").forEach((el) => {
      const ms = Date.parse(el.getAttribute("datetime") || "");
      const text = Number.isNaN(ms) ? "" : ago(ms);
      if (el.getAttribute("data-td-text") !== text) el.setAttribute("data-td-text", text);
      const full = Number.isNaN(ms) ? "" : new Date(ms).toLocaleString();
      if (el.title !== full) el.title = full;
    });
  };
  setInterval(stampTimes, 30000);
  new MutationObserver(stampTimes).observe(document.documentElement, {
    subtree: true, attributes: true, attributeFilter: ["datetime"],
  });
  // One observer for the whole page's changes: sticky chat panes, the cursor, scroll areas.
  new MutationObserver(() => {
    wireAll();
    stampTimes();
    const wanted = cursorId && document.getElementById(cursorId);
    const inList = wanted && wanted.matches(ROW) ? wanted : null;
    const marked = document.querySelector(`#item-list [${CURSOR}]`);
    if (!inList || marked !== inList) {
      if (!inList) cursorAuto = true;  // a new list (a view, a filter, its row gone): the page places it
      putCursor(inList || openRow() || firstRow());
    } else if (cursorAuto && openRow() && marked !== openRow()) {
      putCursor(openRow());  // an item opened after the rows came (a link to it): the cursor starts there
    }
    // Radix's scroll areas (tables, long views) scroll with the keyboard too: they take focus.
    document.querySelectorAll(".rt-ScrollAreaViewport:not([tabindex])").forEach((el) => el.setAttribute("tabindex", "0"));
  }).observe(document.documentElement, { childList: true, subtree: true });
  document.addEventListener("keydown", (event) => {
    // Ctrl+Enter (Cmd+Enter) in a text box marked data-td-send sends: it clicks that button.
    if ((event.ctrlKey || event.metaKey) && event.key === "Enter" && event.target && event.target.closest) {
      const box = event.target.closest("[data-td-send]");
      const send = box && document.getElementById(box.getAttribute("data-td-send"));
      if (send && !send.disabled) {
        event.preventDefault();
        // The box sends its text after a pause (a debounced input); leaving it sends it at once,
        // so the text is in before the click.
        event.target.blur();
        setTimeout(() => { send.click(); event.target.focus(); }, 0);
        return;
      }
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const holder = document.querySelector("[data-td-shortcuts]");
    if (!holder) return;
    let key = event.key;
    let target = event.target;
    // In the list the arrows are j and k (from a row, or anything in it); a row's tick box passes the
    // shortcut keys (x, v, m, j, Esc, ...) on to its row, which would be left alone as keys typed into an
    // input. Space still ticks the box, Enter does nothing there, Tab still leaves it.
    const row = target && target.closest ? target.closest(ROW) : null;
    if (row) {
      const arrow = { ArrowDown: "j", ArrowUp: "k" }[key];
      const passed = key === "Escape" || (key.length === 1 && key !== " ");
      if (arrow || (target !== row && target.matches(BOX) && passed)) {
        key = arrow || key;
        target = row;
      }
    }
    const tag = target && target.tagName ? target.tagName.toLowerCase() : "";
    if (tag === "input" || tag === "textarea" || tag === "select" || (target && target.isContentEditable)) return;
    const inside = (selector) => Boolean(target && target.closest && target.closest(selector));
    // A focused list row (role=link, tabbable): Enter or space opens it, as a click does.
    // So does a focused sidebar entry (a view, a topic, a bot: role=button on a div, data-td-activate).
    if ((key === "Enter" || key === " ") && target && target.hasAttribute &&
        (target.hasAttribute("data-td-row") || target.hasAttribute("data-td-activate"))) {
      event.preventDefault();
      target.click();
      return;
    }
    if (inside("[role=listbox], [role=menu]")) return;
    const control = "button, a[href], [role=button], [role=link], [role=switch], [role=option], [role=tab]";
    if (key === "Escape" && inside("[role=dialog], [role=alertdialog]")) return;  // the dialog closes itself
    if (key === "Enter" && inside(control)) return;
    // j / k: the list's cursor lives here (an attribute on its row, so live rows arriving above it do
    // not move it); o / Enter open its row and m clicks that row's own read toggle, so what the keys act
    // on is always the row that is marked. (m with rows ticked marks them: the State decides,
    // topic_panel/state.py toggle_read_key, as v moves them.)
    if ((key === "j" || key === "k") && moveCursor(key === "j" ? 1 : -1)) {
      event.preventDefault();
      return;
    }
    const marked = firstRow() ? cursorRow() : null;
    if (marked && (key === "o" || key === "Enter")) {
      event.preventDefault();
      marked.click();
      return;
    }
    if (marked && key === "m" && !document.getElementById("item-detail")) {
      const toggle = marked.querySelector("[data-td-toggle-read]");
      if (toggle) { event.preventDefault(); toggle.click(); return; }
    }
    // x ticks the cursor's row for a bulk action (its checkbox, as a click would).
    if (key === "x") {
      const box = marked && marked.querySelector(BOX);
      if (box) { event.preventDefault(); box.click(); return; }
    }
    // "/" jumps to the page's search box, as in most readers.
    if (key === "/") {
      const search = document.getElementById("search-input");
      if (search) { event.preventDefault(); search.focus(); search.select(); return; }
    }
    let keys = {};
    try { keys = JSON.parse(holder.getAttribute("data-td-shortcuts") || "{}"); } catch (e) { return; }
    const id = keys[key];
    const button = id && document.getElementById(id);
    if (button) { event.preventDefault(); button.click(); }
  });
})();
// Browser notifications (topic_panel/state.py, _notify_script): asked for once, shown only while the
// tab is in the background (in front, the list shows the item). Text only: a Notification renders
// no markup. A click brings the tab forward on the item.
(() => {
  if (window.__tdNotify) return;
  window.__tdAskNotify = () =>
    "Notification" in window ? Promise.resolve(Notification.requestPermission()) : Promise.resolve("unsupported");
  let audio = null;
  const chime = () => {
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      tone.frequency.value = 880;
      gain.gain.setValueAtTime(0.08, audio.currentTime);
      gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.35);
      tone.connect(gain).connect(audio.destination);
      tone.start();
      tone.stop(audio.currentTime + 0.35);
    } catch (e) { /* no audio here: the notification alone */ }
  };
  window.__tdNotify = (notes, sound) => {
    if (!document.hidden || !("Notification" in window) || Notification.permission !== "granted") return;
    notes.forEach((n) => {
      const note = new Notification(n.title, { body: n.body, tag: "td-" + n.id });
      note.onclick = () => { window.focus(); window.location.href = n.href; };
    });
    if (sound) chime();
  };
})();
