// The table as the client knows it, folded from the engine's events (docs/protocol.md "Events").
// The same fold drives the live table (events redacted for this seat) and the replay viewer (a
// finished hand's complete log), so what the table shows is exactly what the events say.
// Unknown event types are kept in `notices` as text, never an error.
//
// 血戰 rooms (RULES R52-R57, rules.bloody_battle): a `win` does not end the hand. The winner
// leaves play with the hand laid open (the event carries it, winning tile included); `won[seat]`
// keeps that open hand, the winning tile and the order of winning, `winners` the seats in that
// order, `left[seat]` whether a winner has then left the table (R57, the `leave` event).

import { patternName } from "./i18n.js";
import { explainPayment } from "./rules.js";
import { parseHand, parseTiles, sortTiles } from "./tiles.js";

const SEATS = 4;

function removeOne(list, tile) {
  const i = list.indexOf(tile);
  if (i >= 0) list.splice(i, 1);
  return i >= 0;
}

/** An empty hand state: nothing dealt yet. */
export function emptyHand() {
  return {
    started: false,
    dealer: 0,
    streak: 0,
    rules: {},
    wall: 0,
    phase: "waiting",
    current: null,
    hands: [null, null, null, null], // concealed tiles when known (own seat; everyone in replays)
    sizes: [0, 0, 0, 0],
    drawn: [null, null, null, null], // the tile a seat just drew and still holds apart
    melds: [[], [], [], []],
    rivers: [[], [], [], []], // {tile, auto, baoting, taken}
    baoting: [false, false, false, false],
    beans: [false, false, false, false],
    claim: null, // {tile, from, rob}
    lastDiscard: null, // {seat, index}
    payments: [],
    points: [0, 0, 0, 0],
    wins: [],
    bloody: false, // a 血戰 hand (R53): wins do not end it
    won: [null, null, null, null], // 血戰: {order, how, from, tile, hand, pattern, fan, extras, auto}
    winners: [], // 血戰: seats in the order they won
    left: [false, false, false, false], // 血戰: a winner who left the table (R57)
    ready: null, // exhaustive draw: who was ready
    end: null,
    escape: null,
    refused: [], // win_refused notices
    notices: [], // unknown events, shown as text
    flashes: [], // {seat, kind, text}: highlights of the last applied event
    pendingAdded: [null, null, null, null],
    lastEvent: null,
  };
}

function setHand(state, seat, text) {
  if (text === "?" || text == null) {
    state.hands[seat] = null;
    return;
  }
  const { concealed, melds } = parseHand(text);
  state.hands[seat] = concealed;
  state.sizes[seat] = concealed.length;
  if (melds.length) state.melds[seat] = melds.map((m) => ({ ...m }));
}

function takeFromRiver(state, from) {
  const river = state.rivers[from];
  for (let i = river.length - 1; i >= 0; i--) {
    if (!river[i].taken) {
      river[i].taken = true;
      break;
    }
  }
  state.lastDiscard = null;
}

function removeFromHand(state, seat, tile, n) {
  state.sizes[seat] = Math.max(0, state.sizes[seat] - n);
  const hand = state.hands[seat];
  if (hand && tile && tile !== "?") for (let k = 0; k < n; k++) removeOne(hand, tile);
}

