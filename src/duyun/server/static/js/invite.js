// An invite link (/t/123456 or /?join=123456) says which table it is and offers to join or
// watch (issue 21 item 6): the lobby shows a card with the table's terms, read from
// GET /api/tables/{code}, instead of landing on the lobby without a word. A table that has
// already started offers 觀戰 only.

import { roomName, t } from "./i18n.js";
import { api } from "./net.js";
import { esc } from "./ui.js";

function codeFromURL() {
  const url = new URL(location.href);
  const code = url.searchParams.get("join") || (/^\/t\/(\d{6})\/?$/.exec(url.pathname) || [])[1];
  return code && /^\d{6}$/.test(code) ? code : null;
}

/** The invite this page was opened with: {code, table (summary) | null, missing}. */
const invite = { code: codeFromURL(), table: null, missing: false, asked: false };

async function load(render) {
  if (!invite.code || invite.asked) return;
  invite.asked = true;
  try {
    invite.table = await api("GET", `/api/tables/${invite.code}`);
  } catch {
    invite.missing = true;
  }
  render();
}

/** The lobby's invite card, or "" (no invite, or already seated at that table). */
export function inviteCard(app, render) {
  if (!invite.code) return "";
  if (app.table?.code === invite.code) {
    invite.code = null; // seated: the invite has done its job
    return "";
  }
  load(render);
  const tb = invite.table;
  let body;
  if (invite.missing) body = `<p>${t("invite_missing", { code: invite.code })}</p>`;
  else if (!tb) body = `<p class="muted">${t("loading")}</p>`;
  else {
    const name = tb.kind === "room" ? roomName(app.rooms.find((r) => r.id === tb.room)?.name ?? tb.room ?? "") : t("private_table");
    const terms = `${esc(name)} ${esc(tb.code)} · ${t("stake")} ${tb.stake} · ${t("hands")} ${tb.hands} · ${tb.seated}/4${tb.rules?.bloody_battle ? ` · ${t("bloody")}` : ""}${tb.claim_pause ? ` · ${t(`claim_pause_short_${tb.claim_pause}`)}` : ""}`;
    const started = tb.status !== "waiting";
    const join = started ? "" : `<button class="btn" data-do="join-code" data-code="${esc(tb.code)}" id="invite-join">${t("join")}</button>`;
    // a private table may refuse spectators (its summary's spectators_allowed)
    const watchable = tb.status !== "ended" && tb.spectators_allowed !== false;
    const watch = !watchable ? "" : `<button class="btn secondary" data-do="invite-watch" data-code="${esc(tb.code)}" id="invite-watch">${t("spectate")}</button>`;
    const hint = started ? (watchable ? t("invite_started") : t("invite_started_closed")) : app.account ? t("invite_join_hint") : t("invite_guest_hint");
    body = `<p><b>${terms}</b></p><p class="muted">${hint}</p>
      <div class="row">${join}${watch}</div>`;
  }
  return `<section class="card invite-card" id="invite-card"><h2>${t("invite_title")}</h2>${body}</section>`;
}
