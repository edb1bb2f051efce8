"""Labelled positions from self-play, written as NumPy ``.npz`` shards (issue 35 item 1).

``duyun learn generate`` plays hands between bots (the self-play runner's seeds and bots,
:mod:`duyun.sim.runner`) and records, at every decision of a seat on its own turn, the
position from that seat's view (:func:`~duyun.learn.features.encode_view`) with the hidden
truth as labels (:func:`~duyun.learn.features.hidden_labels`) and, once the hand is over,
the seat's points for the whole hand.

Reproducibility: hand ``u`` of a run takes its wall and its bots' seeds from ``(seed, u)``
alone (:func:`~duyun.sim.runner.derive_seed`), shard ``k`` holds hands ``k * hands_per_shard``
onwards, and a shard is written byte for byte the same way every time (no time stamp in the
archive): the same seed and sizes give identical files, whatever the number of worker
processes. Every array is plain numbers (no pickles, ``np.load(..., allow_pickle=False)``).

A shard's arrays, one row per position (``n`` rows; "rel" = relative seats +1, +2, +3):

========================  ==========  ==================================================
name                      dtype/shape meaning
========================  ==========  ==================================================
``features``              u8 (n, F)   :data:`~duyun.learn.features.FIELDS` (F = 524)
``points_now``            i16 (n, 4)  net points so far, relative seats 0..3 (R40)
``final_points``          i16 (n,)    the seat's net points for the whole hand (the value)
``ready``                 u8 (n, 3)   rel seat is ready (R11)
``waits``                 u32 (n, 3)  bit k: kind k completes the rel seat's hand (R11)
``deal_in``               u32 (n, 3)  bit k: the seat's discard of kind k now wins for it
``concealed``             u8 (n,3,27) the rel seat's concealed tiles, count per kind
``shanten``               i8 (n, 3)   the rel seat's shanten
``in_hand``               u8 (n, 3)   the rel seat still plays the hand (R53)
``hand_index``            i32 (n,)    hand number in the run
``seat``                  u8 (n,)     absolute seat
``step``                  u16 (n,)    the position's number in its hand
``bot``                   u8 (n, 4)   bot of relative seats 0..3 (index in ``BOT_NAMES``)
========================  ==========  ==================================================
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import zipfile
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from duyun.bots import BOT_NAMES, Bot, make_bot
from duyun.engine import Round, deal_setup, net_points
from duyun.engine.phases import Phase
from duyun.learn.features import FEATURE_SIZE, FEATURES_VERSION, encode_view, hidden_labels
from duyun.rules import DUYUN, RuleSet
from duyun.sim.runner import derive_seed, seating

SEATS = 4
DATASET_VERSION = 1
DEFAULT_LINEUPS: tuple[tuple[str, ...], ...] = (
    ("strong", "efficient", "efficient", "efficient"),
    ("strong", "efficient", "strong", "efficient"),
)
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # a fixed time stamp: identical bytes for identical data


class DatasetError(ValueError):
    """A generation request that cannot run, or a directory that is not a dataset."""


@dataclass(frozen=True, slots=True)
class GenerateConfig:
    """What to play and record. Hand ``u`` uses lineup ``u % len(lineups)``, rotated so that
    every bot of a lineup sits in every seat over the hands (``seating``)."""

    hands: int
    seed: int = 0
    lineups: tuple[tuple[str, ...], ...] = DEFAULT_LINEUPS
    hands_per_shard: int = 250
    rules: RuleSet = field(default=DUYUN)

    def __post_init__(self) -> None:
        if self.hands < 1:
            raise DatasetError(f"need at least one hand, got {self.hands}")
        if self.hands_per_shard < 1:
            raise DatasetError(f"a shard needs at least one hand, got {self.hands_per_shard}")
        if not self.lineups:
            raise DatasetError("need at least one lineup of four bots")
        for lineup in self.lineups:
            if len(lineup) != SEATS:
                raise DatasetError(f"a lineup is four bots, got {','.join(lineup)}")
            unknown = [name for name in lineup if name not in BOT_NAMES]
            if unknown:
                raise DatasetError(
                    f"unknown bot(s) {', '.join(unknown)}; known bots: {', '.join(BOT_NAMES)}"
                )

    @property
    def shards(self) -> int:
        return -(-self.hands // self.hands_per_shard)

    def shard_hands(self, shard: int) -> range:
        start = shard * self.hands_per_shard
        return range(start, min(self.hands, start + self.hands_per_shard))

    def to_json(self) -> dict[str, Any]:
        return {
            "hands": self.hands,
            "seed": self.seed,
            "lineups": [list(lineup) for lineup in self.lineups],
            "hands_per_shard": self.hands_per_shard,
            "rules": self.rules.to_mapping(),
        }


class _Columns:
    """A shard's rows as they are recorded, turned into arrays at the end."""

    def __init__(self) -> None:
        self.features = bytearray()
        self.rows: list[tuple[int, int, int]] = []  # hand, seat, step
        self.points_now: list[int] = []
        self.final: list[int] = []
        self.ready: list[int] = []
        self.waits: list[int] = []
        self.deal_in: list[int] = []
        self.concealed = bytearray()
        self.shanten: list[int] = []
        self.in_hand: list[int] = []
        self.bots: list[int] = []

    def arrays(self) -> dict[str, npt.NDArray[Any]]:
        n = len(self.rows)
        rows = np.array(self.rows, dtype=np.int64).reshape(n, 3)
        return {
            "features": np.frombuffer(bytes(self.features), dtype=np.uint8).reshape(
                n, FEATURE_SIZE
            ),
            "points_now": np.array(self.points_now, dtype=np.int16).reshape(n, SEATS),
            "final_points": np.array(self.final, dtype=np.int16),
            "ready": np.array(self.ready, dtype=np.uint8).reshape(n, 3),
            "waits": np.array(self.waits, dtype=np.uint32).reshape(n, 3),
            "deal_in": np.array(self.deal_in, dtype=np.uint32).reshape(n, 3),
            "concealed": np.frombuffer(bytes(self.concealed), dtype=np.uint8).reshape(n, 3, 27),
            "shanten": np.array(self.shanten, dtype=np.int8).reshape(n, 3),
            "in_hand": np.array(self.in_hand, dtype=np.uint8).reshape(n, 3),
            "hand_index": rows[:, 0].astype(np.int32),
            "seat": rows[:, 1].astype(np.uint8),
            "step": rows[:, 2].astype(np.uint16),
            "bot": np.array(self.bots, dtype=np.uint8).reshape(n, SEATS),
        }


