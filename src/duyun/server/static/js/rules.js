// The rules page (玩法說明) and the short explanations the table shows instead of rule numbers
// (issue 21 item 5). Players read words in their language; the rule numbers of docs/rules.md
// appear nowhere on the page. Every amount (base points, the escape penalty) comes from the
// rules the server sent for the room or table, never from this file.

import { app } from "./core.js";
import { holdFocus } from "./dialog.js";
import { getLang, langSwitch, patternName, roomName, t, tz, zhText } from "./i18n.js";
import { esc, tile } from "./ui.js";

const zh = () => getLang() === "zh";

/** Sections of the page, in order: id → [zh title, en title]. */
const SECTIONS = {
  tiles: ["牌與玩法", "Tiles and play"],
  win: ["怎樣算胡", "What wins"],
  beans: ["豆（槓）", "Beans (kongs)"],
  fan: ["番型表", "Patterns and fan"],
  extras: ["加番與連莊", "Extra fan and the dealer streak"],
  baoting: ["報聽", "報聽 (declaring ready)"],
  pinghu: ["平胡必須有豆", "A plain hand needs a bean"],
  guoshui: ["過水不胡", "過水 (passing a win)"],
  last4: ["最後四張自動胡", "The last four tiles win by themselves"],
  draw: ["流局：查大叫與黃豆", "A draw: 查大叫 and 黃豆"],
  escape: ["逃跑（中途離開）", "Leaving mid-hand (escape)"],
  bloody: ["血戰到底", "血戰 (bloody battle)"],
  coins: ["金幣、等級分與排行榜", "Coins, rating and leaderboards"],
};

/** Rule number → the section that explains it (for links next to payments and notices). */
const RULE_SECTION = {
  R9: "guoshui",
  R12: "beans",
  R13: "win",
  R14: "draw",
  R17: "pinghu",
  R19: "last4",
  R20: "fan",
  R21: "extras",
  R25: "baoting",
  R26: "baoting",
  R27: "pinghu",
  R28: "win",
  R29: "win",
  R30: "draw",
  R31: "draw",
  R36: "extras",
  R45: "escape",
  R52: "bloody",
  R53: "bloody",
  R54: "bloody",
  R56: "bloody",
  R57: "bloody",
};

/** The fan table with an example hand for each pattern (docs/rules.md's seed examples). */
const FAN_TABLE = [
  [1, "平胡", "四組（刻子或順子）加一對", "four sets (pungs or runs) and a pair", "23445677p345789s"],
  [3, "對對胡", "四組都是刻子或槓，加一對", "four pungs or kongs and a pair", "111222444m33399p"],
  [6, "清一色", "全部同一門花色", "every tile in one suit", "11333222456999s"],
  [6, "七對", "七個對子，沒有碰槓", "seven pairs, no melds", "2244556699m1199p"],
  [9, "清對", "清一色的對對胡", "one suit and all pungs", "11122233355566p"],
  [9, "將對", "對對胡，每張都是 2、5、8", "all pungs of 2, 5 and 8 only", "222555888s88855m"],
  [12, "龍七對", "七對中有四張相同的牌", "seven pairs holding four alike", "2244552299m1199p"],
  [12, "清七對", "清一色的七對", "one-suit seven pairs", "11334466778899s"],
  [12, "清么九", "清一色，每組和對子都帶 1 或 9", "one suit, every set and the pair with a 1 or 9", "11123777888999s"],
  [18, "天胡", "莊家起手十四張就胡", "the dealer's fourteen dealt tiles win", ""],
  [18, "地胡", "閒家第一次摸牌自摸，之前沒人碰槓", "a non-dealer self-draws on the first draw, nobody has melded", ""],
  [18, "青龍七對", "清一色的龍七對", "one-suit seven pairs holding four alike", "11224444557799m"],
];

function rulesOf(source) {
  return source?.rules ?? {};
}

/** What leaving mid-hand costs now, in points and coins: `escape_penalty_units` × base to
 * each other player still in the hand (R45 a), from the table's rules; null when the server
 * did not send them. The (b) 查大叫 alternative near the end of the wall can cost more. */
