// The state and hooks every screen shares: the one `app` object, `render()` and `send()`, and
// the controller's actions the views call (sign in, lobby refresh, replays, leaving a table).
// They live here, not in main.js, so the views and the controller import this module and not
// each other: main.js imports the views, registers its actions with `provide()` and draws with
// the renderer it registers, and the import graph stays a tree (tests/web check it has no circle).

import { t } from "./i18n.js";
import { toast } from "./ui.js";

export const app = {
  account: null,
  config: {},
  reactions: [],
  rooms: [],
  lobbyTables: [],
  // lobby loads (refreshLobby) in flight, and loads finished and drawn: the lobby's parts are
  // replaced when a load is drawn, so the browser tests wait for that before they click
  lobbyLoads: 0,
  lobbyDrawn: 0,
  history: null,
  // issue 32: what the gift and top-up offer, the leaderboards read, the bots' ratings
  bonus: null,
  boards: {},
  boardTab: "rating",
  botRatings: {},
  botLevels: null,
  route: "lobby",
  status: "idle",
  table: null,
  seat: null,
  hand: null,
  handId: null,
  handIndex: 0,
  eventCount: 0,
  events: [], // every event of this hand this client has been sent (the table's log)
  prompt: null,
  promptSent: false,
  promptRid: null, // the rid of the act that answered the current prompt (its errors carry it)
  handEnd: null,
  matchEnd: null,
  counted: new Set(),
  totals: { points: [0, 0, 0, 0], coins: [0, 0, 0, 0] },
  selected: null,
  btMode: false,
  dismissed: false,
  refused: null,
  selfDrawOnly: [],
  lastMoveAt: 0,
  replay: null,
  pendingJoin: null,
  outbox: [], // lobby requests waiting for the connection (outbox.js)
  queueing: null,
  showReactions: false,
  session: null,
};

// The controller's hooks, filled by main.js at load (before anything can call them).
const hooks = {
  renderNow: () => {},
  sendWhenReady: () => {},
  signedIn: async () => {},
  refreshLobby: async () => {},
  logout: () => {},
  backToLobby: () => {},
  openReplay: async () => {},
  closeReplay: () => {},
};

/** main.js registers its renderer and actions here; a missing or unknown name is a bug. */
export function provide(impl) {
  for (const [name, fn] of Object.entries(impl)) {
    if (!(name in hooks) || typeof fn !== "function") throw new Error(`core.provide: bad hook ${name}`);
    hooks[name] = fn;
  }
}

// ------------------------------------------------------------------ rendering

let renderQueued = false;
/** Redraw the current screen at the next frame (many updates in one task draw once). */
export function render() {
  if (renderQueued) return;
  renderQueued = true;
  requestAnimationFrame(() => {
    renderQueued = false;
    hooks.renderNow();
  });
}

// ------------------------------------------------------------------ sending

/** Send a message; returns its rid (a positive number: the server's `error` about it echoes
 * it), or null when the connection is down. */
export function send(msg) {
  const rid = app.session ? app.session.send(msg) : null;
  if (rid == null) {
    toast(t("reconnecting"), "info");
    return null;
  }
  return rid;
}

// ------------------------------------------------------------------ the controller's actions

/** Lobby requests (join, quick match) wait for the connection instead of failing (outbox.js). */
export const sendWhenReady = (msg) => hooks.sendWhenReady(msg);
export const signedIn = (data) => hooks.signedIn(data);
export const refreshLobby = () => hooks.refreshLobby();
export const logout = () => hooks.logout();
export const backToLobby = () => hooks.backToLobby();
export const openReplay = (handId, review) => hooks.openReplay(handId, review);
export const closeReplay = () => hooks.closeReplay();
