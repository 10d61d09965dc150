"""Class-wide predictions (peer instruction): the room predicts what a plot will do, then the plot shows it.

In a dashboard's predict mode (``?mode=predict``) an instructor asks the room a question of the lessons
file (:mod:`.lessons`): :func:`open_round` makes a **prediction round** in the poll store
(:meth:`~dpexplore.classroom.store.PollStore.create_round`); students join it with its code on the poll
page (``06_class_poll.ipynb?join=CODE``) and pick one answer; the instructor closes the round and the
dashboard applies the question's change, then shows :func:`room_prediction` — how many chose each answer —
beside the measured outcome.

What is stored, and only that: the index of each student's choice (one per page view, one per hub user),
not randomized (a prediction about a plot is not sensitive; the pages say so), deleted with the round.
This module imports no UI package.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .store import MAX_QUESTION_CHARS, ChoiceTally, PollCreated, PollStore, check_choices

__all__ = ["ROUND_LIFETIME_HOURS", "RoomPrediction", "round_question", "open_round", "room_prediction"]

#: a prediction round lives as long as a lecture; it is closed (and its answers read) when revealed
ROUND_LIFETIME_HOURS = 2.0


def round_question(question: Mapping[str, Any]) -> tuple[str, tuple[str, ...]]:
    """The text and answers a round stores for a lessons-file question (text shortened to the store's limit).

    Examples
    --------
    >>> round_question({"question": "If n doubles, the  error …", "choices": ["goes up", "goes down"]})
    ('If n doubles, the error …', ('goes up', 'goes down'))
    """
    text = " ".join(str(question["question"]).split())
    if len(text) > MAX_QUESTION_CHARS:
        text = text[:MAX_QUESTION_CHARS - 1].rstrip() + "…"
    return text, check_choices(list(question["choices"]))


def open_round(store: PollStore, question: Mapping[str, Any], *, creator: str,
               lifetime_hours: float = ROUND_LIFETIME_HOURS) -> PollCreated:
    """Ask the room ``question`` (a validated lessons-file question): a new prediction round in ``store``."""
    text, choices = round_question(question)
    return store.create_round(text, choices, creator=creator, lifetime_hours=lifetime_hours)


@dataclass(frozen=True)
class RoomPrediction:
    """What the room predicted: counts per answer and how many chose the right one.

    Attributes
    ----------
    choices : tuple of str
        The answers, in the question's order.
    counts : tuple of int
        How many students chose each answer.
    answer : int
        Index of the right answer.
    """

    choices: tuple[str, ...]
    counts: tuple[int, ...]
    answer: int

    @property
    def total(self) -> int:
        """Predictions received."""
        return sum(self.counts)

    @property
    def right(self) -> int:
        """How many predicted the right answer."""
        return self.counts[self.answer]

    @property
    def fractions(self) -> tuple[float, ...]:
        """Each answer's share of the predictions (all 0 when nobody answered)."""
        n = self.total
        return tuple(c / n if n else 0.0 for c in self.counts)

    @property
    def most_chosen(self) -> tuple[int, ...]:
        """Indices of the answers chosen most often (several on a tie; empty when nobody answered)."""
        if self.total == 0:
            return ()
        top = max(self.counts)
        return tuple(i for i, c in enumerate(self.counts) if c == top)


def room_prediction(tally: ChoiceTally, answer: str) -> RoomPrediction:
    """The room's prediction from a round's tally; ``answer`` is the question's right answer.

    Examples
    --------
    >>> import tempfile
    >>> store = PollStore(tempfile.mkdtemp())
    >>> r = store.create_round("Q?", ["up", "down", "same"])
    >>> for pick in (0, 1, 1):
    ...     store.submit_choice(r.code, store.issue_token(r.code), pick)
    >>> room = room_prediction(store.choice_tally(r.code, r.secret), "down")
    >>> room.counts, room.right, room.most_chosen
    ((1, 2, 0), 2, (1,))
    """
    choices = tally.info.choices
    if choices is None:
        raise ValueError(f"poll {tally.info.code} is not a prediction round")
    if answer not in choices:
        raise ValueError(f"answer must be one of the round's choices {list(choices)}; got {answer!r:.80}")
    return RoomPrediction(choices=choices, counts=tuple(tally.counts), answer=choices.index(answer))
