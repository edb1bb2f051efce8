"""The bot measurement tools in benchmarks/ (issue 11): paired comparison and calibration.

They print numbers rather than assert them, but what they print must mean what the docs say:
a bot compared with itself differs by nothing, and recording the strong bot's beliefs does
not change a single decision.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from duyun.bots import make_bot
from duyun.engine import Round, deal_setup
from duyun.rules import DUYUN
from duyun.sim.runner import play_round

ROOT = Path(__file__).resolve().parents[2]


def load_tool(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def run_tool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def play_p1(p1_of: Any) -> tuple[Round, Any, list[Any]]:
    """One hand of P1 (``p1_of(game)``, handed the real hand as the probing tools are)
    against three efficient bots: the hand, P1 and every move played."""
    game = Round(deal_setup(35_004, dealer=2), DUYUN)
    p1 = p1_of(game)
    bots = [p1] + [make_bot("efficient", seat) for seat in (1, 2, 3)]
    moves = []
    while not game.is_over:
        seat = game.to_act[0]
        moves.append(bots[seat].choose(game.view(seat)))
        game.apply(moves[-1])
    return game, p1, moves


def test_a_bot_paired_with_itself_differs_on_no_wall() -> None:
    result = run_tool(
        "benchmarks/paired_bots.py", "strong", "strong", "--walls", "3", "--workers", "1"
    )
    assert result.returncode == 0, result.stderr
    assert "difference +0.000 ± 0.000 per hand (0 walls played differently)" in result.stdout


def test_paired_bots_names_an_unknown_bot() -> None:
    result = run_tool("benchmarks/paired_bots.py", "strongest", "--walls", "3")
    assert result.returncode != 0
    assert "unknown bot 'strongest'" in result.stderr
    assert "Traceback" not in result.stderr


def test_recording_the_strong_bots_beliefs_changes_no_decision() -> None:
    tool = load_tool("calibrate_strong")
    for unit in range(3):
        logs = []
        for recording in (False, True):
            bots = [make_bot("efficient", 10 * unit + seat) for seat in range(4)]
            bots[0] = tool.RecordingStrongBot(7) if recording else make_bot("strong", 7)
            game = Round(deal_setup(5_000 + unit, dealer=unit % 4), DUYUN)
            play_round(game, bots)
            logs.append(game.events)
            if recording:
                turns = bots[0].turns
                assert turns, "the recording bot noted no discard"
                assert all(len(turn.feeds) == 3 for turn in turns)
                assert all(0.0 <= chance <= 1.0 for t in turns for _, _, _, chance in t.feeds)
        assert logs[0] == logs[1]


def test_calibration_prints_both_tables() -> None:
    result = run_tool("benchmarks/calibrate_strong.py", "8", "--workers", "1")
    assert result.returncode == 0, result.stderr
    assert "feeding: per opponent" in result.stdout
    assert "hazard: another player wins before the next turn" in result.stdout


def test_oracle_search_samples_the_real_hands_with_only_the_wall_shuffled() -> None:
    """benchmarks/oracle_search.py's ceiling (issue 35) is only a ceiling if its samples are
    the real hand: every other seat's tiles as they are, the live wall's tiles in some order."""
    load_tool("paired_bots")  # imported by the tool as a sibling script
    tool = load_tool("oracle_search")
    game = Round(deal_setup(35_002, dealer=0), DUYUN)
    bots = [make_bot("efficient", seat) for seat in range(4)]
    while game.wall_remaining > 40:  # well into the hand, melds and rivers in place
        seat = game.to_act[0]
        game.apply(bots[seat].choose(game.view(seat)))
    seat = game.to_act[0]
    view = game.view(seat)
    real_wall = list(game.wall[game.front : game.back])
    oracle = tool.OracleHandsSearch(3)
    oracle.game = game
    orders = set()
    for _ in range(4):
        world = oracle.sample_world(view, DUYUN, None)
        assert world.counts == game.counts
        assert world.melds == game.melds
        live = list(world.wall[world.front : world.back])
        assert sorted(live) == sorted(real_wall)
        orders.add(tuple(live))
        assert world.view(seat) == view
    assert len(orders) > 1, "the wall was never shuffled"
    assert list(game.wall[game.front : game.back]) == real_wall, "the real hand was changed"


def test_pooled_oracle_deals_the_real_hands_tiles_among_those_hands() -> None:
    """The pooled oracle (issue 35) knows which tiles are live and nothing about who holds the
    rest: the other hands' tiles together are the real ones, each hand keeps its size, the
    seat's own view is unchanged, and the dealt hands differ from the real ones."""
    load_tool("paired_bots")
    tool = load_tool("oracle_search")
    game = Round(deal_setup(35_003, dealer=1), DUYUN)
    bots = [make_bot("efficient", seat) for seat in range(4)]
    while game.wall_remaining > 45:
        seat = game.to_act[0]
        game.apply(bots[seat].choose(game.view(seat)))
    seat = game.to_act[0]
    view = game.view(seat)
    others = [s for s in range(4) if s != seat and not view.won[s] and not view.baoting[s]]
    real_pool = sorted(k for s in others for k in range(27) for _ in range(game.counts[s][k]))
    real_wall = sorted(game.wall[game.front : game.back])
    pooled = tool.PooledHandsSearch(5)
    pooled.game = game
    moved = 0
    for _ in range(6):
        world = pooled.sample_world(view, DUYUN, None)
        pool = sorted(k for s in others for k in range(27) for _ in range(world.counts[s][k]))
        assert pool == real_pool
        assert [sum(world.counts[s]) for s in others] == [sum(game.counts[s]) for s in others]
        assert sorted(world.wall[world.front : world.back]) == real_wall
        assert world.counts[seat] == game.counts[seat]
        assert world.view(seat) == view
        moved += any(world.counts[s] != game.counts[s] for s in others)
        while world.result is None:  # a dealt hand plays to its end
            actor = world.to_act[0]
            world.apply(bots[actor].choose(world.view(actor)))
    assert moved, "the other hands' tiles were never dealt anew"
    assert sorted(game.wall[game.front : game.back]) == real_wall, "the real hand was changed"


