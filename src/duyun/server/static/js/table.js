// The table: a green felt board with every seat's river (discards in order, the last one
// marked), seat plates in the corners (dealer, streak, 報聽, 托管, coins and this hand's points,
// melds, hidden hand size), the compass in the middle (wall count, whose turn, timer), and the
// player's own hand below with the action bar that shows exactly the legal actions.

import { getLang, langSwitch, ordinalSuffix, patternName, roomName, t, tz, zhText } from "./i18n.js";
import { app, backToLobby, render, send, sendWhenReady } from "./core.js";
import { closeRules, leaveWarning, openRules, refusedExplanation } from "./rules.js";
import { confirmDialog } from "./dialog.js";
import { focusQuietly, keepReading, paintCountdown, renderSettlement, renderMatchSummary, settleHandlers } from "./settle.js";
import { isMuted, setMuted } from "./sound.js";
import { seatMenuButton } from "./reactions.js";
import { tingpaiFor } from "./tingpai.js";
import { describeEvent, emptyHand, handForDisplay, legalOf } from "./state.js";
import { parseHand, sortTiles, tileName } from "./tiles.js";
import { COIN, coinsText, esc, meldHTML, seatName, signed, tile, toast } from "./ui.js";

const coarse = () => window.matchMedia?.("(pointer: coarse)").matches;
/** Phone-sized screens (upright or sideways): small corners on the board. */
const narrow = () => window.innerWidth < 700 || window.innerHeight <= 500;

/** Seat → screen position: 0 bottom (you), 1 right, 2 top, 3 left. */
function posOf(seat, base) {
  return (seat - base + 4) % 4;
}

/** The tiles of the own hand in display order (sorted, the drawn tile last and apart). */
function displayTiles(st, seat) {
  const { tiles, drawn } = handForDisplay(st, seat);
  return { tiles, drawn, all: drawn ? [...tiles, drawn] : tiles };
}

/** The number of the hand on the table, 1-based. Between hands the server has already
 * counted the finished hand, so its index names the next one: the settlement still shows
 * the hand it settles. */
function handNumber(tb) {
  const index = tb.hand_index ?? 0;
  const shown = tb.status === "between" || tb.status === "ended" ? index : index + 1;
  return Math.max(1, Math.min(shown, tb.hands ?? shown));
}

function topbar(appState, tb, st) {
  const nameOfRoom = roomName(appState.rooms.find((r) => r.id === tb.room)?.name ?? tb.room ?? "");
  const room = tb.kind === "room" ? nameOfRoom : `${t("private_table")} ${tb.code}`;
  const handNo = tb.hands ? t("hand_no", { i: handNumber(tb), n: tb.hands }) : "";
  const mine = appState.seat != null ? tb.seats?.[appState.seat] : null;
  const tg = !!mine?.tuoguan;
  const won = appState.seat != null && st.won?.[appState.seat] && st.phase !== "ended";
  // an escaped seat (R45) is auto-played to the end of the match: nothing to switch
  const inHand = appState.seat != null && tb.status === "playing" && !won && !mine?.escaped;
  const bloody = isBloody(tb, st) ? `<span class="chip bloody" id="bloody-label" title="${t("bloody_room")}">${t("bloody")}</span>` : "";
  return `<header class="topbar">
      <div class="left">
        <button class="icon-btn" data-do="leave" id="leave-btn" aria-label="${t("leave")}">‹ ${t("leave")}</button>
        ${bloody}<span class="info">${esc(room)} · ${t("stake")} ${tb.stake} · ${handNo}${st.streak ? ` · ${t("streak", { n: st.streak })}` : ""}</span>
      </div>
      <div class="right">
        <span class="conn" role="img"></span>
        ${inHand ? `<button class="icon-btn ${tg ? "on" : ""}" data-do="tuoguan" id="tuoguan-btn" aria-pressed="${tg}">${tg ? t("tuoguan_on") : t("tuoguan")}</button>` : ""}
        ${appState.seat != null ? `<button class="icon-btn" data-do="reactions" id="reactions-btn" aria-label="${t("reactions")}">☺</button>` : ""}
        <button class="icon-btn ${isMuted() ? "muted" : ""}" data-do="mute" id="mute-btn" aria-pressed="${isMuted()}" title="${isMuted() ? t("muted") : t("mute")}" aria-label="${t("mute")}">♪</button>
        <button class="icon-btn" data-do="rules" id="rules-btn" title="${t("rules_page")}" aria-label="${t("rules_page")}">?</button>
        ${langSwitch()}
      </div>
    </header>`;
}

/** A 血戰 table (R52-R57): the table's rules, else the hand's `start` event. */
export function isBloody(tb, st) {
  return !!(tb?.rules?.bloody_battle || st?.bloody);
}

/** A winner's laid-open hand (R53): the concealed tiles sorted, the winning tile apart and
 * marked, then the melds. `won` is the fold's record ({hand, tile}). */
export function openHandHTML(won, cls = "", withMelds = true) {
  const { concealed, melds } = parseHand(won.hand || "");
  const rest = [...concealed];
  let win = "";
  const at = won.tile ? rest.lastIndexOf(won.tile) : -1;
  if (at >= 0) {
    rest.splice(at, 1);
    win = tile(won.tile, "win-tile", `title="${esc(t("win"))}"`);
  }
  const meldHTMLs = withMelds ? melds.map((m) => meldHTML(m)).join("") : "";
  return `<div class="open-hand ${cls}" aria-label="${t("open_hand")}">${sortTiles(rest).map((x) => tile(x)).join("")}${win}${meldHTMLs}</div>`;
}

/** The 胡 badge of a 血戰 winner, with the order of winning (1st, 2nd, 3rd). */
function wonBadge(won) {
  const label = getLang() === "zh" ? t("won_nth", { n: won.order }) : `${t("won_badge")} ${won.order}${ordinalSuffix(won.order)}`;
  return `<span class="badge won" data-order="${won.order}">${label}</span>`;
}

// A seat's wind as [badge, name]: the badge is one character (東 in Chinese, E in English),
// the name its tooltip; the dealer sits East.
function seatWind(seat, dealer) {
  const w = (seat - dealer + 4) % 4;
  return [t("wind_badges").split(",")[w], t("seat_names").split(",")[w]];
}

