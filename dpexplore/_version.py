"""The one source of dpexplore's version.

``pyproject.toml`` reads it (``[tool.setuptools.dynamic]``), ``dpexplore.__version__`` re-exports it, and
everything that quotes a version (the result cache's keys, CSV headers, "reproduce in code" snippets,
dashboard footers, ``CHANGELOG.md``'s newest entry, the docs) reads ``dpexplore.__version__``.
"""

__version__ = "0.2.0"
