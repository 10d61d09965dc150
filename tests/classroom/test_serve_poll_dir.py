"""``python -m dpexplore.serve`` gives every kernel the same class-poll directory."""

from pathlib import Path

from dpexplore import serve

ROOT = Path(__file__).resolve().parents[2]


def _env_of(monkeypatch, argv):
    seen = {}

    def fake_call(cmd, cwd=None, env=None):
        seen["env"] = env
        return 0

    monkeypatch.setattr(serve, "run_forwarding_signals", fake_call)
    assert serve.main([str(ROOT / "notebooks"), "--no-browser", *argv]) == 0
    return seen["env"]


def test_poll_dir_reaches_the_kernels(monkeypatch, tmp_path):
    monkeypatch.delenv("DPEXPLORE_POLL_DIR", raising=False)
    assert _env_of(monkeypatch, ["--poll-dir", str(tmp_path)])["DPEXPLORE_POLL_DIR"] == str(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "c"))
    assert _env_of(monkeypatch, [])["DPEXPLORE_POLL_DIR"] == str(tmp_path / "c" / "dpexplore" / "polls")
    monkeypatch.setenv("DPEXPLORE_POLL_DIR", str(tmp_path / "env"))
    assert _env_of(monkeypatch, [])["DPEXPLORE_POLL_DIR"] == str(tmp_path / "env")
