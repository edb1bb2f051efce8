// The replay viewer: step forwards and backwards through a finished hand's complete log
// (GET /api/hands/{id}/log), every hand shown. Each step is one engine event other than the raw
// decision record (`act`), folded by the same code as the live table.

import { getLang, getLocale, langSwitch, patternName, t } from "./i18n.js";
import { tileName } from "./tiles.js";
import { app, closeReplay, openReplay, render } from "./core.js";
import { errorText } from "./errors.js";
import { api } from "./net.js";
import { describeEvent, foldEvents, handForDisplay } from "./state.js";
import { botName, esc, meldHTML, signed, tile } from "./ui.js";

/** Step 0 is the deal (the `start` event); each further step is one event after it. */
function stepIndices(events) {
  const start = Math.max(0, events.findIndex((ev) => ev.type === "start"));
  const out = [];
  events.forEach((ev, i) => {
    if (i > start && (ev.type !== "act" || ev.action === "quit")) out.push(i);
  });
  return { start, steps: out };
}

function names(log) {
  return (log.seats ?? []).map((s, i) => {
    const name = typeof s === "string" ? s : s?.name ?? `#${i}`;
    return name.startsWith("bot:") || s?.kind === "bot" ? botName(i) : name;
  });
}

/** The replay screen's frame: its buttons and labels, drawn again only when the language
 * changes. The parts between (REPLAY_PARTS) change as the replay moves. */
function replayFrame(reviewed) {
  return `<div class="replay ${reviewed ? "with-review" : ""}" id="replay" data-lang="${getLocale()}" data-review="${reviewed ? 1 : 0}">
      <div class="replay-main">
      <header class="topbar" style="border-radius:12px">
        <div class="left"><button class="icon-btn" data-do="replay-close" id="replay-close">‹ ${t("close")}</button>
          <span class="info" id="replay-info"></span></div>
        <div class="right">${langSwitch()}</div>
      </header>
      <div class="replay-seats" style="margin-top:10px">${[0, 1, 2, 3].map((s) => `<div class="rpart" id="replay-seat-${s}"></div>`).join("")}</div>
      <div class="replay-controls">
        <div class="replay-event" id="replay-event"></div>
        <div class="buttons">
          <button class="btn small secondary" data-do="replay-step" data-to="start" aria-label="${t("to_start")}">◀◀</button>
          <button class="btn secondary" data-do="replay-step" data-to="-1" id="replay-back">◀ ${t("step_back")}</button>
          <span class="timer-pill" id="replay-pos"></span>
          <button class="btn" data-do="replay-step" data-to="1" id="replay-forward">${t("step_forward")} ▶</button>
          <button class="btn small secondary" data-do="replay-step" data-to="end" aria-label="${t("to_end")}">▶▶</button>
        </div>
        <div class="buttons replay-auto" id="replay-auto"></div>
        <div class="kbd-help">← → Home End · Space${reviewed ? " · [ ]" : ""}</div>
      </div>
      </div>
      ${reviewed ? `<aside class="review-panel" id="review" aria-label="${t("review_title")}" aria-live="polite"></aside>` : ""}
    </div>`;
}

const REPLAY_PARTS = ["replay-info", "replay-seat-0", "replay-seat-1", "replay-seat-2", "replay-seat-3", "replay-event", "replay-pos", "replay-auto", "review"];

