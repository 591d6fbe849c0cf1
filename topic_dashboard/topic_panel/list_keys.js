// The Topic panel's item list and the keyboard (loaded by topic_panel/page.py), on top of the list
// cursor that assets/keyboard_shortcuts.js keeps (the row marked data-td-cursor; j / k move it):
// - One Tab stop for the list (roving tabindex): page.py draws every row and tick box with
//   tabindex=-1, and this puts the cursor's row and its tick box back in the Tab order. So Tab enters
//   the list at its current row, a second Tab reaches that row's box, the next one leaves the list.
// - In the list the arrows are j and k, and the focus follows the cursor while it is in the list.
// - A tick box takes no focus from a mouse click, and one reached with Tab passes the shortcut keys
//   (x, v, m, j, ...) to its row: keyboard_shortcuts.js leaves keys typed into an input alone. Space
//   still ticks it, Tab still leaves it.
// - html[data-td-keyboard] while the keyboard is in use (from a key press to the next pointer press):
//   assets/styles.css draws the cursor as the current row only then, so one row reads as current.
(() => {
  if (window.__tdListKeys) return;
  window.__tdListKeys = true;
  const root = document.documentElement;
  const CURSOR = "data-td-cursor";
  const ROW = "#item-list [data-td-row]";
  const BOX = "[data-td-select]";
  const ARROWS = { ArrowDown: "j", ArrowUp: "k" };

  const setStop = (row, on) => {
    const value = on ? "0" : "-1";
    for (const el of [row, row.querySelector(BOX)]) {
      if (el && el.getAttribute("tabindex") !== value) el.setAttribute("tabindex", value);
    }
  };
  const followCursor = () => {
    const cursor = document.querySelector(`#item-list [${CURSOR}]`);
    document.querySelectorAll(`${ROW}[tabindex="0"]`).forEach((row) => {
      if (row !== cursor) setStop(row, false);
    });
    if (!cursor) return;
    setStop(cursor, true);
    const active = document.activeElement;
    const inRow = active && active.closest ? active.closest(ROW) : null;
    if (inRow && inRow !== cursor) cursor.focus({ preventScroll: true });  // keyboard_shortcuts.js scrolled
  };
  // The cursor moves by an attribute: watch that attribute only (a key press, a click, live rows).
  new MutationObserver(followCursor).observe(root, { subtree: true, attributes: true, attributeFilter: [CURSOR] });
  followCursor();

  window.addEventListener("pointerdown", () => root.removeAttribute("data-td-keyboard"), true);
  // A tick box clicked with the mouse does not take the focus (it stays on the row it was on, with the
  // cursor), so the keys after a tick act where they did before it: v moves the ticked rows, j goes on.
  window.addEventListener("mousedown", (event) => {
    const target = event.target;
    if (target && target.matches && target.matches(`${ROW} ${BOX}`)) event.preventDefault();
  }, true);
  window.addEventListener("keydown", (event) => {
    if (!event.isTrusted) return;  // the keys passed on below
    if (!root.hasAttribute("data-td-keyboard")) root.setAttribute("data-td-keyboard", "");
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    const row = target && target.closest ? target.closest(ROW) : null;
    if (!row) return;
    const onBox = target !== row && target.matches(BOX);
    const passed = event.key === "Escape" || (event.key.length === 1 && event.key !== " ");
    const key = ARROWS[event.key] || (onBox && passed ? event.key : "");
    if (!key) return;
    event.preventDefault();  // an arrow would scroll the column: the cursor scrolls it as it moves
    event.stopPropagation();
    // To the row, where keyboard_shortcuts.js acts on it as on any key pressed on a row.
    row.dispatchEvent(new KeyboardEvent("keydown", { key, shiftKey: event.shiftKey, bubbles: true, cancelable: true }));
  }, true);
})();