/** Apply one event to `state` (mutating it) and return it. */
export function applyEvent(state, ev) {
  state.flashes = [];
  state.lastEvent = ev;
  const seat = ev.seat;
  switch (ev.type) {
    case "start": {
      const fresh = emptyHand();
      Object.assign(state, fresh, { flashes: [] });
      state.started = true;
      state.dealer = ev.dealer ?? 0;
      state.streak = ev.streak ?? 0;
      state.rules = ev.rules ?? {};
      state.bloody = !!state.rules.bloody_battle;
      state.wall = Array.isArray(ev.wall) ? ev.wall.length : Number(ev.wall ?? 0);
      for (let s = 0; s < SEATS; s++) {
        state.sizes[s] = s === state.dealer ? 14 : 13;
        setHand(state, s, ev.hands?.[s]);
      }
      if (Array.isArray(ev.discards)) {
        ev.discards.forEach((river, s) => {
          const tiles = Array.isArray(river) ? river : parseTiles(String(river || ""));
          state.rivers[s] = tiles.map((tile) => ({ tile, auto: false, baoting: false, taken: false }));
        });
      }
      if (Array.isArray(ev.baoting)) state.baoting = ev.baoting.map(Boolean);
      state.current = ev.turn ?? state.dealer;
      state.phase = "turn";
      break;
    }
    case "draw": {
      state.wall = Math.max(0, state.wall - 1);
      state.sizes[seat] += 1;
      if (state.hands[seat] && ev.tile && ev.tile !== "?") state.hands[seat].push(ev.tile);
      state.drawn = [null, null, null, null];
      state.drawn[seat] = ev.tile ?? "?";
      state.current = seat;
      state.phase = "turn";
      state.claim = null;
      if (ev.replacement) state.flashes.push({ seat, kind: "draw", text: "replacement" });
      break;
    }
    case "act": {
      if (ev.action === "added_kong") {
        removeFromHand(state, seat, ev.tile, 1);
        state.pendingAdded[seat] = ev.tile ?? "?";
        state.drawn[seat] = null;
        state.claim = { tile: ev.tile, from: seat, rob: true };
        state.phase = "claims";
      }
      break;
    }
    case "baoting": {
      state.baoting[seat] = true;
      state.flashes.push({ seat, kind: "baoting" });
      break;
    }
    case "discard": {
      removeFromHand(state, seat, ev.tile, 1);
      state.drawn[seat] = null;
      state.rivers[seat].push({ tile: ev.tile, auto: !!ev.auto, baoting: !!ev.baoting, taken: false });
      state.lastDiscard = { seat, index: state.rivers[seat].length - 1 };
      state.claim = { tile: ev.tile, from: seat, rob: false };
      state.current = seat;
      state.phase = "claims";
      if (ev.baoting) state.baoting[seat] = true;
      if (ev.auto) state.flashes.push({ seat, kind: "auto_discard" });
      break;
    }
    case "pong": {
      takeFromRiver(state, ev.from);
      removeFromHand(state, seat, ev.tile, 2);
      state.melds[seat].push({ kind: "pong", tile: ev.tile, from: ev.from });
      state.current = seat;
      state.phase = "turn";
      state.claim = null;
      state.drawn = [null, null, null, null];
      state.flashes.push({ seat, kind: "pong" });
      break;
    }
    case "kong": {
      if (ev.kind === "direct_kong") {
        takeFromRiver(state, ev.from);
        removeFromHand(state, seat, ev.tile, 3);
        state.melds[seat].push({ kind: "direct_kong", tile: ev.tile, from: ev.from });
      } else if (ev.kind === "concealed_kong") {
        removeFromHand(state, seat, ev.tile, 4);
        state.melds[seat].push({ kind: "concealed_kong", tile: ev.tile === "?" ? null : ev.tile });
      } else if (ev.kind === "added_kong") {
        if (state.pendingAdded[seat] == null) removeFromHand(state, seat, ev.tile, 1);
        state.pendingAdded[seat] = null;
        const meld = state.melds[seat].find((m) => m.kind === "pong" && m.tile === ev.tile);
        if (meld) meld.kind = "added_kong";
        else state.melds[seat].push({ kind: "added_kong", tile: ev.tile });
      }
      state.drawn = [null, null, null, null];
      state.beans[seat] = true;
      state.claim = null;
      state.current = seat;
      state.phase = "turn";
      state.flashes.push({ seat, kind: ev.kind });
      break;
    }
    case "claim": {
      if (ev.auto) state.flashes.push({ seat, kind: "auto_win" });
      break;
    }
    case "payment": {
      state.payments.push({ ...ev });
      state.points[ev.payer] -= ev.points;
      state.points[ev.payee] += ev.points;
      if (ev.rule === "R12") {
        state.flashes.push({ seat: ev.payee, kind: "bean", text: `+${ev.points}` });
        state.flashes.push({ seat: ev.payer, kind: "pay", text: `-${ev.points}` });
      }
      break;
    }
    case "win": {
      // the claimed tile leaves the river once: several winners of one discard (一炮多響,
      // R18) share it; in a 血戰 hand a later discard win takes its own discard
      const open = state.claim && !state.claim.rob && state.claim.from === ev.from;
      if (ev.how === "discard" && open) takeFromRiver(state, ev.from);
      if (ev.how === "rob_kong") state.pendingAdded[ev.from] = null;
      state.wins.push({ ...ev });
      if (ev.hand) setHand(state, seat, ev.hand);
      if (state.bloody) {
        // R53: the winner leaves play, the hand laid open. The engine keeps a claimed winning
        // tile out of the hand (it leaves the table, 13 tiles stay); a self-drawn one stays in
        state.winners.push(seat);
        state.won[seat] = {
          order: state.winners.length,
          how: ev.how,
          from: ev.from ?? null,
          tile: ev.tile ?? null,
          hand: ev.hand ?? null,
          pattern: ev.pattern,
          fan: ev.fan,
          extras: ev.extras ?? [],
          auto: !!ev.auto,
        };
        if (ev.how !== "self_draw" && ev.tile) removeFromHand(state, seat, ev.tile, 1);
        state.drawn[seat] = null;
      }
      state.claim = null;
      state.flashes.push({ seat, kind: "win", text: ev.how, order: state.bloody ? state.winners.length : 0, pattern: ev.pattern, fan: ev.fan });
      break;
    }
    case "leave": {
      // R57: a 血戰 winner leaves the table; the hand goes on without them
      state.left[seat] = true;
      state.flashes.push({ seat, kind: "leave" });
      break;
    }
    case "exhaustive_draw": {
      state.ready = ev.ready ?? null;
      break;
    }
    case "escape": {
      state.escape = { seat, penalty: ev.penalty };
      state.flashes.push({ seat, kind: "escape" });
      break;
    }
    case "end": {
      state.end = { ...ev };
      state.phase = "ended";
      state.claim = null;
      state.drawn = [null, null, null, null];
      (ev.hands ?? []).forEach((text, s) => {
        if (text && text !== "?") {
          const { concealed, melds } = parseHand(text);
          state.hands[s] = concealed;
          state.sizes[s] = concealed.length;
          if (melds.length) state.melds[s] = melds.map((m, i) => ({ ...m, from: state.melds[s][i]?.from }));
        }
      });
      break;
    }
    case "win_refused": {
      state.refused.push({ ...ev });
      break;
    }
    default:
      state.notices.push({ ...ev });
  }
  return state;
}

