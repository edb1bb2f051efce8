// The client's controller: one `app` object (core.js) holds what the client knows, server messages update
// it, and `render()` draws the current screen (lobby, table or replay) from it. The server is the
// authority; nothing here decides what is legal (the prompt's `legal` list does).

import { getLocale, setLang, t } from "./i18n.js";
import { api, getToken, Session, setToken } from "./net.js";
import { followRedirect } from "./cluster.js";
import { dropExpired, queueRequest, takeDue } from "./outbox.js";
import { applyEvent, emptyHand, foldEvents } from "./state.js";
import { TILE_DEFS } from "./tiles.js";
import { app, provide, render, send } from "./core.js";
import { $, showError, toast } from "./ui.js";
import { renderLobby, lobbyHandlers } from "./lobby.js";
import { profileHandlers } from "./profile.js";
import { act, renderTable, tableHandlers, fxForFlashes, tableKey } from "./table.js";
import { afterTableDrawn, beforeTableDrawn } from "./effects.js";
import { celebrate, settleBanner } from "./celebrate.js";
import {
  forgetReactionMutes,
  leaveReactionMutes,
  reactionHandlers,
  restoreReactionMutes,
  showReaction,
} from "./reactions.js";
import { holdSettlement, rememberHandEnd } from "./settle.js";
import { loadReview, renderReplay, replayHandlers, replayKey } from "./replay.js";
import { pwaHandlers, startPwa } from "./pwa.js";
import { openRules } from "./rules.js";
import { watchChinese } from "./langmark.js";

// ------------------------------------------------------------------ rendering

export function renderNow() {
  const root = $("#app");
  document.body.dataset.route = app.route;
  if (app.route !== "table") {
    root.querySelector(":scope > .table-screen")?.remove();
    document.querySelectorAll("body > .fx").forEach((el) => el.remove()); // the table's flashes
  }
  if (app.route === "table") {
    beforeTableDrawn(app, () => act("pass"));
    renderTable(root, app);
    afterTableDrawn(app);
  }
  else if (app.route === "replay") renderReplay(root, app);
  else renderLobby(root, app);
  showConnection();
  updateTimers();
}

/** The connection's dot in the lobby's head and the table's top bar is set in place, outside
 * their markup: a reconnect (or the first welcome after signing in) must not rebuild the bar
 * whose button is being pressed, which would lose the click between press and release. */
function showConnection() {
  const words = app.status === "open" ? t("connected") : t("reconnecting");
  document.querySelectorAll(".conn").forEach((dot) => {
    dot.className = `conn ${app.status}`;
    dot.title = words;
    dot.setAttribute("aria-label", words);
  });
}

/** Timers count down between renders: every element with data-timer (a deadline). */
function updateTimers() {
  document.querySelectorAll("[data-timer]").forEach((el) => {
    const left = Math.max(0, Math.ceil((Number(el.dataset.timer) - performance.now()) / 1000));
    el.textContent = String(left);
    el.classList.toggle("urgent", left <= 3);
  });
  // "someone is deciding" (a natural claim pause longer than the beat): shown once it is due
  document.querySelectorAll("[data-show-after]").forEach((el) => {
    el.hidden = performance.now() < Number(el.dataset.showAfter);
  });
}

// ------------------------------------------------------------------ server messages

function resetHand() {
  app.hand = null;
  app.handId = null;
  app.eventCount = 0;
  app.events = [];
  app.prompt = null;
  app.promptSent = false;
  app.promptRid = null;
  app.selected = null;
  app.btMode = false;
  app.dismissed = false;
  app.refused = null;
}

function setPrompt(prompt) {
  if (!prompt) {
    app.prompt = null;
    return;
  }
  app.prompt = { ...prompt, deadlineAt: performance.now() + Number(prompt.deadline ?? 0) * 1000 };
  app.promptSent = false;
  app.promptRid = null;
  app.dismissed = false;
  app.btMode = false;
  // which 報聽 discards would leave a hand that wins only by self-draw: this prompt's list,
  // never a stale one from an earlier turn (only a turn prompt carries it; the VIEW does not)
  app.selfDrawOnly = Array.isArray(prompt.baoting_self_draw_only) ? prompt.baoting_self_draw_only : [];
  if (prompt.kind === "turn") {
    const discards = prompt.legal.filter((a) => a.action === "discard").map((a) => a.tile);
    const drawn = app.hand?.drawn?.[app.seat];
    // keyboard and mouse: the drawn tile starts selected (Enter discards it); on a touch
    // screen nothing is raised until the player taps, so every discard takes two taps
    const coarse = window.matchMedia?.("(pointer: coarse)").matches;
    app.selected = null;
    if (!coarse && drawn && discards.includes(drawn)) app.selected = drawnIndex();
  }
}

