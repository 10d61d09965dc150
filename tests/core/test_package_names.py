"""``dpexplore.core`` loads its names lazily (PEP 562): every name in ``__all__`` must be what it was when
the package imported them eagerly, whatever order the submodules were imported in."""

from __future__ import annotations

import subprocess
import sys

import pytest

import dpexplore.core as core


def test_every_public_name_resolves_to_a_non_module_after_all_submodules_are_imported():
    # In a fresh interpreter: import every submodule first (a submodule import sets the package attribute of
    # the same name to the module), then look each public name up.
    code = (
        "import importlib, pkgutil, types, dpexplore.core as c\n"
        "for m in pkgutil.iter_modules(c.__path__): importlib.import_module('dpexplore.core.' + m.name)\n"
        "bad = [n for n in c.__all__ if isinstance(getattr(c, n), types.ModuleType)]\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_functions_named_like_their_submodule_are_callable():
    import dpexplore.core.permute_and_flip  # noqa: F401  (the import that used to shadow the function)
    import dpexplore.core.randomized_response  # noqa: F401

    assert callable(core.randomized_response) and callable(core.permute_and_flip)
    assert core.randomized_response([1, 0, 1], 1.0, rng=0).bits.shape == (3,)


def test_dir_lists_every_public_name_and_unknown_names_raise_attribute_error():
    assert set(core.__all__) <= set(dir(core))
    with pytest.raises(AttributeError, match="no_such_name"):
        core.no_such_name  # noqa: B018