export function escapeCost(table, hand, seat) {
  const rules = rulesOf(table);
  const units = Number(rules.escape_penalty_units);
  const base = Number(rules.base_points);
  if (!Number.isFinite(units) || !Number.isFinite(base)) return null;
  let others = 3;
  if (hand?.won) others = [0, 1, 2, 3].filter((s) => s !== seat && !hand.won[s]).length;
  const points = units * base * others;
  const stake = Number(table?.stake ?? 1);
  const balance = table?.seats?.[seat]?.balance;
  let coins = points * stake;
  if (balance != null) coins = Math.min(coins, Number(balance));
  return { units, base, others, points, coins, stake };
}

/** The leave confirmation during a hand: how much it costs now. */
export function leaveWarning(table, hand, seat) {
  const c = escapeCost(table, hand, seat);
  const wallNote = hand?.wall != null && hand.wall <= 4;
  if (!c) return tz("牌局進行中離開算逃跑，要賠分並由托管打完比賽。確定離開？", "Leaving during a hand is an escape: you pay a penalty and auto-play finishes the match. Leave?");
  if (zh())
    return zhText(`牌局進行中離開算逃跑：你要賠給其他 ${c.others} 位玩家每人 ${c.units} × ${c.base} = ${c.units * c.base} 分，共 ${c.points} 分，約 ${c.coins} 金幣${wallNote ? "（牌牆只剩四張以內時，若查大叫更多則按查大叫賠）" : ""}。之後由托管打完比賽。確定離開？`);
  return `Leaving during a hand is an escape: you pay each of the other ${c.others} players ${c.units} × ${c.base} = ${c.units * c.base} points, ${c.points} points in all, about ${c.coins} coins${wallNote ? " (with four tiles or fewer left, the 查大叫 amount instead when it is larger)" : ""}. Auto-play then finishes the match. Leave?`;
}

/** A payment row's reason in words (the engine's reason lists the fan items; its rule number
 * says what kind of payment it is). */
export function explainPayment(p) {
  const reason = String(p.reason ?? "");
  const detail = reason.includes(":") ? reason.slice(reason.indexOf(":") + 1).trim() : "";
  const items = detail
    .split("+")
    .map((x) => x.trim())
    .filter(Boolean)
    .map((x) => {
      const m = /^(\S+)\s+(\d+)$/.exec(x);
      return m ? `${patternName(m[1])} ${m[2]}` : x;
    })
    .join(" + ");
  const fan = items ? ` (${items} ${t("fan")})` : "";
  const rule = String(p.rule ?? "");
  switch (rule) {
    case "R28":
      // the transfer row's reason is "槓上炮: <English>"; its text after the colon is no fan list
      if (reason.startsWith("槓上炮")) return tz("槓上炮：轉交槓的收入", "槓上炮: the kong's income handed over");
      return (reason.includes("搶槓") ? (tz("搶槓", "robbed kong")) : tz("點炮", "win on a discard")) + fan;
    case "R29":
      return (reason.includes("搶槓") ? (tz("搶槓", "robbed kong")) : tz("自摸", "self-draw")) + fan;
    case "R12":
      return tz(`豆：${reason}`, `bean (kong): ${reason.replace("直槓", "direct kong").replace("面下槓", "added kong").replace("暗槓", "concealed kong")}`);
    case "R14":
      return tz("黃豆：流局沒聽牌，退回豆錢", "黃豆: not ready at the draw, bean income returned");
    case "R30":
      return (tz("查大叫：流局時沒聽牌的賠給聽牌的", "查大叫: not ready at the draw, pays the ready player")) + fan;
    case "R45": {
      const m = /(\d+)\s*×\s*base/.exec(reason);
      if (m) return tz(`逃跑賠付：${m[1]} × 底分`, `escape penalty: ${m[1]} × base`);
      return (tz("逃跑：按查大叫賠", "escape: paid as 查大叫")) + fan;
    }
    default:
      return reason;
  }
}

/** A small link to the rules page's section for a rule number (the number itself is not shown). */
export function ruleLink(rule) {
  const section = RULE_SECTION[String(rule ?? "").split(/[-\s]/)[0]];
  if (!section) return "";
  const title = tz(...SECTIONS[section]);
  return `<button class="rule-link" data-do="rules" data-section="${section}" title="${esc(title)}" aria-label="${esc(title)}">?</button>`;
}