function compass(appState, st, base, tb) {
  let html = "";
  for (let s = 0; s < 4; s++) {
    const [badge, wind] = seatWind(s, st.dealer);
    const cur = st.started && st.phase === "turn" && st.current === s;
    const won = st.phase !== "ended" && st.won?.[s];
    html += `<span class="wind pos-${posOf(s, base)} ${cur ? "current" : ""} ${won ? "won" : ""}" title="${wind}">${won ? t("won_badge") : badge}</span>`;
    if (cur) html += `<span class="turn-bar pos-${posOf(s, base)}"></span>`;
  }
  let timerAt = null;
  if (appState.prompt && !appState.promptSent) timerAt = appState.prompt.deadlineAt;
  else if (st.started && st.phase === "turn" && st.current !== appState.seat && appState.config.turn_timer) {
    timerAt = appState.lastMoveAt + Number(appState.config.turn_timer) * 1000;
  }
  const left = timerAt ? Math.max(0, Math.ceil((timerAt - performance.now()) / 1000)) : null;
  // a natural table waits past its short beat only for a person offered a claim: say so to
  // everyone else (that is all the pause tells them; docs/protocol.md "Timing")
  const beat = Number(appState.config.claim_beat ?? 0.6) * 1000;
  const deciding =
    st.started && st.phase === "claims" && tb.claim_pause === "natural" && !(appState.prompt && !appState.promptSent)
      ? `<div class="sub deciding" data-show-after="${appState.lastMoveAt + beat + 300}" hidden>${t("someone_deciding")}</div>`
      : "";
  const handNo = tb.hands ? `${handNumber(tb)}/${tb.hands}` : "";
  return `<div class="compass" id="compass">
      ${html}
      <div class="center">
        <div class="sub">${t("wall_label")}</div>
        <div class="wall-count" id="wall-count" title="${t("wall", { n: st.wall })}">${st.started ? st.wall : "–"}</div>
        ${left != null ? `<div class="timer-line"><span class="timer" data-timer="${timerAt}"></span><span class="timer-label">${t("seconds")}</span></div>` : ""}
        ${deciding}
        ${handNo ? `<div class="sub">${t("hand_no", { i: handNumber(tb), n: tb.hands })}</div>` : ""}
      </div>
    </div>`;
}

function river(st, seat, base) {
  const items = st.rivers[seat].filter((r) => !r.taken);
  const last = st.lastDiscard && st.lastDiscard.seat === seat ? st.rivers[seat][st.lastDiscard.index] : null;
  const tiles = items
    .map((r) => tile(r.tile, `${r === last ? "last" : ""} ${r.auto ? "auto" : ""} ${r.baoting ? "bt" : ""}`, r.auto ? `title="${t("auto_discard")}"` : ""))
    .join("");
  return `<div class="river-layer pos-${posOf(seat, base)}"><div class="river ${items.length > 24 ? "dense" : ""}" data-river="${seat}">${tiles}</div></div>`;
}

function plate(appState, tb, st, seat, base) {
  const info = tb.seats?.[seat];
  const pos = posOf(seat, base);
  const name = seatName(info, seat);
  const isBot = info?.kind === "bot";
  const active = st.started && st.phase === "turn" && st.current === seat;
  const tags = [];
  if (info?.tuoguan) tags.push(`<span class="tag tg">${t("tuoguan")}</span>`);
  if (info && info.connected === false) tags.push(`<span class="tag" title="${t("offline_help")}">⚡${t("offline")}</span>`);
  if (st.beans[seat]) tags.push(`<span class="tag bean" title="${t("has_bean_help")}">${t("has_bean")}</span>`);
  if (st.left?.[seat]) tags.push(`<span class="tag left">${t("left_table")}</span>`);
  // 準備 matters where people press it: a private table before its match, and between hands
  // (a room table seats its people ready: a chip there says nothing)
  if ((tb.status === "waiting" && tb.kind !== "room") || tb.status === "between") {
    if (info && info.kind !== "bot") tags.push(`<span class="tag">${info.ready ? t("is_ready") : t("not_ready")}</span>`);
  }
  const points = st.started ? signed(st.points[seat]) : "";
  const balance = info?.balance != null ? coinsText(info.balance) : null;
  // the own seat's melds and hand are drawn below the board; a spectator sees every seat here
  const own = seat === appState.seat;
  const melds = own ? "" : `<div class="melds">${st.melds[seat].map((m) => meldHTML(m)).join("")}</div>`;
  let concealed = "";
  const won = st.won?.[seat];
  if (!own && won && st.phase !== "ended") {
    // R53: a 血戰 winner's hand lies open at the seat, the winning tile marked (the melds are
    // on the plate already). A phone's corner is too small for 14 readable tiles: there the
    // seat shows the winning tile and the whole hand lies open in the strip under the board
    if (narrow()) concealed = `<div class="open-hand compact">${tile(won.tile ?? "?", "win-tile")}</div>`;
    else concealed = openHandHTML(won, "", false);
  } else if (!own && st.started && st.phase !== "ended") {
    const n = st.sizes[seat];
    concealed = `<div class="concealed" aria-label="${n}">${Array.from({ length: Math.min(n, 14) }, () => tile("?")).join("")}<span class="count">${n}</span></div>`;
  }
  // a 血戰 winner is out of the hand (R53): its 報聽 mark warns nobody any more, and on a
  // phone's small avatar it lay under the 第N胡 badge
  const showBaoting = st.baoting[seat] && !won;
  const initial = isBot ? String(seat + 1) : esc((name || "?").slice(0, 1).toUpperCase());
  return `<div class="plate pos-${pos} ${won ? "won" : ""}" data-seat="${seat}" id="plate-${seat}" ${seatMenuButton(seat) ? 'data-do="seat-menu"' : ""}>
      <div class="id">
        <div class="avatar ${isBot ? "bot" : ""} ${active ? "active" : ""} ${info && info.connected === false ? "offline" : ""}">${initial}
          ${st.started && st.dealer === seat ? `<span class="badge dealer">${t("dealer")}${st.streak ? st.streak : ""}</span>` : ""}
          ${showBaoting ? `<span class="badge bt">${t("baoting_mark")}</span>` : ""}
          ${won ? wonBadge(won) : ""}${seatMenuButton(seat)}
        </div>
        <div class="who"><span class="name">${st.started ? `<span class="seat-wind" title="${seatWind(seat, st.dealer)[1]}">${seatWind(seat, st.dealer)[0]}</span>` : ""}${esc(name)}${seat === appState.seat ? ` (${t("you")})` : ""}</span>
          <span class="money">${info?.rating != null ? `<span class="rating-chip" title="${t("rating")}">${info.rating}</span>` : ""}${balance != null ? `<span>${COIN}${balance}</span>` : ""}${points}</span></div>
      </div>
      ${tags.length ? `<div class="tags">${tags.join("")}</div>` : ""}
      ${concealed}${melds}
    </div>`;
}

