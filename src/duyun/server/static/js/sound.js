// Table sounds made with WebAudio (issue 21 item 7): nothing is downloaded, every sound is a few
// oscillator notes. A discard clacks, a claim (碰/槓) knocks twice, a win rings an arpeggio and
// the player's own turn chimes softly. The mute switch is remembered in localStorage. Browsers
// allow audio only after a gesture, so the context is made at the first tap or key.

const KEY = "duyun.muted";
let ctx = null;

export function isMuted() {
  try {
    return localStorage.getItem(KEY) === "1";
  } catch {
    return false;
  }
}

export function setMuted(muted) {
  try {
    localStorage.setItem(KEY, muted ? "1" : "0");
  } catch {
    /* private mode: the switch still works for this page */
  }
}

function context() {
  if (ctx) return ctx;
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) return null;
  try {
    ctx = new Ctx();
  } catch {
    ctx = null;
  }
  return ctx;
}

for (const type of ["pointerdown", "keydown"]) {
  document.addEventListener(type, () => context()?.resume?.(), { capture: true, passive: true });
}

/** One note: frequency (Hz), start offset and length (s), wave, loudness. */
function note(freq, at, length, type = "sine", gain = 0.12) {
  const c = context();
  if (!c || c.state !== "running") return;
  const t0 = c.currentTime + at;
  const osc = c.createOscillator();
  const amp = c.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, t0);
  amp.gain.setValueAtTime(0.0001, t0);
  amp.gain.exponentialRampToValueAtTime(gain, t0 + 0.008);
  amp.gain.exponentialRampToValueAtTime(0.0001, t0 + length);
  osc.connect(amp).connect(c.destination);
  osc.start(t0);
  osc.stop(t0 + length + 0.02);
}

const SOUNDS = {
  discard: () => {
    note(1850, 0, 0.05, "square", 0.05);
    note(620, 0.005, 0.08, "triangle", 0.1);
  },
  claim: () => {
    note(330, 0, 0.12, "triangle", 0.16);
    note(440, 0.11, 0.16, "triangle", 0.16);
  },
  win: () => [523, 659, 784, 1047].forEach((f, i) => note(f, i * 0.09, 0.35, "sine", 0.14)),
  turn: () => note(880, 0, 0.18, "sine", 0.07),
};

/** Play a named sound unless muted. Returns whether it was played (tests read `lastSound`). */
export function play(name) {
  window.__duyunSounds = [...(window.__duyunSounds ?? []).slice(-20), name];
  if (isMuted() || !SOUNDS[name]) return false;
  SOUNDS[name]();
  return true;
}
