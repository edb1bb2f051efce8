// The settlement panel after each hand (who paid whom and why, pattern and extras, fan, points
// and coins, the winning hand with its winning tile, beans paid during the hand and 黃豆 refunds)
// and the match summary (大結算) at the end.

import { getLang, ordinalSuffix, patternName, t } from "./i18n.js";
import { app as appState, render, send } from "./core.js";
import { explainPayment, ruleLink } from "./rules.js";
import { parseHand, sortTiles } from "./tiles.js";
import { COIN, coinsText, esc, meldHTML, seatName, signed, tile } from "./ui.js";
import { FOCUSABLE } from "./dialog.js";

// ------------------------------------------------------------------ reading (issue 21 item 4)
//
// A settlement must not close while a person reads it. The panel's countdown is the time until
// this page presses 下一局 by itself (the hand_end's `next_hand_in`); it stands still while the
// pointer rests on the panel and for a few seconds after a touch or a scroll. When the next
// hand starts anyway (the server's own limit) while the panel is being read and 下一局 was not
// pressed, the panel stays over the new hand until the reader lets go of it, closes it, or is
// asked to act.

// Three ways of reading, kept apart: the mouse resting over the panel (`pointer`), the
// keyboard's focus taken onto it by its reader (`focus`), a touch or scroll a moment ago
// (`until`). One must not end another: a redraw under a resting mouse makes the browser tell
// the mouse where it now is, which ends the mouse's reading, not the keyboard's.
const reading = { pointer: false, focus: false, until: 0 };
const READ_AFTER_TOUCH_MS = 6000;

/** The person is reading the settlement (hover, or a touch or scroll a moment ago). */
export function isReading() {
  return reading.pointer || reading.focus || performance.now() < reading.until;
}

function inSheet(target) {
  return !!target?.closest?.("#settlement .sheet");
}

/** The mouse is over the panel's area, whatever lies on top of it there: a toast, a banner or a
 * bubble that appears under a resting pointer is not the reader leaving. */
function overSheet(e) {
  if (inSheet(e.target)) return true;
  const box = document.querySelector("#settlement .sheet")?.getBoundingClientRect();
  return !!box && e.clientX >= box.left && e.clientX <= box.right && e.clientY >= box.top && e.clientY <= box.bottom;
}
document.addEventListener("pointerover", (e) => {
  if (e.pointerType === "mouse") reading.pointer = overSheet(e);
  else if (inSheet(e.target)) reading.until = performance.now() + READ_AFTER_TOUCH_MS;
});
document.addEventListener("pointerdown", (e) => {
  if (inSheet(e.target)) reading.until = performance.now() + READ_AFTER_TOUCH_MS;
});
document.addEventListener(
  "scroll",
  (e) => {
    const el = e.target;
    if (el?.id === "settlement" || inSheet(el)) reading.until = performance.now() + READ_AFTER_TOUCH_MS;
  },
  true,
);
document.addEventListener("mouseleave", () => (reading.pointer = false));
// the keyboard's focus on the panel (a reader going through it with Tab) holds it like hover;
// the focus the page itself moves onto the panel when it appears does not
let quiet = false;
document.addEventListener("focusin", (e) => {
  if (!quiet && inSheet(e.target)) reading.focus = true;
});

/** Move the focus onto a control of the panel without taking it for a reader's. */
export function focusQuietly(el) {
  quiet = true;
  try {
    el.focus({ preventScroll: true });
  } finally {
    quiet = false;
  }
}
document.addEventListener("focusout", (e) => {
  if (inSheet(e.target) && !inSheet(e.relatedTarget)) reading.focus = false;
});