/** The refused-win explanation (the engine's reason is a rule number). */
export function refusedExplanation(rule) {
  const r = String(rule ?? "");
  if (r.includes("R17"))
    return {
      text: tz("不能胡：這手只是平胡，沒有豆（沒槓過），打牌的人也沒報聽，平胡不能胡別人打的牌，只能自摸。", "You cannot win on this tile: a plain hand (平胡) without a bean (a kong) may win on a discard only from a player who declared 報聽; it can still win by self-draw."),
      section: "pinghu",
    };
  if (r.includes("R9"))
    return {
      text: tz("過水不胡：你剛放過這張牌的胡，要等你下次摸牌後才能再胡別人打的牌。", "過水不胡: you passed this tile's win, so you cannot win on a discard until your next draw."),
      section: "guoshui",
    };
  return null;
}

function exampleTiles(text) {
  if (!text) return "";
  const out = [];
  let digits = "";
  for (const ch of text) {
    if (/[0-9]/.test(ch)) digits += ch;
    else {
      for (const d of digits) out.push(`${d}${ch}`);
      digits = "";
    }
  }
  return `<span class="rule-hand">${out.map((x) => tile(x)).join("")}</span>`;
}

/** 金幣、等級分與排行榜 (issue 32): the free coins with this server's amounts (the welcome's
 * config), how the rating moves, the leaderboards and fair quick matching. */
function coinsSection() {
  const c = app.config ?? {};
  const gift = c.daily_gift ?? "?";
  const below = c.topup_below ?? "?";
  const to = c.topup_to ?? "?";
  const n = c.topups_per_day ?? "?";
  return section(
    "coins",
    [
      p(
        `金幣只在玩家和電腦（莊家）之間轉移。每天第一次來可以在大廳領每日禮物 ${gift} 金幣；金幣少於 ${below}、哪個場都進不去時，可以領破產補助，補到 ${to} 金幣，每天最多 ${n} 次。一個網路位址上的帳號共用每天的次數。一天從午夜算起。`,
        `Coins only move between players, the bots (the house) and the operator. On your first visit each day the lobby offers a daily gift of ${gift} coins; when you have fewer than ${below} coins and cannot sit down in any room, a top-up brings you back to ${to} coins, at most ${n} times a day. Accounts from one internet address share the day's count. A day starts at midnight.`,
      ),
      p(
        "等級分表示你打得怎麼樣：每打完一場計分的比賽，按整場的總分排名次（同分同名次，中途逃跑算最後一名），和同桌的人比較後升降。剛開始是 1000，打得越多越準。快速匹配的比賽都計分；好友房有兩位以上真人時計分，房主也可以設為不計分。電腦玩家也有等級分，所以大廳能告訴你每個難度大約有多強。",
        "Your rating says how well you play: after each rated match the seats are placed by their points over the whole match (equal points share a place; leaving mid-match is last) and ratings move by how you did against the others. It starts at 1000 and settles as you play more. Quick-match games are always rated; a private table is rated when at least two people sit at it, unless its host turns that off. The bots are rated too, so the lobby shows about how strong each level plays.",
      ),
      p(
        "排行榜有兩種：等級分，和本週（週一午夜起）在牌局中贏的金幣。各列前 50 名和你自己的名次，每半分鐘左右更新。快速匹配不會把同一個網路位址的兩個帳號排在同一桌；和朋友一起玩請開好友房。",
        "There are two leaderboards: rating, and coins won in hands this week (from Monday midnight). Each shows the top 50 and your own place, and refreshes about every half minute. Quick match never seats two accounts from one internet address at one table; to play with friends at home, open a private table.",
      ),
    ].join(""),
  );
}

function section(id, body) {
  const [zt, et] = SECTIONS[id];
  return `<section class="rules-section" id="rules-${id}"><h3>${esc(tz(zt, et))}</h3>${body}</section>`;
}

function p(zhText, enText) {
  return `<p>${tz(zhText, enText)}</p>`;
}

