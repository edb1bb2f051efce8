// Server errors in the page's language (issue 21 item 6): players read what happened and what
// to do, never the server's English message. The protocol's error codes (docs/protocol.md
// "Errors", and the REST codes) map to texts in i18n.js (`err_<code>`); a few codes cover
// several cases, told apart by the server's message. `rate_limited` is left to ui.js, which
// says when to try again (the REST answer's Retry-After).

import { t } from "./i18n.js";

/** [code, pattern of the server's message, i18n key] — the first match wins. */
const CASES = [
  ["wrong_state", /must be ready/i, "err_not_ready"],
  ["wrong_state", /four players are needed/i, "err_need_four"],
  ["wrong_state", /already started/i, "err_started"],
  ["wrong_state", /does not allow bots/i, "err_no_bots"],
  ["wrong_state", /seat \d+ is taken/i, "err_seat_taken"],
  ["wrong_state", /escaped/i, "err_escaped"],
  ["wrong_state", /解散|dissolve/i, "err_dissolve_between"],
  ["wrong_state", /ready \(準備\) only/i, "err_ready_when"],
  ["wrong_state", /only before the match/i, "err_before_start"],
  ["wrong_state", /cannot watch/i, "err_watch_own"],
  ["bad_account", /password/i, "err_bad_password"],
  ["bad_account", /reserved/i, "err_name_reserved"],
  ["bad_account", /may hold only/i, "err_name_chars"],
  ["bad_account", /name/i, "err_name_length"],
];

const CODES = new Set([
  "bad_json", "bad_message", "unknown_type", "too_large", "version", "unauthorized",
  "bad_origin", "replaced", "not_seated", "already_seated", "table_not_found", "table_full",
  "unknown_room", "unknown_bot", "unknown_reaction", "insufficient_balance", "not_host",
  "wrong_state", "not_your_turn", "illegal_action", "not_your_seat", "too_late", "table_moved",
  "name_taken", "bad_account", "bad_login", "bad_request", "not_a_player", "hand_not_found",
  "hand_not_finished", "network", "too_many_tables", "no_spectators",
  "table_elsewhere", "draining", "already_claimed", "not_eligible",
]);

/** The explanation of an error from the server (websocket `error` or a REST error). */
export function errorText(err) {
  const code = err?.code ?? "";
  const message = String(err?.message ?? "");
  for (const [c, pattern, key] of CASES) if (c === code && pattern.test(message)) return t(key);
  if (code === "already_seated") {
    const table = /\b(\d{6})\b/.exec(message)?.[1];
    return t("err_already_seated", { code: table ?? "" });
  }
  if (code === "table_not_found") {
    const table = /\b(\d{6})\b/.exec(message)?.[1];
    return t("err_table_not_found", { code: table ?? "" });
  }
  if (CODES.has(code)) return t(`err_${code}`);
  return null;
}
