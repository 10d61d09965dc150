"""Serve the dashboard gallery with Voila: ``python -m dpexplore.serve`` (or ``dpexplore-serve``).

Starts ``voila`` on the ``notebooks/`` folder (a clone's or the installed wheel's, found by
:mod:`dpexplore.resources`; tree mode, so the gallery's links to each paper's dashboard work), bound to
127.0.0.1 unless ``--host`` says otherwise, on a fixed port that never silently moves
(``port_retries=0``), from the folder above it so that Voila reads ``voila.json`` (tracebacks hidden,
execution timeout, idle-kernel culling, a kernel cap and the websocket fix of :mod:`dpexplore.hosting`),
and opens the gallery in a browser.

A busy port is reported in one line before Voila starts (exit status 2). The launcher raises its
open-files limit to the hard limit (Voila inherits it), and forwards SIGTERM, SIGINT and SIGHUP to
Voila, which then shuts its kernels down: stopping the launcher (Ctrl-C, ``kill <pid>``) stops the
server, with no orphaned Voila left holding the port.

This module uses only the standard library: ``import dpexplore`` does not import Voila.
"""

from __future__ import annotations

import argparse
import errno
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import webbrowser
from pathlib import Path

from dpexplore.hosting import raise_open_files_limit

from .resources import notebooks_dir, state_dir

__all__ = ["main", "merge_options", "preheat_options", "voila_command", "port_problem", "run_forwarding_signals"]

FORWARDED_SIGNALS = ("SIGTERM", "SIGINT", "SIGHUP")


def voila_command(notebooks: Path, host: str, port: int, extra: list[str] | None = None) -> list[str]:
    """The Voila command line this launcher runs (public so tests can check it).

    ``extra``: Voila/traitlet options passed on unchanged after the launcher's own (so they win),
    e.g. ``--LimitedKernelManager.max_kernels=2``.
    """
    if importlib.util.find_spec("voila") is not None:  # Voila in this interpreter: start it the lean way
        base = [sys.executable, "-m", "dpexplore.hosting.lean", "voila"]  # (15 MiB and ~1 CPU-s less; see there)
    else:  # a voila executable elsewhere (another environment on PATH)
        exe = Path(sys.executable).with_name("voila")
        base = [str(exe)] if exe.exists() else ([shutil.which("voila")] if shutil.which("voila") else
                                                [sys.executable, "-m", "voila"])
    return [*base, str(notebooks), "--no-browser", f"--Voila.ip={host}", f"--Voila.port={port}",
            "--Voila.port_retries=0", *(extra or [])]


def preheat_options(notebooks: Path, pool_size: int, names: list[str] | None = None) -> list[str]:
    """Voila options for ``pool_size`` preheated kernels per notebook (public so tests can check them).

    A pooled kernel runs its notebook up to the dashboard cell, builds and draws the default view and
    waits there for a page (:meth:`dpexplore.ui.dashboard.Dashboard._await_request`), inside Voila's cell
    timeout: that is raised to 600 s here and the kernel manager replaces a pooled kernel no page took
    within 540 s (``LimitedKernelManager.pool_max_age``). Refills start once no page was requested
    for 60 s (``LimitedKernelManager.pool_fill_quiet``), so they do not compete with a class arriving
    at once; a page that finds no pooled kernel ready gets a new kernel at once.
    """
    if names:
        bad = [n for n in names if not (notebooks / n).is_file()]
        if bad:
            raise SystemExit(f"error: --preheat-notebook {bad[0]!r}: no such notebook in {notebooks}")
    else:
        names = sorted(p.name for p in notebooks.glob("*.ipynb") if p.name != "00_index.ipynb")
    return ["--VoilaConfiguration.preheat_kernel=True", f"--VoilaConfiguration.default_pool_size={pool_size}",
            "--VoilaExecutor.timeout=600",
            *(f"--LimitedKernelManager.preheat_notebooks={n}" for n in names)]


