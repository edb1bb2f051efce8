// The lobby: guest play in one click, register / log in, balance, stake rooms with quick match,
// private tables (create with stake, hands, rule options and bots; join by code or link), open
// tables, and the match history (戰績) with a replay button for every finished hand.

import { dateLocale, langSwitch, roomName, t, tz } from "./i18n.js";
import { inviteCard } from "./invite.js";
import { api } from "./net.js";
import { app, logout, openReplay, refreshLobby, render, sendWhenReady, signedIn } from "./core.js";
import { $, botName, coinsText, esc, showError, signed, tile, toast } from "./ui.js";

const RULE_OPTIONS = [
  ["pass_blocks_ron", false],
  ["dead_waits_count", true],
  ["dihu_on_discard", false],
  ["bloody_battle", false],
];
// difficulty levels, strongest first (GET /api/bots): the server seats the bot behind each
const BOT_LEVELS = ["master", "expert", "hard", "normal", "easy"];

/** Keep what the user typed across re-renders: inputs are identified by id. */
function keepForm(root, draw) {
  const values = {};
  const focused = document.activeElement?.id;
  root.querySelectorAll("input[id], select[id]").forEach((el) => {
    values[el.id] = el.type === "checkbox" ? el.checked : el.value;
  });
  const open = [...root.querySelectorAll("details[data-match][open]")].map((el) => el.dataset.match);
  draw();
  for (const id of open) root.querySelector(`details[data-match="${id}"]`)?.setAttribute("open", "");
  for (const [id, value] of Object.entries(values)) {
    const el = document.getElementById(id);
    if (!el) continue;
    if (el.type === "checkbox") el.checked = value;
    else el.value = value;
  }
  if (focused) document.getElementById(focused)?.focus();
}

function head() {
  const acc = app.account;
  const langBtn = `<button class="icon-btn" data-do="rules" id="rules-btn">${t("rules_page")}</button>${langSwitch()}`;
  const accountBox = acc
    ? `<span class="conn" role="img"></span>
       <button class="icon-btn name-btn" data-do="profile" id="account-name" title="${t("profile")}">${esc(acc.name)}${acc.rating != null ? ` <span class="rating-chip">${acc.rating}</span>` : ""}</button>
       <span class="coin-pill" id="balance" title="${t("balance")}"><span class="coin"></span>${coinsText(acc.balance)}</span>
       <button class="icon-btn" data-do="logout">${t("logout")}</button>`
    : "";
  return `<header class="lobby-head">
      <div class="brand">${tile("1s")}${tile("5p")}<div><h1>${t("title")}</h1><p>${t("subtitle")}</p></div></div>
      <div class="account-box">${accountBox}${langBtn}</div>
    </header>`;
}

function welcome() {
  return `<section class="card welcome-card">
      <h2 style="justify-content:center">${t("title")}</h2>
      <button class="btn big" data-do="guest" id="guest-btn">${t("guest")}</button>
      <form class="auth-forms" data-submit="login" autocomplete="on">
        <label class="field">${t("username")}<input id="auth-name" name="username" autocomplete="username" required maxlength="32"></label>
        <label class="field">${t("password")}<input id="auth-pass" name="password" type="password" autocomplete="current-password" required minlength="1" maxlength="128"></label>
        <button class="btn secondary" type="submit">${t("login")}</button>
        <button class="btn ghost" type="button" data-do="register">${t("register")}</button>
      </form>
    </section>`;
}

/** The 血戰 label (R52-R57) of a room, table or match whose rules have `bloody_battle`. */
function bloodyChip(rules) {
  return rules?.bloody_battle ? ` <span class="chip bloody" title="${t("bloody_room")}">${t("bloody")}</span> ` : "";
}

/** The daily gift or the top-up: one button with the amount, else when to come back; under
 * it the top-up's rule. The card is a shell whose offer and rule are parts of their own
 * (`bonus-offer`, `bonus-rule`): the session's welcome, which may come after the lobby load,
 * brings the rule, and must not rebuild the button being pressed. */
