// The page's own confirmation dialog (issue 31 item 1): a question that costs coins is asked in
// the page's language and style, never with the browser's confirm() box (unstyled, and with
// the browser's own button labels, often English on a Chinese page). A modal alertdialog:
// focus moves to its safe button (cancel), Tab stays inside, Escape cancels, and focus returns
// to where it was.

import { t } from "./i18n.js";
import { esc } from "./ui.js";

let open = null;

/** Ask `body` under `title`; resolves true for `ok`, false for cancel, Escape or a second
 * dialog replacing this one. */
export function confirmDialog({ title, body, ok, cancel, danger = true }) {
  if (open) open.finish(false);
  const before = document.activeElement;
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
    const finish = (answer) => {
      if (open?.box !== box) return;
      open = null;
      document.removeEventListener("keydown", onKey, true);
      box.remove();
      if (before && typeof before.focus === "function" && document.contains(before)) before.focus();
      resolve(answer);
    };
    const onKey = (event) => {
      if (event.key === "Escape") {
        event.preventDefault();
        event.stopPropagation();
        finish(false);
      } else if (event.key === "Tab") {
        // keep the focus inside the dialog
        const buttons = [box.querySelector("#confirm-cancel"), box.querySelector("#confirm-ok")];
        const at = buttons.indexOf(document.activeElement);
        event.preventDefault();
        buttons[(at + (event.shiftKey ? buttons.length - 1 : 1)) % buttons.length].focus();
      } else if (event.key !== "Enter" && event.key !== " ") {
        event.stopPropagation(); // the table's keys (discard, pass) do not act behind the dialog
      }
    };
    open = { box, finish };
    document.addEventListener("keydown", onKey, true);
    box.querySelector("#confirm-cancel").addEventListener("click", () => finish(false));
    box.querySelector("#confirm-ok").addEventListener("click", () => finish(true));
    box.addEventListener("click", (event) => {
      if (event.target === box) finish(false);
    });
    box.querySelector("#confirm-cancel").focus();
  });
}