function actionButton(action, label, cls, extra = "", tileName_ = null) {
  return `<button class="btn act ${cls}" data-do="act" data-action="${action}" ${tileName_ ? `data-tile="${tileName_}"` : ""} ${extra}>${label}${tileName_ ? tile(tileName_) : ""}</button>`;
}

function actionBar(appState, st, legal) {
  const p = appState.prompt;
  const parts = [];
  const notes = [];
  const mine = appState.seat != null ? appState.table?.seats?.[appState.seat] : null;
  if (appState.refused) {
    const why = refusedExplanation(appState.refused.reason ?? appState.refused.rule);
    const more = why ? ` <a href="#rules-${why.section}" class="notice-link" data-do="rules" data-section="${why.section}" id="refused-rules-link">${t("rules_more")}</a>` : "";
    notes.push(`<div class="notice refused" id="refused-notice">${esc(refusedText(appState.refused))}${more}</div>`);
  }
  if (mine?.escaped) {
    parts.push(`<span class="prompt-text" id="escaped-note">${t("escaped_watching")}</span>`);
  } else if (mine?.tuoguan) {
    parts.push(`<span class="prompt-text">${t("tuoguan_on")}</span><button class="btn small" data-do="tuoguan">${t("tuoguan_off")}</button>`);
  } else if (p && !appState.promptSent) {
    const timer = `<span class="timer-pill" data-timer="${p.deadlineAt}"></span>`;
    if (p.kind === "claim") {
      const what = p.claim_tile ? tile(p.claim_tile) : "";
      parts.push(`<span class="prompt-text">${t("claim_offer", { tile: what })}</span>`);
      if (legal.hu) parts.push(actionButton("hu", t("hu"), "hu", 'data-key="h"'));
      if (legal.kong) parts.push(actionButton("kong", t("direct_kong"), "kong", 'data-key="k"'));
      if (legal.pong) parts.push(actionButton("pong", t("pong"), "pong", 'data-key="p"'));
      if (legal.pass) parts.push(actionButton("pass", t("pass"), "pass", 'data-key=" "'));
      if (legal.pass && !legal.hu) parts.push(`<button class="btn small ghost" data-do="auto-pass" id="auto-pass-btn" title="${t("auto_pass_on")}">${t("auto_pass")}</button>`);
      parts.push(timer);
    } else {
      const options = legal.hu || legal.concealed_kong.length || legal.added_kong.length || legal.baoting.length;
      if (appState.btMode) {
        parts.push(`<span class="prompt-text">${t("baoting")}: ${tz("選一張牌打出", "pick the tile to discard")}</span>`);
        parts.push(`<button class="btn act pass" data-do="bt-cancel">${t("cancel")}</button>`);
        const only = legal.baoting.filter((x) => appState.selfDrawOnly.includes(x));
        if (only.length) notes.push(`<div class="notice" id="selfdraw-notice">${only.map((x) => tileName(x, getLang())).join("、")}: ${t("baoting_self_draw_only")}</div>`);
      } else if (options && !appState.dismissed) {
        if (legal.hu) parts.push(actionButton("hu", st.drawn[appState.seat] ? t("zimo") : t("hu"), "hu", 'data-key="h"'));
        for (const x of legal.concealed_kong) parts.push(actionButton("concealed_kong", t("concealed_kong"), "kong", 'data-key="k"', x));
        for (const x of legal.added_kong) parts.push(actionButton("added_kong", t("added_kong"), "kong", 'data-key="k"', x));
        if (legal.baoting.length) {
          parts.push(`<button class="btn act bt" data-do="bt-mode" data-key="b">${t("baoting")}</button>`);
          if (legal.baoting.every((x) => appState.selfDrawOnly.includes(x)) && appState.selfDrawOnly.length)
            notes.push(`<div class="notice" id="selfdraw-notice">${t("baoting")}: ${t("baoting_self_draw_only")}</div>`);
        }
        parts.push(`<button class="btn act pass" data-do="dismiss" data-key=" ">${t("pass")}</button>`);
      } else {
        parts.push(`<span class="prompt-text">${t("your_turn")}</span>`);
      }
      parts.push(timer);
    }
  } else if (st.started && st.phase !== "ended" && appState.seat != null) {
    parts.push(`<span class="prompt-text muted">${st.phase === "turn" && st.current === appState.seat ? "…" : t("waiting")}</span>`);
  }
  if (appState.autoPass != null && appState.autoPass === appState.handId && !mine?.tuoguan) {
    parts.push(`<span class="chip" id="auto-pass-chip">${t("auto_pass_on")} <button class="btn small ghost" data-do="auto-pass-off">${t("auto_pass_off")}</button></span>`);
  }
  return `${notes.join("")}<div class="action-bar" id="action-bar">${parts.join("")}</div>`;
}

/** Why a tile that completes the hand may not win: the engine's `win_refused` event or the
 * view's `refused_win` ({tile, from, reason: "R17" | "R9", pattern}). */
export function refusedText(refused) {
  if (typeof refused === "string") return refused;
  const rule = String(refused.reason ?? refused.rule ?? "");
  const tileText = refused.tile ? `${tileName(refused.tile, getLang())}${refused.pattern ? ` (${patternName(refused.pattern)})` : ""} · ` : "";
  const why = refusedExplanation(rule);
  if (why) return tileText + why.text;
  return tileText + t("refused_generic", { why: refused.message ?? t("refused_unknown") });
}

/** A 血戰 winner's own area while the others play on (R53): no action bar, the hand laid
 * open, and a button to leave the table (R57: no penalty). */
function wonArea(appState, st, won) {
  const lang = getLang();
  const head = t("you_won", { n: lang === "zh" ? won.order : won.order, suffix: ordinalSuffix(won.order), pattern: patternName(won.pattern), fan: won.fan });
  const leave = st.left?.[appState.seat] ? "" : `<button class="btn small ghost" data-do="leave" id="leave-won-btn">${t("leave_won")}</button>`;
  return `<section class="me won-area" id="won-area">
      <div class="won-bar"><span class="won-title">${wonBadge(won)} ${esc(head)}</span><span class="muted">${t("you_won_wait")}</span>${leave}</div>
      <div class="my-row">${openHandHTML(won, "mine")}</div>
    </section>`;
}

