"""The result cache serves only what it verified; every filesystem problem is "no cache", never an error.

Hostile entries of every kind (altered numbers, another function's entry under a key, a non-finite
seed, deep JSON, FIFO, symlinks to endless files, a directory in place of an entry, a poisoned entry
written by another user), a cache directory that cannot exist, two processes at once, eviction
without a scan per write, and a key that follows the code.

Tests run as root here, so ``chmod 000`` does not stop a read: an unreadable entry is simulated with
a mock of ``os.open`` raising PermissionError and with a directory in place of the file; "another
user" is a real other uid (``nobody``) when the tests run as root, and a second installation's
secret otherwise.
"""

import hashlib
import hmac
import io
import json
import logging
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap

import pytest

import dpexplore.core.cache as cache_mod
from dpexplore.core import ResultCache, run_experiment, using_cache
from dpexplore.core.cache import MAX_ENTRY_BYTES, code_fingerprint, get_cache


def trial(x, rng):
    return [x + rng.normal()]


def other_trial(x, rng):
    return [100.0 + x]


def run(fn=trial, name="tests.cache.a", params=None, **kw):
    return run_experiment(name, params or {"p": 1}, fn, axis="x", grid=[0.5, 1.5], series=["s"], trials=3, rng=4,
                          **kw)


def entry_files(directory):
    return sorted(p for p in directory.glob("*.json") if not p.name.startswith("."))


def forge(cache, key, payload: bytes):
    """An entry with a *valid* tag (the test knows the secret): checks after the tag must still refuse it."""
    cache._path(key).write_bytes(cache_mod._MAGIC + cache._tag(key, payload) + b"\n" + payload)


def warnings_of(caplog):
    return [r.getMessage() for r in caplog.records if r.name == "dpexplore.cache"]


def test_round_trip_tag_and_identity(tmp_path):
    c = ResultCache(tmp_path)
    ident = {"function": "f", "parameters": {"n": 3}, "seed": 0, "version": "v"}
    k = c.key(**ident)
    c.put(k, {"answer": 42}, ident)
    assert c.get(k, ident) == {"answer": 42} and c.get(k) == {"answer": 42}
    assert c._path(k).read_bytes().startswith(b"dpx1 ")
    assert c.get(k, {**ident, "seed": 1}) is None  # names another seed: refused
    secret = tmp_path / ".secret"
    assert secret.stat().st_mode & 0o777 == 0o600 and secret.stat().st_size == 32
    with pytest.raises(ValueError, match="identity does not hash to key"):
        c.put(k, {}, {**ident, "seed": 2})


def test_altered_numbers_are_recomputed_and_logged_once(tmp_path, caplog):
    with using_cache(tmp_path):
        first = run()
        (path,) = entry_files(tmp_path)
        data = path.read_bytes()
        head, _, payload = data.partition(b"\n")
        doc = json.loads(payload)
        doc["doc"]["values"][0][0][0] = 999.0  # the tag is kept: an edit by someone without the secret
        path.write_bytes(head + b"\n" + json.dumps(doc).encode())
        with caplog.at_level(logging.WARNING, logger="dpexplore.cache"):
            again = run(cache=True)
            assert not again.cached and again.same_numbers(first) and 999.0 not in again.values
            # recomputed and overwritten with a valid entry
            assert run().cached
    msgs = warnings_of(caplog)
    assert len(msgs) == 1 and "integrity tag does not match" in msgs[0]


def test_another_functions_entry_under_a_key_is_refused(tmp_path):
    with using_cache(tmp_path) as c:
        a = run()
        (a_path,) = entry_files(tmp_path)
        b = run(other_trial, name="tests.cache.b")
        (b_path,) = [p for p in entry_files(tmp_path) if p != a_path]
        shutil.copyfile(b_path, a_path)  # B's genuine entry moved under A's key: the tag covers the key
        got = run()
        assert not got.cached and got.same_numbers(a)
        # even with a valid tag (someone holding the secret, or a bug): B's identity does not hash to A's key
        key_a = a_path.name[:-5]
        doc_b = json.loads(b_path.read_bytes().partition(b"\n")[2])
        forge(c, key_a, json.dumps({**doc_b, "key": key_a}).encode())
        got = run()
        assert not got.cached and got.same_numbers(a)
        # A's identity with B's numbers and name (a valid tag): the result itself names another function
        doc_a = json.loads(a_path.read_bytes().partition(b"\n")[2])
        forge(c, key_a, json.dumps({**doc_a, "doc": doc_b["doc"]}).encode())
        got = run()
        assert not got.cached and got.same_numbers(a) and b.values[0, 0, 0] not in got.values


