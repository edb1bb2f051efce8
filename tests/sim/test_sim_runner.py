"""Self-play runner (issue #4): reproducibility, duplicate rotation, workers, Ray, the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from duyun.cli.main import app
from duyun.engine import load_events, replay, split_hands
from duyun.sim import SimConfig, SimConfigError, Summary, derive_seed, run, seating
from duyun.sim.records import HandRecord

LINEUP = ("efficient", "random", "strong", "random")


def collect(config: SimConfig, **kwargs: object) -> list[list[HandRecord]]:
    return list(run(config, **kwargs))  # type: ignore[arg-type]


def test_derive_seed_is_stable_and_distinct() -> None:
    assert derive_seed(1, "wall", 0) == derive_seed(1, "wall", 0)
    assert derive_seed(1, "wall", 0) != derive_seed(1, "wall", 1)
    assert derive_seed(1, "wall", 0) != derive_seed(2, "wall", 0)
    assert 0 <= derive_seed("x") < 2**63


def test_config_rejects_bad_lineups() -> None:
    with pytest.raises(SimConfigError, match="known bots"):
        SimConfig(bots=("random", "random", "random", "nobody"), units=1)
    with pytest.raises(SimConfigError, match="exactly 4"):
        SimConfig(bots=("random",), units=1)
    with pytest.raises(SimConfigError, match="at least one"):
        SimConfig(bots=LINEUP, units=0)


def test_worker_count_does_not_change_results() -> None:
    config = SimConfig(bots=LINEUP, units=10, seed=11, duplicate=True)
    one = collect(config, workers=1)
    two = collect(config, workers=2)
    assert one == two
    assert [records[0].unit for records in two] == list(range(10))


def test_same_seed_same_results_other_seed_other_results() -> None:
    config = SimConfig(bots=LINEUP, units=6, seed=3)
    assert collect(config, workers=1) == collect(config, workers=1)
    other = SimConfig(bots=LINEUP, units=6, seed=4)
    assert collect(config, workers=1) != collect(other, workers=1)


def test_duplicate_mode_rotates_seats_over_identical_walls() -> None:
    config = SimConfig(bots=LINEUP, units=3, seed=5, duplicate=True, keep_events=True)
    for records in collect(config, workers=1):
        assert len(records) == 4
        starts = [record.events[0] for record in records if record.events is not None]
        assert len(starts) == 4
        walls = {(tuple(s["wall"]), tuple(s["hands"]), s["dealer"]) for s in starts}
        assert len(walls) == 1, "every rotation plays the same deal"
        seat_maps = [record.seat_of for record in records]
        assert seat_maps == [seating(r) for r in range(4)]
        for player in range(4):  # each player sits at every seat once
            assert sorted(seat_map[player] for seat_map in seat_maps) == [0, 1, 2, 3]


def test_records_are_zero_sum_and_match_the_logs() -> None:
    config = SimConfig(
        bots=LINEUP, units=2, seed=9, mode="matches", hands_per_match=3, keep_events=True
    )
    for records in collect(config, workers=1):
        assert len(records) == 3
        for record in records:
            assert sum(record.points) == 0  # R41
            assert record.events is not None
            assert replay(record.events).result is not None  # the log replays


def test_summary_counts_and_interval() -> None:
    config = SimConfig(bots=("efficient", "random", "random", "random"), units=40, seed=1)
    summary = Summary.empty(config.bots)
    for records in run(config, workers=1):
        summary.add_unit(records)
    assert summary.hands == 40
    assert sum(p.points for p in summary.players) == 0
    low, high = summary.players[0].ci95
    assert low <= summary.players[0].mean_points <= high
    data = summary.to_json()
    assert data["players"][0]["bot"] == "efficient"
    assert summary.players[0].wins > summary.players[1].wins


def test_ray_runs_the_same_job_on_a_local_cluster() -> None:
    ray = pytest.importorskip("ray")
    config = SimConfig(bots=LINEUP, units=4, seed=21)
    expected = collect(config, workers=1)
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        assert collect(config, use_ray=True) == expected
    finally:
        ray.shutdown()


runner = CliRunner()


def test_cli_prints_tables_and_writes_out_and_plot(tmp_path: Path) -> None:
    out, plot = tmp_path / "hands.jsonl", tmp_path / "points.png"
    result = runner.invoke(
        app,
        [
            "simulate",
            "--bots",
            "efficient,random,random,random",
            "--hands",
            "8",
            "--workers",
            "1",
            "--no-progress",
            "--out",
            str(out),
            "--plot",
            str(plot),
            "--duplicate",
        ],
    )
    assert result.exit_code == 0, result.output
    for text in ("P1 efficient", "pts/hand", "95% CI", "Winning patterns", "流局"):
        assert text in result.output
    hands = split_hands(load_events(out.read_text("utf-8").splitlines()))
    assert len(hands) == 32
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_json_matches_across_worker_counts() -> None:
    def results(workers: str) -> dict[str, object]:
        result = runner.invoke(
            app,
            [
                "simulate",
                "--bots",
                "strong,efficient,random,random",
                "--matches",
                "2",
                "--hands-per-match",
                "2",
                "--seed",
                "4",
                "--workers",
                workers,
                "--json",
                "--no-progress",
            ],
        )
        assert result.exit_code == 0, result.output
        data: dict[str, object] = json.loads(result.stdout)
        return data

    one = results("1")
    assert one == results("2")
    assert one["hands"] == 4


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bots", "random,random,random"], "four comma-separated"),
        (["--bots", "random,random,random,deepblue"], "unknown bot"),
        (["--hands", "0"], "at least 1"),
        (["--hands", "3", "--matches", "2"], "not both"),
        (["--workers", "0"], "at least 1"),
        (["--out", "/nonexistent-dir/x.jsonl"], "does not exist"),
        (["--hands", "many"], "Invalid value"),
    ],
)
def test_cli_bad_options_exit_2_with_a_message(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["simulate", "--no-progress", *args])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output
