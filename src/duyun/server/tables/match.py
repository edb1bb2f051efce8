"""The match as transitions of the table's state machine: its start, each hand's deal and
settlement, the wait between hands, its end, and a restore from the store.

:class:`MatchFlow` adds to :class:`~duyun.server.tables.board.Board` what moves the match on.
Each method returns the effects it calls for (``effects.py``); a question to the store (the
match's id, the hand's id, the settlement's coin rows, the balances, the ratings) ends the
transition, and its answer comes back through ``TableState.on_result`` to the method that
goes on from it (``_match_created``, ``_hand_started``, ``_hand_settled``, ...). The hand's
own effects (``flow.py``) are taken into the table's by :meth:`MatchFlow._play`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, assert_never

from duyun.engine import Round, Setup, deal_setup, replay
from duyun.server.store import (
    Account,
    Lease,
    LiveMatch,
    MatchSpec,
    RatingChange,
    SeatSpec,
    SettledHand,
)
from duyun.server.tables import flow
from duyun.server.tables.board import Board
from duyun.server.tables.effects import (
    AppendEvents,
    CancelAllTimers,
    Deal,
    DetachClient,
    DropTable,
    Effect,
    HandSettled,
    HostSeat,
    HostUnseat,
    ReadBalances,
    RegisterMatch,
    Rematch,
    Resume,
    SendPrompt,
    SendSnapshot,
    SendText,
    SetAccount,
    SetBotRating,
    StoreHandStart,
    StoreMatchEnd,
    StoreMatchStart,
    StoreSettlement,
    StoreTuoguan,
    Watch,
)
from duyun.server.tables.ending import match_end_message, rating_lines, settlement, stored_result
from duyun.server.tables.flow import CancelTimer, DropThought, SetTimer, SettleUntil, Think
from duyun.server.tables.seats import (
    SEATS,
    HandSummary,
    Seat,
    bot_seat,
    dumps,
    hand_seed,
    win_summaries,
)
from duyun.server.tables.status import Status
from duyun.server.tables.timers import COUNTDOWN, FILL, NEXT_HAND, grace


class MatchFlow(Board):
    """The match's transitions (see the module)."""

    # ------------------------------------------------------------------ the hand's effects

    def _play(self, effects: list[flow.Effect]) -> list[Effect]:
        """The hand flow's effects as the table's: events to store carry the hand's id and
        lease, events and prompts go to the clients connected now, a 托管 is stored and
        shown; timers are tracked; the end of the hand is settled."""
        hand = self.hand
        assert hand is not None
        hand_id = hand.hand_id
        out: list[Effect] = []
        for effect in effects:
            # in the order of how often they come (four viewers' events a move); isinstance
            # tests, as this runs for every effect of every move
            if isinstance(effect, flow.SendEvents):
                clients = self._clients_of(effect.viewer)
                if clients:
                    message = {"type": "events", "hand_id": hand_id, "seq": effect.seq}
                    text = dumps({**message, "events": effect.events})
                    out.append(SendText(clients, text))
            elif isinstance(effect, flow.StoreEvents):
                out.append(AppendEvents(hand_id, effect.first, effect.events, self.lease))
            elif isinstance(effect, SetTimer):
                self.timers.add(effect.name)
                out.append(effect)
            elif isinstance(effect, CancelTimer):
                self.timers.discard(effect.name)
                out.append(effect)
            elif isinstance(effect, flow.SendPrompt):
                seat = self.seats[effect.seat]
                if seat is not None and seat.client is not None:
                    out.append(SendPrompt(seat.client, effect.prompt, hand_id))
            elif isinstance(effect, flow.SendSnapshot):
                snap = self._snapshot_message(hand, effect.viewer, effect.events)
                out.extend(
                    SendSnapshot(client, snap, effect.prompt, hand_id)
                    for client in self._clients_of(effect.viewer)
                )
            elif isinstance(effect, SettleUntil | Think | DropThought):
                out.append(effect)
            elif isinstance(effect, flow.FinishHand):
                out.extend(self._finish_hand())
            elif isinstance(effect, flow.BroadcastTable):
                out.extend(self._broadcast())
            elif isinstance(effect, flow.StoreTuoguan):
                out.extend(self._keep_tuoguan(effect.seat))
            else:
                assert_never(effect)
        return out

    def _keep_tuoguan(self, index: int) -> list[Effect]:
        """Store seat ``index``'s 托管 as it is now (a person's seat of a match in play), so a
        restart neither waits for a player who left their seat to the bot nor takes it back
        from the bot for them (issue 37)."""
        seat = self.seats[index]
        if self.match_id is None or seat is None or seat.account_id is None:
            return []
        return [StoreTuoguan(self.match_id, index, seat.tuoguan, self.lease)]

    # ------------------------------------------------------------------ the match

    def _maybe_start(self, now: float) -> list[Effect]:
        if self.status is not Status.WAITING or self.free_seats:
            return []
        if any(not s.ready for _, s in self.humans()):
            return []
        if not self.humans():
            return []
        return [*self._cancel_timer(FILL), *self._start_match()]

    def _fill_with_bots(self, now: float) -> list[Effect]:
        if self.status is not Status.WAITING or not self.humans():
            return []
        for index, seat in enumerate(self.seats):
            if seat is None:
                self.seats[index] = bot_seat(self.config.default_bot)
        return [*self._broadcast(), *self._maybe_start(now)]

    def _start_match(self) -> list[Effect]:
        # playing from now: no quick match picks this table while the store creates its match
        self._move(Status.PLAYING)
        spec = MatchSpec(
            kind=self.options.kind,
            room=self.options.room or "",
            stake=self.options.stake,
            hands=self.options.hands,
            seats=tuple(SeatSpec(s.account_id, s.bot_name) for s in self.seats if s is not None),
            seed=self.seed,
            code=self.code,
            first_dealer=0,
            rules=self.options.rules.to_mapping(),
            options={
                "bots_allowed": self.options.bots_allowed,
                "bot": self.options.bot,
                "listed": self.options.listed,
                "host": self.options.host,
                "spectators": self.options.spectators,
                "claim_pause": self.options.claim_pause,
                "rated": self.options.rated,
            },
        )
        return [StoreMatchStart(spec, self.owner, self.config.lease_seconds)]

    def _match_created(self, match_id: int, now: float) -> list[Effect]:
        self.match_id = match_id
        self.lease = Lease(self.owner, 0)  # a new match's epoch
        self.dealer, self.streak, self.hand_index = 0, 0, 0  # R3
        return [RegisterMatch(match_id), *self._start_hand()]

    def deal(self, seed: int) -> Setup:
        """The hand's deal: from its seed (R4), or from the host's test hook."""
        if self.deal_override is not None:
            return self.deal_override(self.hand_index, seed, self.dealer, self.streak)
        return deal_setup(seed, dealer=self.dealer, streak=self.streak)

    def _start_hand(self) -> list[Effect]:
        assert self.match_id is not None
        out = [*self._cancel_timer(NEXT_HAND), *self._cancel_timer(COUNTDOWN)]
        self.next_hand_due = False
        self.dissolve_votes = None
        self.last_hand_end = None
        self.hand_ended_at = None
        seed = hand_seed(self.seed, self.hand_index)
        game = Round(self.deal(seed), self.options.rules)
        out.append(
            StoreHandStart(
                self.match_id, self.hand_index, seed, self.dealer, self.streak, self.lease, game
            )
        )
        return out

    def _hand_started(self, hand_id: int, game: Round, now: float) -> list[Effect]:
        hand = self._new_hand(game, hand_id)
        return [*self._play(hand.store_new()), Resume(Deal())]

    def _deal(self, now: float) -> list[Effect]:
        hand = self.hand
        assert hand is not None
        self._move(Status.PLAYING)
        for _, seat in self.humans():
            seat.ready = False
        out = self._broadcast()
        # the start event goes out as a snapshot, then play runs on
        out += self._play(hand.start(now))
        return out

    def _maybe_next_hand(self, now: float) -> list[Effect]:
        if self.status is not Status.BETWEEN:
            return []
        if self.next_hand_due:
            return self._next_hand(now)
        waiting_for = [
            s for _, s in self.humans() if s.client is not None and not s.tuoguan and not s.ready
        ]
        if waiting_for:
            return []
        left = self._countdown_left(now)
        if left > 0 and self._cut_off_and_away():
            # people cut off by a failed process are not back yet: their pages, once back,
            # show this hand's settlement and press 下一局 when its countdown ends, so the
            # hand waits for that countdown (counted from the hand's end), no longer. Dealt at
            # once, it would come before they are back and they would never see the
            # settlement (issue 37 item 2)
            return [self._set_timer(COUNTDOWN, left)]
        return self._next_hand(now)

    def _cut_off_and_away(self) -> bool:
        """A person cut off by a failed server process has not reconnected yet."""
        return any(
            seat is not None
            and seat.cut_off_by_server
            and seat.client is None
            and not seat.forced_tuoguan
            and grace(index) in self.timers
            for index, seat in enumerate(self.seats)
        )

    def _next_hand(self, now: float) -> list[Effect]:
        """Start the next hand, unless a dropped person's reconnect grace is still running:
        a hand started under it would charge them R45 when it runs out, for a connection
        lost between hands, and a table whose people all dropped at once would charge them
        one per hand (issue 20 item 12). The hand then starts when the last grace ends (the
        person is back, or the seat plays on in 托管 without penalty)."""
        if self.status is not Status.BETWEEN:
            return []
        if any(self._grace_holds(index) for index in range(SEATS)):
            self.next_hand_due = True
            return []
        return self._start_hand()

    def _grace_holds(self, index: int) -> bool:
        """Whether seat ``index``'s reconnect grace holds the next hand back. A seat whose
        person was cut off by a failed server process never pays R45 when its grace runs out
        (``_grace_over``), so its grace holds nothing: after a restart the next hand comes
        when its wait, counted from the hand's stored end, is over (issue 37)."""
        seat = self.seats[index]
        return grace(index) in self.timers and seat is not None and not seat.cut_off_by_server

    # ------------------------------------------------------------------ the end of a hand

    def _finish_hand(self) -> list[Effect]:
        """Settle the hand that ended: store its result and payments (then the balances are
        read, the settlement sent, and the next hand's wait or the end of the match)."""
        hand = self.hand
        assert hand is not None
        result = hand.game.result
        assert result is not None
        end, wins = stored_result(hand.game)
        return [
            StoreSettlement(hand.hand_id, list(result.payments), {**end, "wins": wins}, self.lease)
        ]

    def _hand_settled(self, settled: HandSettled, now: float) -> list[Effect]:
        self._rows = settled
        accounts = [seat.account_id for _, seat in self.humans() if seat.account_id is not None]
        if accounts:
            return [ReadBalances(accounts)]
        return self._balances_read({}, now)

    def _balances_read(self, balances: dict[int, int], now: float) -> list[Effect]:
        settled, self._rows = self._rows, None
        assert settled is not None and self.hand is not None
        for _, seat in self.humans():
            if seat.account_id is not None:
                seat.balance = balances[seat.account_id]
        hand = self.hand
        result = hand.game.result
        assert result is not None
        self.hand_index += 1
        summary, hand_end = settlement(
            hand.hand_id,
            self.hand_index - 1,
            hand.game,
            settled.rows,
            hands=self.options.hands,
            balances=[None if s is None else s.balance for s in self.seats],
            next_hand_wait=self.config.next_hand_wait,
        )
        self.results.append(summary)
        self.last_hand_end = hand_end
        self.dealer, self.streak = result.next_dealer, result.next_streak
        # the wait for the next hand counts from here (a restore counts it from the stored end)
        self.hand_ended_at = now
        out = self._send_to_all(hand_end)
        if self.hand_index >= self.options.hands:
            return [*out, *self._finish_match("completed")]
        self._move(Status.BETWEEN)
        for _, seat in self.humans():
            seat.ready = False
        out.append(self._set_timer(NEXT_HAND, self.next_hand_limit(), since=self.hand_ended_at))
        out += self._broadcast()
        out += self._maybe_next_hand(now)
        return out

    # ------------------------------------------------------------------ the end of the match

    def _finish_match(self, reason: str) -> list[Effect]:
        """The match is over (played out, or dissolved between hands, 解散): store its end,
        then send ``match_end`` and let everyone go."""
        assert self.match_id is not None
        self.timers.clear()
        return [CancelAllTimers(), StoreMatchEnd(self.match_id, reason, self.lease)]

    def _match_finished(self, reason: str, changes: list[RatingChange]) -> list[Effect]:
        out: list[Effect] = []
        for change in changes:
            seat = self.seats[change.seat]
            if seat is not None and seat.kind == "human":
                seat.rating = change.after
                client = seat.client
                if client is not None and client.account is not None:
                    # the next table this connection sits at (by code) shows the new rating
                    account = dataclasses.replace(
                        client.account,
                        rating=change.after,
                        rated_matches=client.account.rated_matches + 1,
                    )
                    out.append(SetAccount(client, account))
            if change.bot is not None:
                out.append(SetBotRating(change.bot, change.after))
        self._move(Status.ENDED)
        self.dissolve_votes = None
        self.match_end = match_end_message(
            reason, self.results, self.match_points(), self.match_coins(), rating_lines(changes)
        )
        if reason != "completed":
            return [*out, *self._let_go(None)]
        # 再來一局 (issue 31 item 5): the same private table, waiting again; a room's players
        # quick-match again in the same room
        if self.options.kind == "private":
            return [*out, Rematch()]
        return [*out, *self._let_go({"code": None, "room": self.options.room})]

    def _let_go(self, again: dict[str, Any] | None) -> list[Effect]:
        assert self.match_end is not None
        self.match_end["rematch"] = again
        out = self._broadcast()
        out += self._send_to_all(self.match_end)
        for _, seat in self.humans():
            if seat.account_id is not None:
                out.append(HostUnseat(seat.account_id))
            if seat.client is not None:
                out.append(DetachClient(seat.client))
        out.extend(Watch(client, False) for client in self.spectators)
        out.append(DropTable())
        return out

    # ------------------------------------------------------------------ restore

    def restore(
        self, live: LiveMatch, accounts: Mapping[int, Account], now: float, store_clock: float
    ) -> list[Effect]:
        """Rebuild the table of a live match in the store (a restart, an adoption, a reload),
        before its task runs. ``accounts``: the seated people's accounts as stored;
        ``store_clock``: the store's clock now (the last hand's end is stored on it).

        The seats come back as they were stored (an escaped seat stays with its bot), the
        finished hands as the match summary, and the hand in progress is replayed from its
        stored events and resumed exactly where it stopped: a hand whose result was not
        stored is finished, a pending decision is asked again."""
        self.match_id = live.match_id
        self.lease = live.lease
        out: list[Effect] = [RegisterMatch(live.match_id)]
        self.seed = live.spec.seed
        self._move(Status.PLAYING)
        out += self._reseat(live, accounts)
        self._summarise(live)
        self.hand_index = len(live.finished_hands)
        if live.hand is None:
            self._move(Status.BETWEEN)
            if self.hand_index >= self.options.hands:
                return [*out, *self._finish_match("completed")]
            if live.settled is not None:
                self._show_settled(live.settled, now, store_clock)
            # the wait counts from the hand's stored end, never from this restore: any number
            # of restarts between two hands adds only their own seconds (issue 37)
            out.append(self._set_timer(NEXT_HAND, self.next_hand_limit(), since=self.hand_ended_at))
            return out
        events = [dict(e) for e in live.hand.events]
        self.hand_index = live.hand.index
        self.dealer, self.streak = live.hand.dealer, live.hand.streak
        game = (
            replay(events, require_end=False)  # exact, but a hand in progress
            if events
            else Round(self.deal(live.hand.seed), self.options.rules)
        )
        hand = self._new_hand(game, live.hand.hand_id)
        hand.stored = hand.released = len(events)
        for viewer in hand.seen:
            hand.seen[viewer] = len(hand.released_events(viewer))
        # resume: finish a hand whose result was not stored, or reopen its pending decision
        return [*out, *self._play(hand.resume(now))]

    def _show_settled(self, settled: SettledHand, now: float, store_clock: float) -> None:
        """The last hand as the table showed it when it ended: its view (the hand replayed from
        its events) and its settlement with the coins as stored, for every client arriving
        between hands; and when it ended, on this process's clock."""
        events = [dict(e) for e in settled.events]
        hand = self._new_hand(replay(events), settled.hand_id)
        hand.stored = hand.released = len(events)
        for viewer in hand.seen:
            hand.seen[viewer] = len(hand.released_events(viewer))
        _, self.last_hand_end = settlement(
            settled.hand_id,
            settled.index,
            hand.game,
            settled.rows,
            hands=self.options.hands,
            balances=[None if s is None else s.balance for s in self.seats],
            next_hand_wait=self.config.next_hand_wait,
        )
        ago = max(0.0, store_clock - settled.finished.timestamp())
        self.hand_ended_at = now - ago

    def _reseat(self, live: LiveMatch, accounts: Mapping[int, Account]) -> list[Effect]:
        out: list[Effect] = []
        for index, seat_spec in enumerate(live.spec.seats):
            if seat_spec.account_id is None:
                self.seats[index] = bot_seat(seat_spec.bot or self.config.default_bot)
                continue
            account = accounts[seat_spec.account_id]
            seat = Seat(
                kind="human",
                name=account.name,
                bot_name=seat_spec.bot or self.options.bot,
                account_id=account.id,
                balance=account.balance,
                rating=account.rating,
                tuoguan=seat_spec.tuoguan or seat_spec.forced_tuoguan,
                forced_tuoguan=seat_spec.forced_tuoguan,
            )
            self.seats[index] = seat
            if seat_spec.forced_tuoguan:
                continue  # escaped or left before the restart: its bot plays on, nobody waits
            out.append(HostSeat(account.id))
            # everyone was cut off by the failed process: a grace that runs out after a
            # restore is 托管, never R45 (issue 20 item 12)
            seat.cut_off_by_server = True
            out.append(self._set_timer(grace(index), self.config.reconnect_grace))
        return out

    def _summarise(self, live: LiveMatch) -> None:
        for record in live.finished_hands:
            res = record.result or {}
            self.results.append(
                HandSummary(
                    record.hand_id,
                    str(res.get("result", "")),
                    list(res.get("winners", [])),
                    list(res.get("totals", [0] * SEATS)),
                    list(record.coins),
                    win_summaries(list(res.get("wins", []))),
                )
            )
            self.dealer = int(res.get("next_dealer", self.dealer))
            self.streak = int(res.get("next_streak", self.streak))
