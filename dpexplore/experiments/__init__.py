"""Every paper's experiments in one place, and the command line for batch runs.

``dpexplore.<paper>.experiments`` holds one function per measured dashboard panel; each returns an
:class:`~dpexplore.core.ExperimentResult`. This module finds them by name (``"spectral.spectrum"``)
and runs them from the shell::

    python -m dpexplore.experiments --list
    python -m dpexplore.experiments spectral.misclassification_vs_epsilon --n 5000 --k 3 --p 0.3 --q 0.05 \\
        --trials 100 --seed 0 --out results.csv [--scheduler tcp://host:8786]

Every keyword argument of the function is a ``--flag`` (lists comma-separated: ``--epsilons 0.5,1,2``);
``--seed`` is the ``rng``; ``--scheduler`` runs the trials on that Dask cluster (joblib's dask backend);
``--scheduler-timeout`` (default 10 s) bounds the connection to it; a ``tqdm`` bar shows the progress;
``--out`` writes :meth:`~dpexplore.core.ExperimentResult.to_csv` (``.csv``) or
:meth:`~dpexplore.core.ExperimentResult.to_dict` as JSON (``.json``), which
:meth:`~dpexplore.core.ExperimentResult.from_csv` / ``from_dict`` load back.

A bad ``--out`` directory, a ``--cache-dir`` that cannot be used, a malformed scheduler address or a
scheduler that does not answer in time each exit with status 2 and one ``error:`` line (no traceback).

Examples
--------
>>> resolve("spectral.spectrum").__name__
'spectrum'
>>> "pca.error_vs_epsilon" in list_experiments()
True
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import inspect
import json
import logging
import os
import re
import sys
import threading
import typing
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from dpexplore.core import ExperimentResult, experiment_progress, using_cache

__all__ = ["MAX_SCHEDULER_TIMEOUT", "PAPERS", "list_experiments", "main", "resolve"]

PAPERS = ("basics", "spectral", "pca", "markov", "shuffle", "erm", "attacks", "statistics", "selection", "ml",
          "local")
#: longest accepted ``--scheduler-timeout`` (seconds)
MAX_SCHEDULER_TIMEOUT = 600.0
_RESERVED = ("rng", "n_jobs")


def _module(paper: str):
    if paper not in PAPERS:
        raise ValueError(f"paper must be one of {list(PAPERS)}; got {paper!r}")
    try:
        return importlib.import_module(f"dpexplore.{paper}.experiments")
    except ModuleNotFoundError as exc:
        if exc.name == f"dpexplore.{paper}.experiments":
            return None
        raise


def _is_experiment(obj) -> bool:
    if not inspect.isfunction(obj):
        return False
    try:
        ret = typing.get_type_hints(obj).get("return")
    except Exception:  # pragma: no cover - an unresolvable annotation is not one of ours
        return False
    return ret is ExperimentResult


def list_experiments() -> list[str]:
    """``"<paper>.<function>"`` of every experiment function of every paper that has an experiments module."""
    out = []
    for paper in PAPERS:
        mod = _module(paper)
        if mod is None:
            continue
        out += [f"{paper}.{name}" for name in getattr(mod, "__all__", ()) if _is_experiment(getattr(mod, name))]
    return out


def resolve(name: str) -> Callable[..., ExperimentResult]:
    """The experiment function named ``"<paper>.<function>"``."""
    if not isinstance(name, str) or name.count(".") != 1:
        raise ValueError(f"experiment must be named '<paper>.<function>', e.g. 'spectral.spectrum'; got {name!r}")
    paper, func = name.split(".")
    mod = _module(paper)
    obj = getattr(mod, func, None) if mod is not None and func in getattr(mod, "__all__", ()) else None
    if obj is None or not _is_experiment(obj):
        raise ValueError(f"no experiment {name!r}; known: {', '.join(list_experiments())}")
    return obj


# -- command line ---------------------------------------------------------------------------------
def _scalar_parser(tp) -> Callable[[str], Any]:
    if tp is bool:
        def parse_bool(text: str) -> bool:
            low = text.strip().lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off"):
                return False
            raise argparse.ArgumentTypeError(f"expected true or false; got {text!r}")
        return parse_bool
    if tp in (int, float, str):
        return tp
    return str


def _parser_for(tp) -> tuple[Callable[[str], Any], str]:
    """A parser for one annotation: scalars as is, sequences comma-separated; ``X | None`` accepts 'none'."""
    args = typing.get_args(tp)
    origin = typing.get_origin(tp)
    if type(None) in args:  # Optional[X]
        inner = next(a for a in args if a is not type(None))
        parse, meta = _parser_for(inner)

        def optional(text: str):
            return None if text.strip().lower() == "none" else parse(text)
        return optional, meta
    if origin in (list, tuple, Sequence, typing.Sequence) or (origin is not None and isinstance(origin, type)
                                                               and issubclass(origin, Sequence) and origin is not str):
        item = _scalar_parser(args[0] if args else str)

        def listed(text: str):
            parts = [t.strip() for t in text.split(",") if t.strip()]
            if not parts:
                raise argparse.ArgumentTypeError("expected a comma-separated list of values")
            return [item(t) for t in parts]
        return listed, "A,B,..."
    return _scalar_parser(tp), {int: "INT", float: "X", bool: "BOOL"}.get(tp, "TEXT")


def _function_parser(name: str, func) -> argparse.ArgumentParser:
    doc = inspect.getdoc(func) or ""
    parser = argparse.ArgumentParser(prog=f"python -m dpexplore.experiments {name}",
                                     description=doc.split("\n\n")[0], parents=[_common_options()])
    hints = typing.get_type_hints(func)
    for pname, param in inspect.signature(func).parameters.items():
        if pname in _RESERVED:
            continue
        parse, meta = _parser_for(hints.get(pname, str))
        required = param.default is inspect.Parameter.empty
        flag = f"--{pname}"
        extra = {} if flag == f"--{pname.replace('_', '-')}" else {}
        aliases = [flag] + ([f"--{pname.replace('_', '-')}"] if "_" in pname else [])
        parser.add_argument(*aliases, dest=pname, type=parse, metavar=meta, required=required,
                            default=argparse.SUPPRESS,
                            help="(required)" if required else f"default {param.default!r}", **extra)
    return parser


def _common_options() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--seed", type=int, default=None, help="the rng seed (default: fresh entropy, recorded)")
    common.add_argument("--out", default=None, help="write the result: .csv (to_csv) or .json (to_dict)")
    common.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="run the trials on this Dask cluster, e.g. tcp://10.0.0.5:8786 (pip install "
                             "'dpexplore[cluster]')")
    common.add_argument("--scheduler-timeout", dest="scheduler_timeout", type=float, default=10.0, metavar="SECONDS",
                        help="give up connecting to --scheduler after this long (default 10)")
    common.add_argument("--n-jobs", dest="n_jobs", type=int, default=None,
                        help="joblib workers on this machine (default serial; -1 with --scheduler)")
    common.add_argument("--cache-dir", default=None, help="use the result cache in this directory")
    common.add_argument("--no-progress", action="store_true", help="no progress bar")
    return common


@contextlib.contextmanager
def _progress_bar(enabled: bool, desc: str):
    if not enabled:
        yield
        return
    from tqdm import tqdm

    bar = tqdm(total=None, desc=desc, unit="run", file=sys.stderr, dynamic_ncols=True)

    def update(done: int, total: int) -> None:
        if bar.total != total:
            bar.reset(total=total)
        bar.n = done
        bar.refresh()

    try:
        with experiment_progress(update):
            yield
    finally:
        bar.close()


def main(argv: Sequence[str] | None = None) -> int:
    """Run one experiment from the command line (see the module docstring); returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    top = argparse.ArgumentParser(prog="python -m dpexplore.experiments",
                                  description="Run a dashboard panel's experiment at any scale.", add_help=False)
    top.add_argument("experiment", nargs="?", help="<paper>.<function>, e.g. spectral.misclassification_vs_epsilon")
    top.add_argument("--list", action="store_true", help="list the experiments")
    top.add_argument("-h", "--help", action="store_true")
    first, rest = top.parse_known_args(argv)
    if first.list:
        print("\n".join(list_experiments()))
        return 0
    if first.experiment is None:
        top.print_help()
        print("\nexperiments:\n  " + "\n  ".join(list_experiments()))
        return 0 if first.help else 2
    try:
        func = resolve(first.experiment)
    except ValueError as exc:
        top.error(str(exc))
    parser = _function_parser(first.experiment, func)
    if first.help:
        parser.print_help()
        return 0
    args = vars(parser.parse_args(rest))
    seed, out, scheduler = args.pop("seed"), args.pop("out"), args.pop("scheduler")
    n_jobs, cache_dir, quiet = args.pop("n_jobs"), args.pop("cache_dir"), args.pop("no_progress")
    timeout = args.pop("scheduler_timeout")
    if out is not None and not out.endswith((".csv", ".json")):
        parser.error(f"--out must end in .csv or .json; got {out!r}")
    kwargs = dict(args, rng=seed)
    if "n_jobs" in inspect.signature(func).parameters:
        kwargs["n_jobs"] = n_jobs if n_jobs is not None else (-1 if scheduler else None)
    elif scheduler or n_jobs:
        parser.error(f"{first.experiment} always runs serially (e.g. wall-clock timings): drop --scheduler/--n-jobs")
    problem = _check_out(out) or (_check_scheduler(scheduler, timeout) if scheduler is not None else None)
    if problem:
        return _fail(problem)
    with contextlib.ExitStack() as stack:
        if cache_dir is not None:
            log = logging.getLogger("dpexplore.cache")
            quiet_log, log.disabled = log.disabled, True  # the reason is this command's one error line
            try:
                store = stack.enter_context(using_cache(cache_dir))
            finally:
                log.disabled = quiet_log
            if not store.usable:
                return _fail(f"--cache-dir {cache_dir!r} cannot be used: {store.problem}")
        if scheduler is not None:
            try:
                import joblib
                from distributed import Client  # noqa: F401 - checked before connecting
            except ImportError:
                return _fail("--scheduler needs Dask: pip install 'dpexplore[cluster]'")
            client = _connect(scheduler, timeout)
            if isinstance(client, str):
                return _fail(client)
            stack.enter_context(client)
            stack.enter_context(joblib.parallel_config(backend="dask"))
        stack.enter_context(_progress_bar(not quiet, first.experiment))
        try:
            result = func(**kwargs)
        except (ValueError, TypeError) as exc:
            return _fail(str(exc))
    if out is not None:
        try:
            if out.endswith(".csv"):
                result.to_csv(out)
            else:
                with open(out, "w", encoding="utf-8") as fh:
                    json.dump(result.to_dict(), fh)
        except OSError as exc:
            return _fail(f"--out {out!r}: cannot write ({exc.strerror or exc})")
    print(result.summary() + ("\n(from the result cache)" if result.cached else ""))
    return 0


