// Talking to the server: REST under /api (docs/protocol.md "REST") and one websocket at /ws that
// reconnects by itself. A dropped connection is retried with backoff; on every (re)connect the
// client sends `hello` with its token and the server answers with `welcome`, `table` and a
// `snapshot`, which restores the table exactly (nothing is kept only in the browser).

export const PROTOCOL_VERSION = 1;
const TOKEN_KEY = "duyun.token";

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || code || `HTTP ${status}`);
    this.status = status;
    this.code = code;
    this.retryAfter = null; // seconds, from a 429's Retry-After
  }
}

export function getToken() {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function setToken(token) {
  try {
    if (token) localStorage.setItem(TOKEN_KEY, token);
    else localStorage.removeItem(TOKEN_KEY);
  } catch {
    /* storage unavailable: the session lasts for this page */
  }
}

/** Call the REST API; errors become ApiError with the server's code and message. */
export async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new ApiError(0, "network", String(err?.message || err));
  }
  let data = null;
  const text = await response.text();
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = { error: { code: "bad_response", message: text.slice(0, 200) } };
    }
  }
  if (!response.ok) {
    const err = data?.error ?? {};
    const detail = typeof data?.detail === "string" ? data.detail : null;
    const error = new ApiError(response.status, err.code ?? `http_${response.status}`, err.message ?? detail ?? response.statusText);
    const wait = Number(response.headers.get("Retry-After"));
    if (wait > 0) error.retryAfter = wait;
    throw error;
  }
  return data;
}

/**
 * The websocket session. `onMessage(msg)` receives every server message; `onStatus(status)`
 * gets "connecting" | "open" | "closed" | "replaced". Messages sent while the socket is down are
 * dropped (the server is the authority; the snapshot after reconnecting shows the truth).
 */
export class Session {
  constructor({ onMessage, onStatus }) {
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.ws = null;
    this.attempt = 0;
    this.stopped = false;
    this.welcomed = false;
    this.rid = 0;
    this.timer = null;
    this.pending = 0; // retries of a live match no process hosts yet (retryLater)
  }

  start() {
    this.stopped = false;
    this.connect();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.ws) this.ws.close(1000, "bye");
    this.ws = null;
  }

  connect() {
    clearTimeout(this.timer);
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    // `url`: another process's address after a `redirect` (cluster.js)
    const ws = new WebSocket(this.url || `${proto}//${location.host}/ws`);
    this.ws = ws;
    this.welcomed = false;
    this.onStatus("connecting");
    ws.onopen = () => {
      ws.send(JSON.stringify({ type: "hello", version: PROTOCOL_VERSION, token: getToken() }));
    };
    ws.onmessage = (event) => {
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      if (msg.type === "welcome") {
        this.welcomed = true;
        this.attempt = 0;
        this.onStatus("open");
      }
      if (msg.type === "error" && msg.code === "replaced") {
        this.stopped = true;
        this.onStatus("replaced");
      }
      this.onMessage(msg);
    };
    ws.onclose = (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.welcomed = false;
      if (this.stopped || event.code === 4001 || event.code === 4003 || event.code === 4005) {
        this.onStatus(event.code === 4001 ? "replaced" : "closed");
        return;
      }
      this.onStatus("connecting");
      // the process we were sent to is gone: our own host knows where the table went
      if (this.url && this.attempt >= 2) this.url = null;
      const delay = Math.min(8000, 300 * 2 ** this.attempt) * (0.75 + Math.random() * 0.5);
      this.attempt += 1;
      this.timer = setTimeout(() => this.connect(), delay);
    };
    ws.onerror = () => {
      /* onclose follows and schedules the retry */
    };
  }

  get ready() {
    return !!this.ws && this.ws.readyState === WebSocket.OPEN && this.welcomed;
  }

  /** Send a message; returns its rid, or null when the socket is down. */
  send(msg) {
    if (!this.ready) return null;
    this.rid += 1;
    const rid = this.rid;
    this.ws.send(JSON.stringify({ ...msg, rid }));
    return rid;
  }

  /** The server has no table for us although our match is still live (another server
   *  process is taking it over after a failure, docs/protocol.md "Reconnecting"): connect
   *  again after a growing pause (0.5 s doubling to 15 s, jittered) until the match is seated
   *  or over. Giving up and going to the lobby would cost the player an escape (R45). */
  retryLater() {
    const delay = Math.min(15000, 500 * 2 ** this.pending) * (0.75 + Math.random() * 0.5);
    this.pending += 1;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (this.stopped) return;
      const ws = this.ws;
      this.ws = null; // its onclose then schedules nothing
      if (ws) ws.close(1000, "retrying the table");
      this.connect();
    }, delay);
  }

  /** The table was found (or there is none to wait for): the next wait starts short. */
  settled() {
    this.pending = 0;
  }

  /** Events were missed (a gap in `seq`): reconnect now; the snapshot restores the table. */
  resync() {
    if (this.ws) this.ws.close(4000, "resync");
  }

  /** Drop the socket as a network failure would (for the browser tests only). */
  dropForTest() {
    if (this.ws) this.ws.close(4000, "test drop");
  }
}