function myArea(appState, st, legal) {
  if (appState.seat == null) return `<section class="me"><div class="action-bar"><span class="prompt-text">${t("spectator")}</span></div></section>`;
  const won = st.won?.[appState.seat];
  if (won && st.phase !== "ended") return wonArea(appState, st, won);
  const { tiles, drawn, all } = displayTiles(st, appState.seat);
  const canDiscard = appState.prompt?.kind === "turn" && !appState.promptSent && !appState.table?.seats?.[appState.seat]?.tuoguan;
  const discardSet = new Set(appState.btMode ? legal.baoting : legal.discard);
  const melds = st.melds[appState.seat];
  // size the tiles so that the whole row fits the screen width (no sideways scrolling)
  const meldTiles = melds.reduce((n, m) => n + (m.kind === "pong" ? 3 : 4), 0);
  // on a phone the melds get their own line above the hand, so the hand's tiles stay large
  const stack = window.innerWidth < 700 && window.innerHeight > window.innerWidth && melds.length > 0;
  const meldUnits = stack ? 0 : meldTiles * 0.8 + melds.length * 0.15 + (melds.length ? 0.3 : 0);
  // an upright phone has no width to spare: the 聽 button floats by the action bar there
  // (css), the drawn tile's gap is narrower and the row runs almost edge to edge
  const upright = window.innerWidth < 700 && window.innerHeight > window.innerWidth;
  const units = all.length + (drawn ? (upright ? 0.25 : 0.4) : 0) + meldUnits + (upright ? 0 : 0.3 + 1.1);
  const avail = Math.min(window.innerWidth, 1100) - (upright ? 6 : 12) - all.length; // 1 px gaps
  // a phone held sideways has the height of the board to save: the hand stays one 44 px row
  const sideways = window.innerHeight <= 500 && window.innerWidth > window.innerHeight;
  const cap = sideways ? 33 : window.innerWidth >= 900 ? 62 : 52;
  const hw = Math.max(18, Math.min(cap, Math.floor(avail / units)));
  const sel = appState.selected;
  // one tile of the hand takes the keyboard's Tab (the raised one, else the drawn one, else
  // the first); ← → move along the hand from there (a roving tabindex), Enter discards
  const count = tiles.length + (drawn ? 1 : 0);
  const roving = sel != null && sel < count ? sel : drawn ? tiles.length : 0;
  const tileBtn = (x, i, isDrawn) => {
    const ok = canDiscard && discardSet.has(x);
    const raised = sel === i && canDiscard;
    const cls = [isDrawn ? "drawn" : "", raised ? "sel" : "", appState.btMode ? (ok ? "bt-ok" : "dim") : ""].join(" ");
    const hint = appState.btMode && ok && appState.selfDrawOnly.includes(x) ? `<span class="hint">${tz("只能自摸", "self-draw only")}</span>` : "";
    return `<button class="tile ${cls}" data-do="tile" data-idx="${i}" data-tile="${x}" aria-label="${tileName(x, getLang())}${isDrawn ? ` (${t("drawn_tile")})` : ""}" aria-pressed="${raised}" ${ok ? "" : 'aria-disabled="true"'} tabindex="${i === roving ? 0 : -1}">${tile_svg(x)}${hint}</button>`;
  };
  const handHTML = tiles.map((x, i) => tileBtn(x, i, false)).join("") + (drawn ? tileBtn(drawn, tiles.length, true) : "");
  void all;
  const tpOn = !!(appState.showTingpai || st.baoting[appState.seat]);
  return `<section class="me">
      ${actionBar(appState, st, legal)}
      ${tpOn && st.started && st.phase !== "ended" ? tingpaiPanel(appState, st, all) : ""}
      <div class="my-row ${stack ? "stack" : ""}" style="--hw:${hw}px">
        ${st.started && st.phase !== "ended" ? `<button class="tp-toggle ${tpOn ? "on" : ""}" data-do="tingpai" id="tingpai-btn" aria-pressed="${tpOn}" title="${t("tingpai_help")}">${t("tingpai")}</button>` : ""}
        ${melds.length ? `<div class="my-melds">${melds.map((m) => meldHTML(m)).join("")}</div>` : ""}
        <div class="hand ${canDiscard ? "can-discard" : ""}" id="hand" role="group" aria-label="hand">${handHTML}</div>
      </div>
    </section>`;
}

/** The 聽牌 helper (tingpai.js): the waits and how many of each are unseen; on the own turn,
 * the discards that leave the hand ready (the raised tile's first). */
function tingpaiPanel(appState, st, all) {
  const tp = tingpaiFor(st, appState.seat);
  if (!tp) return "";
  const waitsHTML = (ws) =>
    ws.map((w) => `<span class="tp-wait ${w.left ? "" : "dead"}" data-tile="${w.tile}">${tile(w.tile)}<b>${w.left}</b></span>`).join("");
  let body;
  if (tp.kind === "waits") {
    body = tp.waits.length
      ? `<span class="tp-label">${t("tingpai_waits")}</span>${waitsHTML(tp.waits)}<span class="tp-total">${t("tingpai_left", { n: tp.waits.reduce((a, w) => a + w.left, 0) })}</span>`
      : `<span class="tp-label">${t("tingpai_none")}</span>`;
  } else {
    const picked = appState.selected != null ? all[appState.selected] : null;
    const options = [...tp.options];
    const at = options.findIndex((o) => o.discard === picked);
    if (at > 0) options.unshift(...options.splice(at, 1));
    body = options.length
      ? options
          .slice(0, 3)
          .map((o) => `<span class="tp-option" data-discard="${o.discard}"><span class="tp-label">${t("tingpai_discard")}</span>${tile(o.discard)}<span class="tp-label">→</span>${waitsHTML(o.waits)}</span>`)
          .join("")
      : `<span class="tp-label">${tp.won ? t("tingpai_won") : t("tingpai_no_discard")}</span>`;
  }
  return `<div class="tingpai" id="tingpai" aria-live="polite">${body}</div>`;
}

function tile_svg(x) {
  // the hand's tiles are buttons; their inner SVG is the same as everywhere else
  // the SVG may be drawn a little taller than its 3:4 box on a narrow phone (a 42 px touch
  // target for fourteen tiles across 390 px), so it stretches instead of letterboxing
  return tile(x).replace(/^<span[^>]*>/, "").replace(/<\/span>$/, "").replace("<svg ", '<svg preserveAspectRatio="none" ');
}

