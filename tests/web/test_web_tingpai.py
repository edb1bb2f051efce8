"""The 聽牌 helper (static/js/tingpai.js) against the engine, in Chromium (issue 21 item 7).

Seeded self-played hands; at checkpoints through each hand every seat's own event stream (as the
server sends it, ``events_for``) is folded by the page and the helper's answer compared with the
engine's: the waits of a 13-tile hand (``duyun.analysis.waits``, R10, R11: a kind held four
times is no wait), on a 14-tile turn the waits after each discard, and for every wait how many
copies the seat has not seen (four less ``SeatView.visible_counts``). Then the table's 聽 button
shows the helper on a real table, and after 報聽 it shows by itself.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from web_helpers import DESKTOP, SKIP_REASON, WebServer

from duyun.analysis import shanten, waits
from duyun.engine import ActionKind, Round, events_for, new_round, seat_view
from duyun.tiles import tile_to_str

if SKIP_REASON:
    pytest.skip(SKIP_REASON, allow_module_level=True)

from test_web_layout import SHOW_SCENE, _scene

pytestmark = pytest.mark.slow

SEEDS = range(6)


def _expected(game: Round, seat: int) -> dict[str, Any]:
    view = seat_view(game, seat)
    counts = [0] * 27
    for t in view.hand:
        counts[t] += 1
    held = counts[:]
    for meld in view.own_melds:
        assert meld.tile is not None
        held[meld.tile] += meld.kind.size
    unseen = [4 - n for n in view.visible_counts()]

    def named(found: list[int]) -> list[list[Any]]:
        return [[tile_to_str(t), unseen[t]] for t in found]

    if sum(counts) % 3 == 1:
        return {"kind": "waits", "waits": named(waits(counts, held))}
    options = {}
    for t in sorted({t for t in view.hand}):
        counts[t] -= 1
        held[t] -= 1
        found = waits(counts, held)
        counts[t] += 1
        held[t] += 1
        if found:
            options[tile_to_str(t)] = named(found)
    return {"kind": "discards", "options": options}


def _after(counts: list[int], tile: int | None, rng: random.Random) -> float:
    """The shanten left after discarding ``tile`` (ties broken at random)."""
    assert tile is not None
    counts[tile] -= 1
    value = shanten(counts) + rng.random() / 2
    counts[tile] += 1
    return value


def _checkpoints(seed: int) -> list[dict[str, Any]]:
    """Play a hand eagerly (pongs, kongs and 報聽 taken, wins passed up to keep it long, discards
    towards a ready hand) and record each seat's expected helper every few events."""
    rng = random.Random(seed)
    game = new_round(seed=seed)
    out: list[dict[str, Any]] = []
    step = 0
    while game.to_act:
        seat = game.to_act[0]
        legal = list(game.legal_actions(seat))
        keep = [a for a in legal if a.kind is not ActionKind.HU] or legal
        eager = [a for a in keep if a.kind.value.endswith(("pong", "kong", "baoting"))]
        discards = [a for a in keep if a.kind is ActionKind.DISCARD]
        if eager and rng.random() < 0.7:
            action = rng.choice(eager)
        elif discards:
            # head for ready hands (the lowest shanten after the discard), so that waits occur
            counts = list(game.counts[seat])
            action = min(discards, key=lambda a: _after(counts, a.tile, rng))
        else:
            action = next((a for a in keep if a.kind is ActionKind.PASS), rng.choice(keep))
        game.apply(action)
        step += 1
        if step % 3 or not game.to_act:
            continue
        for s in range(4):
            if seat_view(game, s).claim_is_rob:
                continue  # the robbed tile is counted as seen by the engine only then
            out.append(
                {
                    "seat": s,
                    "events": events_for(list(game.events), s),
                    "expected": _expected(game, s),
                }
            )
    return out


COMPARE = """async (text) => {
    const checkpoints = JSON.parse(text);
    const { foldEvents } = await import('/static/js/state.js');
    const { tingpaiFor } = await import('/static/js/tingpai.js');
    const problems = [];
    let waitsSeen = 0;
    for (const [i, cp] of checkpoints.entries()) {
        const tp = tingpaiFor(foldEvents(cp.events), cp.seat);
        const want = cp.expected;
        let got;
        if (!tp) { problems.push(`${i}: no helper`); continue; }
        if (tp.kind !== want.kind) {
            problems.push(`${i}: kind ${tp.kind} != ${want.kind}`);
            continue;
        }
        if (tp.kind === 'waits') {
            got = tp.waits.map(w => [w.tile, w.left]);
            waitsSeen += got.length;
            const [g, w] = [JSON.stringify(got), JSON.stringify(want.waits)];
            if (g !== w) problems.push(`${i} seat ${cp.seat}: ${g} != ${w}`);
        } else {
            got = {};
            for (const o of tp.options) got[o.discard] = o.waits.map(w => [w.tile, w.left]);
            const sorted = (o) => JSON.stringify(Object.keys(o).sort().map(k => [k, o[k]]));
            waitsSeen += Object.keys(got).length;
            if (sorted(got) !== sorted(want.options))
                problems.push(`${i} seat ${cp.seat}: ${sorted(got)} != ${sorted(want.options)}`);
        }
    }
    return {problems: problems.slice(0, 10), waitsSeen, checked: checkpoints.length};
}"""


def test_tingpai_helper_agrees_with_the_engine_on_seeded_hands(
    browser: Any, web_server: WebServer
) -> None:
    page = browser.new_page()
    page.goto(web_server.url + "/")
    page.wait_for_function("() => window.__duyun && window.__duyun.booted")
    checked = waits_seen = 0
    for seed in SEEDS:
        result = page.evaluate(COMPARE, json.dumps(_checkpoints(seed)))
        assert not result["problems"], f"seed {seed}: {result['problems']}"
        checked += result["checked"]
        waits_seen += result["waitsSeen"]
    # the hands were long enough to be ready often: the comparison is not vacuous
    assert checked > 200 and waits_seen > 30, (checked, waits_seen)
    page.close()


def test_tingpai_button_shows_the_helper_and_it_shows_itself_after_baoting(
    browser: Any, web_server: WebServer
) -> None:
    context = browser.new_context(viewport=DESKTOP, device_scale_factor=1)
    page = context.new_page()
    page.goto(web_server.url + "/")
    page.wait_for_function("() => window.__duyun && window.__duyun.booted")
    page.evaluate(SHOW_SCENE, _scene())
    page.wait_for_selector("#hand button.tile")
    assert page.query_selector("#tingpai") is None  # on request only
    page.click("#tingpai-btn")
    page.wait_for_selector("#tingpai")
    assert page.get_attribute("#tingpai-btn", "aria-pressed") == "true"
    page.click("#tingpai-btn")
    page.wait_for_selector("#tingpai", state="detached")
    # after 報聽 it is shown without asking
    page.evaluate(
        "async () => { const m = await import('/static/js/main.js');"
        " m.app.hand.baoting[m.app.seat] = true; m.renderNow(); }"
    )
    page.wait_for_selector("#tingpai")
    context.close()