// The settlement and the match summary are modal dialogs (aria-modal): Tab and Shift+Tab go
// round their controls and never leave them for the table underneath, where a screen reader
// would be told of a board the dialog covers. (A dialog over them, the rules or a question,
// holds the keyboard itself and has already taken the key.)
document.addEventListener("keydown", (e) => {
  if (e.key !== "Tab" || e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
  const sheet = document.querySelector("#part-overlay .sheet[role=dialog]");
  if (!sheet) return;
  const items = [...sheet.querySelectorAll(FOCUSABLE)].filter((el) => el.getClientRects().length);
  if (!items.length) return;
  const at = items.indexOf(document.activeElement);
  const next = at < 0 ? (e.shiftKey ? items.length - 1 : 0) : (at + (e.shiftKey ? items.length - 1 : 1)) % items.length;
  e.preventDefault();
  items[next].focus();
});

/** Draw the panel anew without its reader letting go: the control under the keyboard's focus
 * is replaced (the browser may tell that as the focus leaving the panel) and then focused again
 * quietly; a reader who was holding the panel still holds it. */
export function keepReading(draw) {
  const held = reading.focus;
  draw();
  if (held && inSheet(document.activeElement)) reading.focus = true;
}

/** Keep the last settlement over a new hand (a snapshot arrived): only while it is being read
 * and its reader has not pressed 下一局. */
export function holdSettlement(app) {
  const end = app.handEnd;
  if (!end || end.pressed || end.closed || !isReading()) return false;
  end.held = true;
  return true;
}

let lastTick = performance.now();
setInterval(() => {
  const now = performance.now();
  const dt = now - lastTick;
  lastTick = now;
  const app = appState;
  const end = app?.handEnd;
  if (!end || end.closed) return;
  const shown = document.getElementById("settlement");
  if (end.held) {
    // the next hand is on: let go once reading stops, or at once when the player must act
    if (!isReading() || app.prompt) {
      end.closed = true;
      render();
    }
    return;
  }
  if (!shown || end.pressed || end.autoLeft == null) return;
  if (!isReading()) end.autoLeft -= dt;
  paintCountdown(end);
  if (end.autoLeft <= 0) pressNext(end);
}, 250);

/** The countdown's pill as it stands: seconds left, or paused while read. Called on every tick
 * and whenever the panel is drawn anew, whose markup has only the seconds: a redraw under a
 * reader must not show the countdown running until the next tick. */
export function paintCountdown(end) {
  const pill = document.getElementById("settle-countdown");
  if (!pill || !end || end.pressed || end.autoLeft == null) return;
  const paused = isReading();
  pill.textContent = paused ? t("reading_paused") : String(Math.max(0, Math.ceil(end.autoLeft / 1000)));
  pill.classList.toggle("paused", paused);
  pill.classList.toggle("urgent", !paused && end.autoLeft <= 3000);
}

function pressNext(end) {
  end.pressed = true;
  send({ type: "ready", ready: true });
  render();
}

export const settleHandlers = {
  "next-hand": () => appState.handEnd && pressNext(appState.handEnd),
  "show-summary": () => {
    if (appState.handEnd) appState.handEnd.closed = true;
    render();
  },
};

// ------------------------------------------------------------------ match summary details

/** Each finished hand's wins (pattern, fan), from the hand_end messages this page received: the
 * match_end's results name only the winners. */
const handWins = new Map();

export function rememberHandEnd(msg) {
  if (msg?.hand_id == null) return;
  handWins.set(msg.hand_id, (msg.wins ?? []).map((w) => ({ seat: w.seat, pattern: w.pattern, fan: w.fan, how: w.how })));
}

function names(app) {
  return (app.table?.seats ?? []).map((s, i) => seatName(s, i));
}

function handTiles(text, winTile) {
  if (!text || text === "?") return "";
  const { concealed, melds } = parseHand(text);
  const rest = [...concealed];
  let win = "";
  if (winTile) {
    const i = rest.lastIndexOf(winTile);
    if (i >= 0) {
      rest.splice(i, 1);
      win = tile(winTile, "win-tile", `title="${esc(t("win"))}"`);
    }
  }
  return sortTiles(rest).map((x) => tile(x)).join("") + win + melds.map((m) => meldHTML(m)).join("");
}

const EXTRA_NAMES = ["報聽", "槓上花", "槓上炮", "連莊"];

/** The hand's wins as `win` events (docs/protocol.md: `hand_end.wins`). Read defensively: a
 * server that sends the engine's summaries instead ({seats, how, from}) gets the win events
 * this page folded for the same hand, else one entry per winner without the hand. */
function winEvents(end, app) {
  const list = end.wins ?? [];
  if (list.every((w) => w.seat != null)) return list;
  const folded = app.handId === end.hand_id ? app.hand?.wins ?? [] : [];
  if (folded.length) return folded;
  return list.flatMap((w) => (w.seats ?? []).map((seat) => ({ seat, how: w.how, from: w.from, extras: [] })));
}

function orderLabel(n) {
  return getLang() === "zh" ? t("won_nth", { n }) : `${n}${ordinalSuffix(n)}`;
}

function winBox(win, end, who, order = 0) {
  const how =
    win.how === "self_draw"
      ? t("self_draw")
      : win.how === "rob_kong"
        ? `${t("rob_kong")} ← ${esc(who[win.from] ?? "")}`
        : `${t("discard_win")} ← ${esc(who[win.from] ?? "")}`;
  // extras are per payment (報聽 and the dealer bonus depend on who pays, R21/R36): collect the
  // ones that appear in this winner's rows
  const rows = (end.payments ?? []).filter((p) => p.payee === win.seat && ["R28", "R29"].includes(p.rule));
  const extras = new Set(win.extras ?? []);
  for (const row of rows) for (const name of EXTRA_NAMES) if (String(row.reason).includes(name)) extras.add(name);
  const chips = [...extras].map((x) => `<span class="chip hot">${esc(patternName(x))}</span>`).join("");
  const auto = win.auto ? `<span class="chip">${t("auto_win")}</span>` : "";
  // 血戰: each win in order, with what it was paid (points and the coins that moved)
  let pays = "";
  if (order) {
    const items = rows
      .map((p) => `<span class="pay-chip">${esc(who[p.payer])} → <b>${p.points}</b> ${t("points")}${p.paid != null ? ` · ${COIN}${p.paid}` : ""}</span>`)
      .join("");
    pays = `<div class="win-pays" data-win-pays="${win.seat}"><span class="muted">${t("win_payments")}:</span>${items || `<span class="muted">—</span>`}</div>`;
  }
  const badge = order ? `<span class="win-order">${orderLabel(order)}</span>` : "";
  return `<div class="win-box" data-winner="${win.seat}" ${order ? `data-order="${order}"` : ""}>
      <div class="win-title"><span>${badge}<b>${esc(who[win.seat])}</b> · ${how}</span>
        ${win.pattern ? `<span class="pattern">${esc(patternName(win.pattern))} · ${win.fan} ${t("fan")}</span>` : ""}</div>
      <div class="chips">${chips}${auto}</div>
      <div class="win-hand">${handTiles(win.hand, win.tile)}</div>
      ${pays}
    </div>`;
}

function paymentRows(rows, who, cls) {
  return rows
    .map((p) => {
      const cut = p.paid != null && p.coins != null && p.paid < p.coins ? ` <span class="muted" title="${t("cut")}">(${coinsText(p.coins)}→${coinsText(p.paid)})</span>` : "";
      return `<tr class="${cls}"><td>${esc(who[p.payer])} → ${esc(who[p.payee])}</td><td>${esc(explainPayment(p))} ${ruleLink(p.rule)}</td>
        <td class="num">${p.fan}</td><td class="num">${p.points}</td><td class="num">${p.paid ?? p.coins ?? ""}${cut}</td></tr>`;
    })
    .join("");
}

function paymentsTable(end, who) {
  const pays = end.payments ?? [];
  if (!pays.length) return `<p class="muted">${t("no_payments")}</p>`;
  const beans = pays.filter((p) => p.rule === "R12");
  const refunds = pays.filter((p) => p.rule === "R14");
  const main = pays.filter((p) => p.rule !== "R12" && p.rule !== "R14");
  const head = `<tr><th>${t("payer")} → ${t("payee")}</th><th>${t("payment_reason")}</th><th class="num">${t("fan")}</th><th class="num">${t("points")}</th><th class="num">${t("coins")}</th></tr>`;
  let body = "";
  if (main.length) body += paymentRows(main, who, "");
  if (beans.length) body += `<tr><td colspan="5"><b>${t("beans")}</b></td></tr>${paymentRows(beans, who, "bean")}`;
  if (refunds.length) body += `<tr><td colspan="5"><b>${t("bean_refund")}</b></td></tr>${paymentRows(refunds, who, "refund")}`;
  return `<div style="overflow-x:auto"><table class="pay" id="payments">${head}${body}</table></div>`;
}

function totals(end, who, winners, bloody = false) {
  return `<div class="totals" id="hand-totals">${who
    .map(
      (name, s) => `<div class="total-card ${winners.includes(s) ? "winner" : ""}">${bloody && winners.includes(s) ? `<div class="won-order">${orderLabel(winners.indexOf(s) + 1)}</div>` : ""}<div class="name">${esc(name)}</div>
        <div class="big">${signed(end.points?.[s] ?? 0)}</div><div>${COIN} ${signed(end.coins?.[s] ?? 0)}</div>
        <div class="muted" style="font-size:.75rem">${end.balances?.[s] != null ? coinsText(end.balances[s]) : ""}</div></div>`,
    )
    .join("")}</div>`;
}

/** The settlement panel; `top` is shown above it (the 解散 vote, which happens between hands). */
export function renderSettlement(app, top = "") {
  const end = app.handEnd;
  const who = names(app);
  const tb = app.table ?? {};
  const winners = end.winners ?? [];
  // 血戰 (R53): the table's rules or the hand's start event (every hand_end carries `left`,
  // all false outside a 血戰 room, so it tells nothing)
  const bloody = !!(tb.rules?.bloody_battle || app.hand?.bloody);
  let title;
  if (bloody && end.result === "win") title = `${t("bloody")} · ${t("n_wins", { n: winEvents(end, app).length })}`;
  else if (end.result === "win") title = end.win_kind === "self_draw" ? t("self_draw") : end.win_kind === "rob_kong" ? t("rob_kong") : t("win");
  else if (end.result === "draw") title = t("exhaustive_draw");
  else title = `${t("escape")} · ${esc(who[end.loser] ?? "")}`;
  // a 血戰 hand says so whatever ended it: a draw without any winner, or an escape (R53)
  if (bloody && end.result !== "win") title = `${t("bloody")} · ${title}`;
  const wins = winEvents(end, app).map((w, i) => winBox(w, end, who, bloody ? i + 1 : 0)).join("");
  const ready = app.hand?.ready;
  const hands = (end.hands ?? [])
    .map((h, s) => {
      if (winners.includes(s)) return "";
      const mark = ready ? ` <span class="${ready[s] ? "ready-yes" : "ready-no"}">${ready[s] ? t("ready_draw") : t("not_ready_draw")}</span>` : "";
      return `<div class="line"><span class="label">${esc(who[s])}${mark}</span>${handTiles(h, null)}</div>`;
    })
    .join("");
  const me = app.seat != null ? tb.seats?.[app.seat] : null;
  const last = end.next_hand_in == null || tb.status === "ended";
  if (end.autoLeft == null && end.next_hand_in != null) end.autoLeft = Number(end.next_hand_in) * 1000;
  let buttons = "";
  if (end.held) {
    // the next hand has started while this panel was being read
    buttons += `<span class="muted" id="next-started">${t("next_started")}</span>
      <button class="btn" data-do="close-settlement" id="close-settlement">${t("close")}</button>`;
  } else if (!last && me) {
    const pressed = me.ready || end.pressed;
    buttons += pressed
      ? `<button class="btn secondary" disabled id="next-btn">✔ ${t("is_ready")}</button>`
      : `<button class="btn" data-do="next-hand" id="next-btn">${t("next_hand")}</button>
         <span class="timer-pill" id="settle-countdown" title="${esc(t("countdown_help"))}">${Math.ceil((end.autoLeft ?? 0) / 1000)}</span>`;
    if (tb.kind === "private" && !tb.dissolve) buttons += `<button class="btn ghost" data-do="dissolve" data-agree="true">${t("dissolve_vote")}</button>`;
  }
  if (last && app.matchEnd) buttons += `<button class="btn" data-do="show-summary" id="show-summary">${t("match_summary")} →</button>`;
  else if (last) buttons += `<span class="muted">${t("match_over")}…</span>`;
  const closing = me?.tuoguan && tb.status === "playing";
  if (closing) {
    // 托管: the bot already plays the next hand; the panel stays until closed
    buttons = `<button class="btn" data-do="close-settlement" id="close-settlement">${t("close")}</button>
      <button class="btn ghost" data-do="leave">${t("back_lobby")}</button>`;
  }
  if (!(last && app.matchEnd)) buttons += `<button class="btn ghost" data-do="leave">${t("back_lobby")}</button>`;
  const readyLine = !last && !closing && !end.held
    ? `<div class="chips" style="justify-content:center">${(tb.seats ?? [])
        .map((s, i) => (s && s.kind !== "bot" ? `<span class="chip">${esc(who[i])}: ${s.ready ? "✔" : "…"}</span>` : ""))
        .join("")}</div>`
    : "";
  return `<div class="overlay" id="settlement"><div class="sheet" role="dialog" aria-modal="true" aria-labelledby="settle-title">
      ${top}
      <h2 id="settle-title">${t("settlement")} · ${title}</h2>
      <div class="muted" style="text-align:center;margin-bottom:8px">${t("hand_no", { i: (end.hand_index ?? 0) + 1, n: tb.hands ?? "?" })}</div>
      ${bloody && wins ? `<h3>${t("wins_in_order")}</h3>` : ""}
      <div class="wins-list" id="wins-list">${wins}</div>
      ${totals(end, who, bloody ? winEvents(end, app).map((w) => w.seat) : winners, bloody)}
      <h3>${t("payments")}</h3>
      ${paymentsTable(end, who)}
      ${hands ? `<h3>${t("hand_result")}</h3><div class="hands-list">${hands}</div>` : ""}
      ${readyLine}
      <div class="actions">${buttons}</div>
    </div></div>`;
}

/** 再來一局 (issue 31 item 5): the same private table again (each person agrees by coming
 * back), or a quick match in the same room. */
function playAgain(m) {
  const again = m.rematch;
  if (again?.code) return `<button class="btn" data-do="play-again" data-code="${esc(again.code)}" id="play-again">${t("play_again")}</button>`;
  if (again?.room) return `<button class="btn" data-do="play-again" data-room="${esc(again.room)}" id="play-again">${t("play_again")}</button>`;
  return "";
}

export function renderMatchSummary(app) {
  const m = app.matchEnd;
  const who = names(app);
  const points = m.points ?? app.totals.points;
  const coins = m.coins ?? app.totals.coins;
  const best = Math.max(...points);
  // the rated match's rating changes (issue 32); none when the match was not rated
  const ratings = m.ratings ?? [];
  const ratingLine = (s) => {
    const r = ratings.find((x) => x.seat === s);
    // the new rating and its change stay on one line: a phone's narrow card wraps after the label
    return r ? `<div class="rating-change" title="${t("rating_change")}">${t("rating")} <span class="rating-after">${r.after} <b>${signed(r.change)}</b></span></div>` : "";
  };
  const cards = who
    .map(
      (name, s) => `<div class="total-card ${points[s] === best && best > 0 ? "winner" : ""}"><div class="name">${points[s] === best && best > 0 ? "★ " : ""}${esc(name)}</div>
        <div class="big">${signed(points[s])}</div><div>${COIN} ${signed(coins[s])}</div>${ratingLine(s)}</div>`,
    )
    .join("");
  // one card per hand: how it ended, each win's pattern and fan, and every seat's coins (a
  // list that wraps, so that it fits a phone; no wide table)
  const rows = (m.results ?? [])
    .map((r, i) => {
      const res = r.result === "win" ? t("result_win") : r.result === "draw" ? t("result_draw") : t("result_escape");
      const wins = r.wins ?? handWins.get(r.hand_id) ?? (r.winners ?? []).map((seat) => ({ seat }));
      const winText = wins
        .map((w) => `<span class="sum-win"><b>${esc(who[w.seat] ?? "")}</b>${w.pattern ? ` · ${esc(patternName(w.pattern))} ${w.fan} ${t("fan")}` : ""}</span>`)
        .join("");
      const money = (r.coins ?? r.points ?? [0, 0, 0, 0])
        .map((c, s) => `<span class="sum-coin"><span class="muted">${esc(who[s])}</span> ${signed(c)}</span>`)
        .join("");
      const replay = r.hand_id != null
        ? `<button class="btn small secondary" data-do="replay" data-hand="${r.hand_id}">${t("replay")}</button>${app.seat != null ? ` <button class="btn small secondary" data-do="review" data-hand="${r.hand_id}" data-seat="${app.seat}">${t("review")}</button>` : ""}`
        : "";
      return `<li class="sum-hand" data-hand-id="${r.hand_id ?? ""}">
          <div class="sum-head"><span class="sum-no">#${i + 1}</span><span class="sum-res">${res}</span>${winText}<span class="sum-replay">${replay}</span></div>
          <div class="sum-coins" title="${t("coins")}">${COIN}${money}</div>
        </li>`;
    })
    .join("");
  return `<div class="overlay" id="match-summary"><div class="sheet" role="dialog" aria-modal="true" aria-labelledby="summary-title">
      <h2 id="summary-title">${t("match_summary")}</h2>
      <div class="muted" style="text-align:center;margin-bottom:8px">${m.reason === "dissolved" ? t("dissolve") : t("match_over")} · ${m.hands_played ?? (m.results ?? []).length} ${t("hands")}</div>
      <div class="totals">${cards}</div>
      <h3>${t("match_hands")}</h3>
      <ol class="sum-hands" id="summary-hands">${rows}</ol>
      <div class="actions">${playAgain(m)}<button class="btn ${m.rematch ? "secondary" : ""}" data-do="leave" id="back-lobby">${t("back_lobby")}</button></div>
    </div></div>`;
}