function waitingRoom(appState, tb) {
  const isHost = appState.seat != null && tb.host === appState.seat;
  const me = appState.seat != null ? tb.seats?.[appState.seat] : null;
  const seats = (tb.seats ?? [null, null, null, null])
    .map((s, i) => {
      if (!s) {
        const add = isHost && tb.kind === "private" && tb.bots_allowed ? `<button class="btn small secondary" data-do="add-bot" data-seat="${i}">${t("add_bot")}</button>` : "";
        return `<div class="seat-card empty" data-seat="${i}">${t("empty_seat")} ${add}</div>`;
      }
      const ready = s.kind === "bot" ? `<span class="ready-yes">${t("kind_bot")}</span>` : s.ready ? `<span class="ready-yes">✔ ${t("is_ready")}</span>` : `<span class="ready-no">${t("not_ready")}</span>`;
      const remove = isHost && s.kind === "bot" && tb.kind === "private" ? `<button class="icon-btn" data-do="remove-bot" data-seat="${i}" aria-label="remove">✕</button>` : "";
      return `<div class="seat-card" data-seat="${i}"><div class="avatar ${s.kind === "bot" ? "bot" : ""}">${s.kind === "bot" ? i + 1 : esc(seatName(s, i).slice(0, 1).toUpperCase())}</div>
        <div class="who"><span class="name">${esc(seatName(s, i))}${i === appState.seat ? ` (${t("you")})` : ""}</span>${ready}</div>${remove}</div>`;
    })
    .join("");
  const invite = tb.invite ? `${location.origin}${tb.invite}` : `${location.origin}/?join=${tb.code}`;
  const codeBlock =
    tb.kind === "private"
      ? `<div style="text-align:center"><div class="muted">${t("table_code")}</div><div class="code-big" id="table-code">${esc(tb.code)}</div>
         <div class="row" style="justify-content:center;margin-top:6px"><input class="field" style="flex:1;min-width:0;max-width:360px;padding:6px;border-radius:8px;border:1px solid #446;background:#0006;color:#fff" readonly value="${esc(invite)}" id="invite-link" aria-label="${t("invite_link")}">
         <button class="btn small secondary" data-do="copy-invite">${t("copy")}</button></div></div>`
      : `<div style="text-align:center" class="muted">${t("queueing")}</div>`;
  const readyBtn =
    me && me.kind !== "bot"
      ? `<button class="btn ${me.ready ? "secondary" : ""}" data-do="ready" data-ready="${me.ready ? "false" : "true"}" id="ready-btn">${me.ready ? t("unready") : t("ready")}</button>`
      : "";
  const startBtn = isHost && tb.kind === "private" ? `<button class="btn" data-do="start" id="start-btn">${t("start")}</button>` : "";
  const rules = Object.entries(tb.rules ?? {})
    .filter(([k, v]) => typeof v === "boolean" && v !== (k === "dead_waits_count"))
    .map(([k]) => `<span class="chip ${k === "bloody_battle" ? "bloody" : ""}">${t(`opt_${k}`)}</span>`)
    .join("");
  // a private table is rated with two people or more unless its host said not (issue 32)
  const rated = tb.kind === "private" && tb.rated != null ? `<span class="chip" id="rated-chip">${t(tb.rated ? "rated_table" : "unrated")}</span>` : "";
  return `<div class="overlay" id="waiting-room"><div class="sheet">
      <h2>${tb.kind === "private" ? t("private_table") : esc(roomName(appState.rooms.find((r) => r.id === tb.room)?.name ?? tb.room ?? ""))}</h2>
      ${codeBlock}
      <div class="chips" style="justify-content:center;margin:8px 0">${`<span class="chip">${t("stake")} ${tb.stake}</span><span class="chip">${t("hands")} ${tb.hands}</span>`}${tb.claim_pause ? `<span class="chip" title="${esc(t("claim_pause_help"))}">${t(`claim_pause_short_${tb.claim_pause}`)}</span>` : ""}${rated}${rules}</div>
      <h3>${t("waiting_players")}</h3>
      <div class="seats-grid">${seats}</div>
      <div class="actions">${readyBtn}${startBtn}<button class="btn ghost" data-do="leave">${t("leave")}</button></div>
    </div></div>`;
}

function dissolveBox(appState, tb) {
  if (!tb.dissolve || appState.seat == null) return "";
  const agreed = tb.dissolve.agreed ?? [];
  const mineIn = agreed.includes(appState.seat);
  return `<div class="notice" id="dissolve-box">${t("dissolve_asked")} (${agreed.length}/${(tb.dissolve.needed ?? []).length})
    ${mineIn ? "" : `<button class="btn small" data-do="dissolve" data-agree="true">${t("agree")}</button> <button class="btn small secondary" data-do="dissolve" data-agree="false">${t("refuse")}</button>`}</div>`;
}

const LOGGED = new Set(["discard", "pong", "kong", "baoting", "win", "payment", "exhaustive_draw", "escape", "claim", "win_refused", "end"]);

/** Desktop only: the match so far (points and coins per seat) and the room's terms. */
function scorePanel(appState, tb, st) {
  const rows = (tb.seats ?? [])
    .map((info, s) => {
      // the match so far: the server's totals of the finished hands (else the hand_end
      // messages this page has seen), plus the running hand's points
      const done = info?.points ?? appState.totals.points[s] ?? 0;
      const coins = info?.coins ?? appState.totals.coins[s] ?? 0;
      const points = done + (st.phase !== "ended" ? st.points[s] ?? 0 : 0);
      return `<tr class="${s === appState.seat ? "me-row" : ""}"><td>${st.started && st.dealer === s ? `<span class="mini-dealer">${t("dealer")}</span>` : ""}${esc(seatName(info, s))}</td>
        <td class="num">${signed(points)}</td><td class="num">${signed(coins)}</td></tr>`;
    })
    .join("");
  const rules = Object.entries(tb.rules ?? {})
    .filter(([k, v]) => typeof v === "boolean" && v !== (k === "dead_waits_count"))
    .map(([k]) => `<span class="chip ${k === "bloody_battle" ? "bloody" : ""}">${t(`opt_${k}`)}</span>`)
    .join("");
  return `<aside class="side-panel left" aria-label="${t("match")}">
      <h2>${t("match")}</h2>
      <table class="pay score"><tr><th>${t("player")}</th><th class="num">${t("points")}</th><th class="num">${t("coins")}</th></tr>${rows}</table>
      <div class="chips"><span class="chip">${t("stake")} ${tb.stake}</span><span class="chip">${t("hands")} ${tb.hands}</span>${rules}</div>
      <p class="kbd-help" style="text-align:left">${t("keyboard_help")}</p>
    </aside>`;
}

function logLines(appState, tb, count) {
  const names = (tb.seats ?? []).map((info, s) => seatName(info, s));
  return appState.events
    .filter((ev) => LOGGED.has(ev.type) && (ev.type !== "win_refused" || ev.seat === appState.seat))
    .slice(-count)
    .map((ev) => {
      const cls = ev.type === "win" ? "log-win" : ev.type === "payment" ? "log-pay" : ev.auto ? "log-auto" : ev.type === "win_refused" ? "log-refused" : "";
      return `<li class="${cls}">${esc(describeEvent(ev, names, t, (x) => tileName(x, getLang())))}</li>`;
    })
    .join("");
}

/** Narrow screens: the 血戰 winners' open hands (R53) in a strip under the board, in the
 * order they won (the own hand lies open in the own area below). */