function bonusCard() {
  const offers = app.bonus;
  if (!app.account || !offers) return { card: "", offer: "", rule: "" };
  const gift = offers.find((b) => b.kind === "gift");
  const topup = offers.find((b) => b.kind === "topup");
  const offer = [gift, topup].find((b) => b?.available);
  // the next day starts at midnight in the server's time zone: shown in the player's own
  const when = (iso) =>
    new Date(iso).toLocaleString(dateLocale(), { month: "numeric", day: "numeric", hour: "2-digit", minute: "2-digit" });
  let body;
  if (offer) {
    const what = t(offer.kind === "gift" ? "bonus_gift" : "bonus_topup");
    body = `<button class="btn" data-do="bonus" data-kind="${offer.kind}" id="bonus-btn">${t("bonus_claim", { what, coins: offer.coins })}</button>`;
    if (offer.kind === "topup") body += `<div class="muted">${t("bonus_left", { n: offer.left })}</div>`;
  } else {
    const next = gift?.next ? t("bonus_next", { time: when(gift.next) }) : "";
    body = `<div class="muted" id="bonus-none">${gift && !gift.available ? `${t("bonus_done")}${next ? ` · ${next}` : ""}` : ""}</div>`;
  }
  const rule = app.config?.topup_to
    ? `<div class="muted small">${t("bonus_rule", { below: app.config.topup_below, to: app.config.topup_to, n: app.config.topups_per_day })}</div>`
    : "";
  const card = `<section class="card bonus-card" id="bonus-card"><h2>${t("bonus_title")}</h2><div class="part" id="bonus-offer"></div><div class="part" id="bonus-rule"></div></section>`;
  return { card, offer: body, rule };
}

/** 排行榜: by rating or coins won this week, top 50 and the player's own place. */
function boardsCard() {
  if (!app.account) return "";
  const tab = app.boardTab;
  const board = app.boards?.[tab];
  const value = (v) => (tab === "weekly" ? signed(v) : String(v));
  const line = (e, own = false) =>
    `<li class="lb-line ${own || e.account_id === app.account.id ? "mine" : ""}"><span class="place">${e.place}</span><button class="link-btn" data-do="profile" data-account="${e.account_id}">${esc(e.name)}</button><b>${value(e.value)}</b></li>`;
  let body = `<div class="muted">${t("loading")}</div>`;
  if (board) {
    const top = board.top.map((e) => line(e)).join("");
    const ownInTop = board.own && board.top.some((e) => e.account_id === board.own.account_id);
    const own = board.own
      ? ownInTop
        ? ""
        : `<div class="muted">${t("your_place")}</div><ol class="lb-list own">${line(board.own, true)}</ol>`
      : `<div class="muted" id="board-unranked">${t(tab === "weekly" ? "unranked_weekly" : "unranked_rating")}</div>`;
    body = `<ol class="lb-list" id="board-${tab}">${top}</ol>${own}`;
  }
  const bots = Object.entries(app.botRatings ?? {})
    .map(([bot, rating]) => `<span class="chip">${esc(botLevelName(bot))} ${rating}</span>`)
    .join("");
  const tabs = ["rating", "weekly"]
    .map((id) => `<button class="btn small ${id === tab ? "" : "ghost"}" data-do="board" data-board="${id}" id="board-tab-${id}">${t(`board_${id}`)}</button>`)
    .join("");
  return `<section class="card" id="boards-card"><h2>${t("leaderboard")}</h2><div class="row">${tabs}</div>${body}
      ${bots ? `<div class="muted small">${t("bots_rated")}</div><div class="chips">${bots}</div>` : ""}</section>`;
}

/** A bot's level name from its bot name (GET /api/bots maps levels to bots). */
function botLevelName(bot) {
  // the strongest level naming the bot ("master" and "expert" may seat the same one)
  const level = (app.botLevels ?? []).filter((l) => l.bot === bot).pop();
  if (level) return tz(level.label_zh, level.label);
  return bot;
}

