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
    monkeypatch.setattr(serve, "port_problem", lambda host, port: None)  # another server on 8866 is not this test's
    assert serve.main([str(ROOT / "notebooks"), "--no-browser", *argv]) == 0
    return seen["env"]


def test_poll_dir_reaches_the_kernels(monkeypatch, tmp_path):
    monkeypatch.delenv("DPEXPLORE_POLL_DIR", raising=False)
    assert _env_of(monkeypatch, ["--poll-dir", str(tmp_path)])["DPEXPLORE_POLL_DIR"] == str(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "c"))
    assert _env_of(monkeypatch, [])["DPEXPLORE_POLL_DIR"] == str(tmp_path / "c" / "dpexplore" / "polls")
    monkeypatch.setenv("DPEXPLORE_POLL_DIR", str(tmp_path / "env"))
    assert _env_of(monkeypatch, [])["DPEXPLORE_POLL_DIR"] == str(tmp_path / "env")


def test_the_launcher_prints_the_instructor_link_and_gives_kernels_the_lan_address(monkeypatch, tmp_path, capsys):
    """Issue 25.1/31.5: the instructor link (token made once, mode 600) and, with --host 0.0.0.0, the
    machine's network address for the students' links."""
    import stat

    from dpexplore.classroom import credentials, links

    monkeypatch.setattr(links, "lan_address", lambda: "192.0.2.44")
    env = _env_of(monkeypatch, ["--poll-dir", str(tmp_path), "--host", "0.0.0.0", "--port", "8899"])
    token = credentials.read_instructor_token(tmp_path)
    assert stat.S_IMODE(credentials.token_path(tmp_path).stat().st_mode) == 0o600
    out = capsys.readouterr().out
    assert f"http://192.0.2.44:8899/voila/render/06_class_poll.ipynb?instructor={token}" in out
    assert env["DPEXPLORE_PUBLIC_URL"] == "http://192.0.2.44:8899"
    assert token not in " ".join(env.values())  # the token is not in any kernel's environment
    env = _env_of(monkeypatch, ["--poll-dir", str(tmp_path)])
    assert env["DPEXPLORE_PUBLIC_URL"] == "http://127.0.0.1:8866"
    assert credentials.read_instructor_token(tmp_path) == token  # made once
