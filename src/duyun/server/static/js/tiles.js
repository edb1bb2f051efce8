// Tiles drawn as inline SVG by the project (RULES R1, R2): no image files, no fonts needed for
// the pips. 萬 shows its Chinese rank numeral and the character 萬; 筒 shows circles; 條 shows
// bamboo sticks (the 1 of bamboo is the traditional bird). Every tile has the same 60×80 box so
// CSS decides the size; the faces stay readable down to about 26 px wide (a phone hand).

import { zhText } from "./i18n.js";

const NUMERALS = ["一", "二", "三", "四", "五", "六", "七", "八", "九"];
const SUIT_ORDER = { m: 0, p: 1, s: 2 };

const RED = "#c8262c";
const GREEN = "#157a4a";
const BLUE = "#1d4f91";
const INK = "#1b2a3a";

/** "5p" → {rank: 5, suit: "p"}; anything else → null (face-down tiles are "?"). */
export function tileParts(tile) {
  if (typeof tile !== "string" || !/^[1-9][mps]$/.test(tile)) return null;
  return { rank: Number(tile[0]), suit: tile[1] };
}

/** A sort key: suits m, p, s then rank (the project's normal order, R2). */
export function tileKey(tile) {
  const p = tileParts(tile);
  return p ? SUIT_ORDER[p.suit] * 9 + p.rank - 1 : 99;
}

export function sortTiles(tiles) {
  return [...tiles].sort((a, b) => tileKey(a) - tileKey(b));
}

/** Expand notation "23445677p345789s" (R2) into ["2p", "3p", ...]; errors name the character. */
export function parseTiles(text) {
  const out = [];
  let ranks = [];
  for (const ch of text.replace(/\s+/g, "")) {
    if (ch >= "1" && ch <= "9") ranks.push(ch);
    else if ("mps".includes(ch)) {
      if (!ranks.length) throw new Error(`suit ${ch} without ranks in ${text}`);
      for (const r of ranks) out.push(r + ch);
      ranks = [];
    } else throw new Error(`unexpected character ${ch} in ${text}`);
  }
  if (ranks.length) throw new Error(`ranks without a suit at the end of ${text}`);
  return out;
}

/**
 * Read a hand with melds (R2): "11m234p [555p] [5555p+] (9999s)" →
 * {concealed: [...], melds: [{kind, tile}]}.
 */
export function parseHand(text) {
  const melds = [];
  let concealed = [];
  for (const part of String(text).trim().split(/\s+/)) {
    if (!part) continue;
    let m;
    if ((m = /^\[(\d+)([mps])(\+?)\]$/.exec(part))) {
      const tile = m[1][0] + m[2];
      const kind = m[1].length === 3 ? "pong" : m[3] ? "added_kong" : "direct_kong";
      melds.push({ kind, tile });
    } else if ((m = /^\((\d+)([mps])\)$/.exec(part))) {
      melds.push({ kind: "concealed_kong", tile: m[1][0] + m[2] });
    } else {
      concealed = concealed.concat(parseTiles(part));
    }
  }
  return { concealed, melds };
}

function circle(x, y, r, color) {
  // a 筒 pip: coloured ring, ivory ring, coloured centre with a small highlight
  return (
    `<circle cx="${x}" cy="${y}" r="${r}" fill="${color}"/>` +
    `<circle cx="${x}" cy="${y}" r="${(r * 0.72).toFixed(2)}" fill="#fbf7ea"/>` +
    `<circle cx="${x}" cy="${y}" r="${(r * 0.5).toFixed(2)}" fill="${color}"/>` +
    `<circle cx="${x}" cy="${y}" r="${(r * 0.18).toFixed(2)}" fill="#fbf7ea"/>`
  );
}

const DOTS = {
  1: [[30, 38, 19, "big"]],
  2: [[30, 21, 11.5, GREEN], [30, 55, 11.5, BLUE]],
  3: [[15, 16, 9.5, BLUE], [30, 38, 9.5, RED], [45, 60, 9.5, GREEN]],
  4: [[18, 22, 10, BLUE], [42, 22, 10, GREEN], [18, 54, 10, GREEN], [42, 54, 10, BLUE]],
  5: [[16, 19, 9, BLUE], [44, 19, 9, GREEN], [30, 38, 9, RED], [16, 57, 9, GREEN], [44, 57, 9, BLUE]],
  6: [[19, 16, 8.5, GREEN], [41, 16, 8.5, GREEN], [19, 41, 8.5, RED], [41, 41, 8.5, RED], [19, 61, 8.5, RED], [41, 61, 8.5, RED]],
  7: [[14, 13, 7.5, GREEN], [30, 21, 7.5, GREEN], [46, 29, 7.5, GREEN], [19, 46, 7.5, RED], [41, 46, 7.5, RED], [19, 63, 7.5, RED], [41, 63, 7.5, RED]],
  8: [[19, 13, 7.5, BLUE], [41, 13, 7.5, BLUE], [19, 30, 7.5, BLUE], [41, 30, 7.5, BLUE], [19, 47, 7.5, BLUE], [41, 47, 7.5, BLUE], [19, 64, 7.5, BLUE], [41, 64, 7.5, BLUE]],
  9: [[14, 17, 7.5, BLUE], [30, 17, 7.5, BLUE], [46, 17, 7.5, BLUE], [14, 38, 7.5, RED], [30, 38, 7.5, RED], [46, 38, 7.5, RED], [14, 59, 7.5, GREEN], [30, 59, 7.5, GREEN], [46, 59, 7.5, GREEN]],
};