/** The drawn tile's index in the own hand as displayed (it is shown last, apart). */
function drawnIndex() {
  const hand = app.hand?.hands?.[app.seat];
  return hand ? hand.length - 1 : null;
}

function readView(view) {
  if (!view) return;
  if (view.refused_win) app.refused = view.refused_win;
  // 血戰 (R57): who has left the table, when the server's VIEW says so (the `leave` events
  // say it too; a VIEW without the field changes nothing)
  if (app.hand && Array.isArray(view.left)) view.left.forEach((gone, s) => gone && (app.hand.left[s] = true));
}

const MOVES = new Set(["discard", "pong", "kong", "win", "end", "escape", "draw"]);

function onEvents(events) {
  const flashes = [];
  for (const ev of events) {
    applyEvent(app.hand, ev);
    flashes.push(...app.hand.flashes);
    if (MOVES.has(ev.type)) {
      app.lastMoveAt = performance.now();
      // the hand moved on: a pending claim is over (its window resolved), a turn was played
      if (app.prompt) {
        const keep = app.prompt.kind === "turn" && ev.type === "draw" && ev.seat === app.seat;
        if (!keep) app.prompt = null;
      }
      // a refusal stays on screen until the player's own next discard (it is about a tile
      // they could not take; the claim window and the next draws are too quick to read it).
      // After 報聽 the discards are automatic (R26) and follow each other in a moment: the
      // refusal then stays until the next one, or the end of the hand
      if (ev.type === "discard" && ev.seat === app.seat && !ev.auto) {
        app.btMode = false;
        app.refused = null;
      }
    }
    if (ev.type === "win_refused" && (ev.seat == null || ev.seat === app.seat)) app.refused = ev;
  }
  app.eventCount += events.length;
  app.events.push(...events);
  // a big win has its banner (celebrate.js) instead of the small flash
  const big = celebrate(events, app);
  fxForFlashes(flashes.filter((f) => !(f.kind === "win" && big.has(f.seat))), app);
}

