"""Course module "Private statistics": counts, histograms, sums, means and quantiles of a table's column,
with clipping, the unit of privacy (rows per person) and group privacy, and the ε an accuracy target needs.

Rooms as in every module: :mod:`.mechanisms` (the releases), :mod:`.theory` (closed forms: errors, the
clipping bias / noise split, post-processing bias, ε for an accuracy target), :mod:`.data` (the real data
set shipped with scikit-learn and the CSV upload's validation), :mod:`.experiments` (one function per
measured panel) and :mod:`.audit` (neighbouring pairs, exact ε, broken variants).
"""

from .mechanisms import (
    MAX_BINS,
    MAX_ROWS,
    MAX_ROWS_PER_PERSON,
    CountResult,
    HistogramResult,
    MeanResult,
    QuantileResult,
    SumResult,
    bound_contributions,
    group_privacy,
    private_count,
    private_histogram,
    private_mean,
    private_quantile,
    private_sum,
    quantile_law,
)
from .theory import AccuracyPlan, epsilon_for_accuracy

__all__ = [
    "MAX_BINS",
    "MAX_ROWS",
    "MAX_ROWS_PER_PERSON",
    "AccuracyPlan",
    "CountResult",
    "HistogramResult",
    "MeanResult",
    "QuantileResult",
    "SumResult",
    "bound_contributions",
    "epsilon_for_accuracy",
    "group_privacy",
    "private_count",
    "private_histogram",
    "private_mean",
    "private_quantile",
    "private_sum",
    "quantile_law",
]
