// Spoken calls (issue 31 item 4): 碰, 槓, 胡, 自摸 and 報聽 said in Mandarin when anyone makes
// them. The words are small MP3 files shipped with the client (static/sound: how they were made
// and their licence are in its README), so nothing is fetched from elsewhere while playing; the
// service worker keeps them with the rest of the page. They follow the table's mute switch,
// and when a file cannot play (no audio element, a format the browser lacks, autoplay refused)
// the table's synth cue for that moment sounds instead.

import { isMuted, play } from "./sound.js";

/** Each call's file and the synth cue (sound.js) played in its place when the file fails. */
export const CALLS = {
  pong: { file: "/static/sound/pong.mp3", cue: "claim" },
  kong: { file: "/static/sound/kong.mp3", cue: "claim" },
  hu: { file: "/static/sound/hu.mp3", cue: "win" },
  zimo: { file: "/static/sound/zimo.mp3", cue: "win" },
  baoting: { file: "/static/sound/baoting.mp3", cue: "claim" },
};

const players = {};
let last = { name: null, at: 0 };

function player(name) {
  if (players[name]) return players[name];
  if (typeof Audio !== "function") return null;
  const audio = new Audio(CALLS[name].file);
  audio.preload = "auto";
  players[name] = audio;
  return audio;
}

// the files are fetched at the first tap or key (when audio may play at all), so the first call
// sounds without waiting for its file
const warm = () => Object.keys(CALLS).forEach(player);
for (const type of ["pointerdown", "keydown"]) {
  document.addEventListener(type, warm, { once: true, capture: true, passive: true });
}

/** Say a call (a key of CALLS) unless muted. Several winners of one discard (R18) make one 胡,
 * and a new call cuts the one still sounding: the table moves faster than the words. */
export function say(name) {
  window.__duyunSounds = [...(window.__duyunSounds ?? []).slice(-20), `say:${name}`];
  const call = CALLS[name];
  if (!call || isMuted()) return false;
  const now = performance.now();
  if (last.name === name && now - last.at < 300) return true;
  last = { name, at: now };
  const fallback = () => play(call.cue);
  const audio = player(name);
  if (!audio) return fallback();
  for (const other of Object.values(players)) {
    if (other !== audio && !other.paused) other.pause();
  }
  try {
    audio.currentTime = 0;
    const started = audio.play();
    // older browsers return nothing; a refusal (autoplay, a missing codec) rejects
    started?.catch?.(fallback);
  } catch {
    fallback();
  }
  return true;
}

/** The call a fold's change means: a new meld (its kind), a win (how it was won). */
export function callForMeld(meld) {
  return meld?.kind === "pong" ? "pong" : "kong";
}

export function callForWin(win) {
  return win?.how === "self_draw" ? "zimo" : "hu";
}
