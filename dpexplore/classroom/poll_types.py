"""The poll store's public types: its exceptions, the answers of a multiple-choice question, and what its
methods return (:mod:`dpexplore.classroom.store` re-exports every name; no database here)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MAX_CHOICES", "MAX_CHOICE_CHARS", "PollError", "UnknownPoll", "PollClosed", "AlreadyAnswered",
           "PollLimitReached", "BadSecret", "RateLimited", "check_choices", "PollCreated", "PollInfo", "Tally",
           "ChoiceTally"]

#: most answers a prediction round offers, and the longest answer text (characters)
MAX_CHOICES = 6
MAX_CHOICE_CHARS = 80


class PollError(ValueError):
    """A poll operation that cannot be done (the message says why, in words for the page)."""


class UnknownPoll(PollError):
    """No poll with this join code (never existed, or expired and deleted)."""


class PollClosed(PollError):
    """The poll stopped accepting answers (closing time passed, or the instructor closed it)."""


class AlreadyAnswered(PollError):
    """This page view's token has already answered (the ``UNIQUE`` constraint refused a second row)."""


class PollLimitReached(PollError):
    """A public maximum (open polls, responses or page views per poll) is reached."""


class BadSecret(PollError):
    """The instructor secret does not match this poll."""


class RateLimited(PollError):
    """Too many joins (per poll) or failed joins (per client address) in the rate limit's window."""


def check_choices(choices: object, *, least: int = 2, most: int = MAX_CHOICES,
                  name: str = "choices") -> tuple[str, ...]:
    """Validate a prediction round's answers: ``least`` (2) to ``most`` (``MAX_CHOICES``) distinct one-line
    printable strings of 1 to ``MAX_CHOICE_CHARS`` characters (whitespace collapsed). A k-choice poll's labels
    are checked here too (``least=3, most=MAX_KARY_CHOICES, name="labels"``).

    Examples
    --------
    >>> check_choices(["goes up", " goes   down "])
    ('goes up', 'goes down')
    >>> check_choices(["only one"])
    Traceback (most recent call last):
    ...
    dpexplore.classroom.poll_types.PollError: choices must be 2 to 6 answers; got 1
    """
    if isinstance(choices, (str, bytes)) or not isinstance(choices, (list, tuple)):
        raise TypeError(f"{name} must be a list or tuple of strings; got {type(choices).__name__}")
    if not least <= len(choices) <= most:
        raise PollError(f"{name} must be {least} to {most} answers; got {len(choices)}")
    out = []
    for i, c in enumerate(choices):
        if not isinstance(c, str):
            raise TypeError(f"{name}[{i}] must be a string; got {type(c).__name__}")
        text = " ".join(c[:4 * MAX_CHOICE_CHARS].split())
        if not 1 <= len(text) <= MAX_CHOICE_CHARS or len(c) > 4 * MAX_CHOICE_CHARS:
            raise PollError(f"{name}[{i}] must be 1 to {MAX_CHOICE_CHARS} characters; got {len(c)}")
        if any(not ch.isprintable() for ch in text):
            raise PollError(f"{name}[{i}] must contain printable characters only")
        out.append(text)
    if len(set(out)) != len(out):
        raise PollError(f"{name} must be distinct")
    return tuple(out)


@dataclass(frozen=True)
class PollCreated:
    """What :meth:`PollStore.create_poll` returns: the public join code and the instructor's secret."""

    code: str
    secret: str
    question: str
    epsilon: float
    closes_at: float | None
    expires_at: float


@dataclass(frozen=True)
class PollInfo:
    """What a student page may know about a poll: the question, ε and whether it accepts answers.

    Attributes
    ----------
    already_answered : bool
        The joining voter (a hub user) has answered this poll already (always False without a voter).
    choices : tuple of str or None
        A prediction round's answers; None for a randomized-response poll. A round's ``epsilon`` is inf
        (its answers are not randomized).
    oracle : {"krr", "oue"} or None
        A k-choice poll's frequency oracle (:mod:`dpexplore.classroom.kary`); None otherwise.
    labels : tuple of str or None
        A k-choice poll's k choices (3 ≤ k ≤ ``MAX_KARY_CHOICES``); None otherwise. Its ``epsilon`` is the
        ε of every student's report (ε-LDP).
    """

    code: str
    question: str
    epsilon: float
    closes_at: float | None
    expires_at: float
    is_open: bool
    #: the joining voter (a hub user) has answered this poll already (always False without a voter)
    already_answered: bool = False
    #: a prediction round's answers (None for a randomized-response poll); its ``epsilon`` is inf
    choices: tuple[str, ...] | None = None
    #: a k-choice poll's oracle ("krr" or "oue") and its k labels (None for the other kinds)
    oracle: str | None = None
    labels: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Tally:
    """Aggregate counts of one poll (instructor only): no row, no token, no timestamp of a student.

    Attributes
    ----------
    responses : int
        Randomized bits received.
    yes : int
        How many of them are 1 ("yes" after the coin flips).
    tokens : int
        Student page views that were issued a token (≥ responses; a gap means pages opened but not
        answered — or, if responses exceed the class size, reloads that voted again).
    """

    info: PollInfo
    responses: int
    yes: int
    tokens: int
    last_response_at: float | None


@dataclass(frozen=True)
class ChoiceTally:
    """The counts of a prediction round (instructor only): how many chose each answer, nothing per student.

    ``counts[i]`` is the number of predictions of ``info.choices[i]``; ``tokens`` the student page views.
    """

    info: PollInfo
    counts: tuple[int, ...]
    tokens: int
    last_response_at: float | None

    @property
    def responses(self) -> int:
        """Predictions received."""
        return sum(self.counts)