def hand_bots(config: GenerateConfig, hand: int) -> tuple[list[Bot], list[str]]:
    """The bots of hand ``hand`` by seat, and their names by seat."""
    lineup = config.lineups[hand % len(config.lineups)]
    rotation = (hand // len(config.lineups)) % SEATS
    seat_of = seating(rotation)
    bots: list[Bot | None] = [None] * SEATS
    names = [""] * SEATS
    for player, name in enumerate(lineup):
        seat = seat_of[player]
        bots[seat] = make_bot(name, derive_seed(config.seed, "bot", hand, player), config.rules)
        names[seat] = name
    return [bot for bot in bots if bot is not None], names


def hand_round(config: GenerateConfig, hand: int) -> Round:
    """Hand ``hand``'s deal (the dealer moves with the hand number, as in self-play)."""
    setup = deal_setup(derive_seed(config.seed, "wall", hand), dealer=hand % SEATS)
    return Round(setup, config.rules)


def play_recorded(config: GenerateConfig, hand: int, columns: _Columns) -> tuple[Round, list[int]]:
    """Play hand ``hand`` to its end, recording every own-turn decision into ``columns``.

    Returns the finished round and the seats of the recorded positions, in order."""
    game = hand_round(config, hand)
    bots, names = hand_bots(config, hand)
    bot_index = [BOT_NAMES.index(name) for name in names]
    seats: list[int] = []
    step = 0
    while not game.is_over:
        seat = game.to_act[0]
        view = game.view(seat)
        if game.phase is Phase.TURN:
            columns.features += encode_view(view)
            columns.rows.append((hand, seat, step))
            points = view.points
            columns.points_now.extend(points[(seat + rel) % SEATS] for rel in range(SEATS))
            for truth in hidden_labels(game, seat):
                columns.ready.append(truth.ready)
                columns.waits.append(truth.waits)
                columns.deal_in.append(truth.deal_in)
                columns.concealed += bytes(truth.concealed)
                columns.shanten.append(truth.shanten)
                columns.in_hand.append(truth.in_hand)
            columns.bots.extend(bot_index[(seat + rel) % SEATS] for rel in range(SEATS))
            seats.append(seat)
            step += 1
        game.apply(bots[seat].choose(view))
    final = net_points(game.ledger)
    columns.final.extend(final[seat] for seat in seats)
    return game, seats


def write_npz(path: Path, arrays: dict[str, npt.NDArray[Any]]) -> None:
    """An ``.npz`` that ``np.load`` reads, written byte for byte the same for the same arrays
    (``np.savez_compressed`` stamps the time into the archive); atomically (a temporary file
    renamed), so an interrupted run leaves no half shard."""
    tmp = path.with_name(path.name + ".tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(arrays):
            info = zipfile.ZipInfo(name + ".npy", date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            with archive.open(info, "w", force_zip64=True) as handle:
                np.lib.format.write_array(handle, np.ascontiguousarray(arrays[name]))
    os.replace(tmp, path)


def shard_name(shard: int) -> str:
    return f"shard-{shard:05d}.npz"


def generate_shard(config: GenerateConfig, shard: int, out: Path) -> dict[str, Any]:
    """Play shard ``shard``'s hands and write its file; a summary for the manifest and the
    CPU time it took (the caller reports the time; the manifest never holds it)."""
    started = time.process_time()
    columns = _Columns()
    for hand in config.shard_hands(shard):
        play_recorded(config, hand, columns)
    arrays = columns.arrays()
    path = out / shard_name(shard)
    write_npz(path, arrays)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return {
        "file": path.name,
        "hands": len(config.shard_hands(shard)),
        "positions": len(columns.rows),
        "sha256": digest,
        "cpu_seconds": time.process_time() - started,
    }


MANIFEST = "manifest.json"
STARTED = "config.json"  # written before the first shard


def generate(
    config: GenerateConfig, out: Path, workers: int = 1, skip_existing: bool = False
) -> Iterator[dict[str, Any]]:
    """Write every shard of ``config`` into ``out`` (in worker processes when ``workers`` >
    1), yielding each shard's summary in shard order, then the manifest ``manifest.json``.

    With ``skip_existing`` a shard whose file is already there is not played again (a run
    cut short resumes); its summary is read back from the file."""
    if workers < 1:
        raise DatasetError(f"workers must be at least 1, got {workers}")
    out.mkdir(parents=True, exist_ok=True)
    # the configuration goes first, so that a resumed run never mixes two runs' shards
    started = out / STARTED
    wanted = json.dumps(config.to_json(), indent=1, sort_keys=True) + "\n"
    if skip_existing and started.exists() and started.read_text() != wanted:
        raise DatasetError(f"{out} holds shards of another configuration ({STARTED}): not resumed")
    started.write_text(wanted)
    todo = [
        shard
        for shard in range(config.shards)
        if not (skip_existing and (out / shard_name(shard)).exists())
    ]
    summaries: dict[int, dict[str, Any]] = {}
    if workers == 1:
        for shard in todo:
            summaries[shard] = generate_shard(config, shard, out)
            yield summaries[shard]
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {shard: pool.submit(generate_shard, config, shard, out) for shard in todo}
            for shard in todo:
                summaries[shard] = futures[shard].result()
                yield summaries[shard]
    shards = []
    for shard in range(config.shards):
        summary = summaries.get(shard) or _summary_of(out / shard_name(shard), config, shard)
        shards.append({key: summary[key] for key in ("file", "hands", "positions", "sha256")})
    manifest = {
        "dataset_version": DATASET_VERSION,
        "features_version": FEATURES_VERSION,
        "feature_size": FEATURE_SIZE,
        "config": config.to_json(),
        "positions": sum(shard["positions"] for shard in shards),
        "shards": shards,
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")


def _summary_of(path: Path, config: GenerateConfig, shard: int) -> dict[str, Any]:
    with np.load(path, allow_pickle=False) as data:
        positions = int(data["final_points"].shape[0])
    return {
        "file": path.name,
        "hands": len(config.shard_hands(shard)),
        "positions": positions,
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
    }


def read_manifest(directory: Path) -> dict[str, Any]:
    path = directory / MANIFEST
    if not path.is_file():
        raise DatasetError(f"{directory} is not a dataset: no {MANIFEST} (duyun learn generate)")
    manifest: dict[str, Any] = json.loads(path.read_text())
    if manifest.get("features_version") != FEATURES_VERSION:
        raise DatasetError(
            f"{directory} holds features version {manifest.get('features_version')}, "
            f"this code reads version {FEATURES_VERSION}: generate it again"
        )
    return manifest


def load_shards(directory: Path, names: Sequence[str] | None = None) -> dict[str, npt.NDArray[Any]]:
    """The dataset's shards (or the ``names`` given), concatenated array by array."""
    manifest = read_manifest(directory)
    files = list(names) if names is not None else [s["file"] for s in manifest["shards"]]
    parts: dict[str, list[npt.NDArray[Any]]] = {}
    for name in files:
        with np.load(directory / name, allow_pickle=False) as data:
            for key in data.files:
                parts.setdefault(key, []).append(data[key])
    return {key: np.concatenate(value) for key, value in parts.items()}


def unpack_bits(masks: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
    """27-bit masks (``waits``, ``deal_in``) as 0/1 per kind: shape ``masks.shape + (27,)``."""
    bits = (masks[..., None].astype(np.uint32) >> np.arange(27, dtype=np.uint32)) & 1
    return bits.astype(np.uint8)
