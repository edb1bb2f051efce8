"""The game engine: one pure state machine for a hand, a match, settlement and replays.

>>> from duyun.engine import new_round
>>> game = new_round(seed=1)
>>> seat = game.to_act[0]
>>> action = game.legal_actions(seat)[0]
>>> events = game.apply(action)
"""

from duyun.engine.actions import (
    Action,
    ActionKind,
    EngineError,
    IllegalActionError,
    LegalActions,
    SetupError,
)
from duyun.engine.determinize import DeterminizeError, sample_round
from duyun.engine.ledger import Payment, net_points
from duyun.engine.match import Match, MatchOverError
from duyun.engine.replay import (
    ReplayError,
    UnfinishedLogError,
    check_match_links,
    dump_events,
    load_events,
    replay,
    split_hands,
)
from duyun.engine.round import (
    EVENT_LOG_VERSION,
    HandResult,
    MatchLink,
    Phase,
    Round,
    Setup,
    TurnKind,
    WinKind,
    deal_setup,
    new_round,
)
from duyun.engine.scenario import (
    Scenario,
    ScenarioError,
    parse_scenario,
    run_scenario,
    scenario_result,
)
from duyun.engine.view import (
    MeldView,
    RefusedWin,
    SeatView,
    events_for,
    redact_event,
    seat_view,
)

__all__ = [
    "EVENT_LOG_VERSION",
    "Action",
    "ActionKind",
    "DeterminizeError",
    "EngineError",
    "HandResult",
    "IllegalActionError",
    "LegalActions",
    "Match",
    "MatchLink",
    "MatchOverError",
    "MeldView",
    "Payment",
    "Phase",
    "RefusedWin",
    "ReplayError",
    "Round",
    "Scenario",
    "ScenarioError",
    "SeatView",
    "Setup",
    "SetupError",
    "TurnKind",
    "UnfinishedLogError",
    "WinKind",
    "check_match_links",
    "deal_setup",
    "dump_events",
    "events_for",
    "load_events",
    "net_points",
    "new_round",
    "parse_scenario",
    "redact_event",
    "replay",
    "run_scenario",
    "sample_round",
    "scenario_result",
    "seat_view",
    "split_hands",
]
