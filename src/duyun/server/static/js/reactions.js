// The table's reactions (☺, issue 31 item 4): a reaction is a speech bubble by its sender's seat
// plate for a few seconds, and the status region reads it out. A player tired of one seat's
// reactions taps that seat's plate, or its small ☺ button (the keyboard's way, and a screen
// reader's: the plate itself stays plain text to read): a small menu hides that seat's
// reactions, or shows them again, for the rest of the match (a reload of the page included).

import { announce } from "./announce.js";
import { app, render } from "./core.js";
import { t, zhText } from "./i18n.js";
import { esc, seatName, toast } from "./ui.js";

const BUBBLE_MS = 3500;
/** Seats whose reactions are hidden, for the match on screen (forgotten at a new match). */
const muted = new Set();
/** The table they belong to; kept in the tab's sessionStorage with them, so that a reload
 * in the middle of the match does not bring back the reactions its player hid. */
let mutedAt = null;
const STORED = "duyun.mutedSeats";

function keep() {
  try {
    sessionStorage.setItem(STORED, JSON.stringify({ code: mutedAt, seats: [...muted] }));
  } catch {
    /* no storage (a private window): the mutes last as long as the page */
  }
}

/** A new match on screen (another table, or 再來一局 at this one): every seat is heard again. */
export function forgetReactionMutes(code = null) {
  muted.clear();
  mutedAt = code;
  keep();
}

/** The match is over: this page keeps its mutes to its end, a page opened later has none
 * (a private table's 再來一局 under the same code is another match). */
export function leaveReactionMutes() {
  try {
    sessionStorage.removeItem(STORED);
  } catch {
    /* no storage */
  }
}

/** The first table message of a page just opened: the mutes it had for this table, if it
 * was reloaded in the middle of the match, else none. */
export function restoreReactionMutes(code) {
  let stored = null;
  try {
    stored = JSON.parse(sessionStorage.getItem(STORED) ?? "null");
  } catch {
    stored = null;
  }
  muted.clear();
  mutedAt = code;
  if (stored?.code === code && Array.isArray(stored.seats))
    for (const seat of stored.seats) if (Number.isInteger(seat) && seat >= 0 && seat < 4) muted.add(seat);
  keep();
}

/** The plate's button for the seat's menu (another seat's, occupied), crossed out while the
 * seat's reactions are hidden; "" for the own seat and an empty one. */
export function seatMenuButton(seat) {
  const info = app.table?.seats?.[seat];
  if (!info || seat === app.seat) return "";
  const off = muted.has(seat);
  const label = `${seatName(info, seat)}: ${t("seat_menu")}${off ? ` (${t("reactions_hidden")})` : ""}`;
  return `<button class="seat-menu-btn ${off ? "off" : ""}" id="seat-menu-btn-${seat}" data-do="seat-menu" data-seat="${seat}" aria-haspopup="dialog" aria-expanded="${openSeat === seat}" aria-label="${esc(label)}" title="${esc(label)}">☺</button>`;
}

/** A reaction from the server (`{seat, name, id, text}`): a bubble by the sender's plate. */
export function showReaction(msg) {
  const seat = msg.seat;
  if (seat == null || muted.has(seat)) return;
  const text = zhText(msg.text ?? msg.id); // the server's words are Traditional
  const who = seatName(app.table?.seats?.[seat], seat);
  announce(`${who}: ${text}`);
  const plate = document.getElementById(`plate-${seat}`);
  if (!plate) return;
  document.querySelectorAll(`.reaction-bubble[data-seat="${seat}"]`).forEach((el) => el.remove());
  const bubble = document.createElement("div");
  const r = plate.getBoundingClientRect();
  // above a plate in the lower half of the screen, below one in the upper half
  const below = r.top + r.height / 2 < window.innerHeight / 2;
  bubble.className = `reaction-bubble ${below ? "below" : "above"}`;
  bubble.dataset.seat = String(seat);
  bubble.setAttribute("aria-hidden", "true"); // the status region has said it
  bubble.textContent = text;
  (document.getElementById("app") ?? document.body).appendChild(bubble);
  const w = bubble.offsetWidth;
  const x = Math.max(4, Math.min(window.innerWidth - w - 4, r.left + r.width / 2 - w / 2));
  bubble.style.left = `${x}px`;
  bubble.style.setProperty("--tail", `${Math.max(10, Math.min(w - 10, r.left + r.width / 2 - x))}px`);
  if (below) bubble.style.top = `${r.bottom + 8}px`;
  else bubble.style.bottom = `${window.innerHeight - r.top + 8}px`;
  setTimeout(() => bubble.remove(), BUBBLE_MS);
}