export function renderReplay(root, appState) {
  const rp = appState.replay;
  if (!rp) return;
  const events = rp.log.events ?? [];
  const { start, steps } = stepIndices(events);
  rp.step = Math.max(0, Math.min(rp.step, steps.length));
  const upto = rp.step === 0 ? start + 1 : steps[rp.step - 1] + 1;
  const st = foldEvents(events.slice(0, upto));
  const who = names(rp.log);
  const current = rp.step > 0 ? events[steps[rp.step - 1]] : events[start];
  const seat = (s) => {
    const { tiles, drawn } = handForDisplay(st, s);
    const hand = tiles.map((x) => tile(x)).join("") + (drawn ? `<span style="width:10px"></span>${tile(drawn, "drawn")}` : "");
    const melds = st.melds[s].map((m) => meldHTML(m)).join("");
    const last = st.lastDiscard && st.lastDiscard.seat === s ? st.rivers[s][st.lastDiscard.index] : null;
    const rv = st.rivers[s].map((r) => tile(r.tile, `${r.taken ? "taken" : ""} ${r === last ? "last" : ""}`)).join("");
    const win = st.wins.find((w) => w.seat === s);
    const active = current && current.seat === s;
    return `<div class="replay-seat ${active ? "active" : ""}" data-seat="${s}">
          <div class="head"><span><b>${esc(who[s] ?? `#${s}`)}</b>${st.dealer === s ? ` · ${t("dealer")}` : ""}${st.baoting[s] ? ` · <span style="color:#ff9c38">${t("baoting")}</span>` : ""}${st.beans[s] ? ` · ${t("has_bean")}` : ""}
            ${win ? ` · <span style="color:var(--gold)">${st.won[s] ? `${t("won_nth", { n: st.won[s].order })} ` : ""}${t("hu")} ${esc(patternName(win.pattern))} ${win.fan}${t("fan")}</span>` : ""}${st.left[s] ? ` · ${t("left_table")}` : ""}</span><span>${signed(st.points[s])}</span></div>
          <div class="tiles replay-hand">${hand}${melds ? `<span style="width:8px"></span>${melds}` : ""}</div>
          <div class="rv">${rv}</div>
        </div>`;
  };
  const desc = current ? describeEvent(current, who, t, (x) => tileName(x, getLang())) : "";
  const parts = {
    "replay-info": `${t("replay_of", { i: (rp.log.index ?? 0) + 1 })} · ${t("wall", { n: st.wall })}`,
    "replay-seat-0": seat(0),
    "replay-seat-1": seat(1),
    "replay-seat-2": seat(2),
    "replay-seat-3": seat(3),
    "replay-event": esc(desc),
    "replay-pos": t("step_of", { i: rp.step, n: steps.length }),
    "replay-auto": `<button class="btn ${rp.playing ? "secondary" : ""}" data-do="replay-play" id="replay-play" aria-pressed="${!!rp.playing}">${rp.playing ? `❚❚ ${t("replay_pause")}` : `▶ ${t("replay_play")}`}</button>
          <label class="muted">${t("replay_speed")}
            <select id="replay-speed" data-change="replay-speed">${SPEEDS.map((x) => `<option value="${x}"${x === (rp.speed ?? 1) ? " selected" : ""}>${x}×</option>`).join("")}</select></label>`,
    review: rp.review ? reviewHTML(rp, events, steps, who) : "",
  };
  // Each part is replaced only when its markup changed (as on the lobby and table screens):
  // while the replay plays by itself it moves several times a second, and rebuilding the whole
  // screen at every step would replace the button being pressed (pause, step, close) between
  // press and release, losing the click.
  let screen = root.querySelector(":scope > #replay");
  const reviewed = rp.review ? "1" : "0";
  if (!screen || screen.dataset.lang !== getLocale() || screen.dataset.review !== reviewed) {
    root.innerHTML = replayFrame(rp.review != null);
    screen = root.querySelector(":scope > #replay");
  }
  for (const id of REPLAY_PARTS) {
    const el = screen.querySelector(`#${id}`);
    if (el && el.dataset.html !== parts[id]) {
      el.innerHTML = parts[id];
      el.dataset.html = parts[id];
    }
  }
}

// ------------------------------------------------------------------ playing by itself
// (issue 21 item 6): one step every STEP_MS / speed, stopping at the end; stepping by hand
// keeps working while it plays.

const SPEEDS = [0.5, 1, 2, 4];
const STEP_MS = 700;
let player = null;

function stopPlaying() {
  if (player) clearInterval(player);
  player = null;
  if (app.replay) app.replay.playing = false;
}

function startPlaying() {
  const rp = app.replay;
  if (!rp) return;
  if (player) clearInterval(player);
  const n = stepIndices(rp.log.events ?? []).steps.length;
  if (rp.step >= n) rp.step = 0; // from the start again
  rp.playing = true;
  player = setInterval(() => {
    const now = app.replay;
    if (!now || app.route !== "replay" || !now.playing) {
      stopPlaying();
      return;
    }
    if (now.step >= n) {
      stopPlaying();
      render();
      return;
    }
    now.step += 1;
    render();
  }, STEP_MS / (rp.speed ?? 1));
  render();
}

function stepTo(to) {
  const rp = app.replay;
  if (!rp) return;
  const n = stepIndices(rp.log.events ?? []).steps.length;
  if (to === "start") rp.step = 0;
  else if (to === "end") rp.step = n;
  else rp.step = Math.max(0, Math.min(n, rp.step + Number(to)));
  render();
}

export const replayHandlers = {
  "replay-step": (btn) => stepTo(btn.dataset.to),
  review: (btn) => openReplay(Number(btn.dataset.hand), { seat: Number(btn.dataset.seat) }),
  "review-jump": (btn) => {
    stopPlaying();
    stepTo(Number(btn.dataset.step) - (app.replay?.step ?? 0));
  },
  "review-retry": () => {
    if (app.replay?.review) loadReview(app.replay);
  },
  "replay-close": () => {
    stopPlaying();
    closeReplay();
  },
  "replay-play": () => {
    if (app.replay?.playing) {
      stopPlaying();
      render();
    } else startPlaying();
  },
};

