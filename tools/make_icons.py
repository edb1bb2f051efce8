"""Draw the installable app's icons (issue 31 item 7) from the favicon's tile.

The favicon (``static/favicon.svg``) is an ivory tile with a red 萬 on a green back. The app's
icons put that tile on the table's green felt: ``icon-192.png`` and ``icon-512.png`` (rounded
corners, for launchers that show an icon as it is), ``icon-maskable-512.png`` (full bleed,
the tile inside the middle 80 % circle that every mask keeps) and ``apple-touch-icon.png``
(180 px, full bleed: iOS rounds the corners itself). Chromium draws them, as it draws the
favicon, through Playwright (both in the ``dev`` extra), and Pillow, when installed, cuts
them to 256 colours; the PNGs are committed, so the game never runs this::

    python tools/make_icons.py
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STATIC = ROOT / "src" / "duyun" / "server" / "static"
OUT = STATIC / "icons"
FELT = "#17744b"  # the table's felt (css --felt); flat, so 256 colours lose nothing


def tile_group() -> str:
    """The favicon's drawing (a 64×64 box) without its <svg> wrapper."""
    svg = (STATIC / "favicon.svg").read_text(encoding="utf-8")
    inner = re.sub(r"^<svg[^>]*>|</svg>\s*$", "", svg.strip())
    return inner.replace('font-family="serif"', 'font-family="Noto Serif CJK SC, serif"')


def icon_svg(size: int, tile_height: float, rounded: bool) -> str:
    scale = tile_height / 56  # the tile's drawing spans y 4..60 of its 64 box
    x = size / 2 - 32 * scale
    y = size / 2 - 32 * scale
    radius = size * 0.22 if rounded else 0
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" '
        f'viewBox="0 0 {size} {size}">'
        f'<rect width="{size}" height="{size}" rx="{radius}" fill="{FELT}"/>'
        f'<g transform="translate({x} {y}) scale({scale})">{tile_group()}'
        f"</g></svg>"
    )


ICONS = {
    # name: (size, tile height, rounded corners)
    "icon-192.png": (192, 192 * 0.68, True),
    "icon-512.png": (512, 512 * 0.68, True),
    "icon-maskable-512.png": (512, 512 * 0.56, False),
    "apple-touch-icon.png": (180, 180 * 0.66, False),
}


def small(path: Path) -> None:
    """256 colours (Pillow, when it is there): a quarter of the bytes, no visible change."""
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(path) as image:
        quantized = image.convert("RGBA").quantize(
            256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.FLOYDSTEINBERG
        )
    quantized.save(path, optimize=True)


def main() -> None:
    from playwright.sync_api import sync_playwright

    OUT.mkdir(exist_ok=True)
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, headless=True)
        for name, (size, height, rounded) in ICONS.items():
            page = browser.new_page(viewport={"width": size, "height": size})
            page.set_content(
                "<html><body style='margin:0;background:transparent'>"
                + icon_svg(size, height, rounded)
                + "</body></html>"
            )
            page.locator("svg").screenshot(path=str(OUT / name), omit_background=True)
            page.close()
            small(OUT / name)
            print(f"wrote {(OUT / name).relative_to(ROOT)}")
        browser.close()


if __name__ == "__main__":
    main()
