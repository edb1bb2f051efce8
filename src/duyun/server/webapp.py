"""The installable web app (issue 31 item 7): the manifest and the service worker.

``GET /manifest.webmanifest`` is the web app manifest in the player's language (``?lang=`` as
the page sets it, else the browser's ``Accept-Language``): 都匀麻将, 都勻麻將 or Duyun Mahjong.
One ``id`` and ``start_url`` for all three, so the installed app is the same app whichever
language it was installed in.

``GET /sw.js`` is ``static/sw.js`` with the shell's version stamp and file list filled in.
The stamp is a hash of every file of the client, so any change to the client makes a new
worker, which the open pages announce ("a new version is ready"); nobody has to remember to
bump it. The worker caches only that shell (docs/web.md "Installing"): never ``/api``, ``/ws``
or anything that carries a token.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import Response

STATIC_DIR = Path(__file__).parent / "static"
WORKER = "sw.js"
LOCALES = ("zh-Hans", "zh-Hant", "en")
THEME = "#0f4d33"

NAMES = {
    "zh-Hans": ("都匀麻将", "都匀麻将", "贵州黔南的 108 张麻将：种豆、报听、查大叫"),
    "zh-Hant": ("都勻麻將", "都勻麻將", "貴州黔南的 108 張麻將：種豆、報聽、查大叫"),
    "en": ("Duyun Mahjong", "Duyun Mahjong", "The 108-tile mahjong of Qiannan, Guizhou"),
}

_stamp_cache: dict[tuple[tuple[str, int, int], ...], str] = {}


def shell_files(static_dir: Path = STATIC_DIR) -> list[Path]:
    """Every file of the client but the worker's own template."""
    return sorted(
        p
        for p in static_dir.rglob("*")
        if p.is_file() and p.name != WORKER and not p.name.startswith(".")
    )


def shell_version(static_dir: Path = STATIC_DIR) -> str:
    """A hash of the client's files (their names and bytes), recomputed when one changes."""
    files = shell_files(static_dir)
    key = tuple(
        (str(p.relative_to(static_dir)), p.stat().st_mtime_ns, p.stat().st_size) for p in files
    )
    if key not in _stamp_cache:
        digest = hashlib.sha256()
        for path in files:
            digest.update(str(path.relative_to(static_dir)).encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
        _stamp_cache.clear()
        _stamp_cache[key] = digest.hexdigest()[:16]
    return _stamp_cache[key]


def shell_urls(static_dir: Path = STATIC_DIR) -> list[str]:
    """What the worker caches: the page and the files under /static."""
    return ["/"] + [
        f"/static/{p.relative_to(static_dir).as_posix()}" for p in shell_files(static_dir)
    ]


def locale_for(languages: list[str]) -> str:
    """The language of a list of tags, most wanted first (as the client's ``localeFor``)."""
    for raw in languages:
        tag = raw.strip().lower()
        if tag == "en" or tag.startswith("en-"):
            return "en"
        if tag != "zh" and not tag.startswith("zh-"):
            continue
        if re.search(r"-hant\b", tag):
            return "zh-Hant"
        if re.search(r"-hans\b", tag):
            return "zh-Hans"
        if re.search(r"-(tw|hk|mo)\b", tag):
            return "zh-Hant"
        return "zh-Hans"
    return "en"


def accept_language(header: str) -> list[str]:
    """The tags of an ``Accept-Language`` header, by their weight (stable for equal ones)."""
    weighted: list[tuple[float, int, str]] = []
    for i, part in enumerate(header.split(",")[:20]):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        match = re.search(r"q=([0-9.]+)", params)
        if match:
            try:
                q = float(match[1])
            except ValueError:
                q = 0.0
        if tag and q > 0:
            weighted.append((-q, i, tag))
    return [tag for _, _, tag in sorted(weighted)]


def manifest(locale: str) -> dict[str, Any]:
    name, short, description = NAMES[locale]
    icon = "/static/icons/icon-{}.png"
    return {
        "id": "/",
        "name": name,
        "short_name": short,
        "description": description,
        "lang": locale,
        "dir": "ltr",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "orientation": "any",
        "theme_color": THEME,
        "background_color": THEME,
        "categories": ["games"],
        "icons": [
            {"src": icon.format(192), "sizes": "192x192", "type": "image/png", "purpose": "any"},
            {"src": icon.format(512), "sizes": "512x512", "type": "image/png", "purpose": "any"},
            {
                "src": icon.format("maskable-512"),
                "sizes": "512x512",
                "type": "image/png",
                "purpose": "maskable",
            },
        ],
    }


async def manifest_route(request: Request) -> Response:
    asked = request.query_params.get("lang", "")
    if asked in LOCALES:
        locale = asked
    else:
        locale = locale_for(accept_language(request.headers.get("accept-language", "")))
    body = json.dumps(manifest(locale), ensure_ascii=False)
    return Response(
        body,
        media_type="application/manifest+json",
        headers={"Cache-Control": "no-cache", "Vary": "Accept-Language"},
    )


def worker_source(static_dir: Path = STATIC_DIR) -> str:
    template = (static_dir / WORKER).read_text(encoding="utf-8")
    return template.replace('"__SHELL_VERSION__"', json.dumps(shell_version(static_dir))).replace(
        '["__SHELL_FILES__"]', json.dumps(shell_urls(static_dir))
    )


async def worker_route() -> Response:
    # no-cache: the browser asks for it again on each visit, so a new client is seen at once
    return Response(
        worker_source(),
        media_type="text/javascript",
        headers={"Cache-Control": "no-cache"},
    )
