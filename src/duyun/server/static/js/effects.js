// The table's effects: what happens because its state changed, kept out of the drawing.
//
// renderTable (table.js) is a function of the state it is given: it draws, and nothing else.
// What a change of state sets off -- a sound, a spoken call, a line for screen readers, a
// notice, the automatic pass of 本局不碰槓, a meld's motion -- happens here, run by the page
// (main.js renderNow) just before and after each drawing of the table. A test or a replay can
// draw any state without a sound or a message sent.

import { t, getLang } from "./i18n.js";
import { announce } from "./announce.js";
import { play } from "./sound.js";
import { callForMeld, callForWin, say } from "./voice.js";
import { emptyHand, legalOf } from "./state.js";
import { tileName } from "./tiles.js";
import { seatName, toast } from "./ui.js";

/** Before the table is drawn: cues for what changed since the last drawing, and the automatic
 * pass (``pass`` answers the open claim prompt with 過). */
export function beforeTableDrawn(appState, pass) {
  if (!appState.table) return;
  cues(appState, appState.hand ?? emptyHand());
  autoPass(appState, pass);
}

/** After the table is drawn: a meld that has just arrived moves in. */
export function afterTableDrawn(appState) {
  markFreshMelds(appState);
}

// ------------------------------------------------------------------ cues (issue 21 items 6, 7)
//
// What changed since the last drawing of the table: a new discard (sound, and a turn that ran
// out says so), a new meld (sound, and the meld moves in), a win, the own turn. A new hand or a
// restored table (snapshot) makes no sound. 碰, 槓, 胡, 自摸 and 報聽 are spoken (voice.js).

const cueState = { hand: undefined, discard: null, melds: [0, 0, 0, 0], wins: 0, baoting: [], turn: null, openTurn: null, freshUntil: [] };

function cues(appState, st) {
  const discard = st.lastDiscard ? `${st.lastDiscard.seat}:${st.lastDiscard.index}` : null;
  const melds = st.melds.map((m) => m.length);
  const wins = st.wins?.length ?? 0;
  const baoting = [...st.baoting];
  const turn = appState.prompt?.kind === "turn" && !appState.promptSent ? appState.prompt.id ?? "turn" : null;
  if (cueState.hand !== appState.handId) {
    Object.assign(cueState, { hand: appState.handId, discard, melds, wins, baoting, turn, openTurn: turn, freshUntil: [] });
    if (turn != null) announce(t("your_turn")); // the dealer's first turn comes with the deal
    return;
  }
  if (discard && discard !== cueState.discard) {
    play("discard");
    const out = st.rivers[st.lastDiscard.seat]?.[st.lastDiscard.index]?.tile;
    if (out) announce(t("said_discard", { who: seatName(appState.table?.seats?.[st.lastDiscard.seat], st.lastDiscard.seat), tile: tileName(out, getLang()) }));
    const mine = appState.table?.seats?.[appState.seat];
    // the own turn was open and never answered, yet the own discard came: the timer ran out
    if (st.lastDiscard.seat === appState.seat && cueState.openTurn != null && !appState.promptSent && !mine?.tuoguan && !st.baoting[appState.seat]) {
      // the tile that went out: the drawn one, or after a 碰 (no draw) the one the timer chose
      const gone = st.rivers[appState.seat]?.[st.lastDiscard.index]?.tile;
      toast(t("timeout_discard", { tile: gone ? tileName(gone, getLang()) : "" }), "info", 4000);
    }
  }
  melds.forEach((n, s) => {
    if (n > (cueState.melds[s] ?? 0)) {
      cueState.freshUntil[s] = performance.now() + 900;
      say(callForMeld(st.melds[s].at(-1)));
    }
  });
  baoting.forEach((on, s) => on && !cueState.baoting[s] && say("baoting"));
  if (wins > cueState.wins) {
    for (const w of st.wins.slice(cueState.wins)) say(callForWin(w));
    for (const w of st.wins.slice(cueState.wins)) announce(t("said_win", { who: seatName(appState.table?.seats?.[w.seat], w.seat) }));
  }
  if (turn != null && turn !== cueState.turn) {
    play("turn");
    announce(t("your_turn"));
  }
  const claim = appState.prompt?.kind === "claim" && !appState.promptSent ? appState.prompt.id ?? "claim" : null;
  if (claim != null && claim !== cueState.claim) {
    const offered = (appState.prompt.legal ?? []).map((a) => t(a.action)).join(" / ");
    const tile = appState.prompt.claim_tile;
    announce(`${t("claim_offer", { tile: tile ? tileName(tile, getLang()) : "" })} ${offered}`);
  }
  cueState.claim = claim;
  Object.assign(cueState, { discard, melds, wins, baoting, turn, openTurn: turn });
}

/** 本局不碰槓: claim offers without a win are passed, and a turn's kong options are set aside,
 * until the hand ends. */
function autoPass(appState, pass) {
  if (appState.autoPass == null || appState.autoPass !== appState.handId) return;
  const p = appState.prompt;
  if (!p || appState.promptSent) return;
  const legal = legalOf(p);
  if (p.kind === "claim" && !legal.hu && legal.pass) pass();
  else if (p.kind === "turn" && !legal.hu && !legal.baoting.length) appState.dismissed = true;
}

/** A meld that has just arrived moves in (css `.fresh`, an animation that ends by itself). The
 * class is set on the drawn element, not written into the part's markup: its end then needs no
 * second drawing of the part, which would rebuild the own hand under a discard being clicked. A
 * part drawn again while the meld is still new gets the class again (and the motion). */
function markFreshMelds(appState) {
  const now = performance.now();
  for (let s = 0; s < 4; s++) {
    if (now >= (cueState.freshUntil[s] ?? 0)) continue;
    const el = s === appState.seat ? document.querySelector("#part-me .my-melds") : document.querySelector(`#plate-${s} .melds`);
    el?.classList.add("fresh");
  }
}