def merge_options(defaults: list[str], extra: list[str]) -> list[str]:
    """``defaults`` then ``extra``, without the defaults whose option ``extra`` sets (traitlets refuses a
    scalar option given twice; list options such as ``preheat_notebooks`` are replaced as a whole).

    Examples
    --------
    >>> merge_options(["--A.x=1", "--A.y=2"], ["--A.x=5"])
    ['--A.y=2', '--A.x=5']
    """
    given = {o.split("=", 1)[0] for o in extra}
    return [o for o in defaults if o.split("=", 1)[0] not in given] + list(extra)


def port_problem(host: str, port: int) -> str | None:
    """Why Voila could not listen on ``host:port`` (one line), or None if it can.

    Binds the address the way Tornado does (``SO_REUSEADDR``, so a port left in TIME_WAIT by a
    stopped server counts as free) and releases it at once.
    """
    if not 1 <= port <= 65535:
        return f"--port must be between 1 and 65535; got {port}"
    try:
        infos = socket.getaddrinfo(host or None, port, socket.AF_UNSPEC, socket.SOCK_STREAM, 0, socket.AI_PASSIVE)
    except socket.gaierror as exc:
        return f"--host {host!r} is not an address of this machine ({exc.strerror})"
    for family, kind, proto, _, addr in infos[:1]:
        with socket.socket(family, kind, proto) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(addr)
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    return (f"port {port} on {host} is already in use (another dpexplore or Voila server?): "
                            f"stop it, or choose another port with --port")
                if exc.errno == errno.EACCES:
                    return f"no permission to listen on port {port} (ports below 1024 need root): use --port"
                return f"cannot listen on {host}:{port}: {exc.strerror}"
    return None


def run_forwarding_signals(cmd: list[str], *, cwd: Path, env: dict[str, str]) -> int:
    """Run ``cmd`` (Voila) in its own process group and forward SIGTERM/SIGINT/SIGHUP to it; return its
    exit status. Its own group: a terminal's Ctrl-C reaches Voila once (through this launcher), not
    twice; SIGTERM to the launcher no longer leaves an orphaned Voila (and its kernels) running."""
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, start_new_session=True)
    previous = {}

    def forward(signum, frame):
        if proc.poll() is None:
            # Voila shuts its kernels down on SIGTERM (and on SIGINT); send SIGTERM for either
            proc.send_signal(signal.SIGTERM)

    for name in FORWARDED_SIGNALS:
        sig = getattr(signal, name, None)
        if sig is not None:
            previous[sig] = signal.signal(sig, forward)
    try:
        while True:
            try:
                return proc.wait()
            except KeyboardInterrupt:  # pragma: no cover - SIGINT arrived before the handler was set
                forward(signal.SIGINT, None)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def can_open_browser(environ=None, platform: str | None = None) -> bool:
    """Whether a browser window can be opened here: not on a Linux/BSD machine without a display (an SSH
    session, a server, a container), where ``webbrowser`` would start a text browser or fail.

    Examples
    --------
    >>> can_open_browser({}, "linux"), can_open_browser({"DISPLAY": ":0"}, "linux"), can_open_browser({}, "darwin")
    (False, True, True)
    """
    env = os.environ if environ is None else environ
    plat = sys.platform if platform is None else platform
    if plat.startswith(("win", "darwin")) or plat == "cygwin":
        return True
    return bool(env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))


def _open_when_ready(url: str, timeout: float = 60.0) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):  # noqa: S310 - loopback URL we built
                break
        except OSError:
            time.sleep(0.5)
    print(f"\n  dpexplore gallery: {url}\n", flush=True)
    webbrowser.open(url)


