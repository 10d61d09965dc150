"""Versioning: one source of the version, named by the changelog's newest entry."""

import re
from pathlib import Path

import dpexplore
from dpexplore import _version

ROOT = Path(__file__).resolve().parents[1]


def test_changelog_names_the_package_version_first():
    text = (ROOT / "CHANGELOG.md").read_text()
    versions = re.findall(r"^## \[(\d+\.\d+\.\d+[^\]]*)\]", text, re.M)
    assert versions, "CHANGELOG.md has no '## [x.y.z]' entry"
    assert versions[0] == dpexplore.__version__, (versions[0], dpexplore.__version__)
    assert len(set(versions)) == len(versions), "a version appears twice"
    key = [tuple(int(x) for x in v.split(".")[:3]) for v in versions]
    assert key == sorted(key, reverse=True), "newest version first"


def test_one_source_of_the_version():
    toml = (ROOT / "pyproject.toml").read_text()  # (tomllib is Python 3.11+; the package supports 3.10)
    project = toml.split("\n[project]\n", 1)[1].split("\n[", 1)[0]
    assert re.search(r'^dynamic = \["version"\]$', project, re.M) and not re.search(r"^version\s*=", project, re.M)
    assert re.search(r'^version = \{ attr = "dpexplore\._version\.__version__" \}$', toml, re.M)
    assert dpexplore.__version__ == _version.__version__
    # no other module spells a version of its own
    literal = re.compile(r"""__version__\s*=\s*['"]""")
    hits = [p.relative_to(ROOT).as_posix() for p in (ROOT / "dpexplore").rglob("*.py") if literal.search(p.read_text())]
    assert hits == ["dpexplore/_version.py"], hits
