"""Three languages (issue 31 item 2): Simplified Chinese (简体) beside Traditional (繁體) and
English, every key in each, the Simplified module generated from the Traditional text and up
to date, the language chosen from the browser's and switched (简 / 繁 / EN) and remembered, no
Traditional character on a Simplified page (lobby, table, settlement, rules), and Chinese
inside the English page marked with its ``lang``."""

from __future__ import annotations

import json
import re
import runpy
from pathlib import Path
from typing import Any

import pytest
from web_helpers import DESKTOP, PHONE, SKIP_REASON, WebServer

ROOT = Path(__file__).resolve().parents[2]
JS = ROOT / "src" / "duyun" / "server" / "static" / "js"
TOOL = ROOT / "tools" / "i18n_hans.py"
ENTRY = re.compile(r'(\w+|"[^"]+"):\s*("(?:[^"\\]|\\.)*"),')
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def js_table(source: str, name: str) -> dict[str, str]:
    """The ``const NAME = { key: "text", ... };`` (or ``export const``) table of a module."""
    lines = source.splitlines()
    start = next(
        i for i, line in enumerate(lines) if re.match(rf"(export )?const {name} = {{$", line)
    )
    end = lines.index("};", start)
    block = "\n".join(line for line in lines[start + 1 : end] if not line.strip().startswith("//"))
    table = {m[1].strip('"'): json.loads(m[2]) for m in ENTRY.finditer(block)}
    rest = ENTRY.sub("", block).strip()
    assert not rest, f'{name}: not `key: "text",` entries: {rest[:200]!r}'
    return table


def tables() -> dict[str, dict[str, str]]:
    i18n = (JS / "i18n.js").read_text(encoding="utf-8")
    hans = (JS / "i18n_zh_hans.js").read_text(encoding="utf-8")
    return {
        "zh-Hant": js_table(i18n, "ZH"),
        "en": js_table(i18n, "EN"),
        "zh-Hans": js_table(hans, "HANS"),
    }


def test_every_key_exists_in_every_language() -> None:
    found = tables()
    keys = {lang: set(table) for lang, table in found.items()}
    every = set().union(*keys.values())
    missing = {lang: sorted(every - have) for lang, have in keys.items() if every - have}
    assert not missing, (
        f"keys missing in a language (add them; then python tools/i18n_hans.py): {missing}"
    )
    # the conversion keeps every {placeholder} (English may say more: "1st" has a {suffix})
    for key in sorted(every):
        hant, hans = (PLACEHOLDER.findall(found[lang][key]) for lang in ("zh-Hant", "zh-Hans"))
        assert hant == hans, (key, hant, hans)


def test_the_simplified_module_is_generated_from_the_traditional_text() -> None:
    tool = runpy.run_path(str(TOOL))
    built = tool["build"]()
    assert built == (JS / "i18n_zh_hans.js").read_text(encoding="utf-8"), (
        "src/duyun/server/static/js/i18n_zh_hans.js is out of date with the Traditional text: "
        "run `python tools/i18n_hans.py` and commit the module"
    )


def test_mahjong_terms_read_right_in_simplified() -> None:
    hans = tables()["zh-Hans"]
    expected = {
        "title": "都匀麻将",
        "pong": "碰",
        "kong": "直杠",
        "added_kong": "面下杠",
        "concealed_kong": "暗杠",
        "hu": "胡",
        "zimo": "自摸",
        "baoting": "报听",
        "tuoguan": "托管",
        "ready": "准备",
        "history": "战绩",
    }
    for key, text in expected.items():
        assert hans[key] == text, (key, hans[key])
    module = (JS / "i18n_zh_hans.js").read_text(encoding="utf-8")
    words = js_table(module, "PHRASES")
    for trad, simp in {
        "清么九": "清幺九",
        "七對": "七对",
        "龍七對": "龙七对",
        "查大叫": None,
        "清一色": None,
        "槓上花": "杠上花",
        "黃豆": "黄豆",
        "點炮": "点炮",
    }.items():
        if simp is None:
            assert trad not in words, trad  # the same in both scripts
        else:
            assert words.get(trad) == simp, (trad, words.get(trad))
    for text in hans.values():
        assert "伺服器" not in text and "帐号" not in text and "么九" not in text, text