function rooms() {
  const list = app.rooms.length
    ? app.rooms
        .map(
          (room) => `<div class="room">
            <div class="name">${esc(roomName(room.name))}${bloodyChip(room.rules)}</div>
            <div class="meta"><span>${t("stake")} ${room.stake}</span> · <span>${t("entry")} ${coinsText(room.entry)}</span> · <span>${t("hands")} ${room.hands}</span></div>
            <button class="btn small" data-do="quick" data-room="${esc(room.id)}" ${app.queueing ? "disabled" : ""}>${app.queueing === room.id ? t("queueing") : t("quick_match")}</button>
          </div>`,
        )
        .join("")
    : `<div class="muted">${t("loading")}</div>`;
  return `<section class="card" id="rooms-card"><h2>${t("rooms")}</h2><div class="rooms">${list}</div></section>`;
}

function privateTables() {
  const options = RULE_OPTIONS.map(
    ([key, def]) =>
      `<label class="check"><input type="checkbox" id="opt-${key}" data-rule="${key}" ${def ? "checked" : ""}>${t(`opt_${key}`)}</label>`,
  ).join("");
  // a middle level by default: the strongest bot is no fun for most friends' tables
  const bots = BOT_LEVELS.map((b) => `<option value="${b}"${b === "normal" ? " selected" : ""}>${t(`level_${b}`)}</option>`).join("");
  return `<section class="card" id="private-card">
      <h2>${t("private_table")}</h2>
      <div class="private-forms">
        <form class="row" data-submit="join">
          <label class="field">${t("table_code")}<input id="join-code" inputmode="numeric" pattern="[0-9]{6}" maxlength="6" placeholder="123456" required></label>
          <button class="btn secondary" type="submit">${t("join")}</button>
          <button class="btn ghost" type="button" data-do="spectate">${t("spectate")}</button>
        </form>
        <form data-submit="create" class="private-forms">
          <div class="row">
            <label class="field">${t("stake")}<input id="create-stake" type="number" min="1" max="1000" value="1"></label>
            <label class="field">${t("hands")}<input id="create-hands" type="number" min="1" max="64" value="8"></label>
            <label class="field">${t("bot")}<select id="create-bot">${bots}</select></label>
            <label class="field" title="${esc(t("claim_pause_help"))}">${t("claim_pause")}<select id="create-claim-pause">
              <option value="natural" selected>${t("claim_pause_natural")}</option>
              <option value="fixed">${t("claim_pause_fixed")}</option></select></label>
          </div>
          <div class="options">
            <label class="check"><input type="checkbox" id="create-bots" checked>${t("bots_allowed")}</label>
            <label class="check"><input type="checkbox" id="create-listed">${t("listed")}</label>
            <label class="check"><input type="checkbox" id="create-spectators">${t("spectators_allowed")}</label>
            <label class="check" title="${esc(t("rated_table"))}"><input type="checkbox" id="create-rated" checked>${t("rated_table")}</label>
            ${options}
          </div>
          <div><button class="btn" type="submit" id="create-btn">${t("create_table")}</button></div>
        </form>
      </div>
    </section>`;
}

function openTables() {
  const tables = app.lobbyTables ?? [];
  const items = tables.length
    ? tables
        .map(
          (tb) => `<div class="list-item" data-code="${esc(tb.code)}"><span>${bloodyChip(tb.rules)}<b>${esc(tb.code)}</b> · ${tb.kind === "room" ? esc(roomName(app.rooms.find((r) => r.id === tb.room)?.name ?? tb.room ?? "")) : t("private_table")} · ${t("stake")} ${tb.stake} · ${tb.seated}/4</span>
            <button class="btn small secondary" data-do="join-code" data-code="${esc(tb.code)}">${t("join")}</button></div>`,
        )
        .join("")
    : `<div class="muted">${t("no_open_tables")}</div>`;
  return `<section class="card"><h2>${t("open_tables")}<button class="icon-btn" data-do="refresh">↻</button></h2><div class="list">${items}</div></section>`;
}

