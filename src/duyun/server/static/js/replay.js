// The replay viewer: step forwards and backwards through a finished hand's complete log
// (GET /api/hands/{id}/log), every hand shown. Each step is one engine event other than the raw
// decision record (`act`), folded by the same code as the live table.

import { getLang, patternName, t } from "./i18n.js";
import { tileName } from "./tiles.js";
import { app, closeReplay, render } from "./core.js";
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
function replayFrame() {
  return `<div class="replay" id="replay" data-lang="${getLang()}">
      <header class="topbar" style="border-radius:12px">
        <div class="left"><button class="icon-btn" data-do="replay-close" id="replay-close">‹ ${t("close")}</button>
          <span class="info" id="replay-info"></span></div>
        <div class="right"><button class="icon-btn" data-do="lang" id="lang-toggle">${t("lang_toggle")}</button></div>
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
        <div class="kbd-help">← → Home End · Space</div>
      </div>
    </div>`;
}

const REPLAY_PARTS = ["replay-info", "replay-seat-0", "replay-seat-1", "replay-seat-2", "replay-seat-3", "replay-event", "replay-pos", "replay-auto"];

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
  };
  // Each part is replaced only when its markup changed (as on the lobby and table screens):
  // while the replay plays by itself it moves several times a second, and rebuilding the whole
  // screen at every step would replace the button being pressed (pause, step, close) between
  // press and release, losing the click.
  let screen = root.querySelector(":scope > #replay");
  if (!screen || screen.dataset.lang !== getLang()) {
    root.innerHTML = replayFrame();
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
  return false;
}
