"""The data set of the private-ML page: Wisconsin Diagnostic Breast Cancer, as scikit-learn ships it.

569 tumours × 30 real features (mean, standard error and worst value of ten measurements of cell
nuclei in a digitised image of a fine-needle aspirate), label 1 = benign, 0 = malignant.
Source: W. H. Wolberg, W. N. Street, O. L. Mangasarian, *Breast Cancer Wisconsin (Diagnostic)*, UCI
Machine Learning Repository (1995), doi:10.24432/C5DW2B, licensed CC BY 4.0. scikit-learn (BSD-3-Clause)
ships it as ``sklearn/datasets/data/breast_cancer.csv``; this module reads that file from the installed
package's folder (found with :func:`importlib.util.find_spec`, without importing scikit-learn), so nothing
downloads at run time. The file's shape, header and labels are checked before they are trusted.

The features are standardised with the *training* part's mean and standard deviation (no row bound is
needed for privacy: DP-SGD's clip norm bounds each example's gradient). The means and standard deviations
are treated as public (a strict pipeline would take them from domain knowledge or spend budget on them;
the ε this module's users report covers the training only). The train/test split is fixed (a permutation from
seed :data:`SPLIT_SEED`, 80 % / 20 %), public, and independent of the training randomness.
"""

from __future__ import annotations

import functools
import importlib.util
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["DATA_LICENSE", "DATA_SOURCE", "FEATURES", "N_ROWS", "SPLIT_SEED", "TabularData", "breast_cancer",
           "breast_cancer_path"]

N_ROWS = 569
N_FEATURES = 30
SPLIT_SEED = 2026
TEST_FRACTION = 0.2
DATA_SOURCE = ("Breast Cancer Wisconsin (Diagnostic), W. H. Wolberg, W. N. Street & O. L. Mangasarian, "
               "UCI Machine Learning Repository (1995), doi:10.24432/C5DW2B; the copy scikit-learn ships")
DATA_LICENSE = "CC BY 4.0 (the data set); scikit-learn, which ships the file, is BSD-3-Clause"
_MEASURES = ("radius", "texture", "perimeter", "area", "smoothness", "compactness", "concavity",
             "concave points", "symmetry", "fractal dimension")
#: the 30 columns in the file's order (ten measurements: mean, standard error, worst)
FEATURES = tuple(f"mean {m}" for m in _MEASURES) + tuple(f"{m} error" for m in _MEASURES) + tuple(
    f"worst {m}" for m in _MEASURES)


@dataclass(frozen=True)
class TabularData:
    """A standardised binary classification data set with a fixed split.

    Attributes
    ----------
    X_train, X_test : ndarray, shape (n_train, d), (n_test, d)
        Features standardised by the training part's mean and standard deviation.
    y_train, y_test : ndarray of {0, 1}
    features : tuple of str
    source, license : str
    """

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    features: tuple
    source: str
    license: str

    @property
    def n_train(self) -> int:
        return int(self.X_train.shape[0])

    @property
    def d(self) -> int:
        return int(self.X_train.shape[1])


def breast_cancer_path() -> Path:
    """Where the installed scikit-learn keeps ``breast_cancer.csv`` (scikit-learn is not imported).

    Raises
    ------
    FileNotFoundError
        scikit-learn is not installed (``pip install scikit-learn``, part of the ``dashboard`` extra) or the
        file is missing.
    """
    spec = importlib.util.find_spec("sklearn")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the breast-cancer data set comes with scikit-learn, which is not installed: "
                                "pip install scikit-learn (or dpexplore[dashboard])")
    path = Path(list(spec.submodule_search_locations)[0]) / "datasets" / "data" / "breast_cancer.csv"
    if not path.is_file():
        raise FileNotFoundError(f"scikit-learn is installed but {path} is missing")
    return path


@functools.lru_cache(maxsize=1)
def _raw() -> tuple[np.ndarray, np.ndarray]:
    path = breast_cancer_path()
    with path.open(encoding="utf-8") as fh:
        header = fh.readline().strip().split(",")
        if header[:2] != [str(N_ROWS), str(N_FEATURES)] or header[2:] != ["malignant", "benign"]:
            raise ValueError(f"{path}: unexpected header {header!r} (expected 569,30,malignant,benign)")
        table = np.loadtxt(fh, delimiter=",", dtype=float)
    if table.shape != (N_ROWS, N_FEATURES + 1) or not np.all(np.isfinite(table)):
        raise ValueError(f"{path}: expected 569 finite rows of 31 columns; got shape {table.shape}")
    y = table[:, -1]
    if not np.all((y == 0) | (y == 1)):
        raise ValueError(f"{path}: the last column must be 0/1 labels")
    return table[:, :-1], y.astype(np.int64)


def breast_cancer() -> TabularData:
    """The Wisconsin Diagnostic Breast Cancer data, standardised, split 455 / 114 (fixed, public split).

    Returns
    -------
    TabularData

    Examples
    --------
    >>> data = breast_cancer()
    >>> data.X_train.shape, data.X_test.shape
    ((455, 30), (114, 30))
    >>> bool(abs(data.X_train.mean()) < 1e-12)
    True
    """
    X, y = _raw()
    perm = np.random.default_rng(SPLIT_SEED).permutation(N_ROWS)
    n_test = int(round(TEST_FRACTION * N_ROWS))
    test, train = perm[:n_test], perm[n_test:]
    mu, sd = X[train].mean(axis=0), X[train].std(axis=0)
    Xs = (X - mu) / sd
    return TabularData(Xs[train], y[train], Xs[test], y[test], FEATURES, DATA_SOURCE, DATA_LICENSE)