/** Fold a whole list of events into a fresh state. */
export function foldEvents(events) {
  const state = emptyHand();
  for (const ev of events) applyEvent(state, ev);
  state.flashes = [];
  return state;
}

/** The seat's hand for display: sorted, with the drawn tile apart (own seat only). */
export function handForDisplay(state, seat) {
  const hand = state.hands[seat];
  if (!hand) return { tiles: [], drawn: null };
  const drawn = state.drawn[seat];
  if (drawn && drawn !== "?" && state.phase === "turn" && state.current === seat && hand.includes(drawn)) {
    const rest = [...hand];
    removeOne(rest, drawn);
    return { tiles: sortTiles(rest), drawn };
  }
  return { tiles: sortTiles(hand), drawn: null };
}

/** Readable one-line description of an event for the replay viewer and the table's log.
 * `names` are the seats' names, `tr` the label function, `tn` a tile's name. */
export function describeEvent(ev, names, tr, tn = (x) => x) {
  const who = (s) => (s == null ? "" : names[s] ?? `#${s}`);
  const tile = (x) => (x == null || x === "?" ? "" : tn(x));
  switch (ev.type) {
    case "start":
      return `${tr("dealer")}: ${who(ev.dealer)}`;
    case "draw":
      return `${who(ev.seat)} ⟵ ${tile(ev.tile) || "?"}${ev.replacement ? ` (${tr("kong")})` : ""}${ev.last_four ? ` · ${tr("last_four")}` : ""}`;
    case "discard":
      return `${who(ev.seat)} ⟶ ${tile(ev.tile)}${ev.baoting ? ` · ${tr("baoting")}` : ""}${ev.auto ? ` · ${tr("auto_discard")}` : ""}`;
    case "pong":
      return `${who(ev.seat)} ${tr("pong")} ${tile(ev.tile)}`;
    case "kong":
      return `${who(ev.seat)} ${tr(ev.kind)} ${tile(ev.tile)}`;
    case "baoting":
      return `${who(ev.seat)} ${tr("baoting")}`;
    case "win":
      return `${who(ev.seat)} ${tr(ev.how === "self_draw" ? "zimo" : ev.how === "rob_kong" ? "rob_kong" : "hu")} ${tile(ev.tile)} · ${patternName(ev.pattern)} ${ev.fan}${tr("fan")}${ev.auto ? ` · ${tr("auto_win")}` : ""}`;
    case "payment":
      return `${who(ev.payer)} → ${who(ev.payee)} ${ev.points}${tr("points")} · ${explainPayment(ev)}`;
    case "exhaustive_draw":
      return tr("exhaustive_draw");
    case "escape":
      return `${who(ev.seat)} ${tr("escape")}`;
    case "leave":
      return `${who(ev.seat)} ${tr("left_table")}`;
    case "end":
      return `${tr("hand_result")}: ${tr(`result_${ev.result}`)}`;
    case "claim":
      return `${who(ev.seat)} ${tr("auto_win")}`;
    case "win_refused":
      // players read why, not the rule's number
      return `${who(ev.seat)} ✗ ${tile(ev.tile)} (${tr(String(ev.reason).includes("R9") ? "why_r9" : String(ev.reason).includes("R17") ? "why_r17" : "refused_unknown")})`;
    case "act":
      return `${who(ev.seat)} ${ev.action}${ev.tile ? ` ${tile(ev.tile)}` : ""}`;
    default:
      return `${ev.type} ${JSON.stringify(ev)}`;
  }
}

/** A prompt's legal actions by kind: the tiles of each tile action, and whether each other
 * action is offered (a view of the prompt, shared by the table's drawing and its effects). */
export function legalOf(prompt) {
  const out = { discard: [], baoting: [], added_kong: [], concealed_kong: [], hu: false, pong: false, kong: false, pass: false };
  if (!prompt) return out;
  for (const a of prompt.legal ?? []) {
    if (Array.isArray(out[a.action])) out[a.action].push(a.tile);
    else out[a.action] = true;
  }
  return out;
}