function winnersStrip(appState, st) {
  if (!narrow() || st.phase === "ended" || !st.winners?.length) return "";
  const rows = st.winners
    .filter((s) => s !== appState.seat && st.won[s])
    .map((s) => {
      const won = st.won[s];
      const name = seatName(appState.table?.seats?.[s], s);
      return `<div class="winner-row" data-seat="${s}">
          <div class="winner-head">${wonBadge(won)}<b>${esc(name)}</b><span>${esc(patternName(won.pattern))} · ${won.fan} ${t("fan")}</span>${st.left?.[s] ? `<span class="tag left">${t("left_table")}</span>` : ""}</div>
          ${openHandHTML(won, "strip")}
        </div>`;
    })
    .join("");
  return rows ? `<section class="winners-strip" id="winners-strip" aria-label="${t("open_hand")}">${rows}</section>` : "";
}

/** Narrow screens (no side panels): the last few moves under the board. */
function recentLog(appState, tb) {
  const lines = logLines(appState, tb, 3);
  return lines ? `<ol class="log recent" aria-label="log">${lines}</ol>` : "";
}

/** Desktop only: the hand's log, newest last, and the quick reactions. */
function logPanel(appState, tb) {
  const lines = logLines(appState, tb, 40);
  const reactions = appState.seat != null ? (appState.reactions ?? []).map((r) => `<button class="btn small secondary" data-do="react" data-id="${esc(r.id)}">${esc(zhText(r.text))}</button>`).join("") : "";
  return `<aside class="side-panel right" aria-label="log">
      <h2>${tz("牌局記錄", "Hand log")}</h2>
      <ol class="log" id="hand-log" tabindex="0" aria-label="${tz("牌局記錄", "Hand log")}">${lines}</ol>
      ${reactions ? `<h2>${t("reactions")}</h2><div class="chips">${reactions}</div>` : ""}
    </aside>`;
}

function reactionsMenu(appState) {
  if (!appState.showReactions) return "";
  const list = (appState.reactions ?? [])
    .map((r) => `<button class="btn small secondary" data-do="react" data-id="${esc(r.id)}">${esc(zhText(r.text))}</button>`)
    .join("");
  return `<div class="reactions-pop" id="reactions-pop">${list}</div>`;
}

export function renderTable(root, appState) {
  const tb = appState.table;
  if (!tb) {
    root.innerHTML = `<div class="lobby"><p>${t("loading")}</p></div>`;
    return;
  }
  const st = appState.hand ?? emptyHand();
  const base = appState.seat ?? 0;
  const legal = legalOf(appState.promptSent ? null : appState.prompt);
  let board = "";
  for (let s = 0; s < 4; s++) board += river(st, s, base);
  board += compass(appState, st, base, tb);
  for (let s = 0; s < 4; s++) board += plate(appState, tb, st, s, base);
  let overlay = "";
  // the last hand's settlement comes first, then the match summary (its button opens it); a
  // dissolved match has no new settlement to show
  const lastEnd = appState.handEnd && !appState.handEnd.closed && appState.matchEnd?.reason !== "dissolved";
  if (appState.matchEnd && lastEnd) overlay = renderSettlement(appState, "");
  else if (appState.matchEnd) overlay = renderMatchSummary(appState);
  else if (tb.status === "waiting") overlay = waitingRoom(appState, tb);
  else if (appState.handEnd && !appState.handEnd.closed) {
    const between = tb.status === "between" || tb.status === "ended" || st.phase === "ended";
    const tg = appState.seat != null && tb.seats?.[appState.seat]?.tuoguan;
    if (between || tg || appState.handEnd.held) overlay = renderSettlement(appState, dissolveBox(appState, tb));
  }
  let banner = "";
  if (appState.status === "connecting") banner = `<div class="banner" id="reconnect-banner">${t("reconnecting")}</div>`;
  else if (appState.status === "replaced" || appState.status === "closed")
    banner = `<div class="banner" id="reconnect-banner">${t("replaced")} <button class="btn small" data-do="resume-here">${t("resume_here")}</button></div>`;
  // Each part of the screen is replaced only when its markup changed, so that a panel the
  // player is reading (or scrolling, or about to click) is not rebuilt by every event.
  let screen = root.querySelector(":scope > .table-screen");
  if (!screen) {
    root.innerHTML = `<div class="table-screen">${TABLE_PARTS.map((id) => `<div id="${id}" class="part"></div>`).join("")}</div>`;
    screen = root.querySelector(":scope > .table-screen");
  }
  screen.dataset.status = tb.status;
  const parts = {
    "part-top": topbar(appState, tb, st) + banner,
    "part-main": `<div class="board-wrap"><h1 class="sr-only">${esc(t("table_heading", { code: tb.code }))}</h1>${scorePanel(appState, tb, st)}<div class="board" id="board">${board}</div>${logPanel(appState, tb)}</div>`,
    "part-winners": winnersStrip(appState, st),
    "part-recent": recentLog(appState, tb),
    "part-dissolve": overlay ? "" : dissolveBox(appState, tb),
    "part-me": myArea(appState, st, legal),
    "part-react": reactionsMenu(appState),
    "part-overlay": overlay,
  };
  for (const [id, html] of Object.entries(parts)) {
    const el = document.getElementById(id);
    if (el && el.dataset.html !== html) {
      // a part drawn again under the keyboard's focus keeps it: on the same control (by its
      // id, else by what it does and its place among the part's controls doing the same: the
      // settlement's 申請解散 and 返回大廳 have no id), or in the hand on the tile that takes
      // the keyboard now
      const active = document.activeElement;
      const inside = !!active && active !== document.body && el.contains(active);
      const handFocused = inside && !!active.closest("#hand");
      const key = inside && !handFocused ? controlKey(el, active) : null;
      keepReading(() => {
        el.innerHTML = html;
        el.dataset.html = html;
        // (quietly: a settlement drawn again is not a reader's new look at it, nor does its
        // reader stop reading because the control under the focus was drawn anew)
        const again = handFocused ? el.querySelector('#hand .tile[tabindex="0"]') : key ? findControl(el, key) : null;
        if (again) focusQuietly(again);
      });
    }
  }
  focusNewDialog(appState);
  paintCountdown(appState.handEnd);
  const log = document.getElementById("hand-log");
  if (log) log.scrollTop = log.scrollHeight;
}

/** How to find a focused control again once its part is drawn anew. */
function controlKey(part, active) {
  if (active.id) return { id: active.id };
  const does = active.dataset?.do;
  if (!does) return null;
  const alike = [...part.querySelectorAll(`[data-do="${CSS.escape(does)}"]`)];
  return { does, index: alike.indexOf(active) };
}

