"""Write the client's Simplified Chinese (简体) module from its Traditional text.

The browser client is written in Traditional Chinese (繁體) and English. Its Simplified text is
derived, never typed: OpenCC's ``t2s`` conversion (Traditional to Simplified, phrase by
phrase; the Traditional text already uses Mainland words such as 服務器, 登錄, 鏈接, so
``tw2sp``'s Taiwan-to-Mainland word swaps would only do harm: it turns 複製 into 拷贝), then
the hand overrides below, for the words where the machine is wrong for mahjong players.

It writes ``src/duyun/server/static/js/i18n_zh_hans.js`` (committed) with

- ``HANS``: every key of i18n.js's Traditional table ``ZH``, converted;
- ``PHRASES``: every run of Chinese characters in the string literals of the other modules
  (the rules page, pattern and room names, the inline labels) that the conversion changes;
- ``CHARS``: the character-by-character conversion of every Chinese character of the client
  and of the server's texts shown to players (room names, reactions), for text put together
  at run time (a room name from the server, a pattern inside a sentence).

Run it after any change to the client's Chinese text (``tests/web/test_web_i18n.py`` fails
while the committed module is out of date)::

    python tools/i18n_hans.py          # write the module
    python tools/i18n_hans.py --check  # exit 1 when it is out of date

OpenCC is in the ``dev`` extra; the game never needs it at run time.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
JS = ROOT / "src" / "duyun" / "server" / "static" / "js"
OUT = JS / "i18n_zh_hans.js"
#: the server's own texts that the client shows as they come (room names, reactions)
SERVER_TEXTS = [
    ROOT / "src" / "duyun" / "server" / "config.py",
    ROOT / "src" / "duyun" / "server" / "protocol.py",
]
CONFIG = "t2s"

#: (what OpenCC writes, what a player in Guizhou reads): checked by hand for every mahjong
#: term of the client (碰, 杠, 胡, 报听, 自摸, 托管, 都匀, 万, 筒, 条, 番, 豆, 查大叫, 清一色,
#: 七对, 点炮, 连庄, 黄豆, 过水, 血战, 大结算 come out right by themselves)
OVERRIDES: tuple[tuple[str, str], ...] = (
    # 么 (the simplified 麼) is not 幺 ("one"): 清幺九, 幺九
    ("么九", "幺九"),
    # the Mainland's account is 账号 (t2s keeps the rarer 帐号)
    ("帐号", "账号"),
    ("帐户", "账户"),
    # Taiwan words in a few Traditional strings, the Mainland's in Simplified
    ("伺服器", "服务器"),
    ("资讯", "信息"),
    ("重新连线", "重新连接"),
)

CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
ENTRY = re.compile(r'(\w+):\s*("(?:[^"\\]|\\.)*"),')
BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)
IDENT = re.compile(r"[A-Za-z_]\w*")
LINE_COMMENT = re.compile(r"(^|\s)//.*$", re.M)


def converter() -> object:
    import opencc

    return opencc.OpenCC(CONFIG)


def convert(cc: object, text: str) -> str:
    out: str = cc.convert(text)  # type: ignore[attr-defined]
    for wrong, right in OVERRIDES:
        out = out.replace(wrong, right)
    return out


def traditional_table(source: str) -> tuple[dict[str, str], tuple[int, int]]:
    """i18n.js's ``const ZH = { key: "text", ... };``, and the span of its lines."""
    lines = source.splitlines()
    start = lines.index("const ZH = {")
    end = lines.index("};", start)
    block = "\n".join(line for line in lines[start + 1 : end] if not line.strip().startswith("//"))
    table = {m[1]: json.loads(m[2]) for m in ENTRY.finditer(block)}
    rest = ENTRY.sub("", block).strip()
    if rest:
        raise SystemExit(f'i18n.js\'s ZH table holds more than `key: "text",`: {rest[:200]!r}')
    return table, (start, end)


def code_text(source: str) -> str:
    """A module without its comments (only strings are shown to players)."""
    return LINE_COMMENT.sub(r"\1", BLOCK_COMMENT.sub("", source))


def sources() -> tuple[dict[str, str], list[str], str]:
    """(ZH table, Chinese runs of the other modules' code, every Chinese character)."""
    i18n = (JS / "i18n.js").read_text(encoding="utf-8")
    table, (start, end) = traditional_table(i18n)
    lines = i18n.splitlines()
    texts = ["\n".join(lines[:start] + lines[end + 1 :])]
    for path in sorted(JS.glob("*.js")):
        if path.name not in ("i18n.js", OUT.name):
            texts.append(path.read_text(encoding="utf-8"))
    runs = sorted({run for text in texts for run in CJK.findall(code_text(text))})
    everything = "".join(texts) + "".join(table.values())
    everything += "".join(p.read_text(encoding="utf-8") for p in SERVER_TEXTS)
    chars = "".join(sorted({c for run in CJK.findall(everything) for c in run}))
    return table, runs, chars


def js_key(key: str) -> str:
    return key if IDENT.fullmatch(key) else json.dumps(key, ensure_ascii=False)


def js_object(name: str, mapping: dict[str, str], doc: str) -> str:
    body = "".join(
        f"  {js_key(key)}: {json.dumps(value, ensure_ascii=False)},\n"
        for key, value in mapping.items()
    )
    return f"/** {doc} */\nexport const {name} = {{\n{body}}};\n"


def build() -> str:
    cc = converter()
    table, runs, chars = sources()
    hans = {key: convert(cc, text) for key, text in table.items()}
    phrases = {run: convert(cc, run) for run in runs}
    char_map = {c: convert(cc, c) for c in chars}
    return (
        "// Simplified Chinese (简体), generated by tools/i18n_hans.py from the Traditional text\n"
        "// of i18n.js and the other modules (OpenCC t2s and the script's overrides). Do not\n"
        "// edit: change the Traditional text, then run `python tools/i18n_hans.py`.\n\n"
        + js_object("HANS", hans, "i18n.js's ZH table, key by key.")
        + "\n"
        + js_object(
            "PHRASES",
            {k: v for k, v in phrases.items() if k != v},
            "Runs of Chinese characters in the other modules' strings that change.",
        )
        + "\n"
        + js_object(
            "CHARS",
            {k: v for k, v in char_map.items() if k != v and len(v) == 1},
            "One character at a time, for text put together at run time.",
        )
    )


def main(argv: list[str]) -> int:
    text = build()
    current = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
    if "--check" in argv:
        if text != current:
            print(f"{OUT.relative_to(ROOT)} is out of date: run python tools/i18n_hans.py")
            return 1
        return 0
    if text != current:
        OUT.write_text(text, encoding="utf-8")
        print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
