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


def run_cli(args, repo_root, **kw):
    env = {**os.environ, "PYTHONPATH": repo_root}
    return subprocess.run([sys.executable, "-m", "dpexplore.experiments", *args], capture_output=True, text=True,
                          env=env, timeout=300, **kw)


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

    text = (Path(repo_root) / "README.md").read_text()
    (code,) = re.findall(r"<!-- experiments-example -->\n```python\n(.+?)\n```", text, re.S)
    ns = {}
    exec(code, ns)  # noqa: S102 - the README's own example
    assert ns["r"].values.shape == (3, 2, 2) and "# seed: 0" in ns["text"]
    assert ExperimentResult.from_csv(ns["text"]).same_numbers(ns["r"])