/** The page, for a table (its rules and stake) or the lobby (the stake rooms' rules). */
export function rulesPageHTML(table, rooms, focus) {
  const rules = rulesOf(table?.rules ? table : rooms?.[0]);
  const base = rules.base_points;
  const units = rules.escape_penalty_units;
  const fanRows = FAN_TABLE.map(
    ([fan, name, zd, ed, ex]) =>
      `<tr><td class="num">${fan}</td><td><b>${esc(patternName(name))}</b><div class="muted">${esc(tz(zd, ed))}</div>${exampleTiles(ex)}</td></tr>`,
  ).join("");
  const roomsEscape = table
    ? (() => {
        const c = escapeCost(table, null, table.you ?? 0);
        return c
          ? p(
              `這張桌：底分 ${c.base}，每人 ${c.units} × ${c.base} = ${c.units * c.base} 分；三家都在時共 ${c.points} 分，底注 ${c.stake}，即 ${c.points * c.stake} 金幣（不超過你的餘額）。`,
              `At this table: base ${c.base}, each player gets ${c.units} × ${c.base} = ${c.units * c.base} points; with three others ${c.points} points, stake ${c.stake}: ${c.points * c.stake} coins (never more than your balance).`,
            )
          : "";
      })()
    : (rooms ?? [])
        .filter((r) => r.rules?.escape_penalty_units != null)
        .map((r) => {
          const each = r.rules.escape_penalty_units * r.rules.base_points;
          return `<li>${esc(roomName(r.name))}：${tz(`每人 ${each} 分，共 ${each * 3} 分 = ${each * 3 * r.stake} 金幣`, `${each} points each, ${each * 3} in all = ${each * 3 * r.stake} coins`)}</li>`;
        })
        .join("");
  const body = [
    section("tiles", p("108 張牌：萬、筒、條三門，每門 1–9 各四張，沒有字牌和花牌。四人輪流摸牌打牌，不能吃，只能碰、槓和胡。", "108 tiles: three suits (萬 characters, 筒 dots, 條 bamboo), ranks 1-9, four of each; no honours or flowers. Four players draw and discard in turn; there is no chow, only pong (碰), kong (槓) and win (胡).")),
    section("win", p("胡牌要十四張（槓算三張）：四組加一對，或七個對子。可以自摸（自己摸到），點炮（胡別人打的牌，打牌的人付），或搶槓（別人加槓時胡那張牌）。自摸時其他每家都付。一張牌可以幾家同時胡（一炮多響）。", "A winning hand has fourteen tiles (a kong counts as three): four sets and a pair, or seven pairs. You win by self-draw (自摸, everyone else pays), on a discard (點炮, the discarder pays) or by robbing a kong (搶槓). Several players may win on one discard.")),
    section("beans", p(`豆就是槓，槓了馬上收錢（一個單位 = 底分${base != null ? ` ${base} 分` : ""}）：直槓（銀豆）打牌的人付 1；面下槓（銀豆）其他每家付 1；暗槓（金豆）其他每家付 2。`, `A bean (豆) is a kong, paid at once (one unit = the base${base != null ? ` of ${base} points` : ""}): a direct kong (銀豆) 1 from the discarder; an added kong (銀豆) 1 from each other player; a concealed kong (金豆) 2 from each other player.`)),
    section("fan", `${p(`番型不疊加，取最大的一個。分數 = 番 × 底分${base != null ? `（${base}）` : ""}，金幣 = 分數 × 底注。`, `Patterns do not stack: the largest counts. Points = fan × base${base != null ? ` (${base})` : ""}; coins = points × the stake.`)}<table class="pay rules-fan"><tr><th class="num">${t("fan")}</th><th>${t("pattern_col")}</th></tr>${fanRows}</table>`),
    section("extras", p("報聽：付錢或收錢的一方每有一人報聽 +6 番。槓上花（槓後補牌自摸）+1。槓上炮（槓後打出的牌被胡）+1，還要把這個槓收的錢轉給胡家。連莊：莊家每連一局，莊家付或收的胡牌和查大叫都加連莊數的番（豆錢不加）。", "報聽: +6 fan for each party of a payment who declared ready. 槓上花 (self-draw on a kong's replacement) +1. 槓上炮 (your discard right after a kong is won on) +1, and the kong's income goes to the winner. Dealer streak: every payment the dealer makes or receives for a win or 查大叫 adds the streak to the fan (beans do not).")),
    section("baoting", p("第一次打牌時，如果沒碰沒槓並且打出後聽牌，可以報聽。報聽後手牌鎖定：不能碰槓，摸到不胡的牌自動打出，摸到或別人打出能胡的牌自動胡。報聽讓每筆相關付款 +6 番，別人也能用平胡胡你打的牌。", "With your first discard, if you have not melded and the hand is ready after it, you may declare 報聽. The hand is then frozen: no pong or kong, a drawn tile that does not win is discarded for you, and a winning tile wins by itself. It adds 6 fan to each payment you are party to, and anyone may win a plain hand on your discard.")),
    section("pinghu", p("平胡（沒有更大番型）要胡別人打的牌，必須自己有豆（這局槓過），或打牌的人已報聽。否則只能自摸或搶槓。所以有時一張能胡的牌亮起卻不能胡：桌上會說明原因。", "A plain hand (平胡, no larger pattern) may win on a discard only if you have a bean (you made a kong this hand) or the discarder declared 報聽; otherwise only by self-draw or robbing a kong. That is why a tile that completes your hand is sometimes refused: the table says why.")),
    section("guoshui", `${p("過水不胡（房間選項）：放過一次能胡的牌之後，到你下次摸牌前都不能胡別人打的牌。", "過水不胡 (a table option): after passing a win on a discard, you cannot win on a discard until your next draw.")}${table ? p(rules.pass_blocks_ron ? "這張桌：開啟。" : "這張桌：沒有開啟。", rules.pass_blocks_ron ? "At this table: on." : "At this table: off.") : ""}`),
    section("last4", p("牌牆最後四張：摸到或別人打出能胡的牌，又允許胡時，自動胡牌，不能選擇過。", "The last four tiles of the wall: a tile that completes your hand and may win wins by itself; there is no pass.")),
    section("draw", p("牌摸完沒人胡是流局。查大叫：沒聽牌的人要賠每個聽牌的人他最大可能的番（當作自摸算）。黃豆：沒聽牌的人要退回這局收到的全部豆錢。", "When the wall runs out with no win the hand is a draw. 查大叫: each player who is not ready pays each ready player that player's largest possible hand (as a self-draw). 黃豆: a player who is not ready returns every bean payment received this hand.")),
    section(
      "escape",
      `${p(`牌局中離開或斷線超時算逃跑，這局立刻結束。逃跑的人賠其他還在局中的每人 ${units ?? "?"} × 底分；牌牆只剩四張以內時，若按查大叫賠更多就按查大叫。之後由托管替你打完比賽。`, `Leaving during a hand, or a dropped connection that times out, is an escape and ends the hand. You pay each other player still in the hand ${units ?? "?"} × base; with four tiles or fewer left, the 查大叫 amount instead when it is larger. Auto-play then finishes the match for you.`)}${table ? roomsEscape : roomsEscape ? `<ul>${roomsEscape}</ul>` : ""}`,
    ),
    coinsSection(),
    section("bloody", p("血戰到底：有人胡了這局不結束，胡家亮牌離場，其他人繼續打，直到三家胡、牌摸完或有人逃跑。只有還沒胡的人付錢；血戰沒有連莊加番。胡家可以離開牌桌，不扣分。", "血戰 (bloody battle): a win does not end the hand; the winner lays the hand open and leaves play while the others go on until three have won, the wall runs out or someone escapes. Only players still in the hand pay; there is no streak bonus. A winner may leave the table at no cost.")),
  ].join("");
  const toc = Object.entries(SECTIONS)
    .map(([id, [zt, et]]) => `<a href="#rules-${id}" data-do="rules" data-section="${id}">${esc(tz(zt, et))}</a>`)
    .join("");
  return `<div class="overlay rules-overlay" id="rules-page" data-focus="${esc(focus ?? "")}"><div class="sheet rules-sheet" role="dialog" aria-modal="true" aria-labelledby="rules-title">
      <div class="rules-top"><h2 id="rules-title">${tz("玩法說明", "How to play")}</h2>${langSwitch("rules-lang-switch")}<button class="btn small" data-do="rules-close" id="rules-close">${t("close")}</button></div>
      <nav class="rules-toc">${toc}</nav>
      ${body}
    </div></div>`;
}

/** Open the page (over whatever screen is shown) at a section. */
let rulesRelease = null;

/** The rules are a dialog: the keyboard's focus moves in (to its close button), stays inside
 * until it closes (Escape too), and goes back to where it was. */
export function openRules(table, rooms, sectionId) {
  const reopened = !!document.getElementById("rules-page");
  document.getElementById("rules-page")?.remove();
  document.body.insertAdjacentHTML("beforeend", rulesPageHTML(table, rooms, sectionId));
  const page = document.getElementById("rules-page");
  if (!reopened) rulesRelease = holdFocus(page.querySelector(".rules-sheet"), closeRules);
  page.querySelector("#rules-close")?.focus();
  const target = sectionId && document.getElementById(`rules-${sectionId}`);
  if (target) target.scrollIntoView({ block: "start" });
}

export function closeRules() {
  document.getElementById("rules-page")?.remove();
  const release = rulesRelease;
  rulesRelease = null;
  release?.();
}
