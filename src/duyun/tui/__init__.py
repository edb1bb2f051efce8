"""The terminal game: play a match against bots in a terminal, rendered with Rich.

The package is split so that the look of the table can be tested without a terminal:

* :mod:`duyun.tui.render` -- pure functions from a :class:`~duyun.engine.SeatView` (and other
  engine values) to Rich renderables; no I/O, no game logic.
* :mod:`duyun.tui.commands` -- parsing what the player types into one of their legal actions.
* :mod:`duyun.tui.hints` -- the analysis shown with ``--hints`` (shanten, waits, discards).
* :mod:`duyun.tui.session` -- the loop that drives :class:`~duyun.engine.Match`, asks bots and
  the player, handles Ctrl-C / end of input and saves the replay.
"""