function dotsFace(rank) {
  if (rank === 1) {
    // the big 1 of circles: a decorated medallion
    return (
      `<circle cx="30" cy="38" r="21" fill="${GREEN}"/>` +
      `<circle cx="30" cy="38" r="17.5" fill="#fbf7ea"/>` +
      `<circle cx="30" cy="38" r="14" fill="${RED}"/>` +
      `<circle cx="30" cy="38" r="10" fill="#fbf7ea"/>` +
      `<circle cx="30" cy="38" r="6.5" fill="${BLUE}"/>` +
      `<circle cx="30" cy="38" r="2.2" fill="#fbf7ea"/>`
    );
  }
  return DOTS[rank].map(([x, y, r, c]) => circle(x, y, r, c)).join("");
}

function stick(x, y, h, color, tilt = 0) {
  // a 條 pip: a bamboo stick centred on (x, y), height h, with nodes
  const w = 7;
  const top = y - h / 2;
  const node = color === RED ? "#8e1519" : "#0b5232";
  const t = tilt ? ` transform="rotate(${tilt} ${x} ${y})"` : "";
  return (
    `<g${t}><rect x="${x - w / 2}" y="${top}" width="${w}" height="${h}" rx="3" fill="${color}"/>` +
    `<rect x="${x - w / 2 - 0.8}" y="${y - 1.1}" width="${w + 1.6}" height="2.2" rx="1" fill="${node}"/>` +
    `<rect x="${x - w / 2 - 0.8}" y="${top}" width="${w + 1.6}" height="2" rx="1" fill="${node}"/>` +
    `<rect x="${x - w / 2 - 0.8}" y="${top + h - 2}" width="${w + 1.6}" height="2" rx="1" fill="${node}"/>` +
    `<line x1="${x}" y1="${top + 3}" x2="${x}" y2="${top + h - 3}" stroke="#fbf7ea" stroke-width="1" opacity="0.55"/></g>`
  );
}

const STICKS = {
  2: [[30, 22, 27, GREEN], [30, 55, 27, GREEN]],
  3: [[30, 22, 27, GREEN], [18, 55, 27, GREEN], [42, 55, 27, GREEN]],
  4: [[19, 22, 27, GREEN], [41, 22, 27, BLUE], [19, 55, 27, BLUE], [41, 55, 27, GREEN]],
  5: [[15, 22, 27, GREEN], [45, 22, 27, BLUE], [30, 38, 27, RED], [15, 55, 27, BLUE], [45, 55, 27, GREEN]],
  6: [[15, 22, 27, GREEN], [30, 22, 27, GREEN], [45, 22, 27, GREEN], [15, 55, 27, BLUE], [30, 55, 27, BLUE], [45, 55, 27, BLUE]],
  7: [[30, 14, 18, RED], [15, 38, 18, GREEN], [30, 38, 18, GREEN], [45, 38, 18, GREEN], [15, 61, 18, GREEN], [30, 61, 18, GREEN], [45, 61, 18, GREEN]],
  8: [[12, 22, 27, GREEN, 0], [24, 22, 27, GREEN, 28], [36, 22, 27, GREEN, -28], [48, 22, 27, GREEN, 0], [12, 55, 27, BLUE, 0], [24, 55, 27, BLUE, -28], [36, 55, 27, BLUE, 28], [48, 55, 27, BLUE, 0]],
  9: [[15, 15, 19, GREEN], [30, 15, 19, RED], [45, 15, 19, BLUE], [15, 38, 19, GREEN], [30, 38, 19, RED], [45, 38, 19, BLUE], [15, 61, 19, GREEN], [30, 61, 19, RED], [45, 61, 19, BLUE]],
};

