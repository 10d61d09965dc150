"""A throwaway PostgreSQL server for the tests (Debian's ``postgresql`` package: initdb, pg_ctl).

The cluster lives in a fresh folder under /tmp, listens on a Unix socket only (no TCP port), trusts
local connections and is stopped at the end. As root (CI), the server runs as the ``postgres`` user the
package creates (PostgreSQL refuses to run as root). ``DPEXPLORE_REQUIRE_POSTGRES=1`` (set by .ci/run)
turns "PostgreSQL is not installed" from a skip into a failure.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest


def find_bin() -> Path | None:
    """The newest ``/usr/lib/postgresql/<version>/bin`` with initdb and pg_ctl, else one on PATH."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def unavailable(reason: str):
    """Skip, or fail when the environment requires PostgreSQL (CI)."""
    if os.environ.get("DPEXPLORE_REQUIRE_POSTGRES") == "1":
        pytest.fail(f"PostgreSQL is required here (DPEXPLORE_REQUIRE_POSTGRES=1): {reason}")
    pytest.skip(reason)


class PGServer:
    """One PostgreSQL cluster; :meth:`url` gives a fresh database's SQLAlchemy URL."""

    def __init__(self) -> None:
        bindir = find_bin()
        if bindir is None:
            unavailable("PostgreSQL is not installed (apt-get install postgresql)")
        self.bindir = bindir
        self.root = Path(tempfile.mkdtemp(prefix="dpx-pg-"))
        self.data = self.root / "data"
        self.sock = self.root
        self.log = self.root / "server.log"
        self._user = None
        if os.geteuid() == 0:
            try:
                self._user = pwd.getpwnam("postgres")
            except KeyError:
                unavailable("running as root and there is no 'postgres' user to run the server as")
            os.chown(self.root, self._user.pw_uid, self._user.pw_gid)
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                  "--no-instructions")
        self._n = 0
        self.start()

    def _run(self, tool: str, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        cmd = [str(self.bindir / tool), *args]
        if self._user is not None:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if check and out.returncode != 0:
            raise RuntimeError(f"{tool} failed ({out.returncode}): {out.stderr[-1500:]}"
                               + (self.log.read_text()[-1500:] if self.log.exists() else ""))
        return out

    def start(self) -> None:
        opts = f"-c listen_addresses='' -k {self.sock} -c fsync=on -c synchronous_commit=on -c max_connections=200"
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", opts, "-w", "-t", "60", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop", check=False)

    def postmaster_pid(self) -> int:
        return int((self.data / "postmaster.pid").read_text().split()[0])

    def kill9(self) -> None:
        """SIGKILL the postmaster and every backend at once (a crash, not a shutdown)."""
        import psutil

        master = psutil.Process(self.postmaster_pid())
        procs = [master, *master.children(recursive=True)]
        for p in procs:
            try:
                p.kill()
            except psutil.NoSuchProcess:
                pass
        psutil.wait_procs(procs, timeout=30)  # its pid file stays: the next start sees the pid is dead

    def admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(host=str(self.sock), dbname="postgres", user="postgres", autocommit=True) as con:
            con.execute(sql)

    def url(self, name: str | None = None) -> str:
        """A new, empty database on this server: its ``postgresql://`` URL."""
        self._n += 1
        db = name or f"t{os.getpid()}_{self._n}"
        self.admin(f'CREATE DATABASE "{db}"')
        return f"postgresql://postgres@/{db}?host={self.sock}"

    def close(self) -> None:
        self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)
