"""`duyun learn generate`: labelled positions from self-play in .npz shards (issue 35 item 1)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from cli_helpers import assert_clean_error, run
from duyun.learn.dataset import (
    DatasetError,
    GenerateConfig,
    generate,
    load_shards,
    read_manifest,
    unpack_bits,
)
from duyun.learn.features import FEATURE_SIZE

LINEUPS = (("efficient", "efficient", "random", "efficient"),)


def _digests(directory: Path) -> dict[str, str]:
    return {
        path.name: hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(directory.iterdir())
    }


def test_same_seed_same_files_whatever_the_workers(tmp_path: Path) -> None:
    config = GenerateConfig(hands=6, seed=4, lineups=LINEUPS, hands_per_shard=3)
    list(generate(config, tmp_path / "one", workers=1))
    list(generate(config, tmp_path / "two", workers=2))
    assert _digests(tmp_path / "one") == _digests(tmp_path / "two")
    assert len(_digests(tmp_path / "one")) == 4  # two shards, the configuration, the manifest
    other = GenerateConfig(hands=6, seed=5, lineups=LINEUPS, hands_per_shard=3)
    list(generate(other, tmp_path / "three", workers=1))
    assert _digests(tmp_path / "three") != _digests(tmp_path / "one")


def test_shards_hold_plain_arrays_with_consistent_labels(tmp_path: Path) -> None:
    config = GenerateConfig(hands=8, seed=1, lineups=LINEUPS, hands_per_shard=4)
    list(generate(config, tmp_path, workers=1))
    manifest = read_manifest(tmp_path)
    data = load_shards(tmp_path)  # np.load(allow_pickle=False) underneath
    n = data["features"].shape[0]
    assert n == manifest["positions"] > 8 * 20
    assert data["features"].shape == (n, FEATURE_SIZE) and data["features"].dtype == np.uint8
    waits = unpack_bits(data["waits"])
    deal_in = unpack_bits(data["deal_in"])
    assert waits.shape == (n, 3, 27)
    assert np.array_equal(waits.any(axis=2), data["ready"].astype(bool))
    assert not (deal_in & ~waits.astype(bool)).any()  # a deal-in is always a wait
    # the concealed tiles are the other seats' sizes (features) exactly
    sizes = data["concealed"].sum(axis=2)
    for rel in (1, 2, 3):
        from duyun.learn.features import field_slice

        assert np.array_equal(
            sizes[:, rel - 1], data["features"][:, field_slice(f"opp{rel}_size")][:, 0]
        )
    # every position of a hand carries that hand's result for its seat; a hand's four seats
    # sum to zero (R41)
    for hand in range(8):
        rows = data["hand_index"] == hand
        by_seat = {
            int(s): int(p)
            for s, p in zip(data["seat"][rows], data["final_points"][rows], strict=True)
        }
        if len(by_seat) == 4:
            assert sum(by_seat.values()) == 0


def test_resume_keeps_written_shards(tmp_path: Path) -> None:
    config = GenerateConfig(hands=4, seed=2, lineups=LINEUPS, hands_per_shard=2)
    list(generate(config, tmp_path, workers=1))
    before = _digests(tmp_path)
    (tmp_path / "shard-00001.npz").unlink()
    summaries = list(generate(config, tmp_path, workers=1, skip_existing=True))
    assert [s["file"] for s in summaries] == ["shard-00001.npz"]
    assert _digests(tmp_path) == before
    other = GenerateConfig(hands=4, seed=3, lineups=LINEUPS, hands_per_shard=2)
    with pytest.raises(DatasetError, match="another configuration"):
        list(generate(other, tmp_path, workers=1, skip_existing=True))


def test_bad_requests_name_what_to_change(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="unknown bot"):
        GenerateConfig(hands=1, lineups=(("efficient", "nobody", "random", "random"),))
    with pytest.raises(DatasetError, match="not a dataset"):
        read_manifest(tmp_path)


def test_the_cli_generates_and_refuses_bad_lineups(tmp_path: Path) -> None:
    out = tmp_path / "data"
    status, stdout, stderr = run(
        [
            "learn",
            "generate",
            str(out),
            "--hands",
            "2",
            "--workers",
            "1",
            "--bots",
            "efficient,random,random,random",
            "--seed",
            "3",
        ]
    )
    assert status == 0, stderr
    assert "positions from 2 hands" in stdout and "positions/min" in stdout
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["seed"] == 3 and manifest["positions"] > 0
    status, _, stderr = run(["learn", "generate", str(out), "--bots", "efficient,random"])
    assert_clean_error(status, stderr, "--bots")