if SKIP_REASON:
    pytest.skip(SKIP_REASON, allow_module_level=True)

from test_web_client import Tab, play_until_settlement, shot  # noqa: E402

pytestmark = pytest.mark.slow

#: text nodes and labels of the page with a character that Simplified writes otherwise
#: (the generated CHARS), outside the tiles' faces (SVG: they keep 萬 as real tiles do)
TRADITIONAL_ON_PAGE = """async () => {
    const { CHARS } = await import('/static/js/i18n_zh_hans.js');
    const bad = new Set();
    const has = (s) => Array.from(s ?? '').some((c) => c in CHARS);
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const el = n.parentElement;
        if (!el || el.closest('svg, script, style, noscript, [hidden], .lang-switch')) continue;
        if (has(n.data)) bad.add(n.data.trim());
    }
    for (const el of document.body.querySelectorAll('[aria-label], [title], [placeholder]')) {
        if (el.closest('svg, .lang-switch')) continue;
        for (const a of ['aria-label', 'title', 'placeholder'])
            if (has(el.getAttribute(a))) bad.add(`${a}=${el.getAttribute(a)}`);
    }
    return [...bad];
}"""

#: Chinese text of the English page outside an element whose lang is Chinese
UNMARKED_CHINESE = """() => {
    const bad = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const el = n.parentElement;
        if (!el || el.closest('svg, script, style, noscript, option, title')) continue;
        if (!/[\\u3400-\\u9fff]/.test(n.data)) continue;
        const lang = el.closest('[lang]')?.getAttribute('lang') ?? '';
        if (!lang.startsWith('zh')) bad.push(n.data);
    }
    return bad;
}"""


@pytest.mark.parametrize(
    ("locale", "lang", "guest"),
    [
        ("zh-CN", "zh-Hans", "游客一键开始"),
        ("zh-SG", "zh-Hans", "游客一键开始"),
        ("zh-HK", "zh-Hant", "遊客一鍵開始"),
        ("en-US", "en", "Play as guest"),
        ("fr-FR", "en", "Play as guest"),
    ],
)
def test_the_language_follows_the_browser(
    browser: Any, web_server: WebServer, locale: str, lang: str, guest: str
) -> None:
    tab = Tab(browser, web_server, DESKTOP, locale=locale)
    tab.goto()
    assert tab.page.evaluate("() => document.documentElement.lang") == lang
    assert tab.page.text_content("#guest-btn").strip() == guest
    pressed = tab.page.get_attribute("#lang-switch [aria-pressed=true]", "data-lang")
    assert pressed == lang
    tab.close()


