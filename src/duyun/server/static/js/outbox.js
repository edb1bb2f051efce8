// Lobby requests (join, quick match, spectate, 再來一局's `ready`) wait here while the
// connection is down or not yet welcomed, and go out in order with the next `welcome`.
//
// Why a queue and not a retry loop: a phone on a mobile network can be without its socket
// for longer than any fixed number of retries, and a request given up on quietly is worse
// than one that waits: a private table made over REST (建立房間) would be left unjoined,
// still counting towards the player's open tables, with nothing on screen to say why.
//
// Why the requests still expire: an intent from long ago must not seat a player who has
// given up on it and walked away (a quick match costs coins when its hands are played). A
// request that waited OUTBOX_WAIT_MS is dropped and the page says it was not sent.
//
// A `welcome` that restores a live table (the account is seated: a reconnect) sends only
// what concerns that table; the server would refuse a request for another one (a seated
// account cannot queue or join elsewhere), so it is dropped rather than answered by an error.

export const OUTBOX_WAIT_MS = 20000;
const OUTBOX_MAX = 4; // a handful of taps; beyond it the oldest go first

/** Keep `msg` for the next welcome. */
export function queueRequest(app, msg, now = performance.now()) {
  app.outbox.push({ msg, at: now });
  while (app.outbox.length > OUTBOX_MAX) app.outbox.shift();
}

/** Empty the queue at a `welcome`: the requests to send now, in the order they were made.
 *  `restored` is the welcome's table code (or null when the account is at no table). */
export function takeDue(app, restored, now = performance.now()) {
  const due = app.outbox.filter((entry) => now - entry.at <= OUTBOX_WAIT_MS).map((entry) => entry.msg);
  app.outbox = [];
  if (!restored) return due;
  return due.filter((msg) => msg.type === "ready" || (msg.type === "join" && msg.code === restored));
}

/** Drop the requests that waited too long; returns them (the page says they were not sent). */
export function dropExpired(app, now = performance.now()) {
  const expired = app.outbox.filter((entry) => now - entry.at > OUTBOX_WAIT_MS).map((entry) => entry.msg);
  if (expired.length) app.outbox = app.outbox.filter((entry) => now - entry.at <= OUTBOX_WAIT_MS);
  return expired;
}