function onMessage(msg) {
  switch (msg.type) {
    case "welcome": {
      // the same account: merged, since the welcome's copy has no `in_play` and may come
      // after /api/me's (a reload under load), which would take the lobby's way back away
      if (msg.account) app.account = app.account?.id === msg.account.id ? { ...app.account, ...msg.account } : msg.account;
      app.config = msg.config ?? {};
      app.reactions = msg.reactions ?? app.reactions;
      if (!msg.table && msg.match?.status === "pending") {
        // our match is live but this server does not host it yet (its process failed and
        // another is taking it over): keep the table on screen and ask again with backoff;
        // going to the lobby would leave the seat to run out its grace (an escape)
        toast(t("reconnecting"), "info");
        app.session?.retryLater();
        render();
        break;
      }
      app.session?.settled();
      if (!msg.table) {
        if (app.route === "table" && app.table?.status !== "ended") {
          app.route = "lobby";
          app.table = null;
          resetHand();
        }
        if (app.pendingJoin) {
          sendWhenReady({ type: "join", code: app.pendingJoin });
          app.pendingJoin = null;
        }
      }
      flushOutbox(msg.table ?? null);
      render();
      break;
    }
    case "table": {
      if (!msg.table) {
        // no longer seated (left, or the match is over and the seat freed)
        app.table = null;
        app.seat = null;
        if (app.route === "table") app.route = "lobby";
        resetHand();
        render();
        // the lobby's way back to a match the seat still plays in (托管), now that the
        // server has let the seat go (issue 31 item 1)
        if (app.route === "lobby") refreshLobby();
        break;
      }
      const before = app.table;
      app.table = msg.table;
      app.seat = msg.table.you ?? null;
      app.queueing = null;
      if (app.route !== "replay") app.route = "table";
      // a new table, or the same private table waiting again for 再來一局
      if (before?.code !== msg.table.code || (before?.status === "ended" && msg.table.status !== "ended")) {
        resetHand();
        app.handEnd = null;
        app.matchEnd = null;
        app.counted = new Set();
        app.totals = { points: [0, 0, 0, 0], coins: [0, 0, 0, 0] };
        // hidden reactions are hidden for one match; a page opened mid-match (a reload, the
        // lobby's way back) finds those it hid there
        if (before == null) restoreReactionMutes(msg.table.code);
        else forgetReactionMutes(msg.table.code);
        history.replaceState(null, "", "/");
      }
      if (msg.table.status === "waiting") resetHand();
      render();
      break;
    }
    case "snapshot": {
      resetHand();
      app.hand = foldEvents(msg.events ?? []);
      app.handId = msg.hand_id;
      app.handIndex = msg.hand_index ?? 0;
      app.eventCount = (msg.events ?? []).length;
      app.events = [...(msg.events ?? [])];
      app.seat = msg.seat ?? app.seat;
      app.lastMoveAt = performance.now();
      if (app.handEnd && app.handEnd.hand_id !== msg.hand_id && app.hand.phase !== "ended") {
        // a new hand: its player needs the table; a seat in 托管 keeps the last settlement on
        // screen until it is closed (the bot is already playing the new hand)
        const mine = app.table?.seats?.[app.seat ?? -1];
        if (!mine?.tuoguan && !holdSettlement(app)) app.handEnd = null;
      }
      app.selfDrawOnly = [];
      readView(msg.view);
      setPrompt(msg.prompt);
      if (app.route !== "replay") app.route = "table";
      render();
      break;
    }
    case "events": {
      if (!app.hand || msg.hand_id !== app.handId) {
        if (app.hand == null || msg.seq === 0) {
          resetHand();
          app.hand = emptyHand();
          app.handId = msg.hand_id;
        } else break;
      }
      let events = msg.events ?? [];
      if (msg.seq > app.eventCount) {
        // we missed a batch: reconnect, the snapshot restores the table exactly
        app.session.resync();
        break;
      }
      if (msg.seq < app.eventCount) events = events.slice(app.eventCount - msg.seq);
      onEvents(events);
      render();
      break;
    }
    case "prompt": {
      if (msg.hand_id != null && app.handId != null && msg.hand_id !== app.handId) break;
      setPrompt(msg);
      render();
      break;
    }
    case "hand_end": {
      app.handEnd = { ...msg, receivedAt: performance.now() };
      rememberHandEnd(msg);
      settleBanner(msg);
      app.prompt = null;
      if (!app.counted.has(msg.hand_id)) {
        app.counted.add(msg.hand_id);
        (msg.points ?? []).forEach((p, s) => (app.totals.points[s] += p));
        (msg.coins ?? []).forEach((c, s) => (app.totals.coins[s] += c));
      }
      if (app.account && app.seat != null && msg.balances?.[app.seat] != null) {
        app.account = { ...app.account, balance: msg.balances[app.seat] };
      }
      render();
      break;
    }
    case "match_end": {
      app.matchEnd = msg;
      leaveReactionMutes(); // held on this page to its end; a page opened after starts afresh
      render();
      break;
    }
    case "reaction": {
      showReaction(msg);
      break;
    }
    case "redirect": {
      followRedirect(app, app.session, msg, sendWhenReady);
      break;
    }
    case "error": {
      // Only an error about the answer to the prompt on screen (the server echoes the act's
      // rid) concerns that prompt. A refused answer to an earlier one (a claim clicked as its
      // window closed, answered `too_late` after the next turn's prompt arrived) must leave
      // the new prompt alone: clearing it would leave the seat idle until its timer ran out.
      const ours = msg.rid != null && msg.rid === app.promptRid;
      // an error without a rid (a dropped message: rate_limited) may have been the answer
      if (ours || msg.rid == null) app.promptSent = false;
      if (msg.code === "too_late") {
        if (ours) app.prompt = null; // the window or timer had closed: nothing was done
        toast(t("too_late"), "info");
      } else if (msg.code !== "replaced") showError(msg); // `replaced` shows as the banner
      if (app.queueing && ["insufficient_balance", "unknown_room", "already_seated", "table_full", "table_not_found"].includes(msg.code)) {
        app.queueing = null;
      }
      render();
      break;
    }
    default:
      break;
  }
}