def test_the_browser_languages_map_to_three(browser: Any, web_server: WebServer) -> None:
    page = browser.new_page()
    page.goto(web_server.url + "/")
    found = page.evaluate(
        """async () => {
        const { localeFor } = await import('/static/js/i18n.js');
        const cases = [['zh-CN'], ['zh-SG'], ['zh-Hans'], ['zh-Hans-HK'], ['zh'], ['zh-TW'],
            ['zh-HK'], ['zh-MO'], ['zh-Hant'], ['zh-Hant-CN'], ['en-US'], ['en'], ['ja', 'fr'],
            ['ja', 'zh-CN', 'en'], ['de', 'en-GB', 'zh-TW'], []];
        return cases.map((c) => [c.join(','), localeFor(c)]);
    }"""
    )
    assert dict(found) == {
        "zh-CN": "zh-Hans", "zh-SG": "zh-Hans", "zh-Hans": "zh-Hans", "zh-Hans-HK": "zh-Hans",
        "zh": "zh-Hans", "zh-TW": "zh-Hant", "zh-HK": "zh-Hant", "zh-MO": "zh-Hant",
        "zh-Hant": "zh-Hant", "zh-Hant-CN": "zh-Hant", "en-US": "en", "en": "en", "ja,fr": "en",
        "ja,zh-CN,en": "zh-Hans", "de,en-GB,zh-TW": "en", "": "en",
    }  # fmt: skip
    page.close()


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_simplified_everywhere_switch_remembered_and_chinese_marked_in_english(
    browser: Any, web_server: WebServer, screenshots: Path, size: str
) -> None:
    """A zh-CN browser plays a hand in Simplified: no Traditional character in the lobby, the
    rules page, the table or the settlement; 繁 and EN switch (the rules page too) and the
    choice outlives a reload; in English every Chinese word carries lang="zh-Hant"."""
    phone = size == "phone"
    tab = Tab(browser, web_server, PHONE if phone else DESKTOP, touch=phone, locale="zh-CN")
    tab.goto()
    assert tab.page.text_content(".brand h1").strip() == "都匀麻将"
    tab.guest()
    tab.page.wait_for_selector(".room [data-do=quick]")
    assert tab.page.evaluate(TRADITIONAL_ON_PAGE) == []
    shot(tab, screenshots, f"i18n-lobby-hans-{size}.png")

    # the rules page in Simplified, switched to Traditional and English in place
    tab.page.click("#rules-btn")
    tab.page.wait_for_selector("#rules-page #rules-fan")
    assert tab.page.evaluate(TRADITIONAL_ON_PAGE) == []
    assert "清幺九" in tab.page.inner_text("#rules-fan")
    shot(tab, screenshots, f"i18n-rules-hans-{size}.png")
    tab.page.click("#rules-lang-switch [data-lang=zh-Hant]")
    tab.page.wait_for_function("() => document.documentElement.lang === 'zh-Hant'")
    assert "清么九" in tab.page.inner_text("#rules-fan")
    assert tab.page.text_content(".brand h1").strip() == "都勻麻將"
    tab.page.click("#rules-lang-switch [data-lang=en]")
    tab.page.wait_for_function("() => document.documentElement.lang === 'en'")
    assert "How to play" in tab.page.text_content("#rules-page h2")
    tab.page.evaluate("() => new Promise(requestAnimationFrame)")
    assert tab.page.evaluate(UNMARKED_CHINESE) == []
    shot(tab, screenshots, f"i18n-rules-en-{size}.png")
    tab.page.click("#rules-close")
    assert tab.page.evaluate(UNMARKED_CHINESE) == []
    shot(tab, screenshots, f"i18n-lobby-en-{size}.png")
    tab.reload()
    assert tab.page.evaluate("() => document.documentElement.lang") == "en"
    tab.page.click("#lang-switch [data-lang=zh-Hans]")
    tab.page.wait_for_function("() => document.documentElement.lang === 'zh-Hans'")
    assert tab.page.evaluate("() => localStorage.getItem('duyun.locale')") == "zh-Hans"

    # a hand in Simplified, to the settlement
    tab.page.wait_for_selector(".room [data-do=quick]")
    tab.page.click(".room:first-child [data-do=quick]")
    tab.page.wait_for_selector("#hand button.tile")
    seen: list[list[str]] = []

    def on_turn(t: Tab, discards: int) -> None:
        if discards in (0, 4):
            seen.append(t.page.evaluate(TRADITIONAL_ON_PAGE))
        if discards == 4:
            shot(t, screenshots, f"i18n-table-hans-{size}.png")

    play_until_settlement(tab, on_turn=on_turn)
    tab.page.evaluate("() => new Promise(requestAnimationFrame)")
    seen.append(tab.page.evaluate(TRADITIONAL_ON_PAGE))
    shot(tab, screenshots, f"i18n-settlement-hans-{size}.png")
    assert seen and all(found == [] for found in seen), seen
    # the settlement in English, every Chinese word marked (the panel covers the top bar's
    # switch: the button is pressed from the page's side)
    tab.page.evaluate("() => document.querySelector('#lang-switch [data-lang=en]').click()")
    tab.page.wait_for_function("() => document.documentElement.lang === 'en'")
    tab.page.evaluate("() => new Promise(requestAnimationFrame)")
    assert tab.page.evaluate(UNMARKED_CHINESE) == []
    shot(tab, screenshots, f"i18n-settlement-en-{size}.png")
    assert not tab.errors, tab.errors
    tab.close()
