"""Sphinx configuration of dpexplore's documentation site (README: the docs command).

Sphinx + numpydoc + myst-nb + pydata-sphinx-theme, because all four install from PyPI as plain Python
wheels and build offline (Jupyter Book 2 / MyST's ``mystmd`` needs Node.js and fetches its theme at
build time), numpydoc reads the docstrings the package already has, and myst-nb executes notebooks
through jupyter-cache (a cache in ``docs/_build/.jupyter_cache``: a rebuild re-executes only changed
notebooks).

Two parts are generated at every build, so that nothing has to be listed by hand:

* ``api/`` — one page per public module (every subpackage's ``__all__``, and each ``dpexplore.ui``
  module's), each with an autosummary table whose entries get their own page;
* ``gallery/`` — a copy of every ``notebooks/*.ipynb`` (by glob: a new notebook appears by itself),
  with a hidden last cell that shows each dashboard as a static snapshot (``_ext/static_dashboard.py``)
  and the live widget output removed.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DOCS / "_ext"))

import dpexplore  # noqa: E402

project = "dpexplore"
author = "the dpexplore authors"
copyright = "dpexplore authors, MIT licence"
version = release = dpexplore.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "_ext", "**.ipynb_checkpoints", "gallery/lessons.json"]
root_doc = "index"
templates_path = ["_templates"]  # autosummary's class page: the class's own documented members, not ipywidgets'

suppress_warnings = [
    "myst.header",  # notebooks start at '#' after a paragraph of paper metadata
]

# -- API -------------------------------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": True, "show-inheritance": False}
autodoc_typehints = "none"  # numpydoc's Parameters sections say the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
# Validation: every public name documented in the reference must have a docstring (GL08), a
# summary line (SS01) and no unknown section (GL06); the style checks stay off (the package's
# docstrings use free-form returns and math-heavy prose).
numpydoc_validation_checks = {"GL08", "SS01", "GL06"}
# module-level constants carry their documentation in `#:` comments, which numpydoc cannot see
# (and dataclass fields are documented in their class's Attributes section)
numpydoc_validation_exclude = {r"\.__init__$", r"\._[a-z]\w*$", r"\.[A-Z][A-Z0-9_]+$", r"\.RNGLike$",
                               r"\.Randomizer\.krr$", r"\.WorstCaseEpsilon\.pair_k$",
                               r"\.Dashboard\.present_controls$",  # a ClassVar documented by its `#:` comment
                               r"\.PollInfo\.(choices|oracle|labels)$"}  # dataclass fields defaulting to None
# a method that overrides a documented one without a docstring of its own is documented on the base class
autodoc_inherit_docstrings = False
numpydoc_show_inherited_class_members = False

# -- notebooks -------------------------------------------------------------------------------------
nb_execution_mode = os.environ.get("DPEXPLORE_DOCS_EXECUTE", "cache")
nb_execution_cache_path = str(DOCS / "_build" / ".jupyter_cache")
nb_execution_timeout = 900
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_ipywidgets_js = {}  # no widget manager from a CDN: the widget outputs are replaced by static snapshots
nb_merge_streams = True
nb_output_stderr = "warn"  # a notebook writing to stderr fails the build (-W), as it fails tests/notebooks
myst_enable_extensions = ["dollarmath", "colon_fence", "substitution"]
myst_substitutions = {"version": release}
myst_heading_anchors = 3

# -- HTML ------------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"dpexplore {release}"
html_static_path = ["_static"]
html_js_files = ["plotly.min.js", "dpexplore-plots.js"]  # plotly copied from the installed package below (the
# plots work offline); dpexplore-plots.js fits each plot to the text column once the page has laid out
html_theme_options = {"navigation_with_keys": False, "show_toc_level": 2}


# -- generated sources -----------------------------------------------------------------------------
#: every subpackage (a new course module appears by itself) and the top-level modules with a public API
SUBPACKAGES = sorted(p.parent.name for p in (ROOT / "dpexplore").glob("*/__init__.py")) + ["resources", "serve"]
UI_MODULES = ["dashboard", "controls", "figures", "plotpanel", "teaching", "audit", "resync", "poll",
              "spectral", "pca", "markov", "shuffle", "erm"]


def _write_if_changed(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def _api_page(modname: str) -> str:
    mod = importlib.import_module(modname)
    # submodules have their own page
    names = [n for n in getattr(mod, "__all__", []) if not inspect.ismodule(getattr(mod, n))]
    lines = [modname, "=" * len(modname), "", f".. automodule:: {modname}", "   :no-members:", ""]
    if names:
        lines += [f".. currentmodule:: {modname}", "", ".. autosummary::", "   :toctree: generated", ""]
        lines += [f"   {n}" for n in names]
        lines.append("")
    return "\n".join(lines)


def generate_api() -> None:
    mods = ["dpexplore"] + [f"dpexplore.{s}" for s in SUBPACKAGES]
    mods += [f"dpexplore.ui.{m}" for m in UI_MODULES if (ROOT / "dpexplore" / "ui" / f"{m}.py").exists()]
    mods += sorted(f"dpexplore.ui.{p.stem}" for p in (ROOT / "dpexplore" / "ui").glob("*.py")
                   if not p.stem.startswith("_") and p.stem not in UI_MODULES)  # new ui modules appear by themselves
    for m in mods:
        _write_if_changed(DOCS / "api" / f"{m}.rst", _api_page(m))
    body = ["API reference", "=============", "",
            "Every public name of every subpackage (its ``__all__``), generated from the numpydoc docstrings.",
            "", ".. toctree::", "   :maxdepth: 1", ""] + [f"   {m}" for m in mods]
    _write_if_changed(DOCS / "api" / "index.rst", "\n".join(body) + "\n")


STATIC_CELL = """\
# docs build only: show the dashboards as static snapshots (docs/_ext/static_dashboard.py)
# library source {digest}: jupyter-cache keys on the code cells, so a library change re-executes the notebook
import sys
sys.path.insert(0, "../_ext")
from static_dashboard import show_static
show_static()
"""


def _library_digest() -> str:
    h = hashlib.sha256()
    for p in sorted((ROOT / "dpexplore").rglob("*.py")) + [DOCS / "_ext" / "static_dashboard.py"]:
        h.update(p.relative_to(ROOT).as_posix().encode() + b"\0" + p.read_bytes())
    return h.hexdigest()[:16]


def _course_order(path: Path) -> tuple:
    """The gallery's order as a course: the index, the introductory track (``00_intro_*``), then the rest."""
    return (path.stem != "00_index", "intro_" not in path.stem, path.name)


