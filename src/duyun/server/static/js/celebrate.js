// Big moments (issue 31 item 4): a win is celebrated by its size. A small win keeps the table's
// small flash (table.js); a big one gets a banner over the whole board with the pattern's name,
// its fan and the coins won, and coins fly from each payer's seat to the winner's. The banner
// never holds play: a click on it or a few seconds close it, and the settlement comes as ever.
// With `prefers-reduced-motion: reduce` nothing flies and the banner stands still.

import { announce } from "./announce.js";
import { getLang, ordinalSuffix, patternName, t } from "./i18n.js";
import { COIN, esc, seatName } from "./ui.js";

/** R20: 清一色 and 七對 (6 fan) are the smallest patterns celebrated in full; every pattern at
 * or above their fan is too (清對, 將對, 龍七對, 清七對, 清么九, 青龍七對, 天胡, 地胡). */
export const BANNER_FAN = 6;
/** R20: 天胡 and 地胡 are situations of a win (not a hand's shape): named apart so that a rule
 * table changing their fan keeps them big. */
const SITUATIONS = new Set(["天胡", "地胡"]);
const BANNER_MS = 3800;
const FLIGHT_MS = 900;
const COINS_PER_PAYER = 5;

export const reducedMotion = () => !!window.matchMedia?.("(prefers-reduced-motion: reduce)").matches;

/** A win worth the banner: by its pattern's fan (R20), a 天胡/地胡, or a winner who declared
 * 報聽 (R25: waiting with a frozen hand to the end is a feat of its own). */
export function isBigWin(win, declared) {
  return Number(win.fan ?? 0) >= BANNER_FAN || SITUATIONS.has(win.pattern) || !!declared;
}

/** The wins of one batch of live events worth the banner, each with what its payers pay it
 * (the `payment` rows that follow the win: R27-R29), in coins at the table's stake, and those
 * rows' places in the hand's ledger (`hand.payments`, where the batch's rows are the last). */
export function bigWins(events, hand, stake) {
  const out = [];
  const batchRows = events.filter((ev) => ev.type === "payment").length;
  const first = (hand?.payments?.length ?? batchRows) - batchRows;
  events.forEach((ev, i) => {
    if (ev.type !== "win" || !isBigWin(ev, hand?.baoting?.[ev.seat])) return;
    const paid = [0, 0, 0, 0];
    const rows = [];
    let at = first + events.slice(0, i).filter((e) => e.type === "payment").length;
    for (const row of events.slice(i + 1)) {
      if (row.type === "end") break;
      if (row.type !== "payment") continue;
      if (row.payee === ev.seat) {
        paid[row.payer] += Number(row.points ?? 0) * stake;
        rows.push(at);
      }
      at += 1;
    }
    out.push({ win: ev, paid, rows, coins: paid.reduce((a, b) => a + b, 0), baoting: !!hand?.baoting?.[ev.seat] });
  });
  return out;
}

/** The hand's settlement (`hand_end`) says what really moved: a person never goes below zero
 * coins (R41), so a payment larger than the payer's balance is cut. The banner still on screen
 * shows the coins the winner really got (the PAYMENT rows' `paid`, in ledger order). */
export function settleBanner(handEnd) {
  settled = handEnd;
  const banner = document.getElementById("big-moment");
  if (banner && banner.dataset.hand === String(handEnd?.hand_id)) showPaid(banner, handEnd);
}

let settled = null;

function showPaid(banner, handEnd) {
  const coins = banner.querySelector(".bm-coins");
  if (!coins || !banner.dataset.rows) return;
  const rows = handEnd?.payments ?? [];
  const picked = banner.dataset.rows.split(",").map((i) => rows[Number(i)]);
  if (!picked.length || picked.some((row) => row?.paid == null)) return;
  const got = picked.reduce((sum, row) => sum + Number(row.paid), 0);
  coins.innerHTML = `${COIN}+${got.toLocaleString()}`;
}

/** Celebrate the big wins among `events` (just applied to `app.hand`); returns the winners'
 * seats, whose small flash is then left out. */
export function celebrate(events, app) {
  const found = bigWins(events, app.hand, Number(app.table?.stake ?? 1));
  // several winners of one discard (R18): one banner after the other
  found.forEach((big, i) => (i ? setTimeout(() => showBanner(big, app), i * 1400) : showBanner(big, app)));
  return new Set(found.map((b) => b.win.seat));
}

function center(el) {
  const r = el.getBoundingClientRect();
  return [r.left + r.width / 2, r.top + r.height / 2];
}

