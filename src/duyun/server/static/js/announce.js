// What a screen reader says at the table (issue 31 item 8): the page is drawn again at every
// event, so the page itself is no live region (a reader would read every redraw); instead
// the moments that matter — a discard, a claim offered, a win, one's turn — are written to one
// polite status region (#announce), all those of one moment together.

let pending = [];

/** Say `text` once the current moment's events are in (several join into one sentence). */
export function announce(text) {
  if (!text) return;
  if (!pending.length) {
    requestAnimationFrame(() => {
      const el = document.getElementById("announce");
      const said = pending.join(" · ");
      pending = [];
      if (!el) return;
      // a new text node every time: the same words twice are announced twice
      el.textContent = "";
      el.append(document.createTextNode(said));
    });
  }
  pending.push(text);
}