function bambooFace(rank) {
  if (rank === 1) {
    // 一條: the bird (麻雀) standing on a stick
    return (
      `<path d="M14 56 C 8 46, 10 30, 22 26 C 28 16, 40 14, 44 22 C 48 28, 46 34, 40 36 ` +
      `C 46 44, 44 56, 32 60 Z" fill="${GREEN}"/>` +
      `<path d="M22 30 C 18 40, 20 50, 30 56" stroke="#fbf7ea" stroke-width="2" fill="none"/>` +
      `<circle cx="40" cy="23" r="2.6" fill="#fbf7ea"/><circle cx="40.6" cy="23" r="1.3" fill="${INK}"/>` +
      `<path d="M45 24 L53 27 L45 29 Z" fill="${RED}"/>` +
      `<path d="M36 15 C 38 8, 44 8, 46 12 C 42 11, 40 13, 38 16 Z" fill="${RED}"/>` +
      `<path d="M14 56 C 8 62, 10 70, 16 72 M20 58 C 18 64, 20 70, 26 72" stroke="${BLUE}" stroke-width="3" fill="none" stroke-linecap="round"/>` +
      `<rect x="10" y="66" width="40" height="4" rx="2" fill="#8a5a2b"/>`
    );
  }
  return STICKS[rank].map(([x, y, h, c, tilt]) => stick(x, y, h, c, tilt)).join("");
}

function charactersFace(rank) {
  const font = `font-family="'Noto Serif CJK SC','Noto Serif CJK TC','Songti SC','SimSun','WenQuanYi Micro Hei','Noto Sans CJK SC','Microsoft YaHei',serif" font-weight="700"`;
  return (
    `<text x="30" y="33" text-anchor="middle" ${font} font-size="27" fill="${INK}">${NUMERALS[rank - 1]}</text>` +
    `<text x="30" y="68" text-anchor="middle" ${font} font-size="30" fill="${RED}">萬</text>`
  );
}

function faceOf(parts) {
  if (parts.suit === "m") return charactersFace(parts.rank);
  if (parts.suit === "p") return dotsFace(parts.rank);
  return bambooFace(parts.rank);
}

const cache = new Map();

/**
 * The SVG markup of one tile. `tile` is "5p" etc., or "?"/null for a face-down tile.
 * A small rank index in the corner helps at phone size (as in most mahjong apps' "large
 * index" option); `corner: false` removes it.
 */
export function tileSVG(tile, { corner = false } = {}) {
  const key = `${tile}|${corner}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const parts = tileParts(tile);
  let svg;
  if (!parts) {
    svg =
      `<svg class="tile-svg" viewBox="0 0 60 80" aria-hidden="true">` +
      `<rect x="1" y="5" width="58" height="74" rx="7" fill="#0d5a3a"/>` +
      `<rect x="1" y="1" width="58" height="74" rx="7" fill="url(#tile-back)"/>` +
      `<rect x="6" y="6" width="48" height="64" rx="5" fill="none" stroke="#9fd8b6" stroke-width="1.2" opacity="0.5"/>` +
      `</svg>`;
  } else {
    const idx =
      corner && parts.suit !== "m"
        ? `<text x="6" y="13" font-family="Arial,Helvetica,sans-serif" font-weight="700" font-size="11" fill="${INK}" opacity="0.75">${parts.rank}</text>`
        : "";
    svg =
      `<svg class="tile-svg" viewBox="0 0 60 80" aria-hidden="true">` +
      `<rect x="1" y="5" width="58" height="74" rx="7" fill="#1f7a52"/>` +
      `<rect x="1" y="3" width="58" height="72" rx="7" fill="#d9d2bb"/>` +
      `<rect x="1" y="1" width="58" height="72" rx="7" fill="url(#tile-face)"/>` +
      `<g transform="translate(0,-1)">${faceOf(parts)}</g>${idx}</svg>`;
  }
  cache.set(key, svg);
  return svg;
}

/** Shared gradients, inserted once into the page. */
export const TILE_DEFS =
  `<svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs>` +
  `<linearGradient id="tile-face" x1="0" y1="0" x2="0" y2="1">` +
  `<stop offset="0" stop-color="#fffef8"/><stop offset="1" stop-color="#f1ecd9"/></linearGradient>` +
  `<linearGradient id="tile-back" x1="0" y1="0" x2="1" y2="1">` +
  `<stop offset="0" stop-color="#2f9d6c"/><stop offset="1" stop-color="#146b45"/></linearGradient>` +
  `</defs></svg>`;

const SUIT_ZH = { m: "萬", p: "筒", s: "條" };
const SUIT_EN = { m: "characters", p: "dots", s: "bamboo" };

/** A tile's spoken name, for aria-labels and text: "五筒" / "5 dots". */
export function tileName(tile, lang = "zh") {
  const p = tileParts(tile);
  if (!p) return lang === "zh" ? zhText("暗牌") : "hidden tile";
  // the name in the page's script (五万 in Simplified); the faces keep 萬 as the tiles do
  return lang === "zh" ? zhText(NUMERALS[p.rank - 1] + SUIT_ZH[p.suit]) : `${p.rank} ${SUIT_EN[p.suit]}`;
}

/** A tile element (button when `onClick` is wanted by the caller via data attributes). */
export function tileHTML(tile, { cls = "", lang = "zh", attrs = "" } = {}) {
  return `<span class="tile ${cls}" role="img" aria-label="${tileName(tile, lang)}" data-tile="${tile ?? "?"}" ${attrs}>${tileSVG(tile)}</span>`;
}