/** Close the banner now (a click on it, the next hand, leaving the table). */
export function dismissBanner() {
  document.querySelectorAll(".big-moment, .coin-flight").forEach((el) => el.remove());
}

function showBanner(big, app) {
  const boardEl = document.getElementById("board");
  if (!boardEl) return;
  dismissBanner();
  const { win } = big;
  const how = win.how === "self_draw" ? t("zimo") : win.how === "rob_kong" ? t("rob_kong") : t("hu");
  const who = seatName(app.table?.seats?.[win.seat], win.seat);
  const pattern = patternName(win.pattern ?? "");
  // 血戰 (R53): the hand goes on, and the order of winning is part of the moment
  const order = app.hand?.bloody ? app.hand.won?.[win.seat]?.order : null;
  const nth = order ? (getLang() === "zh" ? t("won_nth", { n: order }) : `${t("won_badge")} ${order}${ordinalSuffix(order)}`) : "";
  const rect = boardEl.getBoundingClientRect();
  const el = document.createElement("div");
  el.className = `big-moment ${reducedMotion() ? "still" : ""}`;
  el.id = "big-moment";
  el.dataset.seat = String(win.seat);
  el.dataset.rows = big.rows.join(",");
  el.dataset.hand = String(app.handId);
  el.style.left = `${rect.left}px`;
  el.style.top = `${rect.top}px`;
  el.style.width = `${rect.width}px`;
  el.style.height = `${rect.height}px`;
  el.innerHTML = `<div class="bm-card">
      ${nth ? `<div class="bm-order">${esc(nth)}</div>` : ""}
      <div class="bm-how">${esc(who)} · ${esc(how)}${big.baoting ? ` · <span class="bm-bt">${esc(t("baoting"))}</span>` : ""}</div>
      <div class="bm-pattern" id="big-moment-pattern">${esc(pattern)}</div>
      <div class="bm-fan">${win.fan ?? ""} ${esc(t("fan"))}</div>
      ${big.coins > 0 ? `<div class="bm-coins" id="big-moment-coins">${COIN}+${big.coins.toLocaleString()}</div>` : ""}
    </div>`;
  // decorative (the status region says it, below); a click anywhere on it closes it
  el.setAttribute("aria-hidden", "true");
  el.addEventListener("click", dismissBanner);
  (document.getElementById("app") ?? document.body).appendChild(el);
  if (settled && String(settled.hand_id) === el.dataset.hand) showPaid(el, settled);
  announce(`${who} ${how} · ${pattern} ${win.fan ?? ""} ${t("fan")}${big.coins > 0 ? ` · +${big.coins} ${t("coins")}` : ""}`);
  if (!reducedMotion()) flyCoins(big, app);
  setTimeout(() => el.remove(), BANNER_MS);
}

/** Coins from each payer's seat plate to the winner's, a few per payer, one after another. */
function flyCoins(big, app) {
  const to = document.getElementById(`plate-${big.win.seat}`);
  if (!to || typeof Element.prototype.animate !== "function") return;
  const [tx, ty] = center(to);
  const host = document.getElementById("app") ?? document.body;
  big.paid.forEach((coins, payer) => {
    const from = coins > 0 && document.getElementById(`plate-${payer}`);
    if (!from) return;
    const [fx, fy] = center(from);
    for (let k = 0; k < COINS_PER_PAYER; k++) {
      const coin = document.createElement("span");
      coin.className = "coin-flight";
      coin.dataset.payer = String(payer);
      coin.setAttribute("aria-hidden", "true");
      coin.style.left = `${fx}px`;
      coin.style.top = `${fy}px`;
      host.appendChild(coin);
      // an arc: up (or down) a little halfway, so coins from opposite seats do not collide
      const lift = (k % 2 ? -1 : 1) * 30;
      const flight = coin.animate(
        [
          { transform: "translate(-50%, -50%) scale(0.6)", opacity: 0 },
          { transform: `translate(calc(-50% + ${(tx - fx) / 2}px), calc(-50% + ${(ty - fy) / 2 + lift}px)) scale(1.1)`, opacity: 1, offset: 0.5 },
          { transform: `translate(calc(-50% + ${tx - fx}px), calc(-50% + ${ty - fy}px)) scale(0.8)`, opacity: 0.2 },
        ],
        { duration: FLIGHT_MS, delay: 250 + k * 110, easing: "ease-in-out", fill: "both" },
      );
      flight.finished.then(() => coin.remove(), () => coin.remove());
    }
  });
}
