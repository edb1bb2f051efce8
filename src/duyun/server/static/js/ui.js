// Small DOM helpers shared by the views.

import { errorText } from "./errors.js";
import { escapeHTML, t } from "./i18n.js";
import { tileHTML } from "./tiles.js";
import { getLang } from "./i18n.js";

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];
export const esc = escapeHTML;

/** Show a message at the top of the screen; errors stay longer. */
export function toast(text, kind = "error", ms) {
  const box = document.getElementById("toasts");
  if (!box) return;
  const el = document.createElement("div");
  el.className = `toast ${kind}`;
  el.textContent = text;
  el.dataset.kind = kind;
  box.appendChild(el);
  setTimeout(() => el.remove(), ms ?? (kind === "error" ? 6000 : 2600));
}

/** Server errors are shown in the page's language: codes a player can cause without a bug
 * (clicking very fast) first, then every protocol and REST code (errors.js), then the limits
 * that say when to retry; only an error this client does not know shows the server's message. */
export function showError(err) {
  const own = err?.code ? t(`error_${err.code}`) : null;
  if (own && own !== `error_${err.code}`) {
    toast(own);
    return;
  }
  const words = errorText(err);
  if (words) {
    toast(words);
    return;
  }
  const msg = err?.message || err?.code || String(err);
  const known = err?.code ? `err_${err.code}` : null;
  if (err?.status === 0 || err?.code === "network") toast(t("network_error", { msg }));
  else if (known && t(known) !== known) {
    // the limits explain themselves in the player's language (the server's text is English)
    const s = err.retryAfter ?? Number(/in (\d+) s/.exec(msg)?.[1] ?? NaN);
    toast(t(Number.isFinite(s) || known !== "err_rate_limited" ? known : "err_rate_limited_now", { s }));
  } else toast(t("server_error", { msg }));
}

export function tile(tileName, cls = "", attrs = "") {
  return tileHTML(tileName, { cls, lang: getLang(), attrs });
}

/** A meld as tiles: pongs three, kongs four, a concealed kong with its two ends face down. */
export function meldHTML(meld) {
  const tiles = [];
  const n = meld.kind === "pong" ? 3 : 4;
  for (let i = 0; i < n; i++) {
    const faceDown = meld.kind === "concealed_kong" && (!meld.tile || i === 0 || i === 3);
    tiles.push(tile(faceDown ? "?" : meld.tile));
  }
  const kong = meld.kind !== "pong";
  return `<span class="meld ${kong ? "kong" : ""}" title="${esc(t(meld.kind))}">${tiles.join("")}</span>`;
}

export function coinsText(n) {
  if (n == null) return "—";
  return Number(n).toLocaleString();
}

export function signed(n) {
  if (n == null) return "";
  const v = Number(n);
  const cls = v > 0 ? "plus" : v < 0 ? "minus" : "muted";
  return `<span class="${cls}">${v > 0 ? "+" : ""}${v.toLocaleString()}</span>`;
}

export function seatName(seatInfo, index) {
  if (!seatInfo) return t("empty_seat");
  const name = seatInfo.name ?? `#${index}`;
  // bots share one account name ("bot:strong"): tell them apart by seat
  return seatInfo.kind === "bot" || name.startsWith("bot:") ? botName(index) : name;
}

export function botName(index) {
  return `${t("kind_bot")}${index + 1}`;
}

/** A coin icon drawn in CSS (no emoji font needed). */
export const COIN = '<span class="coin" aria-hidden="true"></span>';
