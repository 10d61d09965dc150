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

import importlib

#: each public name and the module that defines it: imported on first use (PEP 562), so that importing one
#: submodule (the server's hardening needs only :mod:`.credentials`) does not import numpy and the poll store
_LAZY = {
    "AlreadyAnswered": "store", "BadSecret": "store", "ChoiceTally": "store", "CredentialError": "credentials",
    "Deniability": "stats", "KaryReports": "store", "KaryTally": "store", "LessonError": "lessons",
    "PollClosed": "store", "PollCreated": "store", "PollError": "store", "PollEstimate": "stats",
    "PollInfo": "store", "PollLimitReached": "store", "PollStore": "store", "RateLimited": "store",
    "RoomPrediction": "predictions", "StudentLink": "links", "Tally": "store", "UnknownPoll": "store",
    "absolute_values": "lessons", "check_choices": "store", "check_join_code": "store",
    "check_poll_epsilon": "stats", "check_secret": "store", "check_value": "lessons", "default_poll_dir": "paths",
    "deniability": "stats", "direction": "lessons", "ensure_instructor_token": "credentials",
    "estimate_fraction": "stats", "exact_coverage": "stats", "instructor_identity": "credentials",
    "interval_halfwidth": "stats", "load_lessons": "lessons", "open_round": "predictions", "qr_svg": "links",
    "register_instructor_source": "credentials", "room_prediction": "predictions", "simulate_class": "stats",
    "simulated_coverage": "stats", "student_link": "links", "validate_lessons": "lessons",
    "worksheet_html": "worksheets", "worksheet_markdown": "worksheets",
}

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


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