def main(argv: list[str] | None = None) -> int:
    """Run the launcher (``python -m dpexplore.serve``, ``dpexplore-serve``); ``--help`` lists the options."""
    ap = argparse.ArgumentParser(
        prog="python -m dpexplore.serve", description=__doc__.split("\n\n")[0],
        epilog="Any --Class.trait=value option (e.g. --LimitedKernelManager.max_kernels=10) is passed on to Voila.")
    ap.add_argument("notebooks", nargs="?", default=None,  # a clone's notebooks/ or the wheel's packaged copy
                    help="folder with the notebooks (default: dpexplore's own, from any folder)")
    ap.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    ap.add_argument("--port", type=int, default=8866,
                    help="port (default 8866); a busy port is an error (one line, exit status 2): the server "
                         "never moves to another port")
    ap.add_argument("--no-browser", action="store_true", help="do not open a browser")
    ap.add_argument("--cache-dir", default=os.environ.get("DPEXPLORE_CACHE_DIR") or str(state_dir("results")),
        help="experiment result cache shared by every kernel (default ~/.cache/dpexplore/results); 'off' disables")
    ap.add_argument("--poll-dir", default=os.environ.get("DPEXPLORE_POLL_DIR") or str(state_dir("polls")),
        help="folder of the class-poll database shared by every kernel (default ~/.cache/dpexplore/polls)")
    ap.add_argument("--preheat", type=int, default=0, metavar="N",
                    help="keep N preheated kernels per dashboard (Voila's preheat_kernel): the notebook has run "
                         "before a student asks for it; each pooled kernel holds ~200 MiB while it waits")
    ap.add_argument("--preheat-notebook", action="append", default=[], metavar="NAME",
                    help="with --preheat: preheat only this notebook (repeatable; default: every notebook but "
                         "00_index.ipynb)")
    a, extra = ap.parse_known_args(argv)
    stray = [x for x in extra if not x.startswith("--")]
    if stray:
        ap.error(f"unrecognized arguments: {' '.join(stray)} (Voila options look like --Class.trait=value)")
    nb = Path(a.notebooks) if a.notebooks else notebooks_dir()
    if not (nb / "00_index.ipynb").is_file():
        print(f"error: {nb}/00_index.ipynb not found; pass the folder of the notebooks", file=sys.stderr)
        return 2
    if a.preheat < 0 or a.preheat > 64:
        ap.error(f"--preheat must be between 0 and 64; got {a.preheat}")
    if a.preheat:
        extra = merge_options(preheat_options(nb, a.preheat, a.preheat_notebook), extra)
    size = os.environ.get("DPEXPLORE_CACHE_MAX_BYTES", "").strip()
    if size:
        from .core.cache import parse_max_bytes

        try:
            parse_max_bytes(size)
        except ValueError as exc:  # every kernel would fail on it: say so once, before anything starts
            print(f"error: {exc}", file=sys.stderr)
            return 2
    problem = port_problem(a.host, a.port)
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    raise_open_files_limit()  # Voila is one process: its open-files limit is the server's capacity
    url = f"http://{'127.0.0.1' if a.host in ('0.0.0.0', '') else a.host}:{a.port}/voila/render/00_index.ipynb"
    if not a.no_browser and can_open_browser():
        threading.Thread(target=_open_when_ready, args=(url,), daemon=True).start()
    else:
        why = "" if a.no_browser else " (no display here: open it in a browser yourself)"
        print(f"\n  dpexplore gallery will be at: {url}{why}\n", flush=True)
    try:
        # run from the repository root so Voila reads its voila.json (settings + hardening)
        # every kernel inherits $DPEXPLORE_CACHE_DIR: a class opening the same view computes it once
        env = {**os.environ, "DPEXPLORE_CACHE_DIR": "" if a.cache_dir == "off" else a.cache_dir,
               "DPEXPLORE_POLL_DIR": a.poll_dir}  # and every kernel opens the same class-poll database
        # the class poll: students' links name the LAN address; creating a poll needs the instructor link
        from .classroom.credentials import CredentialError, ensure_instructor_token, instructor_link
        from .classroom.links import PUBLIC_URL_ENV, lan_address

        public = f"http://{lan_address() if a.host in ('0.0.0.0', '') else a.host}:{a.port}"
        env[PUBLIC_URL_ENV] = public
        try:
            print(f"  class poll, instructor link (do not project it): "
                  f"{instructor_link(public, ensure_instructor_token(a.poll_dir))}\n", flush=True)
        except (OSError, CredentialError) as exc:
            print(f"  class poll: no instructor link ({exc}); polls cannot be created from pages", flush=True)
        code = run_forwarding_signals(voila_command(nb.resolve(), a.host, a.port, extra),
                                      cwd=nb.resolve().parent, env=env)
    except KeyboardInterrupt:
        return 0
    return 0 if code in (0, -signal.SIGTERM, -signal.SIGINT) else code


if __name__ == "__main__":
    sys.exit(main())