@pytest.mark.parametrize("seed", [float("nan"), float("inf"), 1.5, "3", True, -1])
def test_damaged_seed_is_recomputed_not_raised(tmp_path, seed):
    with using_cache(tmp_path) as c:
        a = run()
        (path,) = entry_files(tmp_path)
        key = path.name[:-5]
        doc = json.loads(path.read_bytes().partition(b"\n")[2])
        doc["doc"]["seed"] = seed
        forge(c, key, json.dumps(doc, allow_nan=True).encode())
        got = run()
        assert not got.cached and got.same_numbers(a)


@pytest.mark.parametrize("depth", [40, 200_000])
def test_deeply_nested_json_is_refused(tmp_path, depth):
    c = ResultCache(tmp_path)
    k = c.key("f", {}, 0, "v")
    forge(c, k, b'{"key": "%s", "identity": null, "doc": %s1%s}' % (k.encode(), b"[" * depth, b"]" * depth))
    assert c.get(k) is None and c.rejected == 1


SUBPROCESS_GET = textwrap.dedent("""
    import sys, time
    from dpexplore.core import ResultCache
    c = ResultCache(sys.argv[1])
    k = c.key("f", {}, 0, "v")
    t0 = time.perf_counter()
    got = c.get(k)
    print(got is None, c.rejected, round(time.perf_counter() - t0, 3))
""")