// MATCH_RECORD as docs/protocol.md writes it (seats, hands[].result as a string) or as the
// store's dataclass (seat_names, hand_records[].result as the stored end event): read both.
function matchSeats(m) {
  return m.seats ?? m.seat_names ?? [];
}

function matchHands(m) {
  return Array.isArray(m.hands) ? m.hands : m.hand_records ?? [];
}

/** A match's rules: the record's, else 血戰 when a stored end event has 血戰's `left`. */
function matchRules(m) {
  if (m.rules) return m.rules;
  return matchHands(m).some((h) => Array.isArray(h.result?.left)) ? { bloody_battle: true } : null;
}

function handResult(h) {
  return typeof h.result === "string" ? h.result : h.result?.result ?? null;
}

function handWinners(h) {
  return h.winners ?? h.result?.winners ?? [];
}

function handCoins(h, seat) {
  return Array.isArray(h.coins) ? h.coins[seat] : h.coins;
}

function resultLabel(hand) {
  const result = handResult(hand);
  if (result === "win") return t("result_win");
  if (result === "draw") return t("result_draw");
  if (result === "escape") return t("result_escape");
  return result ?? "…";
}

/** "Your table is still playing" (issue 31 item 1): every match in play where the account
 * holds a seat it is not sitting at (left between hands, escaped, or a page elsewhere), with
 * the way back (回到牌桌) or, after an escape, what it cost and a way to watch. */
function inPlayCard() {
  const seats = (app.account?.in_play ?? []).filter((p) => !p.seated);
  if (!seats.length) return "";
  const rows = seats
    .map((p) => {
      const room = p.room ? roomName(app.rooms.find((r) => r.id === p.room)?.name ?? p.room) : t("private_table_code", { code: p.code });
      const line = t("in_play_line", { room: esc(room), i: (p.hand_index ?? 0) + 1, n: p.hands, coins: signed(p.coins ?? 0) });
      let note = p.tuoguan ? `<div class="muted">${t("in_play_tuoguan")}</div>` : "";
      if (p.escaped) {
        const record = (app.history ?? []).find((m) => m.match_id === p.match_id);
        const hand = record && matchHands(record).find((h) => handResult(h) === "escape" && h.result?.loser === p.seat);
        const cost = hand ? -handCoins(hand, p.seat) : null;
        note = `<div class="in-play-escaped">${cost != null && cost > 0 ? t("in_play_escaped", { cost }) : t("in_play_escaped_nocost")}</div>`;
      }
      const button = p.may_return
        ? `<button class="btn" data-do="join-code" data-code="${esc(p.code)}" id="back-to-table">${t("back_to_table")}</button>`
        : `<button class="btn secondary" data-do="invite-watch" data-code="${esc(p.code)}">${t("watch_table")}</button>`;
      return `<div class="in-play" data-code="${esc(p.code)}"><div><b>${line}</b>${note}</div>${button}</div>`;
    })
    .join("");
  return `<section class="card in-play-card" id="in-play-card" role="status"><h2>${t("in_play_title")}</h2>${rows}</section>`;
}