function onStatus(status) {
  const was = app.status;
  app.status = status;
  if (status === "replaced") toast(t("replaced"));
  if (was !== status) render();
}

export function startSession() {
  if (app.session) return;
  app.session = new Session({ onMessage, onStatus });
  app.session.start();
  window.__duyun = app; // for the browser tests and debugging from the console
}

/** After another tab took the seat over (`replaced`), take it back here. */
export function resumeHere() {
  stopSession();
  startSession();
}

export function stopSession() {
  if (app.session) app.session.stop();
  app.session = null;
  app.status = "idle";
}

/** Lobby requests (join, quick match) wait for the connection instead of failing: sent now
 *  when the session is welcomed and nothing waits before them, else queued for the next
 *  welcome (outbox.js says why, and for how long). */
export function sendWhenReady(msg) {
  startSession();
  if (app.session.ready && app.outbox.length === 0) {
    app.session.send(msg);
    return;
  }
  queueRequest(app, msg);
  watchOutbox();
}

/** At a welcome: what waited goes out, in order (`restored`: the live table it seated us at). */
function flushOutbox(restored) {
  for (const msg of takeDue(app, restored)) app.session?.send(msg);
}

let outboxWatch = null;

/** While requests wait, drop those too old and say so once for them. */
function watchOutbox() {
  if (outboxWatch != null) return;
  outboxWatch = setInterval(() => {
    const expired = dropExpired(app);
    if (expired.length) {
      if (expired.some((msg) => msg.type === "quick_match")) app.queueing = null;
      toast(t("request_not_sent"));
      render();
    }
    if (app.outbox.length === 0) {
      clearInterval(outboxWatch);
      outboxWatch = null;
    }
  }, 1000);
}

// ------------------------------------------------------------------ account

export async function loadAccount() {
  const token = getToken();
  if (!token) return false;
  try {
    const me = await api("GET", "/api/me");
    // signed in as someone else meanwhile (the lobby is on screen while this loads): the newer
    // account stands, and a late answer must not replace it
    if (getToken() !== token) return false;
    app.account = me;
    return true;
  } catch (err) {
    if (getToken() !== token) return false; // nor may its refusal forget the newer token
    if (err.status === 401 || err.status === 403) {
      setToken(null);
      app.account = null;
      return false;
    }
    showError(err);
    return false;
  }
}

export async function signedIn(data) {
  setToken(data.token);
  app.account = data.account;
  startSession();
  await refreshLobby();
}

export async function refreshLobby() {
  // counted at once (a click that starts a load has started it), and as drawn only once its
  // results are on screen: the browser tests wait for that before they click in the lobby
  app.lobbyLoads += 1;
  try {
    const token = getToken();
    const [rooms, lobby, history, me, bonus, board, bots, levels] = await Promise.allSettled([
      api("GET", "/api/rooms"),
      api("GET", "/api/lobby"),
      token ? api("GET", "/api/history?limit=30") : null,
      token ? api("GET", "/api/me") : null,
      token ? api("GET", "/api/bonus") : null,
      token ? api("GET", `/api/leaderboard/${app.boardTab}`) : null,
      api("GET", "/api/ratings/bots"),
      app.botLevels ? null : api("GET", "/api/bots"),
    ]);
    if (rooms.status === "fulfilled") app.rooms = rooms.value;
    if (lobby.status === "fulfilled") app.lobbyTables = lobby.value.tables ?? [];
    if (bots.status === "fulfilled") app.botRatings = bots.value.bots ?? {};
    if (levels.status === "fulfilled" && levels.value) app.botLevels = levels.value;
    const answers = [rooms, lobby];
    // the account's answers belong to the token they were asked with: after a logout (or
    // another sign-in) meanwhile they would bring the old account back into the lobby
    if (token && getToken() === token) {
      if (history.status === "fulfilled") app.history = history.value.matches ?? [];
      if (me.status === "fulfilled") app.account = { ...app.account, ...me.value };
      if (bonus.status === "fulfilled") app.bonus = bonus.value.bonuses ?? [];
      if (board.status === "fulfilled" && board.value) app.boards = { ...app.boards, [board.value.board]: board.value };
      answers.push(history, me);
    }
    const failed = answers.find((r) => r.status === "rejected");
    if (failed) showError(failed.reason);
    renderNow(); // now, not at the next frame: `lobbyDrawn` below says it is drawn
  } finally {
    app.lobbyLoads -= 1;
    app.lobbyDrawn += 1;
  }
}