document.addEventListener("change", (event) => {
  if (event.target?.id !== "replay-speed" || !app.replay) return;
  app.replay.speed = Number(event.target.value) || 1;
  if (app.replay.playing) startPlaying();
});

export function replayKey(event) {
  const map = { ArrowLeft: "-1", ArrowRight: "1", Home: "start", End: "end" };
  if (map[event.key]) {
    stepTo(map[event.key]);
    return true;
  }
  if (event.key === "Escape") {
    stopPlaying();
    closeReplay();
    return true;
  }
  if (event.key === " ") {
    replayHandlers["replay-play"]();
    return true;
  }
  if ((event.key === "[" || event.key === "]") && app.replay?.review?.review) {
    jumpToDecision(event.key === "]" ? 1 : -1);
    return true;
  }
  return false;
}

// ------------------------------------------------------------------ 牌譜解析 (issue 36 item 3)
// The review of one seat's decisions beside the replay: the summary, a row of marks along
// the hand (one per decision, a mistake in red) that jump to it, and at each of the seat's
// decisions every option with its value, the player's choice and 大師's. The server computes
// a review once and keeps it (POST starts it, GET polls it, docs/protocol.md "Reviews").

const POLL_MS = 1000;

/** Ask for the review of `rp.review.seat` and poll it until it is done, while this replay is
 * still the one on screen. */
export async function loadReview(rp) {
  const seat = rp.review.seat;
  const path = `/api/hands/${rp.log.hand_id}/review?seat=${seat}`;
  rp.review = { seat, status: "asking" };
  render();
  try {
    let answer = await api("POST", path);
    while (app.replay === rp) {
      rp.review = { seat, ...answer };
      render();
      if (answer.status !== "queued" && answer.status !== "running") return;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      if (app.replay !== rp) return;
      answer = await api("GET", path);
    }
  } catch (err) {
    if (app.replay !== rp) return;
    const s = Math.ceil(err?.retryAfter ?? 30);
    let text;
    if (err?.code === "review_busy") text = t("review_busy", { s });
    else if (err?.code === "rate_limited") text = t("review_rate_limited", { s });
    else if (err?.code === "reviews_off") text = t("reviews_off");
    else text = errorText(err) ?? t("server_error", { msg: String(err?.message ?? err) });
    rp.review = { seat, status: "error", message: text };
    render();
  }
}

/** The replay step at which a decision (its `act` event, numbered from 1) is taken: the last
 * step shown before it, so the seat's hand is the one it decided with. */
function decisionStep(steps, event) {
  let step = 0;
  while (step < steps.length && steps[step] < event - 1) step += 1;
  return step;
}

function jumpToDecision(direction) {
  const rp = app.replay;
  const decisions = rp?.review?.review?.decisions ?? [];
  const { steps } = stepIndices(rp.log.events ?? []);
  const at = decisions.map((d) => decisionStep(steps, d.event));
  const target = direction > 0 ? at.find((s) => s > rp.step) : [...at].reverse().find((s) => s < rp.step);
  if (target != null) {
    stopPlaying();
    rp.step = target;
    render();
  }
}

/** An option in words: 出牌 五筒, 碰 三條, 報聽 九筒 (declared with that discard), 過. */
function optionText(o) {
  const tileText = o.tile ? tileName(o.tile, getLang()) : "";
  return tileText ? `${t(o.action)} ${tileText}` : t(o.action);
}

const sameOption = (a, b) => a.action === b.action && (a.tile ?? null) === (b.tile ?? null);

function points(x) {
  return x == null ? "—" : `${x > 0 ? "+" : ""}${x.toFixed(1)}`;
}

