"""Make the table's spoken calls (issue 31 item 4): 碰, 槓, 胡, 自摸 and 報聽 in Mandarin.

The client plays these files when anyone calls (``static/js/voice.js``); they are shipped with
it, so nothing is downloaded while playing. They are synthesized once with espeak-ng and
encoded as small mono MP3s (every browser plays MP3; Safari plays no Ogg) with ffmpeg; the
files are committed, so the game never runs this::

    apt-get install -y espeak-ng ffmpeg
    python tools/make_voice.py

The words are given as pinyin to the ``cmn-latn-pinyin`` voice. espeak-ng 1.51's ``cmn``
voice reads Chinese characters by spelling their pinyin in English ("peng four"), so the
characters themselves would not be heard as Mandarin; the pinyin voice says the syllables with
their tones. The licence of the result is in ``static/sound/README.md``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "duyun" / "server" / "static" / "sound"

# file name (voice.js's names) → (the call, its pinyin with tone numbers)
CALLS: dict[str, tuple[str, str]] = {
    "pong": ("碰", "peng4"),
    "kong": ("槓", "gang4"),
    "hu": ("胡", "hu2"),
    "zimo": ("自摸", "zi4 mo1"),
    "baoting": ("報聽", "bao4 ting1"),
}

VOICE = "cmn-latn-pinyin"
SPEED = 150  # words per minute: espeak-ng's default (175) clips a single syllable short
PITCH = 45  # 0-99, the default 50 a little lower: a calmer voice over the table's sounds
BITRATE = "32k"  # speech in mono at 22 kHz: a call is 2-4 KB
# cut the silence espeak-ng leaves around a word (a call should sound at once); its level needs
# no change (espeak-ng peaks near full scale)
FILTER = (
    "silenceremove=start_periods=1:start_threshold=-45dB:"
    "stop_periods=-1:stop_threshold=-45dB:stop_duration=0.12,apad=pad_dur=0.05"
)


def need(tool: str) -> str:
    found = shutil.which(tool)
    if not found:
        sys.exit(f"{tool} is not installed (apt-get install -y espeak-ng ffmpeg)")
    return found


def make(name: str, pinyin: str, espeak: str, ffmpeg: str, work: Path) -> Path:
    wav = work / f"{name}.wav"
    subprocess.run(
        [espeak, "-v", VOICE, "-s", str(SPEED), "-p", str(PITCH), "-w", str(wav), pinyin],
        check=True,
    )
    out = OUT / f"{name}.mp3"
    subprocess.run(
        [
            ffmpeg,
            "-hide_banner",
            "-loglevel",
            "error",
            "-y",
            "-i",
            str(wav),
            "-af",
            FILTER,
            "-ac",
            "1",
            "-ar",
            "22050",
            "-c:a",
            "libmp3lame",
            "-b:a",
            BITRATE,
            # no encoder tag or metadata: the same input makes the same bytes
            "-map_metadata",
            "-1",
            "-fflags",
            "+bitexact",
            "-flags:a",
            "+bitexact",
            str(out),
        ],
        check=True,
    )
    return out


def main() -> None:
    espeak, ffmpeg = need("espeak-ng"), need("ffmpeg")
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, (call, pinyin) in CALLS.items():
            out = make(name, pinyin, espeak, ffmpeg, Path(tmp))
            print(f"{out.relative_to(ROOT)}  {call} ({pinyin})  {out.stat().st_size} bytes")


if __name__ == "__main__":
    main()
