"""Start a Jupyter server process without building an IRI grammar that no Jupyter schema uses.

``python -m dpexplore.hosting.lean MODULE [ARG ...]`` runs ``python -m MODULE [ARG ...]`` after
:func:`defer_iri_grammar`. dpexplore starts Voila (:func:`dpexplore.serve.voila_command`) and the hub's
single-user servers (``dpexplore.hub``, ``deploy/jupyterhub``) through it.

Why: every jupyter_server, Voila, nbclient or otter process imports ``nbformat`` and ``jupyter_events``, which
import ``jsonschema``; ``jsonschema._format`` imports ``rfc3987_syntax`` (installed by
``jsonschema[format-nongpl]``) when the GPL ``rfc3987`` is absent, and ``rfc3987_syntax`` builds about 35 Lark
Earley parsers at import time. Measured here (``python -c "import lark; import rfc3987_syntax"``): **+15 MiB
RSS and 0.9 CPU-s per process** — a tenth of a hub student's single-user server (124 MiB PSS), paid by every
server start. Upstream: python-jsonschema/jsonschema#1428 (a lazy import was asked for), opendatahub-io/
notebooks#3532 (the same 15 MiB / ~1 s in JupyterLab images).

:func:`defer_iri_grammar` puts a stand-in module under that name whose ``is_valid_syntax`` imports the real
package on its first call and hands every call to it: ``jsonschema``'s ``iri`` and ``iri-reference`` checkers are
registered and answer exactly as before (tested), and a process that never checks an IRI never builds the
grammar. It changes nothing where ``rfc3987_syntax`` is not installed, was already imported, or where
``jsonschema`` was already imported (its checkers are then bound to the real module).

This module uses only the standard library.
"""

from __future__ import annotations

import importlib
import importlib.util
import runpy
import sys
import threading
import types
from typing import Any

__all__ = ["defer_iri_grammar", "main"]

_NAME = "rfc3987_syntax"
_lock = threading.Lock()
_real: types.ModuleType | None = None


def _load_real() -> types.ModuleType:
    """Import the real ``rfc3987_syntax`` once (thread-safe), replacing the stand-in in ``sys.modules``."""
    global _real
    with _lock:
        if _real is None:
            stand_in = sys.modules.pop(_NAME, None)
            try:
                _real = importlib.import_module(_NAME)
            except BaseException:
                if stand_in is not None:
                    sys.modules[_NAME] = stand_in
                raise
        return _real


def _is_valid_syntax(*args: Any, **kwargs: Any) -> Any:
    return _load_real().is_valid_syntax(*args, **kwargs)


def _module_getattr(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    return getattr(_load_real(), name)


def defer_iri_grammar() -> bool:
    """Defer ``rfc3987_syntax``'s grammar build to its first use; returns True if a stand-in was installed.

    Call it before anything imports ``jsonschema``. See the module docstring for what it changes and why.

    Examples
    --------
    Once ``jsonschema`` is imported its checkers are bound to the real package, and nothing is deferred:

    >>> import jsonschema
    >>> defer_iri_grammar()
    False
    """
    if _NAME in sys.modules or "jsonschema" in sys.modules or _real is not None:
        return False
    if importlib.util.find_spec(_NAME) is None:
        return False
    stand_in = types.ModuleType(_NAME, "Stand-in: the real rfc3987_syntax is imported on first use "
                                       "(dpexplore.hosting.lean).")
    stand_in.is_valid_syntax = _is_valid_syntax  # type: ignore[attr-defined]
    stand_in.__getattr__ = _module_getattr  # type: ignore[attr-defined]  (PEP 562: any other name loads it)
    sys.modules[_NAME] = stand_in
    return True


def main(argv: list[str] | None = None) -> None:
    """``python -m dpexplore.hosting.lean MODULE [ARG ...]``: run MODULE as ``python -m`` would."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0].startswith("-"):
        sys.exit("usage: python -m dpexplore.hosting.lean MODULE [ARG ...]  (e.g. voila, jupyterhub.singleuser)")
    module, rest = argv[0], argv[1:]
    defer_iri_grammar()
    sys.argv = [module, *rest]  # run_module(alter_sys=True) then sets argv[0] to the module's file, as -m does
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
