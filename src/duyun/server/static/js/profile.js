// A player's profile (issue 32): display name (a guest may choose one), rating with a small
// chart of its history, matches, hands won, the biggest win, and the last 20 matches with
// their replays. Opened over the lobby for oneself (the name in the header) or for anyone on
// the leaderboard. Plain SVG, no chart library: it is a polyline and two labels.

import { dateLocale, patternName, roomName, t } from "./i18n.js";
import { api } from "./net.js";
import { app, openReplay, refreshLobby } from "./core.js";
import { esc, showError, signed, toast } from "./ui.js";

/** The rating history as an inline SVG line (oldest left), from the rating before the
 * oldest match shown: one rated match is already a line (1000 to its result); "" with none. */
export function ratingChart(history) {
  if (!history?.length) return "";
  const width = 320;
  const height = 90;
  const pad = 14;
  const values = [history[0].rating - history[0].change, ...history.map((p) => p.rating)];
  const low = Math.min(...values);
  const high = Math.max(...values);
  const span = Math.max(1, high - low);
  const x = (i) => 40 + (i * (width - 40 - pad)) / (values.length - 1);
  const y = (v) => height - pad - ((v - low) * (height - 2 * pad)) / span;
  const points = values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  const last = values.length - 1;
  return `<svg class="rating-chart" id="rating-chart" viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(t("rating_history"))}">
      <polyline fill="none" stroke="currentColor" stroke-width="2" points="${points}"/>
      <circle cx="${x(last).toFixed(1)}" cy="${y(values[last]).toFixed(1)}" r="3.5" fill="currentColor"/>
      <text x="2" y="${pad + 4}" class="chart-label">${high}</text><text x="2" y="${height - pad + 4}" class="chart-label">${low}</text>
    </svg>`;
}

function matchLine(m) {
  const when = new Date(m.finished ?? m.created).toLocaleDateString(dateLocale());
  const where = m.kind === "room" ? roomName(app.rooms.find((r) => r.id === m.room)?.name ?? m.room ?? "") : t("private_table");
  const replays = (m.hand_records ?? [])
    .filter((h) => h.replay)
    .map((h) => `<button class="btn small secondary" data-do="profile-replay" data-hand="${h.hand_id}">#${h.index + 1}</button>`)
    .join("");
  return `<li class="profile-match"><span>${esc(when)} · ${esc(where)} · ${t("stake")} ${m.stake}</span><b>${signed(m.coins)}</b>
      ${replays ? `<span class="profile-replays">${t("replay")} ${replays}</span>` : ""}</li>`;
}

/** The account's latest coin rows (own profile only): gifts and top-ups under their own
 * names, beside hands, starting coins and operator grants. */
function ledgerList(rows, accountId) {
  if (!rows) return "";
  const items = rows
    .map((r) => {
      const amount = r.payee === accountId ? r.coins : -r.coins;
      const when = new Date(r.created).toLocaleString(dateLocale(), { month: "numeric", day: "numeric", hour: "2-digit", minute: "2-digit" });
      return `<li class="profile-match" data-kind="${esc(r.kind)}"><span>${esc(when)} · ${t(`kind_${r.kind}`)}</span><b>${signed(amount)}</b></li>`;
    })
    .join("");
  return `<h3>${t("coin_moves")}</h3><ol class="profile-matches" id="profile-ledger">${items || `<li class="muted">—</li>`}</ol>`;
}

export function profileHTML(p, ledger = null) {
  const own = app.account && p.id === app.account.id;
  const best = p.biggest_win;
  const rate = p.win_rate == null ? "—" : `${Math.round(p.win_rate * 1000) / 10}%`;
  const rename =
    own && p.kind === "guest"
      ? `<form class="row" data-submit="profile-rename"><label class="field">${t("display_name")}<input id="profile-name" maxlength="20" value="${esc(p.name)}" required></label><button class="btn small" type="submit">${t("save_name")}</button></form>`
      : "";
  const chart = ratingChart(p.history);
  return `<div class="overlay profile-overlay" id="profile-page" data-account="${p.id}"><div class="sheet profile-sheet">
      <div class="rules-top"><h2>${esc(own ? t("profile") : t("profile_of", { name: p.name }))}</h2><button class="btn small" data-do="profile-close" id="profile-close">${t("close")}</button></div>
      <div class="profile-head"><b id="profile-display-name">${esc(p.name)}</b><span class="chip rating-chip" id="profile-rating">${t("rating")} ${p.rating}</span></div>
      ${rename}
      <div class="profile-stats">
        <div><span class="muted">${t("matches_played")}</span><b>${p.matches}</b></div>
        <div><span class="muted">${t("rated_matches")}</span><b>${p.rated_matches}</b></div>
        <div><span class="muted">${t("hands_played")}</span><b>${p.hands}</b></div>
        <div><span class="muted">${t("win_rate")}</span><b>${rate}</b></div>
        <div class="wide"><span class="muted">${t("biggest_win")}</span><b>${best ? `${esc(patternName(best.pattern))} · ${best.fan} ${t("fan")} · ${signed(best.coins)}` : t("no_big_win")}</b></div>
      </div>
      <h3>${t("rating_history")}</h3>
      ${chart || `<div class="muted">${t("no_rating_history")}</div>`}
      <h3>${t("recent_matches")}</h3>
      <ol class="profile-matches">${(p.recent ?? []).map(matchLine).join("") || `<li class="muted">${t("no_history")}</li>`}</ol>
      ${own ? ledgerList(ledger, p.id) : ""}
    </div></div>`;
}

/** Open the profile of ``accountId`` (null: one's own). */
export async function openProfile(accountId) {
  try {
    const path = accountId == null ? "/api/profile" : `/api/profile/${Number(accountId)}`;
    const own = accountId == null || Number(accountId) === app.account?.id;
    const [data, ledger] = await Promise.all([api("GET", path), own ? api("GET", "/api/ledger?limit=10") : null]);
    document.getElementById("profile-page")?.remove();
    document.body.insertAdjacentHTML("beforeend", profileHTML(data, ledger?.rows ?? null));
  } catch (err) {
    showError(err);
  }
}

export function closeProfile() {
  document.getElementById("profile-page")?.remove();
}

export const profileHandlers = {
  profile: (el) => openProfile(el.dataset.account ?? null),
  "profile-close": () => closeProfile(),
  "profile-replay": (el) => {
    closeProfile();
    openReplay(Number(el.dataset.hand));
  },
  "profile-rename": async () => {
    const name = document.getElementById("profile-name")?.value.trim();
    if (!name) return;
    try {
      const account = await api("POST", "/api/name", { name });
      app.account = { ...app.account, ...account };
      toast(t("name_saved"), "info");
      await openProfile(null);
      await refreshLobby();
    } catch (err) {
      showError(err);
    }
  },
};