def get_in_subprocess(directory, repo_root):
    proc = subprocess.run([sys.executable, "-c", SUBPROCESS_GET, str(directory)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": repo_root}, timeout=60)
    assert proc.returncode == 0, proc.stderr
    none, rejected, seconds = proc.stdout.split()
    return none == "True", int(rejected), float(seconds)


def test_fifo_entry_does_not_hang(tmp_path, repo_root):
    c = ResultCache(tmp_path)
    os.mkfifo(c._path(c.key("f", {}, 0, "v")))
    none, rejected, seconds = get_in_subprocess(tmp_path, repo_root)  # a hang would hit the 60 s timeout
    assert none and rejected == 1 and seconds < 5


@pytest.mark.parametrize("kind", ["dev_zero", "endless_file", "directory"])
def test_symlinks_endless_files_and_directories_are_refused_unread(tmp_path, repo_root, kind):
    c = ResultCache(tmp_path)
    path = c._path(c.key("f", {}, 0, "v"))
    if kind == "dev_zero":
        path.symlink_to("/dev/zero")
    elif kind == "endless_file":
        with open(path, "wb") as fh:  # sparse: 64 MiB + 1 byte on paper, nothing on disk
            fh.truncate(MAX_ENTRY_BYTES + 1)
    else:
        path.mkdir()  # what an unreadable entry looks like to open()+read() without being root
    none, rejected, seconds = get_in_subprocess(tmp_path, repo_root)
    assert none and rejected == 1 and seconds < 5


def test_unreadable_entry_and_cache_folder_problems_are_no_cache(tmp_path, monkeypatch, caplog):
    real_open = os.open

    def denied(path, flags, *a, **kw):
        if str(path).endswith(".json"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *a, **kw)

    with using_cache(tmp_path), caplog.at_level(logging.WARNING, logger="dpexplore.cache"):
        a = run()
        monkeypatch.setattr(cache_mod.os, "open", denied)  # root reads anything: simulate an unreadable file
        b = run()
        b2 = run()
        assert not b.cached and not b2.cached and b.same_numbers(a)
    assert sum("cannot read an entry" in m for m in warnings_of(caplog)) == 1  # one warning, not one per call
    monkeypatch.undo()
    caplog.clear()
    # the cache directory under a regular file, via the API and via the environment
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    with caplog.at_level(logging.WARNING, logger="dpexplore.cache"):
        with using_cache(blocker / "cache") as c:
            assert not c.usable and "Not a directory" in c.problem
            assert run().same_numbers(a) and not run().cached
        monkeypatch.setenv("DPEXPLORE_CACHE_DIR", str(blocker / "cache"))
        assert run().same_numbers(a) and not get_cache().usable
        assert run().same_numbers(a)
    assert len([m for m in warnings_of(caplog) if "off (" in m]) == 2  # one per cache object, not per call


def test_a_full_disk_costs_the_entry_not_the_result(tmp_path, monkeypatch, caplog):
    def full(*a, **kw):
        raise OSError(28, "No space left on device")

    with using_cache(tmp_path) as c, caplog.at_level(logging.WARNING, logger="dpexplore.cache"):
        monkeypatch.setattr(cache_mod.tempfile, "mkstemp", full)
        r1, r2 = run(), run()
        assert not r1.cached and not r2.cached and c.errors == 2
    assert sum("cannot write an entry" in m for m in warnings_of(caplog)) == 1


def test_secret_file_must_be_private_regular_and_ours(tmp_path):
    c = ResultCache(tmp_path / "a")
    assert c.usable
    secret = tmp_path / "a" / ".secret"
    secret.chmod(0o644)
    assert not ResultCache(tmp_path / "a").usable
    secret.chmod(0o600)
    assert ResultCache(tmp_path / "a").usable
    os.symlink(secret, tmp_path / "link")
    assert "symbolic link" in ResultCache(tmp_path / "b", secret_file=tmp_path / "link").problem
    if os.geteuid() == 0:
        os.chown(secret, 65534, 65534)
        assert "owned by this user" in ResultCache(tmp_path / "a").problem


def _write_and_read(directory, rounds):
    c = ResultCache(directory)
    ident = {"function": "f", "parameters": {"same": True}, "seed": 0, "version": "v"}
    k = c.key(**ident)
    for i in range(rounds):
        c.put(k, {"values": list(range(2000)), "writer": os.getpid(), "i": i}, ident)
        doc = c.get(k, ident)
        assert doc is not None and doc["values"] == list(range(2000)), c.problem
    assert c.rejected == 0 and c.errors == 0


def test_two_processes_write_and_read_the_same_entry(tmp_path):
    directory = tmp_path / "fresh"  # both processes race to create the secret, too
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_write_and_read, args=(str(directory), 200)) for _ in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0]
    c = ResultCache(directory)
    assert c.get(c.key("f", {"same": True}, 0, "v"))["values"] == list(range(2000))
    assert [f.name for f in directory.iterdir() if f.name.startswith(".tmp-")] == []


def test_a_second_process_gets_the_cached_result(tmp_path, repo_root):
    script = textwrap.dedent("""
        import json
        from dpexplore.core import run_experiment, get_cache
        calls = []
        def trial(x, rng):
            calls.append(x)
            return [x + rng.normal()]
        r = run_experiment("tests.subprocess", {"a": 1}, trial, axis="x", grid=[1.0, 2.0], series=["s"],
                           trials=4, rng=11)
        print(json.dumps({"calls": len(calls), "cached": r.cached, "values": r.values.tolist(),
                          "hits": get_cache().hits}))
    """)
    env = {**os.environ, "DPEXPLORE_CACHE_DIR": str(tmp_path / "shared"), "PYTHONPATH": repo_root}
    outs = [json.loads(subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                                      check=True, timeout=120).stdout) for _ in range(2)]
    assert outs[0]["calls"] == 8 and not outs[0]["cached"] and outs[0]["hits"] == 0
    assert outs[1]["calls"] == 0 and outs[1]["cached"] and outs[1]["hits"] == 1
    assert outs[1]["values"] == outs[0]["values"]


