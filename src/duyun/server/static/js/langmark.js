// Chinese inside the English page carries its language (issue 31): the English labels keep the
// Chinese names players know (血戰, 托管, 清一色, the room names), and people's names may be
// Chinese. A screen reader reads a word in the voice of its `lang`, so every such run of text
// is wrapped in <span lang="zh-Hant"> as it arrives on the page (the renderers build markup
// strings; this watches the document instead of each of them). The Chinese pages need nothing:
// `<html lang>` says zh-Hans or zh-Hant.

import { getLocale, onLangChange } from "./i18n.js";

const IDEOGRAPH = "\\u3400-\\u9fff\\uf900-\\ufaff";
// a run: ideographs, with the Chinese punctuation between them (「」，。：)
const RUN = new RegExp(`[${IDEOGRAPH}](?:[${IDEOGRAPH}\\u3000-\\u303f\\uff00-\\uffef]*[${IDEOGRAPH}])?`, "g");
const HAS = new RegExp(`[${IDEOGRAPH}]`);
// no markup may go inside these; an SVG tile's face is an image with its own label
const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEXTAREA", "OPTION", "TITLE", "text", "tspan"]);

function wants(node) {
  const parent = node.parentElement;
  if (!parent || SKIP.has(parent.tagName) || parent.closest("svg")) return false;
  if (!HAS.test(node.data)) return false;
  const lang = parent.closest("[lang]")?.getAttribute("lang") ?? "";
  return !lang.startsWith("zh");
}

function wrap(node) {
  const text = node.data;
  const frag = document.createDocumentFragment();
  let at = 0;
  for (const m of text.matchAll(RUN)) {
    if (m.index > at) frag.append(text.slice(at, m.index));
    const span = document.createElement("span");
    span.lang = "zh-Hant";
    span.textContent = m[0];
    frag.append(span);
    at = m.index + m[0].length;
  }
  if (at < text.length) frag.append(text.slice(at));
  node.replaceWith(frag);
}

/** Mark every Chinese run under `root` (English pages only). */
export function markChinese(root) {
  if (getLocale() !== "en" || !root) return;
  if (root.nodeType === Node.TEXT_NODE) {
    if (wants(root)) wrap(root);
    return;
  }
  if (root.nodeType !== Node.ELEMENT_NODE) return;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const found = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) if (wants(node)) found.push(node);
  found.forEach(wrap);
}

/** Watch the page from now on. */
export function watchChinese() {
  markChinese(document.body);
  // what is on the page already when English is chosen (the table's flashes, the rules page)
  onLangChange(() => markChinese(document.body));
  new MutationObserver((mutations) => {
    if (getLocale() !== "en") return;
    for (const m of mutations) {
      if (m.type === "characterData") markChinese(m.target);
      else m.addedNodes.forEach((node) => node.isConnected && markChinese(node));
    }
  }).observe(document.body, { childList: true, subtree: true, characterData: true });
}
