// The 聽牌 helper (issue 21 item 7): which tiles complete the own hand and how many of each the
// player has not seen yet, computed from the seat's own fold (state.js), the same way as the
// engine (duyun.analysis.waits, R10, R11): four sets and a pair, or seven pairs with no melds;
// a kind the player holds all four of is no wait. "Unseen" counts what this seat cannot see:
// four, less the own hand and melds, every river, every exposed meld and the 血戰 winners'
// open hands (the engine's SeatView.visible_counts). tests/web/test_web_tingpai.py checks both
// against the engine on seeded hands.

import { parseHand } from "./tiles.js";

const SUITS = ["m", "p", "s"];

export function tileIndex(x) {
  return SUITS.indexOf(x[1]) * 9 + Number(x[0]) - 1;
}

export function tileOf(i) {
  return `${(i % 9) + 1}${SUITS[Math.floor(i / 9)]}`;
}

function countsOf(tiles) {
  const c = new Array(27).fill(0);
  for (const x of tiles) if (x && x !== "?") c[tileIndex(x)] += 1;
  return c;
}

/** Sets (pungs or runs) and exactly one pair use up `c` (changed and restored). */
function standard(c, pairUsed) {
  let i = 0;
  while (i < 27 && c[i] === 0) i++;
  if (i === 27) return pairUsed;
  if (!pairUsed && c[i] >= 2) {
    c[i] -= 2;
    const ok = standard(c, true);
    c[i] += 2;
    if (ok) return true;
  }
  if (c[i] >= 3) {
    c[i] -= 3;
    const ok = standard(c, pairUsed);
    c[i] += 3;
    if (ok) return true;
  }
  if (i % 9 <= 6 && c[i + 1] > 0 && c[i + 2] > 0) {
    c[i] -= 1;
    c[i + 1] -= 1;
    c[i + 2] -= 1;
    const ok = standard(c, pairUsed);
    c[i] += 1;
    c[i + 1] += 1;
    c[i + 2] += 1;
    if (ok) return true;
  }
  return false;
}

/** R10: a 3k + 2 concealed part that is sets and a pair, or fourteen tiles in pairs. */
export function isWinCounts(c) {
  const n = c.reduce((a, b) => a + b, 0);
  if (n % 3 !== 2) return false;
  if (n === 14 && c.every((x) => x % 2 === 0)) return true;
  return standard(c, false);
}

function meldSize(m) {
  return m.kind === "pong" ? 3 : 4;
}

/** The waits of a 3k + 1 concealed part with these melds, as tile names in suit order. */
export function waitsOf(concealed, melds = []) {
  const c = countsOf(concealed);
  if (c.reduce((a, b) => a + b, 0) % 3 !== 1) return [];
  const held = c.slice();
  for (const m of melds) if (m.tile) held[tileIndex(m.tile)] += meldSize(m);
  const out = [];
  for (let t = 0; t < 27; t++) {
    if (held[t] >= 4) continue;
    c[t] += 1;
    if (isWinCounts(c)) out.push(tileOf(t));
    c[t] -= 1;
  }
  return out;
}

/** How many of each tile this seat has not seen (four less everything visible to it). */
export function unseenCounts(st, seat) {
  const seen = countsOf(st.hands?.[seat] ?? []);
  for (const river of st.rivers ?? []) for (const r of river) if (!r.taken && r.tile) seen[tileIndex(r.tile)] += 1;
  for (const melds of st.melds ?? []) for (const m of melds) if (m.tile) seen[tileIndex(m.tile)] += meldSize(m);
  (st.won ?? []).forEach((won, s) => {
    if (!won || s === seat) return;
    for (const x of parseHand(won.hand || "").concealed) seen[tileIndex(x)] += 1;
  });
  return seen.map((n) => Math.max(0, 4 - n));
}

/** The helper's content for the seat: with 13 (3k + 1) tiles its waits; with 14 (its turn)
 * each discard that leaves the hand ready, with the waits after it, best first. */
export function tingpaiFor(st, seat) {
  const hand = st.hands?.[seat];
  if (!hand) return null;
  const melds = st.melds?.[seat] ?? [];
  const unseen = unseenCounts(st, seat);
  const withCounts = (ws) => ws.map((x) => ({ tile: x, left: unseen[tileIndex(x)] }));
  if (hand.length % 3 === 1) return { kind: "waits", waits: withCounts(waitsOf(hand, melds)) };
  if (hand.length % 3 !== 2) return null;
  const options = [];
  const tried = new Set();
  hand.forEach((x, i) => {
    if (tried.has(x)) return;
    tried.add(x);
    const rest = hand.filter((_, j) => j !== i);
    const ws = waitsOf(rest, melds);
    if (ws.length) {
      const waits = withCounts(ws);
      options.push({ discard: x, waits, total: waits.reduce((a, w) => a + w.left, 0) });
    }
  });
  options.sort((a, b) => b.total - a.total);
  return { kind: "discards", options, won: isWinCounts(countsOf(hand)) };
}