def test_poisoned_entry_from_another_user_is_refused(tmp_path, repo_root):
    directory = tmp_path / "shared"
    with using_cache(directory):
        honest = run()
    (path,) = entry_files(directory)
    key = path.name[:-5]
    doc = json.loads(path.read_bytes().partition(b"\n")[2])
    doc["doc"]["values"] = [[[7.0, 7.0, 7.0], [7.0, 7.0, 7.0]]]  # what the attacker wants everybody to see
    payload = json.dumps(doc).encode()
    # 1. another installation (its own secret) writes a valid-looking entry under the key
    other = ResultCache(directory, secret_file=tmp_path / "other-secret")
    other.put(key, doc["doc"], doc["identity"])
    with using_cache(directory):
        got = run()
    assert not got.cached and got.same_numbers(honest)
    # 2. a real other user (uid nobody) on a shared folder: cannot read the secret, forges a tag
    if os.geteuid() != 0:
        pytest.skip("needs root to run a process as another user")
    shared = tempfile.mkdtemp(prefix="dpx-shared-", dir="/tmp")
    try:
        os.chmod(shared, 0o1777)  # a world-writable class folder, like /tmp
        with using_cache(shared):
            honest = run()
        os.unlink(os.path.join(shared, key + ".json"))  # the attacker plants the entry before it is computed
        # the attacker is /bin/sh as uid 65534 (this venv's python is not executable by others here)
        path = os.path.join(shared, key + ".json")
        fake = hmac.new(b"a guess", payload, hashlib.sha256).hexdigest().encode()
        as_nobody = dict(capture_output=True, timeout=60, user=65534, group=65534, cwd="/tmp")
        peek = subprocess.run(["/bin/sh", "-c", f"cat {shared}/.secret"], **as_nobody)
        assert peek.returncode != 0 and peek.stdout == b""  # the secret is the server user's only
        plant = subprocess.run(["/bin/sh", "-c", f"cat > {path}"], input=b"dpx1 " + fake + b"\n" + payload,
                               **as_nobody)
        assert plant.returncode == 0 and os.stat(path).st_uid == 65534, plant.stderr
        with using_cache(shared):
            got = run()
            assert not got.cached and got.same_numbers(honest) and 7.0 not in got.values
            assert run().cached  # overwritten by an honest entry
    finally:
        shutil.rmtree(shared, ignore_errors=True)


def test_eviction_scans_once_per_batch_not_per_write(tmp_path):
    c = ResultCache(tmp_path, max_bytes=10**9)
    for i in range(50):
        c.put(c.key("f", {"i": i}, 0, "v"), {"payload": "x" * 100})
    assert c.scans == 1  # the first write learns the folder's size; later writes only add to it
    size = c._path(c.key("f", {"i": 0}, 0, "v")).stat().st_size
    c = ResultCache(tmp_path / "lru", max_bytes=int(3.5 * size))
    keys = [c.key("f", {"i": i}, 0, "v") for i in range(10)]
    for i, k in enumerate(keys):
        c.put(k, {"payload": "x" * 100})
        os.utime(c._path(k), (1000 + i, 1000 + i))  # distinct, increasing ages
        if i == 2:
            assert c.get(keys[0]) is not None  # used: becomes the newest (mtime refreshed through the fd)
            os.utime(c._path(keys[0]), (1000 + 2.5, 1000 + 2.5))
        if i == 3:  # over the bound: key 1, the least recently used, goes first (down to 90% of the bound)
            assert {j for j in range(4) if c._path(keys[j]).exists()} == {0, 2, 3}
    assert c.size() <= c.max_bytes
    assert {k for k in keys if c._path(k).exists()} <= set(keys[-3:])
    assert c.clear() >= 2 and c.size() == 0 and (tmp_path / "lru" / ".secret").exists()
    with pytest.raises(ValueError, match="cache key must be 64 lowercase hex digits"):
        c.get("../../etc/passwd")
    with pytest.raises(ValueError, match="max_bytes must be an integer >= 1"):
        ResultCache(tmp_path, max_bytes=0)


FINGERPRINT = textwrap.dedent("""
    import json
    from dpexplore.core import run_experiment
    from dpexplore.core.cache import code_fingerprint
    r = run_experiment("tests.code", {"a": 1}, lambda x, g: [x], axis="x", grid=[1.0], series=["s"], trials=2, rng=0)
    import dpexplore
    print(json.dumps({"fp": code_fingerprint(), "cached": r.cached, "file": dpexplore.__file__}))
""")