function historyCard() {
  if (!app.account) return "";
  const matches = app.history;
  let body;
  if (matches == null) body = `<div class="muted">${t("loading")}</div>`;
  else if (!matches.length) body = `<div class="muted">${t("no_history")}</div>`;
  else
    body = matches
      .map((m) => {
        const when = m.finished || m.created ? new Date(m.finished ?? m.created).toLocaleString(dateLocale()) : "";
        const names = matchSeats(m).map((n, i) => (String(n).startsWith("bot:") ? botName(i) : String(n)));
        const seats = names.map((n, i) => (i === m.seat ? `<b>${esc(n)}</b>` : esc(n))).join(" · ");
        const hands = matchHands(m)
          .map((h) => {
            const winners = handWinners(h).map((w) => esc(names[w] ?? `#${w}`)).join(", ");
            const done = handResult(h) != null && h.status !== "playing";
            const replay = done
              ? `<button class="btn small secondary" data-do="replay" data-hand="${h.hand_id}">${t("replay")}</button>
                 <button class="btn small secondary" data-do="review" data-hand="${h.hand_id}" data-seat="${m.seat}">${t("review")}</button>`
              : "";
            return `<div class="history-hand"><span>#${h.index + 1} · ${resultLabel(h)}${winners ? ` · ${winners}` : ""}</span>
              <span>${done ? signed(handCoins(h, m.seat)) : ""} ${replay}</span></div>`;
          })
          .join("");
        return `<details class="history-match" data-match="${m.match_id}">
            <summary><span>${bloodyChip(matchRules(m))}${esc(when)} · ${m.kind === "room" ? esc(roomName(app.rooms.find((r) => r.id === m.room)?.name ?? m.room ?? "")) : t("private_table")} · ${t("stake")} ${m.stake}</span><span>${signed(m.coins)}</span></summary>
            <div class="muted" style="font-size:.8rem;margin-top:4px">${seats}</div>
            <div class="history-hands">${hands}</div>
          </details>`;
      })
      .join("");
  return `<section class="card" id="history-card"><h2>${t("history")}</h2><div class="list">${body}</div></section>`;
}

/** The lobby's parts, each one card (or the head, the welcome, the help): a part is replaced
 * only when its own markup changed. One card's update (the session's welcome brings the free
 * coins' rule into the bonus card, a room fills up, a balance moves) must not rebuild another
 * card's button being pressed, which would lose the click between press and release, nor its
 * form being typed in. The columns' parts are `display: contents`: an empty one leaves no gap.
 * A part may hold parts (the bonus card's offer and rule): listed after it, they are found in
 * the markup it has just drawn and filled, or kept when it was not redrawn. */
const LOBBY_PARTS = [
  "lobby-top",
  "lobby-invite",
  "lobby-welcome",
  "lobby-in-play",
  "lobby-bonus",
  "bonus-offer", // inside lobby-bonus's card: drawn after it
  "bonus-rule",
  "lobby-rooms",
  "lobby-private",
  "lobby-open",
  "lobby-boards",
  "lobby-history",
  "lobby-help",
];

export function renderLobby(root, appState) {
  const signed = !!appState.account;
  const bonus = bonusCard();
  const parts = {
    "lobby-top": head(),
    "lobby-invite": inviteCard(appState, render),
    "lobby-welcome": signed ? "" : welcome(),
    "lobby-in-play": signed ? inPlayCard() : "",
    "lobby-bonus": bonus.card,
    "bonus-offer": bonus.offer,
    "bonus-rule": bonus.rule,
    "lobby-rooms": rooms(),
    "lobby-private": signed ? privateTables() : "",
    "lobby-open": openTables(),
    "lobby-boards": boardsCard(),
    "lobby-history": historyCard(),
    "lobby-help": `<p class="kbd-help">${t("keyboard_help")}</p>`,
  };
  let lobby = root.querySelector(":scope > .lobby[data-screen='lobby']");
  if (!lobby) {
    root.innerHTML = `<div class="lobby" data-screen="lobby">
      <div id="lobby-top"></div><div id="lobby-invite"></div><div id="lobby-welcome"></div>
      <div class="grid">
        <div class="list" style="gap:14px" id="lobby-left"><div class="part" id="lobby-in-play"></div><div class="part" id="lobby-bonus"></div><div class="part" id="lobby-rooms"></div><div class="part" id="lobby-private"></div></div>
        <div class="list" style="gap:14px" id="lobby-right"><div class="part" id="lobby-open"></div><div class="part" id="lobby-boards"></div><div class="part" id="lobby-history"></div></div>
      </div><div id="lobby-help"></div></div>`;
    lobby = root.querySelector(":scope > .lobby");
  }
  for (const id of LOBBY_PARTS) {
    const el = lobby.querySelector(`#${id}`);
    const html = parts[id];
    if (el && el.dataset.html !== html) {
      keepForm(el, () => {
        el.innerHTML = html;
      });
      el.dataset.html = html;
    }
  }
}