def test_oracle_search_merges_runs_of_one_seed_wall_by_wall(tmp_path: Path) -> None:
    """Runs of other bots or other walls of one seed pair up in the summary on the walls where
    every bot was played; a bot whose points on a wall differ between two files means the
    files are not of the same seed."""
    load_tool("paired_bots")
    tool = load_tool("oracle_search")
    first = tmp_path / "a.jsonl"
    second = tmp_path / "b.jsonl"
    third = tmp_path / "c.jsonl"
    first.write_text('{"wall": 0, "oracle": 5, "strong": 1}\n{"wall": 1, "oracle": 2, "strong": 0}')
    second.write_text(
        '{"wall": 1, "pooled": 3, "strong": 0}\n{"wall": 2, "pooled": 9, "strong": 4}'
    )
    third.write_text('{"wall": 7, "pooled": 1, "strong": 2}')
    assert tool.merge_by_wall([first, second]) == [{"oracle": 2, "strong": 0, "pooled": 3}]
    assert tool.merge_by_wall([second, third]) == [
        {"pooled": 3, "strong": 0},
        {"pooled": 9, "strong": 4},
        {"pooled": 1, "strong": 2},
    ]
    second.write_text('{"wall": 1, "pooled": 3, "strong": 7}\n')
    with pytest.raises(SystemExit, match="wall 1: strong scored 0 and 7"):
        tool.merge_by_wall([first, second])


