// The page's own confirmation dialog (issue 31 item 1): a question that costs coins is asked in
// the page's language and style, never with the browser's confirm() box (unstyled, and with
// the browser's own button labels, often English on a Chinese page). A modal alertdialog:
// focus moves to its safe button (cancel), Tab stays inside, Escape cancels, and focus returns
// to where it was.

import { t } from "./i18n.js";
import { esc } from "./ui.js";

let open = null;

export const FOCUSABLE = "button:not([disabled]), [href], input, select, textarea, [tabindex]:not([tabindex='-1'])";

/** Keep the keyboard inside `container` (a dialog): Tab and Shift+Tab cycle through its
 * controls, Escape calls `onEscape`; the page's own keys do not act behind it. Returns the
 * release, which also gives the focus back to where it was. */
export function holdFocus(container, onEscape) {
  const before = document.activeElement;
  const onKey = (event) => {
    if (!document.contains(container)) return;
    if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      onEscape();
    } else if (event.key === "Tab") {
      const items = [...container.querySelectorAll(FOCUSABLE)].filter((el) => el.getClientRects().length);
      if (!items.length) return;
      const at = items.indexOf(document.activeElement);
      const next = at < 0 ? 0 : (at + (event.shiftKey ? items.length - 1 : 1)) % items.length;
      event.preventDefault();
      items[next].focus();
    } else if (container.contains(document.activeElement) && event.key !== "Enter" && event.key !== " ") {
      event.stopPropagation(); // the table's keys (discard, pass) do not act behind the dialog
    }
  };
  document.addEventListener("keydown", onKey, true);
  return () => {
    document.removeEventListener("keydown", onKey, true);
    if (before && typeof before.focus === "function" && document.contains(before)) before.focus();
  };
}

/** Ask `body` under `title`; resolves true for `ok`, false for cancel, Escape or a second
 * dialog replacing this one. */
export function confirmDialog({ title, body, ok, cancel, danger = true }) {
  if (open) open.finish(false);
  const box = document.createElement("div");
  box.className = "overlay confirm-overlay";
  box.id = "confirm-dialog";
  box.innerHTML = `<div class="sheet confirm-sheet" role="alertdialog" aria-modal="true" aria-labelledby="confirm-title" aria-describedby="confirm-body">
      <h2 id="confirm-title">${esc(title)}</h2>
      <div id="confirm-body" class="confirm-body">${esc(body).replace(/\n/g, "<br>")}</div>
      <div class="actions">
        <button class="btn secondary" id="confirm-cancel">${esc(cancel ?? t("cancel"))}</button>
        <button class="btn ${danger ? "danger" : ""}" id="confirm-ok">${esc(ok ?? t("confirm"))}</button>
      </div>
    </div>`;
  document.body.appendChild(box);
  return new Promise((resolve) => {
    let release = () => {};
    const finish = (answer) => {
      if (open?.box !== box) return;
      open = null;
      box.remove();
      release();
      resolve(answer);
    };
    open = { box, finish };
    release = holdFocus(box, () => finish(false));
    box.querySelector("#confirm-cancel").addEventListener("click", () => finish(false));
    box.querySelector("#confirm-ok").addEventListener("click", () => finish(true));
    box.addEventListener("click", (event) => {
      if (event.target === box) finish(false);
    });
    box.querySelector("#confirm-cancel").focus();
  });
}