async function needAccount() {
  if (app.account) return true;
  try {
    await signedIn(await api("POST", "/api/guest", {}));
    return true;
  } catch (err) {
    showError(err);
    return false;
  }
}

async function authWith(path) {
  const name = $("#auth-name")?.value.trim();
  const password = $("#auth-pass")?.value ?? "";
  if (!name || !password) {
    toast(`${t("username")} / ${t("password")}?`);
    return;
  }
  try {
    await signedIn(await api("POST", path, { name, password }));
  } catch (err) {
    showError(err);
  }
}

export const lobbyHandlers = {
  guest: async (btn) => {
    btn.disabled = true;
    try {
      await signedIn(await api("POST", "/api/guest", {}));
    } catch (err) {
      showError(err);
      btn.disabled = false;
    }
  },
  login: () => authWith("/api/login"),
  register: () => authWith("/api/register"),
  logout: async () => {
    // the server revokes the token (it would otherwise stay valid for 30 days)
    try {
      await api("POST", "/api/logout");
    } catch {
      /* already invalid or offline: forgetting it here is all that is left to do */
    }
    logout();
  },
  refresh: () => refreshLobby(),
  quick: async (btn) => {
    if (!(await needAccount())) return;
    app.queueing = btn.dataset.room;
    render();
    sendWhenReady({ type: "quick_match", room: btn.dataset.room });
  },
  join: async () => {
    const code = $("#join-code")?.value.trim();
    if (!/^\d{6}$/.test(code ?? "")) {
      toast(`${t("table_code")}: 6 digits`);
      return;
    }
    if (!(await needAccount())) return;
    sendWhenReady({ type: "join", code });
  },
  spectate: async () => {
    const code = $("#join-code")?.value.trim();
    if (!/^\d{6}$/.test(code ?? "")) {
      toast(`${t("table_code")}: 6 digits`);
      return;
    }
    if (!(await needAccount())) return;
    sendWhenReady({ type: "spectate", code });
  },
  "invite-watch": async (btn) => {
    if (!(await needAccount())) return;
    sendWhenReady({ type: "spectate", code: btn.dataset.code });
  },
  "join-code": async (btn) => {
    if (!(await needAccount())) return;
    sendWhenReady({ type: "join", code: btn.dataset.code });
  },
  create: async () => {
    if (!(await needAccount())) return;
    const rules = {};
    document.querySelectorAll("[data-rule]").forEach((el) => (rules[el.dataset.rule] = el.checked));
    const body = {
      stake: Number($("#create-stake").value || 1),
      hands: Number($("#create-hands").value || 8),
      rules,
      bots_allowed: $("#create-bots").checked,
      bot: $("#create-bot").value,
      listed: $("#create-listed").checked,
      spectators: $("#create-spectators").checked,
      claim_pause: $("#create-claim-pause").value,
      rated: $("#create-rated").checked,
    };
    try {
      const made = await api("POST", "/api/tables", body);
      sendWhenReady({ type: "join", code: made.code });
    } catch (err) {
      showError(err);
    }
  },
  replay: (btn) => openReplay(Number(btn.dataset.hand)),
  bonus: async (btn) => {
    btn.disabled = true;
    try {
      const paid = await api("POST", `/api/bonus/${btn.dataset.kind}`);
      toast(t("bonus_claimed", { coins: paid.coins }), "info");
      app.account = { ...app.account, balance: paid.balance };
    } catch (err) {
      showError(err);
    }
    await refreshLobby();
  },
  board: async (btn) => {
    app.boardTab = btn.dataset.board === "weekly" ? "weekly" : "rating";
    render();
    try {
      const board = await api("GET", `/api/leaderboard/${app.boardTab}`);
      app.boards = { ...app.boards, [board.board]: board };
    } catch (err) {
      showError(err);
    }
    render();
  },
};
