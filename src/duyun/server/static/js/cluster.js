// Several server processes (docs/deploy.md "Several server processes", issue 24): a table may be
// held by another process than the one this page talks to. The server then answers `join`,
// `spectate`, `quick_match` or the reconnect after `hello` with
//   {"type": "redirect", "url": "wss://s2.play.example/ws", "code": "483920", "room": null, ...}
// and the client moves its websocket there: same token (sent in `hello`, never in the URL),
// then joins the table (or asks that process's quick match for the room). REST stays on this
// page's host: accounts, coins and history are shared by every process.

/**
 * Follow a redirect: reconnect `session` to `msg.url`; once welcomed there, the table is joined
 * (`app.pendingJoin`, sent on `welcome`) or the room's quick match asked again.
 */
export function followRedirect(app, session, msg, sendWhenReady) {
  if (!session || typeof msg.url !== "string" || !/^wss?:\/\//.test(msg.url)) return;
  if (msg.code && msg.reason !== "reconnect") app.pendingJoin = msg.code;
  session.url = msg.url;
  const old = session.ws;
  session.connect(); // the old socket's onclose sees it is no longer current and stays quiet
  if (old) old.close(1000, "redirected");
  if (!msg.code && msg.room) sendWhenReady({ type: "quick_match", room: msg.room });
}
