"""``dpexplore.hosting.lean``: servers start without building rfc3987_syntax's IRI grammar, and jsonschema's
``iri``/``iri-reference`` checks answer exactly as without it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("rfc3987_syntax", reason="installed with jsonschema[format-nongpl] (jupyter_events)")

CASES = ["http://example.org/ü", "http://exa mple", "../a/b", "mailto:x@y", "http://[::1]:8/p?q#f", "", 12]

CHECK = (
    "import json, sys, jsonschema\n"
    "fc = jsonschema.Draft7Validator.FORMAT_CHECKER\n"
    f"answers = [fc.conforms(x, f) for f in ('iri', 'iri-reference') for x in {CASES!r}]\n"
)


def _run(code: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_server_import_builds_no_grammar_and_iri_checks_answer_as_without_the_stand_in():
    lean = _run(
        "import sys, dpexplore.hosting.lean as lean\n"
        "installed = lean.defer_iri_grammar()\n"
        "import jupyter_server.serverapp, nbformat\n"
        "grammar_before = 'lark' in sys.modules\n"
        + CHECK +
        "real = getattr(sys.modules['rfc3987_syntax'], '__file__', None) is not None\n"
        "print(json.dumps({'installed': installed, 'grammar_before': grammar_before, 'answers': answers,"
        " 'real_after': real}))\n")
    plain = _run("import sys\n" + CHECK + "print(json.dumps({'answers': answers, 'lark': 'lark' in sys.modules}))\n")
    assert lean["installed"] is True
    assert lean["grammar_before"] is False, "importing jupyter_server built the IRI grammar anyway"
    assert plain["lark"] is True  # without the stand-in, importing jsonschema builds it (what this module avoids)
    assert lean["answers"] == plain["answers"]
    assert lean["answers"][:2] == [True, False]  # the checks are registered and discriminate
    assert lean["real_after"] is True  # the first check loaded the real package in the stand-in's place


def test_no_stand_in_once_jsonschema_is_imported():
    got = _run("import json, jsonschema, dpexplore.hosting.lean as lean\n"
               "print(json.dumps(lean.defer_iri_grammar()))\n")
    assert got is False


def test_main_runs_a_module_as_python_dash_m_would(tmp_path):
    (tmp_path / "probe.py").write_text(
        "import json, sys\n"
        "print(json.dumps({'name': __name__, 'argv': sys.argv[1:], 'argv0': sys.argv[0],"
         " 'stand_in': (getattr(sys.modules.get('rfc3987_syntax'), '__doc__', '') or '').startswith('Stand-in')}))\n")
    out = subprocess.run([sys.executable, "-m", "dpexplore.hosting.lean", "probe", "--x=1", "y"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=60, check=True,
                         env={**os.environ, "PYTHONPATH": str(tmp_path)})
    got = json.loads(out.stdout)
    assert got == {"name": "__main__", "argv": ["--x=1", "y"], "argv0": str(tmp_path / "probe.py"), "stand_in": True}


def test_main_without_a_module_prints_usage():
    out = subprocess.run([sys.executable, "-m", "dpexplore.hosting.lean"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 1 and "usage: python -m dpexplore.hosting.lean MODULE" in out.stderr


def test_the_launcher_and_the_hub_start_servers_through_it():
    from pathlib import Path

    from dpexplore.serve import voila_command

    cmd = voila_command(Path("notebooks"), "127.0.0.1", 8866)
    assert cmd[:4] == [sys.executable, "-m", "dpexplore.hosting.lean", "voila"]
    root = Path(__file__).resolve().parents[2]
    assert '"-m", "dpexplore.hosting.lean", "jupyterhub.singleuser"' in (root / "dpexplore" / "hub.py").read_text()
    assert '"dpexplore.hosting.lean", "jupyterhub.singleuser"' in (root / "deploy/jupyterhub/config.yaml").read_text()