function findControl(part, key) {
  if (key.id) return document.getElementById(key.id);
  return part.querySelectorAll(`[data-do="${CSS.escape(key.does)}"]`)[key.index] ?? null;
}

let dialogShown = null;

/** The settlement and the match summary are dialogs: when one appears the keyboard's focus
 * moves into it (its first button: 下一局, or the summary's 再來一局), once per appearance. */
function focusNewDialog(appState) {
  const sheet = document.querySelector("#part-overlay .sheet[role=dialog]");
  const key = sheet ? `${sheet.parentElement.id}:${appState.matchEnd ? "end" : appState.handEnd?.hand_id ?? ""}` : null;
  if (key === dialogShown) return;
  dialogShown = key;
  const first = sheet && !sheet.contains(document.activeElement) ? sheet.querySelector(".actions button:not([disabled])") ?? sheet.querySelector("button:not([disabled])") : null;
  if (first) focusQuietly(first);
}


const TABLE_PARTS = ["part-top", "part-main", "part-winners", "part-recent", "part-dissolve", "part-me", "part-react", "part-overlay"];

// ------------------------------------------------------------------ highlights

const FX_POS = [
  [0.3, 0.8],
  [0.8, 0.62],
  [0.7, 0.2],
  [0.2, 0.38],
];

function fxAt(seat, text, cls, ms = 1800) {
  const boardEl = document.getElementById("board");
  if (!boardEl || seat == null) return;
  const rect = boardEl.getBoundingClientRect();
  const [fx, fy] = FX_POS[posOf(seat, app.seat ?? 0)];
  const el = document.createElement("div");
  el.className = `fx ${cls}`;
  el.textContent = text;
  el.style.position = "fixed";
  el.style.left = `${rect.left + rect.width * fx}px`;
  el.style.top = `${rect.top + rect.height * fy}px`;
  el.style.setProperty("--S", `${rect.width}px`);
  el.style.zIndex = "30";
  el.dataset.fx = cls;
  // decorative (the status region says what happened), inside the page's main landmark
  el.setAttribute("aria-hidden", "true");
  (document.getElementById("app") ?? document.body).appendChild(el);
  setTimeout(() => el.remove(), ms);
}

const FX_TEXT = {
  pong: () => t("pong"),
  direct_kong: () => t("direct_kong"),
  added_kong: () => t("added_kong"),
  concealed_kong: () => t("concealed_kong"),
  baoting: () => t("baoting"),
  auto_discard: () => t("auto_discard"),
  auto_win: () => t("auto_win"),
  escape: () => t("escape"),
  leave: () => t("left_table"),
};

/** The big highlight of a 血戰 win (the hand goes on, so the table says it loudly): the
 * winner's name, how, the pattern and fan, and the order of winning, over the board. */
function fxBigWin(f) {
  const boardEl = document.getElementById("board");
  if (!boardEl) return;
  const rect = boardEl.getBoundingClientRect();
  const how = f.text === "self_draw" ? t("zimo") : f.text === "rob_kong" ? t("rob_kong") : t("hu");
  const name = seatName(app.table?.seats?.[f.seat], f.seat);
  const order = getLang() === "zh" ? t("won_nth", { n: f.order }) : `${t("won_badge")} ${f.order}${ordinalSuffix(f.order)}`;
  const el = document.createElement("div");
  el.className = "fx big-win";
  el.dataset.fx = "big-win";
  el.style.position = "fixed";
  el.style.left = `${rect.left + rect.width / 2}px`;
  el.style.top = `${rect.top + rect.height / 2}px`;
  el.style.setProperty("--S", `${rect.width}px`);
  el.style.zIndex = "31";
  el.innerHTML = `<div class="bw-order">${esc(order)}</div><div class="bw-how">${esc(how)}</div>
    <div class="bw-who">${esc(name)}</div><div class="bw-pattern">${esc(patternName(f.pattern ?? ""))} · ${f.fan ?? ""} ${t("fan")}</div>`;
  // decorative (the status region says what happened), inside the page's main landmark
  el.setAttribute("aria-hidden", "true");
  (document.getElementById("app") ?? document.body).appendChild(el);
  setTimeout(() => el.remove(), 2600);
}

export function fxForFlashes(flashes) {
  for (const f of flashes) {
    if (f.kind === "win" && f.order) {
      fxBigWin(f);
    } else if (f.kind === "win") {
      fxAt(f.seat, f.text === "self_draw" ? t("zimo") : f.text === "rob_kong" ? t("rob_kong") : t("hu"), "win", 2200);
    } else if (f.kind === "bean" || f.kind === "pay") {
      fxAt(f.seat, `${f.text}${f.kind === "bean" ? ` ${t("beans")}` : ""}`, f.kind, 1800);
    } else if (FX_TEXT[f.kind]) {
      const small = f.kind === "auto_discard" || f.kind === "baoting";
      fxAt(f.seat, FX_TEXT[f.kind](), small ? "small" : "claim", 1700);
    }
  }
}

// ------------------------------------------------------------------ input

export function act(action, tileName_) {
  if (!app.prompt) {
    // the button was pressed as its window closed: say so rather than nothing
    toast(t("too_late"), "info");
    return;
  }
  if (app.promptSent) return;
  const msg = { type: "act", action };
  if (tileName_) msg.tile = tileName_;
  // name the prompt answered: a click that arrives after its window or timer closed is then
  // refused (too_late) instead of being taken as an answer to a later prompt
  if (Number.isInteger(app.prompt.id)) msg.prompt = app.prompt.id;
  const rid = send(msg);
  if (rid != null) {
    app.promptSent = true;
    app.promptRid = rid; // an error about this answer echoes it (main.js, "error")
    app.btMode = false;
    render();
  }
}

function tileClicked(idx) {
  const st = app.hand;
  if (!st || app.prompt?.kind !== "turn" || app.promptSent) return;
  const { all } = displayTiles(st, app.seat);
  const x = all[idx];
  const legal = legalOf(app.prompt);
  if (app.btMode) {
    if (legal.baoting.includes(x)) act("baoting", x);
    return;
  }
  if (!legal.discard.includes(x)) return;
  if (coarse() && app.selected !== idx) {
    app.selected = idx; // on touch screens the first tap raises the tile, the second discards
    render();
    return;
  }
  act("discard", x);
}