def test_oracle_search_breaks_each_bots_points_down_by_rule() -> None:
    """The breakdown of a wall's points (wins, self-draws, deal-ins, points by the rule that
    paid them) adds up to the points themselves, for every bot on the wall."""
    load_tool("paired_bots")
    tool = load_tool("oracle_search")
    row = tool.wall_points((3, "efficient", 20261206, ("strong",)))
    counts = row["detail"]["strong"]
    assert sum(value for key, value in counts.items() if key.startswith("R")) == row["strong"]
    assert counts.get("self_draws", 0) <= counts.get("wins", 0) <= 4
    text = tool.summarise([{**row, "wall": 0}, {**row, "wall": 1}], "two walls")
    assert "where the points came from, 2 walls (8 hands each)" in text


def test_oracle_search_plays_a_variant_class_and_pairs_it_with_the_search_bot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--bots module:Class`` plays an experiment's class (benchmarks/search_variants.py) as
    P1, and the summary pairs it with the search and strong bots' rows of the same walls."""
    pytest.importorskip("numpy")
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    load_tool("paired_bots")
    tool = load_tool("oracle_search")
    spec = "search_variants:LearnedHandsSearch"
    game = Round(deal_setup(5), DUYUN)
    bot = tool.make_p1(spec, 7, game)
    assert type(bot).__name__ == "LearnedHandsSearch" and bot.LEARNED_HANDS
    rows = [
        {"wall": 0, "search": 6, "strong": 0, spec: 12},
        {"wall": 1, "search": -6, "strong": 6, spec: -6},
    ]
    text = tool.summarise(rows, "two walls")
    assert f"{spec} - search: +0.750" in text and f"{spec} - strong: +0.000" in text


def test_the_learned_hands_variant_takes_the_strong_bots_own_advice() -> None:
    """Only its samples differ from the search bot's: its advisor, the learned strong bot
    with the model's danger and readiness switched off, plays as the strong bot does."""
    pytest.importorskip("numpy")
    variants = load_tool("search_variants")
    advisor = variants.LearnedHandsSearch(3).strong
    results = []
    for players in ([type(advisor)] * 4, [None] * 4):
        bots = []
        for seat in range(4):
            if players[seat] is None:
                bots.append(make_bot("strong", 100 + seat))
            else:
                twin = variants.LearnedHandsSearch(100 + seat).strong
                bots.append(twin)
        game = Round(deal_setup(11), DUYUN)
        play_round(game, bots)
        assert game.result is not None
        results.append((game.result.totals, len(game.events)))
    assert results[0] == results[1]