function reviewHTML(rp, events, steps, who) {
  const r = rp.review;
  const name = esc(who[r.seat] ?? `#${r.seat}`);
  const head = `<h3>${t("review_title")} · ${name}</h3>`;
  if (r.status === "asking") return `${head}<div class="muted">${t("loading")}</div>`;
  if (r.status === "queued" || r.status === "running") {
    const share = r.total ? Math.round((100 * r.done) / r.total) : 0;
    const label = r.status === "queued" ? t("review_queued", { n: r.ahead ?? 0 }) : t("review_running", { done: r.done, total: r.total });
    return `${head}<div class="review-progress" role="progressbar" aria-valuemin="0" aria-valuemax="${r.total}" aria-valuenow="${r.done}" aria-label="${esc(label)}"><div style="width:${share}%"></div></div>
      <div class="muted" id="review-status">${label}</div>`;
  }
  if (r.status === "error" || r.status === "failed" || r.status === "none") {
    const why = r.status === "error" ? esc(r.message ?? "") : t("review_failed");
    return `${head}<div class="review-error" id="review-status">${why}</div>
      <button class="btn small secondary" data-do="review-retry">${t("review_retry")}</button>`;
  }
  const review = r.review ?? {};
  const sum = review.summary ?? {};
  const decisions = review.decisions ?? [];
  const agreement = sum.agreement == null ? "—" : `${Math.round(sum.agreement * 100)}%`;
  const summary = `<div class="review-summary" id="review-summary">
      <div><b>${agreement}</b><span class="muted">${t("review_agreement")}</span></div>
      <div><b>${(sum.expected_loss ?? 0).toFixed(1)}</b><span class="muted">${t("review_loss")}</span></div>
      <div><b>${sum.mistakes ?? 0}</b><span class="muted">${t("review_mistakes")}</span></div>
    </div>`;
  const n = Math.max(1, steps.length);
  const marks = decisions
    .map((d, i) => {
      const step = decisionStep(steps, d.event);
      const kind = d.mistake ? "mistake" : sameOption(d.chosen, d.best) ? "agree" : "differ";
      const label = `${t("review_decision_n", { i: i + 1 })}: ${optionText(d.chosen)}${d.mistake ? ` · ${t("review_mistake")} ${points(-d.loss)}` : ""}`;
      return `<button class="review-mark ${kind} ${step === rp.step ? "here" : ""}" data-do="review-jump" data-step="${step}" style="left:${(100 * step) / n}%" title="${esc(label)}" aria-label="${esc(label)}"></button>`;
    })
    .join("");
  const timeline = `<div class="review-timeline" id="review-timeline"><div class="review-track"></div>${marks}</div>`;
  const here = decisions.filter((d) => decisionStep(steps, d.event) === rp.step);
  let detail;
  if (!decisions.length) detail = `<div class="muted">${t("review_no_decisions")}</div>`;
  else if (!here.length) {
    const next = decisions.find((d) => decisionStep(steps, d.event) > rp.step);
    detail = `<div class="muted">${t("review_between")}</div>${next ? `<button class="btn small secondary" data-do="review-jump" data-step="${decisionStep(steps, next.event)}">${t("review_next")} ▶</button>` : ""}`;
  } else detail = here.map((d) => decisionHTML(d)).join("");
  const largest = (sum.largest ?? [])
    .map((event) => decisions.find((d) => d.event === event))
    .filter(Boolean)
    .map((d) => `<li><button class="btn small ghost" data-do="review-jump" data-step="${decisionStep(steps, d.event)}">${esc(optionText(d.chosen))} → ${esc(optionText(d.best))} <b>${points(-d.loss)}</b></button></li>`)
    .join("");
  return `${head}${summary}${timeline}<div class="review-detail" id="review-detail">${detail}</div>
    ${largest ? `<h4>${t("review_largest")}</h4><ol class="review-largest">${largest}</ol>` : ""}
    <div class="muted review-note">${t("review_note", dealHalves(review.samples))}</div>`;
}

/** How a review's deals were used (docs/review.md): the first half chose 大師's option, the
 * rest measured every value shown. */
function dealHalves(samples) {
  if (!Number.isInteger(samples)) return { choose: "", measure: "" };
  const choose = Math.floor(samples / 2);
  return { choose, measure: samples - choose };
}

function decisionHTML(d) {
  const rows = (d.options ?? [])
    .map((o) => {
      const mine = sameOption(o, d.chosen);
      const best = sameOption(o, d.best);
      const tags = `${mine ? `<span class="tag mine">${t("review_yours")}</span>` : ""}${best ? `<span class="tag best">${t("review_masters")}</span>` : ""}`;
      return `<li class="review-option ${mine ? "mine" : ""} ${best ? "best" : ""}">
          <span class="what">${o.tile ? tile(o.tile) : ""}<span>${esc(optionText(o))}</span>${tags}</span>
          <span class="value">${points(o.value)}<span class="muted"> ±${o.error == null ? "—" : o.error.toFixed(1)}</span></span>
        </li>`;
    })
    .join("");
  const verdict = sameOption(d.chosen, d.best)
    ? `<div class="review-verdict agree">${t("review_agrees")}</div>`
    : `<div class="review-verdict ${d.mistake ? "mistake" : "differ"}">${d.mistake ? t("review_mistake") : t("review_differs")} · ${points(-d.loss)} ±${d.loss_error == null ? "—" : d.loss_error.toFixed(1)}</div>`;
  const claim = d.claim_tile ? `<div class="muted">${t("review_claim_of")} ${tile(d.claim_tile)}</div>` : "";
  return `<div class="review-decision" data-event="${d.event}">${claim}${verdict}<ol class="review-options">${rows}</ol></div>`;
}