def generate_gallery() -> None:
    import nbformat

    out = DOCS / "gallery"
    out.mkdir(exist_ok=True)
    notebooks = sorted((ROOT / "notebooks").glob("*.ipynb"))
    wanted = {p.name for p in notebooks} | {"lessons.json", "index.md"}
    for stale in out.iterdir():
        if stale.name not in wanted:
            stale.unlink()
    shutil.copyfile(ROOT / "notebooks" / "lessons.json", out / "lessons.json")  # the kernels' cwd is gallery/
    digest = _library_digest()
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        last = None  # the snapshot goes right after the last cell that builds a dashboard (where the page shows it)
        for i, cell in enumerate(nb.cells):
            if cell.cell_type == "code" and "dpexplore.ui" in cell.source:
                tags = cell.metadata.setdefault("tags", [])
                if "remove-output" not in tags:
                    tags.append("remove-output")
                last = i
        if last is not None:
            snapshot = nbformat.v4.new_code_cell(STATIC_CELL.format(digest=digest), id="dpexplore-static-snapshot",
                                                 metadata={"tags": ["remove-input"]})
            nb.cells.insert(last + 1, snapshot)
        _write_if_changed(out / path.name, nbformat.writes(nb) + "\n")
    index = ["# Notebook gallery", "",
             "Every notebook of the gallery (`notebooks/*.ipynb`, the introductory track first), executed when the "
             "docs are built. A dashboard is shown as a static snapshot of its default view; to move its sliders, "
             "serve it (`dpexplore-serve`, see [Hosting a class](../guides/hosting.md)) or open it on Binder.", "",
             "```{toctree}", ":maxdepth: 1", "", *(p.stem for p in sorted(notebooks, key=_course_order)), "```", ""]
    _write_if_changed(out / "index.md", "\n".join(index))


def copy_plotly_js() -> None:
    import plotly

    src = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    dst = DOCS / "_static" / "plotly.min.js"
    if not dst.exists() or dst.stat().st_size != src.stat().st_size:
        dst.parent.mkdir(exist_ok=True)
        shutil.copyfile(src, dst)


def _kernel_environment() -> None:
    # the executed notebooks see what `python -m dpexplore.serve` gives a kernel: no shared result cache (every
    # number computed for this build), a class-poll folder of the build's own, and one BLAS thread
    state = Path(tempfile.mkdtemp(prefix="dpexplore-docs-"))
    os.environ["DPEXPLORE_CACHE_DIR"] = ""
    os.environ["DPEXPLORE_POLL_DIR"] = str(state / "polls")
    os.environ.pop("QUERY_STRING", None)
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    # kernels import this tree's dpexplore
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])


_LITERAL = re.compile(r"(``.+?``|:[a-z:]+:`[^`]+`|`[^`]+`)")


def _escape_bars(app, what, name, obj, options, lines) -> None:
    """Docstrings write absolute values and norms as plain text (``|y_i|``, ``|⟨a, x⟩|``), which reST
    reads as substitution references: escape ``|`` outside literals, roles, tables and doctests."""
    for i, line in enumerate(lines):
        stripped = line.lstrip()
        if "|" not in line or re.match(r"\|( |$)", stripped) or stripped.startswith(("+-", "+=", ">>>", "...")):
            continue
        parts = _LITERAL.split(line)
        lines[i] = "".join(p if j % 2 else p.replace("|", "\\|") for j, p in enumerate(parts))


def setup(app) -> None:
    app.connect("autodoc-process-docstring", _escape_bars, priority=400)  # before numpydoc (500)


generate_api()
generate_gallery()
copy_plotly_js()
_kernel_environment()