def _fail(message: str) -> int:
    """One line on stderr, exit status 2 (no traceback)."""
    print(f"error: {' '.join(str(message).split())}", file=sys.stderr)
    return 2


def _check_out(out: str | None) -> str | None:
    """Why ``--out`` cannot be written (checked before the run), or None."""
    if out is None:
        return None
    path = Path(out)
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        return f"--out {out!r} is a directory"
    if not parent.is_dir():
        return f"--out {out!r}: the directory {str(parent)!r} does not exist"
    if not os.access(parent, os.W_OK):
        return f"--out {out!r}: the directory {str(parent)!r} is not writable"
    return None


_HOST = re.compile(r"(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})?)")


def _check_scheduler(address: str, timeout: float) -> str | None:
    """Why ``--scheduler`` is not an address ``[tcp://|tls://]host:port``, or None."""
    if not 0 < timeout <= MAX_SCHEDULER_TIMEOUT:
        return f"--scheduler-timeout must be in (0, {MAX_SCHEDULER_TIMEOUT}] seconds; got {timeout}"
    text = address.strip()
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "tcp", text
    host, colon, port = rest.rpartition(":")
    if scheme not in ("tcp", "tls") or not colon or not _HOST.fullmatch(host) or not port.isdigit() \
            or not 1 <= int(port) <= 65535:
        return (f"--scheduler must be an address tcp://HOST:PORT (or tls://HOST:PORT, HOST:PORT) with a port in "
                f"1-65535; got {address[:100]!r}")
    return None


def _connect(address: str, timeout: float):
    """A ``distributed.Client`` connected within ``timeout`` seconds, or the one-line reason it is not.

    The connection is made in a daemon thread joined with the timeout: distributed's own ``timeout`` bounds
    the TCP connect but not a scheduler that accepts and never answers the handshake.
    """
    from distributed import Client

    box: dict[str, Any] = {}

    def make() -> None:
        try:
            box["client"] = Client(address, timeout=timeout)
        except BaseException as exc:  # noqa: BLE001 - reported as one line
            box["error"] = exc

    thread = threading.Thread(target=make, name="dpexplore-connect", daemon=True)
    thread.start()
    thread.join(timeout + 2.0)
    if "client" in box:
        return box["client"]
    why = box.get("error") or f"no answer within {timeout:g} s"
    return f"--scheduler {address!r}: cannot reach the Dask scheduler ({why})"