export function logout() {
  stopSession();
  setToken(null);
  app.account = null;
  app.history = null;
  app.bonus = null;
  app.boards = {};
  app.table = null;
  app.route = "lobby";
  resetHand();
  render();
}

export function backToLobby() {
  // a spectator stops watching; a player leaves the seat (the server has already freed it once
  // the match is over)
  if (app.table && app.seat == null) send({ type: "unspectate" });
  else if (app.table && app.table.status !== "ended") send({ type: "leave" });
  app.table = null;
  app.route = "lobby";
  app.handEnd = null;
  app.matchEnd = null;
  resetHand();
  history.replaceState(null, "", "/");
  refreshLobby();
  render();
}

/** The replay of a finished hand; with `review` ({seat}), 大師's review of that seat beside it
 * (牌譜解析), asked for and polled while the replay is open. */
export async function openReplay(handId, review = null) {
  try {
    const log = await api("GET", `/api/hands/${handId}/log`);
    app.replay = { log, step: 0, from: app.route, review: null };
    app.route = "replay";
    if (review && Number.isInteger(review.seat)) {
      app.replay.review = { seat: review.seat };
      loadReview(app.replay);
    }
    render();
  } catch (err) {
    showError(err);
  }
}

export function closeReplay() {
  app.route = app.table ? "table" : "lobby";
  app.replay = null;
  render();
}

provide({ renderNow, sendWhenReady, signedIn, refreshLobby, logout, backToLobby, openReplay, closeReplay });

// the state and hooks are core.js's; they are re-exported for the browser tests and the console
export { app, render, send };

// ------------------------------------------------------------------ input

const handlers = {
  ...lobbyHandlers,
  ...profileHandlers,
  ...tableHandlers,
  ...reactionHandlers,
  ...replayHandlers,
  ...pwaHandlers,
  "resume-here": () => resumeHere(),
  lang: (target) => {
    setLang(target.dataset.lang);
    renderNow();
    // the rules page (over any screen) is drawn again in the new language where it was read
    const open = document.querySelector("#rules-page .rules-sheet");
    if (open) {
      const top = open.scrollTop;
      openRules(app.table, app.rooms, null);
      const again = document.querySelector("#rules-page .rules-sheet");
      if (again) again.scrollTop = top;
    }
  },
};

document.addEventListener("click", (event) => {
  const target = event.target.closest("[data-do]");
  if (!target || target.disabled) return;
  const fn = handlers[target.dataset.do];
  if (fn) {
    event.preventDefault();
    fn(target, event);
  }
});

document.addEventListener("submit", (event) => {
  const form = event.target.closest("form[data-submit]");
  if (!form) return;
  event.preventDefault();
  const fn = handlers[form.dataset.submit];
  if (fn) fn(form, event);
});

document.addEventListener("keydown", (event) => {
  if (event.target.closest("input, select, textarea")) return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const done = app.route === "table" ? tableKey(event, app) : app.route === "replay" ? replayKey(event, app) : false;
  if (done) event.preventDefault();
});

// ------------------------------------------------------------------ boot

function routeFromURL() {
  const url = new URL(location.href);
  const join = url.searchParams.get("join") || (/^\/t\/(\d{6})\/?$/.exec(url.pathname) || [])[1];
  if (join && /^\d{6}$/.test(join)) app.pendingJoin = join;
  const replay = url.searchParams.get("replay");
  return replay && /^\d+$/.test(replay) ? Number(replay) : null;
}

async function boot() {
  window.__duyun = app; // for the browser tests and debugging from the console
  setLang(getLocale(), false);
  document.body.insertAdjacentHTML("afterbegin", TILE_DEFS);
  watchChinese();
  startPwa();
  const replayId = routeFromURL();
  render();
  const ok = await loadAccount();
  if (ok) {
    if (app.account?.table && app.pendingJoin === app.account.table) app.pendingJoin = null;
    startSession();
    if (replayId != null) await openReplay(replayId);
  }
  setInterval(updateTimers, 250);
  window.addEventListener("resize", () => render());
  await refreshLobby();
  app.booted = true; // the first lobby is loaded (tests wait for it before they click)
}

boot();
