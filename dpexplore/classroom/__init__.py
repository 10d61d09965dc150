"""Class mode: a live randomized-response poll (library part, no UI imports).

:mod:`~dpexplore.classroom.store` keeps polls in a SQLite database shared by every kernel of one
server (only randomized bits and timestamps; never a true answer); :mod:`~dpexplore.classroom.stats`
turns the tally into a debiased estimate with an interval, and says how deniable one answer is;
:mod:`~dpexplore.classroom.credentials` says who may create a poll (the launcher's instructor link, or a
registered source such as a hub's instructors group); :mod:`~dpexplore.classroom.links` gives the
students' link and its QR code. The pages are in :mod:`dpexplore.ui.poll` (notebook ``06_class_poll.ipynb``).
:mod:`~dpexplore.classroom.lessons` reads and checks the lessons file (presets, predict questions, lesson
sequences); :mod:`~dpexplore.classroom.worksheets` prints a sequence as a student or instructor worksheet.
:mod:`~dpexplore.classroom.predictions` runs class-wide predictions: a predict question asked of the room as
a prediction round in the poll store, and the room's counts per answer.
"""

from .credentials import (
    CredentialError,
    ensure_instructor_token,
    instructor_identity,
    register_instructor_source,
)
from .lessons import LessonError, absolute_values, check_value, direction, load_lessons, validate_lessons
from .links import StudentLink, qr_svg, student_link
from .predictions import RoomPrediction, open_round, room_prediction
from .stats import (
    Deniability,
    PollEstimate,
    check_poll_epsilon,
    deniability,
    estimate_fraction,
    exact_coverage,
    interval_halfwidth,
    simulate_class,
    simulated_coverage,
)
from .store import (
    AlreadyAnswered,
    BadSecret,
    ChoiceTally,
    KaryReports,
    KaryTally,
    PollClosed,
    PollCreated,
    PollError,
    PollInfo,
    PollLimitReached,
    PollStore,
    RateLimited,
    Tally,
    UnknownPoll,
    check_choices,
    check_join_code,
    check_secret,
    default_poll_dir,
)
from .worksheets import worksheet_html, worksheet_markdown

__all__ = [
    "AlreadyAnswered", "BadSecret", "CredentialError", "Deniability", "PollClosed", "PollCreated", "PollError",
    "PollEstimate", "PollInfo", "PollLimitReached", "PollStore", "RateLimited", "StudentLink", "Tally", "UnknownPoll",
    "check_join_code", "check_poll_epsilon", "check_secret", "default_poll_dir", "deniability",
    "ensure_instructor_token", "estimate_fraction", "exact_coverage", "instructor_identity", "interval_halfwidth",
    "qr_svg", "register_instructor_source", "simulate_class", "simulated_coverage", "student_link",
    # lessons and worksheets
    "LessonError", "absolute_values", "check_value", "direction", "load_lessons", "validate_lessons",
    "worksheet_html", "worksheet_markdown",
    # class-wide predictions
    "ChoiceTally", "RoomPrediction", "check_choices", "open_round", "room_prediction",
    # k-choice polls (frequency oracles of dpexplore.local)
    "KaryReports", "KaryTally",
]