def test_the_key_follows_the_code(tmp_path, repo_root):
    assert code_fingerprint() == code_fingerprint() and len(code_fingerprint()) == 64
    copy = tmp_path / "src"
    shutil.copytree(os.path.join(repo_root, "dpexplore"), copy / "dpexplore",
                    ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(copy), "DPEXPLORE_CACHE_DIR": str(tmp_path / "cache")}

    def once():
        out = subprocess.run([sys.executable, "-c", FINGERPRINT], capture_output=True, text=True, env=env,
                             timeout=120, check=True, cwd=tmp_path).stdout  # cwd: not this checkout's dpexplore
        return json.loads(out)

    a, b = once(), once()
    assert a["file"].startswith(str(copy))
    assert a["fp"] == b["fp"] and not a["cached"] and b["cached"]
    target = copy / "dpexplore" / "erm" / "experiments.py"  # an edit anywhere in the package, same version string
    target.write_text(target.read_text() + "\n# changed\n")
    c = once()
    assert c["fp"] != a["fp"] and not c["cached"]


@pytest.mark.parametrize("text", ["lots", "1e9.5", "-5", "0", "1.5", "2**30", "5 parsecs", "1e400", "nan", "2TiB"])
def test_bad_max_bytes_in_the_environment_is_an_error_naming_it(monkeypatch, tmp_path, text):
    """Issue 39: an unparsable $DPEXPLORE_CACHE_MAX_BYTES was silently (a log line) replaced by the default."""
    monkeypatch.setenv("DPEXPLORE_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("DPEXPLORE_CACHE_MAX_BYTES", text)
    with pytest.raises(ValueError, match=r"\$DPEXPLORE_CACHE_MAX_BYTES must be a size from 1 byte to 1 TiB"):
        get_cache()
    with pytest.raises(ValueError, match="DPEXPLORE_CACHE_MAX_BYTES"):
        run()


@pytest.mark.parametrize("text, expected", [("1e9", 10**9), ("268435456", 2**28), ("256MiB", 2**28),
                                            ("2 GB", 2 * 10**9), ("1.5k", 1500), ("1TiB", 2**40)])
def test_max_bytes_in_the_environment_takes_sizes_people_write(monkeypatch, tmp_path, text, expected):
    monkeypatch.setenv("DPEXPLORE_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("DPEXPLORE_CACHE_MAX_BYTES", text)
    assert get_cache().max_bytes == expected


def test_the_secret_can_live_in_the_users_config_directory(monkeypatch, tmp_path):
    monkeypatch.setenv("DPEXPLORE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("DPEXPLORE_CACHE_SECRET", str(tmp_path / "config" / "dpexplore" / "cache-secret"))
    c = get_cache()
    assert c.usable and c.secret_file == tmp_path / "config" / "dpexplore" / "cache-secret"
    assert c.secret_file.stat().st_mode & 0o777 == 0o600 and not (tmp_path / "cache" / ".secret").exists()
    assert not run().cached and run().cached


def test_deleting_the_folder_clears_it_for_running_processes_too(tmp_path):
    directory = tmp_path / "cache"
    with using_cache(directory):
        a = run()
        shutil.rmtree(directory)  # what the library guide (docs/guides/library.md) says clears the cache
        b = run()
        assert not b.cached and b.same_numbers(a) and (directory / ".secret").exists()
        assert run().cached
        # another process re-created the folder meanwhile: its new secret is picked up, not a lockout
        shutil.rmtree(directory)
        other = ResultCache(directory)
        assert other.usable
        ident = {"function": "f", "parameters": {}, "seed": 0, "version": "v"}
        other.put(other.key(**ident), {"x": 1}, ident)
        assert get_cache().get(other.key(**ident), ident) == {"x": 1}
        assert not run().cached and run().cached


def test_warnings_go_to_the_server_log_not_the_page(tmp_path, monkeypatch):
    """In a kernel, sys.stderr and fd 2 reach the browser; the cache's warnings use the original descriptor."""
    read_end, write_end = os.pipe()

    class KernelStderr(io.StringIO):
        _original_stdstream_copy = write_end

    page = KernelStderr()
    monkeypatch.setattr(sys, "stderr", page)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    try:
        assert not ResultCache(blocker / "cache").usable
        os.close(write_end)
        server = os.read(read_end, 65536).decode()
    finally:
        os.close(read_end)
    assert "dpexplore result cache" in server and "off (" in server
    assert page.getvalue() == ""  # nothing on the stream the page sees
