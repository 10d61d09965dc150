"""dpexplore: notebooks and a small library for teaching and exploring differential privacy.

One subpackage per research paper (``spectral``, ``pca``, ``markov``, ``shuffle``, ``erm``) on top
of :mod:`dpexplore.core`. Dashboards live in :mod:`dpexplore.ui`, which is the only part that
imports ipywidgets or plotly; ``import dpexplore`` never does.

.. warning::
   dpexplore's randomness is NumPy's seedable PCG64 generator: **not cryptographically secure**.
   It is a teaching and research tool; never use it to protect a real data release.
"""

from ._version import __version__

PRNG_WARNING = (
    "dpexplore uses NumPy's seedable pseudo-random generator, which is not cryptographically "
    "secure: it is for teaching and exploration only, never for real data releases."
)

__all__ = ["PRNG_WARNING", "__version__", "core"]


def __getattr__(name: str):
    """``dpexplore.core`` on first use (PEP 562): ``import dpexplore.hosting`` (the server's hardening, in every
    student's single-user server under a hub) then imports neither numpy nor scipy."""
    if name == "core":
        import importlib

        return importlib.import_module(".core", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
