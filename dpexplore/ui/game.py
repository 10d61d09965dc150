""""Play the attacker": the buttons and the round text of :class:`dpexplore.basics.game.AttackerGame`.

A kit piece any dashboard can place next to a panel: the page shows the output of the current round,
the student presses "data set A" or "data set B", the box says whether that was right and calls
``on_change`` (the dashboard redraws the panel that plots the score). The game itself (secrets, outputs,
score, and its interval that stays valid when checked after every round) lives in
:mod:`dpexplore.basics.game`; this module only draws it.
"""

from __future__ import annotations

import html
import threading
from collections.abc import Callable

import ipywidgets as widgets

__all__ = ["AttackerGameBox"]

_BOX_STYLE = ("border:1px solid #ccd;border-radius:4px;padding:6px 10px;margin:4px 0;max-width:60em;"
              "font-family:var(--jp-ui-font-family, sans-serif)")


class AttackerGameBox(widgets.VBox):
    """Round text, "data set A" / "data set B" buttons and a "new game" button.

    Parameters
    ----------
    on_change : callable
        Called (no arguments) after every guess and every new game.
    describe : callable
        ``describe(output) -> str``: the round's output in words (HTML-escaped by the caller's choice).
    """

    def __init__(self, on_change: Callable[[], None], describe: Callable[[float], str]) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._on_change, self._describe = on_change, describe
        self.game = None
        self.games_started = 0
        self.text = widgets.HTML()
        self.verdict = widgets.HTML()
        self.button_a = widgets.Button(description="data set A", button_style="info", icon="hand-o-left")
        self.button_b = widgets.Button(description="data set B", button_style="warning", icon="hand-o-right")
        self.new_button = widgets.Button(description="new game", icon="refresh")
        for b, choice in ((self.button_a, "A"), (self.button_b, "B")):
            b.add_class(f"dpx-game-{choice}")
            b.on_click(lambda _, c=choice: self.guess(c))
        self.new_button.add_class("dpx-game-new")
        self.new_button.on_click(lambda _: self.new_game())
        self.children = [self.text, widgets.HBox([self.button_a, self.button_b, self.new_button]), self.verdict]
        self.add_class("dpx-game")
        self.layout = widgets.Layout(border="1px solid #ccd", padding="4px 8px", margin="4px 0")

    def set_game(self, game) -> None:
        """Show ``game`` (a fresh :class:`~dpexplore.basics.game.AttackerGame`)."""
        with self._lock:
            self.game = game
            self.verdict.value = ""
            self._render()

    def new_game(self) -> None:
        """Ask the dashboard for a new game (it builds one with the next game number)."""
        with self._lock:
            self.games_started += 1
            self.game = None
        self._on_change()

    def guess(self, choice: str) -> None:
        """Record a guess (``"A"`` or ``"B"``) for the current round; ignored when no round is open."""
        with self._lock:
            g = self.game
            if g is None or g.finished:
                return
            right = g.guess(choice)
            secret = g.last_secret()
            self.verdict.value = (f"<span style='color:{'#1e8449' if right else '#c0392b'};font-weight:600'>"
                                  f"{'Right' if right else 'Wrong'}: it was data set {secret}.</span>")
            self._render()
        self._on_change()

    def _render(self) -> None:
        g = self.game
        if g is None:
            self.text.value = "<i>Preparing a game…</i>"
            return
        s = g.score()
        done = g.finished
        self.button_a.disabled = self.button_b.disabled = done
        evidence = (" <b>Your whole interval lies above the bound:</b> strong evidence that this mechanism is less "
                    "private than it claims (an honest mechanism shows this in at most 1 of 40 games, however often "
                    "you look)." if s.beats_bound else "")
        if done:
            self.text.value = (f"<div style='{_BOX_STYLE}'><b>Game over:</b> {s.successes} of {s.rounds} right "
                               f"({s.rate:.0%}). No attacker can expect to be right more than {s.bound:.0%} of the "
                               f"time.{evidence} Press <b>new game</b> to play again.</div>")
            return
        out = html.escape(self._describe(g.output()))
        self.text.value = (f"<div style='{_BOX_STYLE}'><b>Round {g.played + 1} of {g.rounds}.</b> The page "
                           f"published: <b style='font-size:1.2em'>{out}</b>. Which data set was it? "
                           f"(so far {s.successes} of {s.rounds} right){evidence}</div>")
