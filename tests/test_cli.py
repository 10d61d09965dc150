"""python -m dpexplore.experiments: flags from the signature, progress bar, output that loads back, --scheduler."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from dpexplore.core import ExperimentResult
from dpexplore.experiments import list_experiments, main, resolve
from dpexplore.spectral.experiments import misclassification_vs_epsilon

ARGS = ["spectral.misclassification_vs_epsilon", "--n", "100", "--k", "2", "--p", "0.5", "--q", "0.05",
        "--epsilons", "1,4", "--mechanisms", "shuffle,analyze_gauss", "--trials", "2", "--seed", "3"]


def direct():
    return misclassification_vs_epsilon(100, 2, 0.5, 0.05, epsilons=[1.0, 4.0], mechanisms=["shuffle", "analyze_gauss"],
                                        trials=2, rng=3)


def run_cli(args, repo_root, timeout=300, **kw):
    env = {**os.environ, "PYTHONPATH": repo_root}
    return subprocess.run([sys.executable, "-m", "dpexplore.experiments", *args], capture_output=True, text=True,
                          env=env, timeout=timeout, **kw)


def test_cli_writes_a_csv_that_loads_back_with_a_progress_bar(tmp_path, repo_root):
    out = tmp_path / "results.csv"
    proc = run_cli([*ARGS, "--out", str(out)], repo_root)
    assert proc.returncode == 0, proc.stderr
    assert "4/4" in proc.stderr and "100%" in proc.stderr  # tqdm's bar: 2 ε × 2 trials
    loaded = ExperimentResult.from_csv(out)
    assert loaded.same_numbers(direct())
    assert "shuffle  epsilon=1" in proc.stdout


def test_cli_json_output_and_in_process_main(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main([*ARGS, "--out", str(out), "--no-progress"]) == 0
    assert ExperimentResult.from_dict(json.loads(out.read_text())).same_numbers(direct())
    assert "seed 3" in capsys.readouterr().out


def test_cli_errors_are_clear(capsys):
    assert main([*ARGS[:-2], "--seed", "1", "--n", "5", "--no-progress", "--trials", "0"]) == 2
    assert "trials must be an integer >= 1" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["spectral.nope"])
    assert "no experiment 'spectral.nope'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([*ARGS, "--epsilons", "a,b"])
    assert "--epsilons" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["spectral.run_times", "--n", "100", "--k", "2", "--p", "0.5", "--q", "0.05", "--epsilon", "1",
              "--n-jobs", "2"])
    assert "always runs serially" in capsys.readouterr().err


def test_every_listed_experiment_resolves_and_builds_a_parser():
    from dpexplore.experiments import _function_parser

    names = list_experiments()
    assert {"spectral.misclassification_vs_epsilon", "pca.error_vs_epsilon", "markov.large_error_probability",
            "erm.risk_vs_radius"} <= set(names)
    for name in names:
        _function_parser(name, resolve(name)).format_help()


@pytest.mark.slow
def test_cli_on_a_dask_scheduler(tmp_path, repo_root, dask_client):
    out = tmp_path / "r.csv"
    proc = run_cli([*ARGS, "--out", str(out), "--scheduler", dask_client.scheduler.address], repo_root)
    assert proc.returncode == 0, proc.stderr
    got = ExperimentResult.from_csv(out)
    assert got.same_numbers(direct()) and np.array_equal(got.values, direct().values)


def test_serve_turns_the_shared_cache_on_for_its_kernels(monkeypatch, tmp_path, repo_root):
    import dpexplore.serve as serve

    seen = {}
    monkeypatch.setattr(serve, "run_forwarding_signals", lambda cmd, cwd, env: seen.update(env=env) or 0)
    monkeypatch.setattr(serve, "port_problem", lambda host, port: None)  # another server on 8866 is not this test's
    monkeypatch.delenv("DPEXPLORE_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    nb = os.path.join(repo_root, "notebooks")
    assert serve.main([nb, "--no-browser"]) == 0
    assert seen["env"]["DPEXPLORE_CACHE_DIR"] == str(tmp_path / "dpexplore" / "results")
    assert serve.main([nb, "--no-browser", "--cache-dir", "off"]) == 0
    assert seen["env"]["DPEXPLORE_CACHE_DIR"] == ""
    # the library itself: off unless the variable names a directory
    from dpexplore.core import get_cache

    monkeypatch.setenv("DPEXPLORE_CACHE_DIR", "")
    assert get_cache() is None


def test_readme_experiments_example_runs(repo_root):
    import re
    from pathlib import Path

    text = (Path(repo_root) / "docs" / "guides" / "library.md").read_text()
    (code,) = re.findall(r"<!-- experiments-example -->\n```python\n(.+?)\n```", text, re.S)
    ns = {}
    exec(code, ns)  # noqa: S102 - the library guide's own example
    assert ns["r"].values.shape == (3, 2, 2) and "# seed: 0" in ns["text"]
    assert ExperimentResult.from_csv(ns["text"]).same_numbers(ns["r"])


# -- bad environments: one line, non-zero exit, no traceback, bounded time (issue 30 item 3) -------------
QUICK = ["spectral.misclassification_vs_epsilon", "--n", "40", "--k", "2", "--p", "0.5", "--q", "0.05",
         "--epsilons", "1", "--mechanisms", "shuffle", "--trials", "1", "--seed", "0", "--no-progress"]


def one_line_failure(proc, pattern):
    import re

    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr and len(lines) == 1, proc.stderr
    assert re.search(pattern, lines[0]), lines[0]


def test_cli_output_in_a_missing_directory(tmp_path, repo_root):
    proc = run_cli([*QUICK, "--out", str(tmp_path / "nope" / "r.csv")], repo_root, timeout=120)
    one_line_failure(proc, r"^error: --out .*the directory .*nope' does not exist$")
    proc = run_cli([*QUICK, "--out", str(tmp_path)], repo_root, timeout=120)
    assert proc.returncode == 2  # argparse: not .csv/.json
    (tmp_path / "d.csv").mkdir()
    one_line_failure(run_cli([*QUICK, "--out", str(tmp_path / "d.csv")], repo_root, timeout=120),
                     r"^error: --out .*d.csv' is a directory$")


def test_cli_cache_dir_that_cannot_be_created(tmp_path, repo_root):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    proc = run_cli([*QUICK, "--cache-dir", str(blocker / "cache")], repo_root, timeout=120)
    one_line_failure(proc, r"^error: --cache-dir .* cannot be used: .*Not a directory")


@pytest.mark.parametrize("address", ["tcp://", "tcp://host", "tcp://host:99999", "udp://127.0.0.1:8786",
                                     "tcp://bad host:1", "tcp://127.0.0.1:port", ":8786"])
def test_cli_malformed_scheduler_address(address, repo_root):
    pytest.importorskip("distributed")
    proc = run_cli([*QUICK, "--scheduler", address], repo_root, timeout=120)
    one_line_failure(proc, r"^error: --scheduler must be an address tcp://HOST:PORT")


def test_cli_scheduler_that_does_not_answer(repo_root):
    import socket
    import time

    pytest.importorskip("distributed")
    free = socket.socket()
    free.bind(("127.0.0.1", 0))
    port = free.getsockname()[1]
    free.close()  # nobody listens there now
    t0 = time.monotonic()
    proc = run_cli([*QUICK, "--scheduler", f"tcp://127.0.0.1:{port}", "--scheduler-timeout", "2"], repo_root,
                   timeout=120)
    one_line_failure(proc, r"^error: --scheduler .*cannot reach the Dask scheduler")
    # a socket that accepts and never answers the handshake (distributed's own timeout does not cover it)
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        proc = run_cli([*QUICK, "--scheduler", f"tcp://127.0.0.1:{silent.getsockname()[1]}",
                        "--scheduler-timeout", "2"], repo_root, timeout=120)
    one_line_failure(proc, r"^error: --scheduler .*cannot reach the Dask scheduler \(no answer within 2 s\)")
    assert time.monotonic() - t0 < 90  # two bounded attempts, not a hang


def test_cli_scheduler_timeout_is_bounded(repo_root):
    pytest.importorskip("distributed")
    proc = run_cli([*QUICK, "--scheduler", "tcp://127.0.0.1:8786", "--scheduler-timeout", "1e9"], repo_root,
                   timeout=120)
    one_line_failure(proc, r"^error: --scheduler-timeout must be in \(0, 600.0\] seconds")
