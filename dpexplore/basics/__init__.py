"""The intro track ("Start here"): one counting query released by randomized response, the Laplace and
the Gaussian mechanism; what ε means to an attacker; composition of many releases.

Rooms as in every paper package: :mod:`.mechanisms` (the releases), :mod:`.theory` (closed forms:
output laws, privacy loss, errors, the best attacker, composition accountants), :mod:`.game` (the
"play the attacker" rounds), :mod:`.experiments` (one function per measured panel) and :mod:`.audit`
(neighbouring pairs and broken variants). The attacker's-eye numbers (trade-off curves, advantage,
posterior) live in :mod:`dpexplore.core.risk`, for every paper.
"""

from .mechanisms import MAX_PEOPLE, MECHANISMS, CountRelease, RRSurvey, release_count, rr_count_sd, rr_survey

__all__ = ["MAX_PEOPLE", "MECHANISMS", "CountRelease", "RRSurvey", "release_count", "rr_count_sd", "rr_survey"]
