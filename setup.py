"""Build hook: ship the notebooks and the Voila/Jupyter configuration inside the wheel.

Everything else is in pyproject.toml. The repository keeps ``notebooks/``, ``voila.json`` and
``jupyter_config.json`` at its root (Binder and the clone route use them there); a wheel gets a copy as
``dpexplore/_data/`` with the same shape, found by :mod:`dpexplore.resources`. Notebooks are picked up
by glob (``notebooks/*.ipynb``), so a new notebook ships without editing this file.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
DATA = "_data"  # dpexplore/_data in the wheel


def packaged_files() -> list[tuple[Path, str]]:
    """(source, path under dpexplore/_data) for every file the wheel ships as data."""
    nbs = sorted((ROOT / "notebooks").glob("*.ipynb"))
    if not nbs:
        raise SystemExit("setup.py: no notebooks/*.ipynb to package (is this a complete checkout or sdist?)")
    files = [(p, f"notebooks/{p.name}") for p in nbs]
    files += [(ROOT / "notebooks" / "lessons.json", "notebooks/lessons.json"),
              (ROOT / "voila.json", "voila.json"), (ROOT / "jupyter_config.json", "jupyter_config.json")]
    missing = [str(src) for src, _ in files if not src.is_file()]
    if missing:
        raise SystemExit(f"setup.py: missing files to package: {missing}")
    return files


class BuildPyWithNotebooks(build_py):
    """``build_py`` that also copies the notebooks and configuration into ``dpexplore/_data``."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install uses the clone's own files (dpexplore.resources finds them)
        target = Path(self.build_lib) / "dpexplore" / DATA
        if target.exists():
            shutil.rmtree(target)  # a notebook deleted since the last build must not linger
        for src, rel in packaged_files():
            dst = target / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)


setup(cmdclass={"build_py": BuildPyWithNotebooks})