def test_oracle_choices_probes_change_no_move_and_count_every_searched_decision(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """benchmarks/oracle_choices.py (issue 35) asks a twin search and the oracle every
    question P1's search is asked, and only records their answers: the hand is played exactly
    as the search alone plays it, every searched decision is counted once under its kind, and
    the counts it derives stay within the decisions they come from."""
    load_tool("paired_bots")
    load_tool("oracle_search")
    tool = load_tool("oracle_choices")
    from duyun.bots.search import SearchBot

    monkeypatch.setattr(SearchBot, "BUDGET", 24)  # small searches: the same code, quickly

    alone, search, alone_moves = play_p1(lambda game: SearchBot(11))
    counts: dict[str, Any] = {}
    probed, probe, probed_moves = play_p1(lambda game: tool.ChoiceProbe(11, game, counts))
    assert probed_moves == alone_moves
    assert probed.result is not None and alone.result is not None
    assert probed.result.totals == alone.result.totals
    assert search.searched > 0
    assert sum(c["decisions"] for c in counts.values()) == probe.search.searched
    assert set(counts) <= set(tool.KINDS)
    for kind, c in counts.items():
        for field in ("twin differs", "oracle differs", "discards compared"):
            assert 0 <= c.get(field, 0) <= c["decisions"], (kind, field)
        for field in ("search deals in", "oracle deals in"):
            assert 0 <= c.get(field, 0) <= c.get("discards compared", 0), (kind, field)
    row = {"wall": 0, "points": 4, "counts": counts}
    text = tool.summarise([row])
    assert all(kind in text for kind in tool.KINDS)
    out = tmp_path / "choices.jsonl"
    out.write_text(json.dumps(row) + "\n" + json.dumps(row) + "\n")
    with pytest.raises(SystemExit, match="wall 0 is already"):
        tool.read_rows([out])


def test_the_search_bot_is_the_measured_variants() -> None:
    """大師's samples are those ``search_variants.LearnedHandsSearch`` was measured with, and
    its claims are searched as ``ClaimStrongRolloutsSearch``'s were (docs/simulate.md): the
    three play the same moves, hand after hand."""
    pytest.importorskip("numpy")
    variants = load_tool("search_variants")
    for seed in (4, 9):
        played = []
        bots = (
            make_bot("search", 21),
            variants.LearnedHandsSearch(21),
            variants.ClaimStrongRolloutsSearch(21),
        )
        for bot in bots:
            game = Round(deal_setup(seed), DUYUN)
            players = [bot, *(make_bot("efficient", seat) for seat in (1, 2, 3))]
            play_round(game, players)
            assert game.result is not None and bot.searched > 0
            played.append((game.result.totals, [str(event) for event in game.events]))
        assert played[0] == played[1] == played[2]


def test_wait_reading_scores_the_model_within_ready_hands() -> None:
    """benchmarks/wait_reading.py (issue 35): on a few hands it finds ready opponents and
    prints shares between 0 and 1, the same on a second run of the seed."""
    pytest.importorskip("numpy")
    args = ("benchmarks/wait_reading.py", "--hands", "12", "--seed", "35100", "--samples", "2")
    first = run_tool(*args)
    assert first.returncode == 0, first.stderr
    assert first.stdout == run_tool(*args).stdout
    lines = first.stdout.splitlines()
    count = int(lines[1].rsplit(":", 1)[1])
    assert count > 0, first.stdout
    shares = [float(x) for x in re.findall(r"\b[01]\.\d{3}\b", "\n".join(lines[2:]))]
    assert shares and all(0.0 <= share <= 1.0 for share in shares), first.stdout


def change_judge_with_small_searches(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """benchmarks/change_judge.py (and the sibling tools it imports), with the search bot's
    budget small (the same code, quickly), its samples uniform (no NumPy needed), its claims'
    rollouts by the policy (as the judge was first run: the race then changes the strong
    bot's choice in the test's hand) and a rival seeded as P1 (``--versus search`` is then
    P1's twin)."""
    load_tool("paired_bots")
    load_tool("oracle_search")
    load_tool("oracle_choices")
    tool = load_tool("change_judge")
    from duyun.bots.search import SearchBot

    monkeypatch.setattr(SearchBot, "BUDGET", 48)
    monkeypatch.setattr(SearchBot, "LEARNED_HANDS", False)
    monkeypatch.setattr(SearchBot, "STRONG_CLAIM_ROLLOUTS", False)
    monkeypatch.setattr(tool, "RIVAL_SEED_OFFSET", 0)
    return tool


def test_change_judge_records_every_searched_decision_without_changing_a_move(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """benchmarks/change_judge.py (issue 35) reads the search's race after each decision and
    judges its best alternative on the real hand: the hand is played exactly as the search
    alone plays it, every searched decision gets one record, the changes it records are the
    changes the search made, and at the bot's own thresholds the judged points are exactly
    those of its changes. A rival asked the same questions is judged on the same deals: a
    rival that is P1 itself (same seed) differs from it by exactly nothing."""
    tool = change_judge_with_small_searches(monkeypatch)
    from duyun.bots.search import SearchBot

    alone, search, alone_moves = play_p1(lambda game: SearchBot(11))
    records: list[dict[str, Any]] = []
    judged, probe, judged_moves = play_p1(
        lambda game: tool.JudgedSearch("search", 11, game, 4, records, versus="search")
    )
    assert judged_moves == alone_moves
    assert judged.result is not None and alone.result is not None
    assert judged.result.totals == alone.result.totals
    assert search.searched > 0 and len(records) == probe.bot.searched
    assert sum(record["changed"] for record in records) == probe.bot.changed > 0
    for record in records:
        assert record["kind"] in range(len(tool.KINDS)) and record["samples"] >= 2
        assert ("judged" in record) == (record["gain"] > 0 or record["changed"])
        assert record["rival_changed"] == record["changed"]  # the twin chose the same
        assert record.get("versus", 0.0) == 0.0
        if record["changed"]:
            assert record["rival_judged"] == record["judged"]
    changes = sum(record["judged"] for record in records if record["changed"])
    own, _ = tool.threshold_points(records, SearchBot.MARGIN, SearchBot.Z)
    assert own == pytest.approx(changes)
    row = {"wall": 0, "bot": "search", "versus": "search", "points": 4, "records": records}
    text = tool.summarise([row, dict(row, wall=1)], 0.5, 1.5)
    assert all(kind in text for kind in tool.KINDS) and "margin 0.25" in text
    assert "the rival search" in text


def test_change_judge_judges_each_change_again_with_the_strong_bot_playing_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--strong-judge``: each change the search made is judged a second time on the same
    first deals, P1's rest of the hand played by a twin of its strong bot (asked only for
    P1's own views, every move it gives played) and the others by the rollouts' rules; a
    decision the search left alone gets no second judgement, the moves of the hand are the
    search's alone, and a rival that is P1's twin differs from it there by nothing."""
    tool = change_judge_with_small_searches(monkeypatch)
    from duyun.bots.search import SearchBot
    from duyun.bots.strong import StrongBot

    asked: list[int] = []
    original_fork = StrongBot.fork

    def spied_fork(self: StrongBot) -> StrongBot:
        twin = original_fork(self)
        inner = twin.choose

        def choose(view: Any) -> Any:
            asked.append(view.seat)
            return inner(view)

        twin.choose = choose  # type: ignore[method-assign]
        return twin

    alone, _, alone_moves = play_p1(lambda game: SearchBot(11))
    monkeypatch.setattr(StrongBot, "fork", spied_fork)
    records: list[dict[str, Any]] = []
    judged, _, moves = play_p1(
        lambda game: tool.JudgedSearch(
            "search", 11, game, 4, records, versus="search", strong_deals=3
        )
    )
    assert moves == alone_moves
    assert judged.result is not None and alone.result is not None
    assert judged.result.totals == alone.result.totals
    changed = [r for r in records if r["changed"]]
    assert changed and all("judged_strong" in r and "judged_head" in r for r in changed)
    assert not any("judged_strong" in r for r in records if not r["changed"])
    assert asked and set(asked) == {0}  # the twin plays P1 only
    # the rival, P1's twin, is judged by the strong bot on the same deals: no difference
    assert [r["versus_strong"] for r in records if "versus_strong" in r] == [0.0] * len(changed)
    row = {"wall": 0, "bot": "search", "versus": "search", "points": 4, "records": records}
    text = tool.summarise([row, dict(row, wall=1)], 0.5, 1.5)
    assert "by the rollout policy and by the strong bot" in text
    assert "rival - P1 with P1's rest of the hand played by the strong bot" in text


def test_the_search_variants_change_only_what_they_say(monkeypatch: pytest.MonkeyPatch) -> None:
    """The measured variants of benchmarks/search_variants.py: the deeper ones are the search
    bot with its budget and thresholds moved; the continuation ones its rollout switches; the
    safer-candidates one weighs every candidate the search weighs, plus the model's safest
    discards when it reads an opponent as ready."""
    pytest.importorskip("numpy")
    variants = load_tool("search_variants")
    from duyun.bots.search import SearchBot

    deeper = variants.DeeperBolderSearch(3)
    assert (deeper.BUDGET, deeper.MARGIN, deeper.Z) == (2 * SearchBot.BUDGET, 0.3, 1.0)
    # the continuation variants move one rollout switch each, and nothing of the race
    knobs = ("BUDGET", "MARGIN", "Z", "DROP_Z", "LEARNED_HANDS", "SEARCH_DISCARDS")
    for variant, moved, switches in (
        (variants.RoutesSearch, "ROUTES", {"ROUTES": True, "VALUE_ROLLOUTS": True}),
        (
            variants.PlainRolloutsSearch,
            "VALUE_ROLLOUTS",
            {"ROUTES": False, "VALUE_ROLLOUTS": False},
        ),
        (
            variants.SharpRolloutsSearch,
            "SHARP_ROLLOUTS",
            {"ROUTES": False, "VALUE_ROLLOUTS": True, "SHARP_ROLLOUTS": True},
        ),
    ):
        bot = variant(3)
        assert {name: getattr(bot, name) for name in switches} == switches
        assert getattr(SearchBot, moved) != switches[moved]
        assert [getattr(bot, k) for k in knobs] == [getattr(SearchBot, k) for k in knobs]
    monkeypatch.setattr(SearchBot, "BUDGET", 24)  # small searches: the same code, quickly
    safer = variants.SaferCandidatesSearch(3)
    plain = SearchBot(3)
    widened = 0
    for seed in (4, 9, 12):
        game = Round(deal_setup(seed), DUYUN)
        bots = [safer, *(make_bot("efficient", seat) for seat in (1, 2, 3))]
        while not game.is_over:
            seat = game.to_act[0]
            view = game.view(seat)
            if seat == 0 and len(view.legal) > 1:
                advice = plain.strong.choose(view)
                mine = plain.candidates(view, advice)
                theirs = safer.candidates(view, advice)
                assert theirs[: len(mine)] == mine
                widened += len(theirs) > len(mine)
            game.apply(bots[seat].choose(view))
    assert widened > 0


def test_a_rollout_player_paired_with_itself_differs_on_no_wall() -> None:
    result = run_tool(
        "benchmarks/rollout_players.py",
        "--players",
        "sharp,sharp,value",
        "--walls",
        "4",
        "--workers",
        "1",
    )
    assert result.returncode == 0, result.stderr
    assert "sharp - sharp: +0.000 ± 0.000 per hand" in result.stdout
    assert "value - sharp:" in result.stdout


def test_rollout_players_names_an_unknown_player() -> None:
    result = run_tool("benchmarks/rollout_players.py", "--players", "value+strong-pongs")
    assert result.returncode != 0
    assert "unknown player 'value+strong-pongs'" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_rollout_player_takes_the_strong_bots_move_only_where_its_name_says() -> None:
    """``value+strong-claims`` answers every claim window as the strong bot does and plays
    every turn as the rollout policy's own seat would (fast_action on the real round)."""
    from duyun.bots.rollout import fast_action
    from duyun.bots.strong import StrongBot

    load_tool("paired_bots")  # imported by the tool as a sibling script
    players = load_tool("rollout_players")
    shadow = StrongBot(0)
    claims = turns = 0

    def checked(game: Round) -> Any:
        player = players.player_factory("value+strong-claims")(0, game)
        inner = player.choose

        def choose(view: Any) -> Any:
            nonlocal claims, turns
            advice = shadow.choose(view)
            own = fast_action(game, view.seat, True, False, False)
            move = inner(view)
            if view.claim_tile is not None:
                claims += 1
                assert move == advice
            else:
                turns += 1
                assert move == own
            return move

        player.choose = choose
        return player

    play_p1(checked)
    assert claims > 0 and turns > 0


def test_the_strong_next_turn_variant_asks_the_strong_bot_once_a_position(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``StrongNextTurnSearch``'s rollouts hand the own seat's next turn to the strong bot:
    asked only at that seat's own turn (R3: a draw, then a discard, a kong or 報聽), its move
    played, and one question a position within a search (the memory), while the race's knobs
    and the rollout switches stay 大師's."""
    variants = load_tool("search_variants")
    from duyun.bots.search import SearchBot
    from duyun.engine.phases import Phase

    monkeypatch.setattr(SearchBot, "BUDGET", 24)  # small searches: the same code, quickly
    bot = variants.StrongNextTurnSearch(5)
    knobs = ("BUDGET", "MARGIN", "Z", "DROP_Z", "LEARNED_HANDS", "VALUE_ROLLOUTS", "ROUTES")
    assert [getattr(bot, k) for k in knobs] == [getattr(SearchBot, k) for k in knobs]
    asked: list[tuple[Any, Any]] = []
    searches = 0
    original_search = bot.search

    def counted_search(*args: Any, **kwargs: Any) -> Any:
        nonlocal searches
        searches += 1
        chosen = original_search(*args, **kwargs)
        positions = [(tuple(v.hand), len(v.melds[v.seat]), tuple(v.baoting)) for v, _ in asked]
        assert len(positions) == len(set(positions))  # remembered within the search
        asked.clear()
        return chosen

    def spy_fork(strong: Any) -> Any:
        twin = type(strong).fork(strong)
        inner = twin.choose

        def choose(view: Any) -> Any:
            move = inner(view)
            assert view.seat == 0 and view.phase == Phase.TURN.value and move in view.legal
            asked.append((view, move))
            return move

        twin.choose = choose
        return twin

    monkeypatch.setattr(bot, "search", counted_search)
    monkeypatch.setattr(bot.strong, "fork", lambda: spy_fork(bot.strong))
    game = Round(deal_setup(11), DUYUN)
    bots = [bot, *(make_bot("efficient", seat) for seat in (1, 2, 3))]
    while not game.is_over:
        seat = game.to_act[0]
        game.apply(bots[seat].choose(game.view(seat)))
    assert searches > 0 and bot.asked > 0


def test_the_confirmed_variant_keeps_a_change_only_if_the_strong_bot_playing_on_gains(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``ConfirmedSearch``: where the race replaces the strong bot's choice, the change and
    that choice are played again on fresh samples with the strong bot playing on, and the
    change stands only if it gains there: a confirmation that sees no gain keeps every one
    of the strong bot's choices, one that sees a gain keeps every change the race makes."""
    variants = load_tool("search_variants")
    from duyun.bots.search import SearchBot

    monkeypatch.setattr(SearchBot, "BUDGET", 48)  # small searches: the same code, quickly
    monkeypatch.setattr(SearchBot, "LEARNED_HANDS", False)
    # 大師 as the variant was measured beside (its claims' rollouts by the policy too): the
    # race then changes the strong bot's choice in this hand
    monkeypatch.setattr(SearchBot, "STRONG_CLAIM_ROLLOUTS", False)
    inner_search = SearchBot.search

    def changes_kept(gain: float) -> tuple[int, int]:
        """The race's changes and the changes kept, the confirmation seeing ``gain``."""
        bot = variants.ConfirmedSearch(11)
        race_changes = 0
        asked: list[Any] = []

        def race(self: Any, view: Any, candidates: Any, advice: Any, deadline: Any = None) -> Any:
            nonlocal race_changes
            chosen = inner_search(self, view, candidates, advice, deadline)
            race_changes += chosen != advice
            return chosen

        def confirm(world: Any, action: Any, seat: int, advisor: Any) -> float:
            asked.append(action)
            # per sample the change is played first, the strong bot's choice second
            return gain if len(asked) % 2 == 1 else 0.0

        monkeypatch.setattr(SearchBot, "search", race)
        monkeypatch.setattr(variants, "strong_play_out", confirm)
        play_p1(lambda game: bot)
        assert len(asked) == 2 * bot.CONFIRM * race_changes
        return race_changes, bot.changed

    race_changes, kept = changes_kept(0.0)
    assert race_changes > 0 and kept == 0
    race_changes, kept = changes_kept(1.0)
    assert race_changes > 0 and kept == race_changes


def test_the_strong_rollouts_variant_plays_every_rollout_with_the_strong_bot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``StrongRolloutsSearch`` is 大師's race with every rollout's own seat played by the
    strong bot: each value the race reads is ``strong_play_out``'s for that sample and
    candidate, and the race's rule picks on those values: passing, which they favour by ten
    points, is taken at every claim the bot searches (R10: a pong or kong offered, no win)."""
    variants = load_tool("search_variants")
    from duyun.bots.search import SearchBot
    from duyun.engine.actions import ActionKind

    monkeypatch.setattr(SearchBot, "BUDGET", 24)  # small searches: the same code, quickly
    monkeypatch.setattr(SearchBot, "LEARNED_HANDS", False)
    played: list[tuple[Any, int]] = []

    def favour_passing(world: Any, action: Any, seat: int, advisor: Any) -> float:
        assert advisor is bot.strong and action in world.view(seat).legal
        played.append((action, seat))
        return 10.0 if action.kind is ActionKind.PASS else 0.0

    monkeypatch.setattr(variants, "strong_play_out", favour_passing)
    bot = variants.StrongRolloutsSearch(3)
    moves: list[Any] = []
    game = Round(deal_setup(35_004, dealer=2), DUYUN)
    bots = [bot] + [make_bot("efficient", seat) for seat in (1, 2, 3)]
    while not game.is_over:
        seat = game.to_act[0]
        view = game.view(seat)
        move = bots[seat].choose(view)
        if seat == 0:
            moves.append((view, move))
        game.apply(move)
    assert played and {seat for _, seat in played} == {0}
    assert bot.rollouts == len(played)
    searched_claims = [
        move
        for view, move in moves
        if view.claim_tile is not None
        and len(view.legal) > 1
        and all(a.kind is not ActionKind.HU for a in view.legal)
    ]
    assert searched_claims and all(m.kind is ActionKind.PASS for m in searched_claims)


def test_the_claim_strong_rollouts_variant_plays_on_with_the_strong_bot_at_claims_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``ClaimStrongRolloutsSearch``: a search at a claim on a discard (R10) plays every
    rollout's own seat with the strong bot, a search at the own turn with the rollout
    policy, as 大師 does."""
    variants = load_tool("search_variants")
    from duyun.bots import search as search_module
    from duyun.bots.search import SearchBot

    monkeypatch.setattr(SearchBot, "BUDGET", 24)  # small searches: the same code, quickly
    monkeypatch.setattr(SearchBot, "LEARNED_HANDS", False)
    by_strong: list[bool] = []  # per rollout: the world was at a claim window
    by_policy: list[bool] = []
    inner_play_out = search_module.play_out

    def strong(world: Any, action: Any, seat: int, advisor: Any) -> float:
        by_strong.append(world.view(seat).claim_tile is not None)
        return 0.0

    def policy(world: Any, action: Any, seat: int, *switches: Any) -> float:
        by_policy.append(world.view(seat).claim_tile is not None)
        return float(inner_play_out(world, action, seat, *switches))

    monkeypatch.setattr(search_module, "strong_play_out", strong)
    monkeypatch.setattr(search_module, "play_out", policy)
    bot = variants.ClaimStrongRolloutsSearch(3)
    for seed in (35_004, 11, 12, 13):
        game = Round(deal_setup(seed, dealer=2), DUYUN)
        bots = [bot] + [make_bot("efficient", seat) for seat in (1, 2, 3)]
        while not game.is_over:
            seat = game.to_act[0]
            game.apply(bots[seat].choose(game.view(seat)))
    assert by_strong and all(by_strong)
    assert by_policy and not any(by_policy)