// ------------------------------------------------------------------ the seat's menu

let openSeat = null;

function closeMenu(refocus) {
  document.getElementById("seat-menu")?.remove();
  const seat = openSeat;
  openSeat = null;
  document.querySelectorAll('.seat-menu-btn[aria-expanded="true"]').forEach((el) => el.setAttribute("aria-expanded", "false"));
  if (refocus && seat != null) document.getElementById(`seat-menu-btn-${seat}`)?.focus();
}

function openMenu(seat) {
  closeMenu(false);
  const plate = document.getElementById(`plate-${seat}`);
  if (!plate) return;
  openSeat = seat;
  document.getElementById(`seat-menu-btn-${seat}`)?.setAttribute("aria-expanded", "true");
  const who = seatName(app.table?.seats?.[seat], seat);
  const off = muted.has(seat);
  const menu = document.createElement("div");
  menu.className = "seat-menu";
  menu.id = "seat-menu";
  menu.setAttribute("role", "dialog");
  menu.setAttribute("aria-label", `${who}: ${t("seat_menu")}`);
  menu.dataset.seat = String(seat);
  menu.innerHTML = `<div class="seat-menu-who">${esc(who)}</div>
    <button class="btn small ${off ? "" : "secondary"}" id="seat-mute-toggle" data-do="seat-mute" data-seat="${seat}" aria-pressed="${off}">${esc(t(off ? "show_seat_reactions" : "hide_seat_reactions"))}</button>`;
  (document.getElementById("app") ?? document.body).appendChild(menu);
  const r = plate.getBoundingClientRect();
  const w = menu.offsetWidth;
  const h = menu.offsetHeight;
  menu.style.left = `${Math.max(4, Math.min(window.innerWidth - w - 4, r.left + r.width / 2 - w / 2))}px`;
  const below = r.top + r.height / 2 < window.innerHeight / 2;
  menu.style.top = `${below ? Math.min(window.innerHeight - h - 4, r.bottom + 6) : Math.max(4, r.top - h - 6)}px`;
  menu.querySelector("button")?.focus();
}

export const reactionHandlers = {
  "seat-menu": (el) => {
    const seat = Number(el.dataset.seat);
    if (openSeat === seat) closeMenu(false);
    else openMenu(seat);
  },
  "seat-mute": (btn) => {
    const seat = Number(btn.dataset.seat);
    const who = seatName(app.table?.seats?.[seat], seat);
    if (muted.has(seat)) muted.delete(seat);
    else {
      muted.add(seat);
      document.querySelectorAll(`.reaction-bubble[data-seat="${seat}"]`).forEach((b) => b.remove());
    }
    mutedAt = app.table?.code ?? null;
    keep();
    toast(t(muted.has(seat) ? "seat_reactions_hidden" : "seat_reactions_shown", { who }), "info");
    closeMenu(true);
    render();
  },
};

// Escape closes the menu; Enter and Space on the plate's button or inside the menu belong to
// them (the button's own click), never to the table's keyboard play (Enter there discards).
document.addEventListener(
  "keydown",
  (event) => {
    const target = event.target;
    if (!(target instanceof Element)) return;
    if (event.key === "Escape" && openSeat != null) {
      event.preventDefault();
      event.stopImmediatePropagation();
      closeMenu(true);
    } else if (target.closest("#seat-menu, .seat-menu-btn")) {
      event.stopImmediatePropagation();
    }
  },
  { capture: true },
);

// a click elsewhere closes the menu (the plate's own click toggles it)
document.addEventListener(
  "click",
  (event) => {
    if (openSeat == null) return;
    const target = event.target instanceof Element ? event.target : null;
    if (target?.closest("#seat-menu") || target?.closest(`#plate-${openSeat}`)) return;
    closeMenu(false);
  },
  { capture: true },
);