export const tableHandlers = {
  ...settleHandlers,
  rules: (el) => openRules(app.table, app.rooms, el.dataset.section),
  mute: () => {
    setMuted(!isMuted());
    render();
  },
  "auto-pass": () => {
    app.autoPass = app.handId;
    act("pass");
  },
  "auto-pass-off": () => {
    app.autoPass = null;
    render();
  },
  tingpai: () => {
    app.showTingpai = !app.showTingpai;
    render();
  },
  "rules-close": () => closeRules(),
  tile: (btn) => tileClicked(Number(btn.dataset.idx)),
  act: (btn) => act(btn.dataset.action, btn.dataset.tile),
  dismiss: () => {
    app.dismissed = true;
    render();
  },
  "bt-mode": () => {
    app.btMode = true;
    render();
  },
  "bt-cancel": () => {
    app.btMode = false;
    render();
  },
  tuoguan: () => {
    const mine = app.table?.seats?.[app.seat];
    send({ type: "tuoguan", on: !mine?.tuoguan });
  },
  reactions: () => {
    app.showReactions = !app.showReactions;
    render();
  },
  react: (btn) => {
    app.showReactions = false;
    send({ type: "reaction", id: btn.dataset.id });
    render();
  },
  ready: (btn) => send({ type: "ready", ready: btn.dataset.ready !== "false" }),
  start: () => {
    // the host's 開始 is also the host's 準備; other people must have pressed 準備 (bots are
    // always ready), and the page says who is missing instead of sending a refused start
    const tb = app.table;
    const waiting = (tb?.seats ?? []).map((s, i) => (s && s.kind !== "bot" && i !== app.seat && !s.ready ? seatName(s, i) : null)).filter(Boolean);
    if (waiting.length) {
      toast(t("others_not_ready", { names: waiting.join("、") }), "info");
      return;
    }
    if (!tb?.seats?.[app.seat]?.ready) send({ type: "ready", ready: true });
    send({ type: "start" });
  },
  "add-bot": (btn) => send({ type: "add_bot", seat: Number(btn.dataset.seat) }),
  "remove-bot": (btn) => send({ type: "remove_bot", seat: Number(btn.dataset.seat) }),
  dissolve: (btn) => send({ type: "dissolve", agree: btn.dataset.agree !== "false" }),
  "copy-invite": async (btn) => {
    const input = document.getElementById("invite-link");
    try {
      await navigator.clipboard.writeText(input.value);
    } catch {
      input.select();
      document.execCommand?.("copy");
    }
    btn.textContent = t("copied");
  },
  "close-settlement": () => {
    if (app.handEnd) app.handEnd.closed = true;
    render();
  },
  "play-again": (btn) => {
    if (btn.dataset.code) {
      sendWhenReady({ type: "join", code: btn.dataset.code });
      sendWhenReady({ type: "ready" }); // pressing 再來一局 is this person's agreement
    } else if (btn.dataset.room) {
      app.queueing = btn.dataset.room;
      sendWhenReady({ type: "quick_match", room: btn.dataset.room });
    }
  },
  leave: async () => {
    const tb = app.table;
    const inHand = tb && tb.status === "playing" && app.seat != null && app.hand && app.hand.phase !== "ended";
    const won = inHand && app.hand.won?.[app.seat];
    // hands still to play after this moment (between hands `hand_index` counts the hands played)
    const left = tb ? Math.max(0, (tb.hands ?? 0) - (tb.hand_index ?? 0) - (tb.status === "between" ? 0 : 1)) : 0;
    const me = app.seat != null ? tb?.seats?.[app.seat] : null;
    let asked = true;
    if (won) {
      // R57: a 血戰 winner leaves without penalty; the hand goes on without them
      const more = left > 0 ? ` ${t("leave_won_more")}` : "";
      asked = await confirmDialog({ title: t("leave_title"), body: `${t("leave_won_confirm")}${more} ${t("leave_won_ok")}`, ok: t("leave"), cancel: t("stay"), danger: false });
    } else if (inHand && !me?.escaped) {
      asked = await confirmDialog({ title: t("leave_title"), body: leaveWarning(tb, app.hand, app.seat), ok: t("leave_escape"), cancel: t("keep_playing") });
    } else if (me && !me.escaped && left > 0 && tb.status !== "ended" && tb.status !== "waiting") {
      // between hands nothing is paid, but the match goes on with the player's coins
      asked = await confirmDialog({ title: t("leave_title"), body: t("leave_between", { n: left, stake: tb.stake ?? 1 }), ok: t("leave"), cancel: t("stay") });
    }
    if (asked) backToLobby();
  },
};

/** Keyboard play: ←/→ pick, Enter discard, 1-9/0 pick by position, H/P/K/B/Space for actions. */
export function tableKey(event) {
  const st = app.hand;
  const key = event.key;
  if (!st || app.seat == null) return false;
  // Enter and Space on a focused control outside the hand are that control's own (a dialog's
  // button, 聽, a seat's menu): taking them for play would discard a tile the player never chose
  const focused = event.target instanceof Element ? event.target.closest("button, a[href], summary, [role=button]") : null;
  if ((key === "Enter" || key === " ") && focused && !focused.closest("#hand")) return false;
  const p = app.promptSent ? null : app.prompt;
  const legal = legalOf(p);
  const lower = key.length === 1 ? key.toLowerCase() : key;
  if (key === "Escape" && document.querySelector("#close-settlement")) {
    document.querySelector("#close-settlement").click(); // Escape closes a settlement that may close
    return true;
  }
  const button = [...document.querySelectorAll("#action-bar [data-key]")].find((b) => b.dataset.key === lower || (lower === "Escape" && b.dataset.key === " "));
  if (button && (lower.length === 1 || lower === "Escape")) {
    button.click();
    return true;
  }
  if (p?.kind !== "turn") return false;
  const { all } = displayTiles(st, app.seat);
  const pool = app.btMode ? legal.baoting : legal.discard;
  const pickable = all.map((x, i) => (pool.includes(x) ? i : -1)).filter((i) => i >= 0);
  if (!pickable.length) return false;
  let cur = app.selected != null && pickable.includes(app.selected) ? app.selected : null;
  if (key === "ArrowLeft" || key === "ArrowRight") {
    const at = cur == null ? (key === "ArrowLeft" ? pickable.length : -1) : pickable.indexOf(cur);
    const next = pickable[(at + (key === "ArrowLeft" ? -1 : 1) + pickable.length) % pickable.length];
    app.selected = next;
    render();
    return true;
  }
  if (/^[0-9]$/.test(key)) {
    const idx = key === "0" ? 9 : Number(key) - 1;
    if (idx < all.length) {
      app.selected = idx;
      render();
    }
    return true;
  }
  if (key === "Enter") {
    if (cur == null) cur = pickable[pickable.length - 1];
    const x = all[cur];
    if (app.btMode) act("baoting", x);
    else if (legal.discard.includes(x)) act("discard", x);
    return true;
  }
  return false;
}
