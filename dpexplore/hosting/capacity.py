"""How many machines a class needs: a small model over measured per-student costs.

The measurements come from ``benchmarks/capacity.py`` (``benchmarks/results/capacity.json``): CPU-seconds
per page view and per slider move of the Voila server and its kernels, memory per kernel, and, with
preheated kernels, the CPU of filling the pool. The model is arithmetic on them and on stated
assumptions about a lecture (:class:`Lecture`); it uses the standard library only.

Model
-----
In the busiest minute of a lecture every student opens ``views_per_minute`` pages and makes
``moves_per_minute`` slider moves; arrivals bunch, so the busiest second runs at ``peak_factor`` times
that minute's average. The cores needed are

    students * (views_per_minute * cpu_per_view + moves_per_minute * cpu_per_move) / 60
    * peak_factor / (1 - cpu_headroom)

Each student holds one kernel for the lecture; memory needed is ``students * kernel_mib`` plus, per
machine, the server and ``os_mib``, divided by ``1 - memory_headroom``. A machine of ``c`` cores has
``c * memory_gib_per_core`` GiB. The Voila server itself is one process (one core at most): its share
of the CPU (``server_cpu_per_view``, ``server_cpu_per_move``) must fit in ``1 - cpu_headroom`` of a core
per machine. The machines needed are the most any of the three (cores, memory, the server's core)
asks for.

With preheated kernels (``dpexplore-serve --preheat N``, a pool of one kernel per student) a page view
costs only handing a ready kernel over; the pool is filled before the class arrives, which costs
``cpu_per_pool_fill`` per kernel (reported as minutes of the machines' cores before the lecture).

Under JupyterHub (``benchmarks/hub_capacity.py``, ``benchmarks/results/hub_capacity.json``) each student
has their own single-user server beside their kernel: :func:`measured_from_hub_result` makes a
:class:`Measured` whose ``kernel_mib`` is the student's server **and** kernels (PSS), whose CPU is the
student's server + kernels + the hub's and proxy's share, and whose ``server_*`` is the hub + proxy (one
pair per deployment; counted once per machine, which overstates it for several machines). Logging in
spawns the student's server and renders the gallery: its CPU takes the place of the pool fill, and
:func:`render_hub_markdown` reports it as the minutes the machines' cores need if the whole class logs in
at once.

What is not in the model: browsers (each student's own machine); network.

Binder
------
On Binder (mybinder.org) every student gets their own small container with their own kernel: the
dashboards work per student with no server to size, but **the class poll does not work**, because there
is no shared server on which the students' answers could meet. :func:`binder_summary` says what one
student's container needs against Binder's usual limits.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields

__all__ = ["Lecture", "Measured", "MAX_STUDENTS", "MAX_CORES", "machines_needed", "demand", "capacity_rows",
           "render_markdown", "render_measurements", "binder_summary", "measured_from_result",
           "measured_from_hub_result", "hub_capacity_rows", "render_hub_markdown"]

MAX_STUDENTS = 100_000  #: public maximum of a class size the model accepts
MAX_CORES = 1024  #: public maximum of cores per machine the model accepts


def _check_number(value, name: str, low: float, high: float, *, low_open: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a real number; got {type(value).__name__} {value!r}")
    v = float(value)
    if not math.isfinite(v) or v < low or v > high or (low_open and v == low):
        bracket = "(" if low_open else "["
        raise ValueError(f"{name} must be in {bracket}{low}, {high}]; got {value!r}")
    return v


def _check_int(value, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an integer; got {type(value).__name__} {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be in [{low}, {high}]; got {value!r}")
    return value


@dataclass(frozen=True)
class Lecture:
    """Assumptions about the busiest minute of a lecture and the headroom kept.

    Parameters
    ----------
    views_per_minute : float
        Pages each student opens in the busiest minute (default 1: the class opens a dashboard together).
    moves_per_minute : float
        Slider moves per student per minute (default 6: one every 10 s while exploring).
    peak_factor : float
        Busiest second over the minute's average (default 2: arrivals bunch).
    cpu_headroom : float
        Fraction of the cores kept free (default 0.3: run at most 70 % busy).
    memory_headroom : float
        Fraction of the memory kept free (default 0.2).
    memory_gib_per_core : float
        Memory of a machine per core (default 4 GiB, a general-purpose cloud machine).
    os_mib : float
        Memory per machine for the system and everything but the server and kernels (default 1024 MiB).
    """

    views_per_minute: float = 1.0
    moves_per_minute: float = 6.0
    peak_factor: float = 2.0
    cpu_headroom: float = 0.3
    memory_headroom: float = 0.2
    memory_gib_per_core: float = 4.0
    os_mib: float = 1024.0

    def __post_init__(self):
        _check_number(self.views_per_minute, "views_per_minute", 0, 60)
        _check_number(self.moves_per_minute, "moves_per_minute", 0, 600)
        _check_number(self.peak_factor, "peak_factor", 1, 100)
        _check_number(self.cpu_headroom, "cpu_headroom", 0, 0.95)
        _check_number(self.memory_headroom, "memory_headroom", 0, 0.95)
        _check_number(self.memory_gib_per_core, "memory_gib_per_core", 0, 1024, low_open=True)
        _check_number(self.os_mib, "os_mib", 0, 1_048_576)


@dataclass(frozen=True)
class Measured:
    """Measured per-student costs (one serving mode: stock or preheated).

    Parameters
    ----------
    cpu_per_view, cpu_per_move : float
        CPU-seconds (server + kernels) per page view and per slider move.
    server_cpu_per_view, server_cpu_per_move : float
        The Voila server's part of those (it runs in one process).
    kernel_mib : float
        Memory per student's kernel (PSS: what the kernels together hold, shared pages split).
    server_mib : float
        Memory of the Voila server (RSS), once per machine.
    cpu_per_pool_fill : float
        CPU-seconds to fill one pooled kernel (0 without preheating).
    """

    cpu_per_view: float
    cpu_per_move: float
    server_cpu_per_view: float
    server_cpu_per_move: float
    kernel_mib: float
    server_mib: float
    cpu_per_pool_fill: float = 0.0

    def __post_init__(self):
        for f in fields(self):
            _check_number(getattr(self, f.name), f.name, 0, 1e6)
        if self.server_cpu_per_view > self.cpu_per_view or self.server_cpu_per_move > self.cpu_per_move:
            raise ValueError("server_cpu_per_view/move must not exceed cpu_per_view/move (the server is part of it);"
                             f" got {self.server_cpu_per_view}/{self.cpu_per_view} and "
                             f"{self.server_cpu_per_move}/{self.cpu_per_move}")


def demand(students: int, measured: Measured, lecture: Lecture = Lecture()) -> dict[str, float]:
    """Cores, server-core share and memory (MiB, without the per-machine part) a class needs at its peak.

    Examples
    --------
    >>> m = Measured(cpu_per_view=3.0, cpu_per_move=0.5, server_cpu_per_view=0.3, server_cpu_per_move=0.05,
    ...              kernel_mib=100.0, server_mib=200.0)
    >>> d = demand(10, m, Lecture(views_per_minute=1, moves_per_minute=6, peak_factor=2, cpu_headroom=0.5))
    >>> d["cores"]  # 10 * (3 + 6 * 0.5) / 60 * 2 / 0.5
    4.0
    """
    students = _check_int(students, "students", 1, MAX_STUDENTS)
    if not isinstance(measured, Measured) or not isinstance(lecture, Lecture):
        raise TypeError("measured must be a Measured and lecture a Lecture; got "
                        f"{type(measured).__name__} and {type(lecture).__name__}")
    scale = lecture.peak_factor / 60.0 / (1.0 - lecture.cpu_headroom)
    per_student = lecture.views_per_minute * measured.cpu_per_view + lecture.moves_per_minute * measured.cpu_per_move
    server = (lecture.views_per_minute * measured.server_cpu_per_view
              + lecture.moves_per_minute * measured.server_cpu_per_move)
    return {"cores": students * per_student * scale, "server_cores": students * server * scale,
            "kernel_mib": students * measured.kernel_mib / (1.0 - lecture.memory_headroom)}


def machines_needed(students: int, cores_per_machine: int, measured: Measured,
                    lecture: Lecture = Lecture()) -> dict[str, float]:
    """Machines of ``cores_per_machine`` cores a class of ``students`` needs, and what sets the number.

    Returns
    -------
    dict
        ``machines`` (int), ``by_cores``, ``by_memory``, ``by_server`` (machines each constraint asks for,
        int), ``cores`` and ``memory_gib`` needed in total, and ``prefill_minutes`` (wall minutes for those
        machines' cores to fill a pool of one kernel per student before the lecture; 0 without a pool).

    Examples
    --------
    >>> m = Measured(cpu_per_view=3.0, cpu_per_move=0.5, server_cpu_per_view=0.3, server_cpu_per_move=0.05,
    ...              kernel_mib=100.0, server_mib=200.0)
    >>> machines_needed(10, 4, m, Lecture(cpu_headroom=0.5))["machines"]
    1
    """
    cores_per_machine = _check_int(cores_per_machine, "cores_per_machine", 1, MAX_CORES)
    d = demand(students, measured, lecture)
    by_cores = math.ceil(d["cores"] / cores_per_machine - 1e-9)
    by_server = math.ceil(d["server_cores"] - 1e-9)  # one server process per machine: one core (headroom is in)
    per_machine_mib = (lecture.os_mib + measured.server_mib) / (1.0 - lecture.memory_headroom)
    usable_mib = cores_per_machine * lecture.memory_gib_per_core * 1024 - per_machine_mib
    if usable_mib <= 0:
        raise ValueError(f"a machine of {cores_per_machine} cores and {lecture.memory_gib_per_core} GiB per core "
                         "has no memory left for kernels after the system and the server")
    by_memory = math.ceil(d["kernel_mib"] / usable_mib - 1e-9)
    machines = max(1, by_cores, by_memory, by_server)
    memory = d["kernel_mib"] + machines * per_machine_mib
    prefill = students * measured.cpu_per_pool_fill / (machines * cores_per_machine) / 60.0
    return {"machines": machines, "by_cores": by_cores, "by_memory": by_memory, "by_server": by_server,
            "cores": d["cores"], "memory_gib": memory / 1024, "prefill_minutes": prefill}


def measured_from_result(result: Mapping, mode: str) -> Measured:
    """The :class:`Measured` of one mode (``"stock"`` or ``"preheat"``) of ``benchmarks/results/capacity.json``."""
    if mode not in ("stock", "preheat"):
        raise ValueError(f"mode must be 'stock' or 'preheat'; got {mode!r}")
    try:
        r = result[mode]
        mem = r["memory_with_students"]
        return Measured(cpu_per_view=r["cpu_s_per_page_view"], cpu_per_move=r["cpu_s_per_slider_move"],
                        server_cpu_per_view=r["server_cpu_s_per_page_view"],
                        server_cpu_per_move=r["server_cpu_s_per_slider_move"],
                        kernel_mib=mem["kernel_pss_mib"], server_mib=mem["server_rss_mib"],
                        cpu_per_pool_fill=r.get("cpu_s_per_pool_kernel_fill", 0.0))
    except (KeyError, TypeError) as exc:
        raise ValueError(f"result has no complete {mode!r} measurement ({exc!r})") from exc


STUDENTS = (30, 100, 500)
CORES = (4, 8, 16)


def capacity_rows(result: Mapping, lecture: Lecture = Lecture(), students: Sequence[int] = STUDENTS,
                  cores: Sequence[int] = CORES) -> list[dict]:
    """One row per (mode, class size): the machines needed for each machine size."""
    rows = []
    for mode in ("stock", "preheat"):
        if mode not in result:
            continue
        m = measured_from_result(result, mode)
        for n in students:
            need = {c: machines_needed(n, c, m, lecture) for c in cores}
            first = need[cores[0]]
            rows.append({"mode": mode, "students": n, "cores": first["cores"],
                         "kernel_gib": demand(n, m, lecture)["kernel_mib"] / 1024,
                         "machines": {c: need[c]["machines"] for c in cores},
                         "prefill_minutes": {c: need[c]["prefill_minutes"] for c in cores}})
    return rows


def binder_summary(result: Mapping, memory_limit_mib: float = 2048.0) -> str:
    """What a Binder-only course gets, in one paragraph (Markdown)."""
    limit = _check_number(memory_limit_mib, "memory_limit_mib", 0, 1_048_576, low_open=True)
    m = measured_from_result(result, "stock")
    return (f"**Binder only.** Each student runs their own container with one kernel "
            f"(~{m.kernel_mib:.0f} MiB measured, against a usual Binder limit of {limit:.0f} MiB) and waits "
            f"about {m.cpu_per_view:.1f} CPU-s for a page and {m.cpu_per_move:.2f} CPU-s per slider move on "
            "their container's share of a core: no machines to size, but the class poll does not work, since "
            "there is no shared server on which the students' answers could meet. Binder's start-up (building "
            "or pulling the image) is not measured here.")


def render_measurements(result: Mapping) -> str:
    """The measured numbers the table is computed from (Markdown list)."""
    mach = result.get("machine", {})
    lines = [f"Measured {result.get('date')} on {mach.get('cpus')} cores ({mach.get('cpu_model')}, "
             f"{mach.get('memory_mib')} MiB), load average {result.get('load_average_start')} at the start and "
             f"{result.get('load_average_end')} at the end (other work shares this machine), notebook "
             f"`{result.get('notebook')}`, {result.get('client')}:", ""]
    for mode in ("stock", "preheat"):
        if mode not in result:
            continue
        r = result[mode]
        mem = r["memory_with_students"]
        line = (f"- **{mode}**, {r['students']} students x {r['moves_per_student']} slider moves: "
                f"{r['cpu_s_per_page_view']} CPU-s per page view (server {r['server_cpu_s_per_page_view']}), "
                f"{r['cpu_s_per_slider_move']} CPU-s per slider move (server {r['server_cpu_s_per_slider_move']}); "
                f"kernel PSS {mem['kernel_pss_mib']} MiB, RSS {mem['kernel_rss_mib']} MiB; server RSS "
                f"{mem['server_rss_mib']} MiB; page sent {r['html_done_median_s']} s, panels ready "
                f"{r['ready_median_s']} s (median), slider to plot {r['slider_p50_s']} s (p50)")
        if mode == "preheat":
            line += f"; filling the pool {r['cpu_s_per_pool_kernel_fill']} CPU-s per kernel"
        lines.append(line + ".")
    imp = result.get("kernel_import_scipy_stats")
    if imp:
        med = imp["median_mib"]
        lines.append(f"- a paper-1 dashboard in a fresh interpreter: RSS {med['with_rss']} MiB with `scipy.stats` "
                     f"imported (as before), {med['without_rss']} MiB without (now); PSS {med['with_pss']} -> "
                     f"{med['without_pss']} MiB.")
    return "\n".join(lines) + "\n"


def render_markdown(result: Mapping, lecture: Lecture = Lecture()) -> str:
    """The measured numbers and the capacity table (Markdown) computed from a ``capacity.json`` result."""
    rows = capacity_rows(result, lecture)
    head = "| serving | students | cores at peak | kernel memory (GiB) | " + " | ".join(
        f"{c}-core machines" for c in CORES) + " |"
    lines = [render_measurements(result),
             f"Assumptions: {lecture.views_per_minute:g} page view and {lecture.moves_per_minute:g} slider moves per "
             f"student in the busiest minute, peak factor {lecture.peak_factor:g}, {lecture.cpu_headroom:.0%} of "
             f"the cores and {lecture.memory_headroom:.0%} of the memory kept free, "
             f"{lecture.memory_gib_per_core:g} GiB per core, {lecture.os_mib:g} MiB per machine for the system.", "",
             head, "|" + "---|" * (4 + len(CORES))]
    for r in rows:
        label = "preheated pool" if r["mode"] == "preheat" else "stock"
        cells = []
        for c in CORES:
            cell = str(r["machines"][c])
            if r["mode"] == "preheat":
                cell += f" (fill {r['prefill_minutes'][c]:.1f} min before)"
            cells.append(cell)
        lines.append(f"| {label} | {r['students']} | {r['cores']:.1f} | {r['kernel_gib']:.1f} | " + " | ".join(cells)
                     + " |")
    lines += ["", binder_summary(result)]
    return "\n".join(lines) + "\n"


def measured_from_hub_result(result: Mapping) -> Measured:
    """The :class:`Measured` of a student under JupyterHub, from ``benchmarks/results/hub_capacity.json``.

    Per student: CPU = own server + kernels + the hub's and proxy's share; memory = own server + kernels
    (PSS, every student's page open); the "server" is the hub + proxy; the pool fill is a login (spawn +
    gallery view, hub and proxy included).

    Examples
    --------
    >>> r = {"summary": {"cpu_s_per_page_view": 2.0, "cpu_s_per_slider_move": 0.5,
    ...      "hub_proxy_cpu_s_per_page_view": 0.1, "hub_proxy_cpu_s_per_slider_move": 0.02,
    ...      "student_pss_mib": 270.0, "hub_rss_mib": 170.0, "proxy_rss_mib": 60.0, "cpu_s_per_spawn": 3.0,
    ...      "cpu_s_per_gallery_view": 0.7, "hub_proxy_cpu_s_per_login": 0.4}}
    >>> m = measured_from_hub_result(r)
    >>> (m.cpu_per_view, m.kernel_mib, m.server_mib, m.cpu_per_pool_fill)
    (2.1, 270.0, 230.0, 4.1)
    """
    try:
        s = result["summary"]
        return Measured(cpu_per_view=round(s["cpu_s_per_page_view"] + s["hub_proxy_cpu_s_per_page_view"], 6),
                        cpu_per_move=round(s["cpu_s_per_slider_move"] + s["hub_proxy_cpu_s_per_slider_move"], 6),
                        server_cpu_per_view=s["hub_proxy_cpu_s_per_page_view"],
                        server_cpu_per_move=s["hub_proxy_cpu_s_per_slider_move"],
                        kernel_mib=s["student_pss_mib"], server_mib=round(s["hub_rss_mib"] + s["proxy_rss_mib"], 6),
                        cpu_per_pool_fill=round(s["cpu_s_per_spawn"] + s["cpu_s_per_gallery_view"]
                                                + s["hub_proxy_cpu_s_per_login"], 6))
    except (KeyError, TypeError) as exc:
        raise ValueError(f"result has no complete hub measurement summary ({exc!r})") from exc


def hub_capacity_rows(result: Mapping, lecture: Lecture = Lecture(), students: Sequence[int] = STUDENTS,
                      cores: Sequence[int] = CORES) -> list[dict]:
    """One row per class size under JupyterHub: machines needed per machine size and the login minutes."""
    m = measured_from_hub_result(result)
    rows = []
    for n in students:
        need = {c: machines_needed(n, c, m, lecture) for c in cores}
        rows.append({"students": n, "cores": need[cores[0]]["cores"],
                     "student_gib": demand(n, m, lecture)["kernel_mib"] / 1024,
                     "hub_cores": demand(n, m, lecture)["server_cores"],
                     "machines": {c: need[c]["machines"] for c in cores},
                     "login_minutes": {c: need[c]["prefill_minutes"] for c in cores}})
    return rows


def render_hub_markdown(result: Mapping, lecture: Lecture = Lecture(), serve: Mapping | None = None) -> str:
    """The measured numbers and the machine table (Markdown) under JupyterHub, from ``hub_capacity.json``.

    With ``serve`` (a ``capacity.json`` result), a line sets the hub's per-student cost beside the stock
    ``dpexplore-serve`` one.
    """
    m = measured_from_hub_result(result)
    s, mach = result["summary"], result.get("machine", {})
    lines = [
        f"Measured {result.get('date')} on {mach.get('cpus')} cores ({mach.get('cpu_model')}, "
        f"{mach.get('memory_mib')} MiB), load average {result.get('load_average_start')} at the start and "
        f"{result.get('load_average_end')} at the end (other work shares this machine), through the local demo "
        f"hub ({result.get('spawner')}), {result.get('client')}; {result.get('students')} students, each: log in "
        f"(spawn), the gallery, `{result.get('notebook')}`, {result.get('moves_per_student')} slider moves; "
        f"{result.get('errors')} errors:", "",
        f"- **per student, own server + kernels**: spawn {s['spawn_median_s']} s (median; max "
        f"{s['spawn_max_s']} s) and {s['cpu_s_per_spawn']} CPU-s; gallery view {s['cpu_s_per_gallery_view']} CPU-s; "
        f"dashboard view {s['cpu_s_per_page_view']} CPU-s (server {s['server_cpu_s_per_page_view']}); slider move "
        f"{s['cpu_s_per_slider_move']} CPU-s (server {s['server_cpu_s_per_slider_move']}); dashboard ready "
        f"{s['dashboard_ready_median_s']} s, slider to plot {s['slider_p50_s']} s (medians).",
        f"- **per student, memory with every page open** (median): server PSS {s['student_server_pss_mib']} MiB "
        f"(RSS {s['student_server_rss_mib']}), kernels PSS {s['student_kernels_pss_mib']} MiB (RSS "
        f"{s['student_kernels_rss_mib']}, {s['student_kernels']:g} kernel(s)); together PSS {s['student_pss_mib']} "
        f"MiB, RSS {s['student_rss_mib']} MiB.",
        f"- **hub + proxy**: {s['hub_proxy_cpu_s_per_login']} CPU-s per login, {s['hub_proxy_cpu_s_per_page_view']} "
        f"per dashboard view, {s['hub_proxy_cpu_s_per_slider_move']} per slider move; RSS hub {s['hub_rss_mib']} "
        f"MiB, proxy {s['proxy_rss_mib']} MiB.", "",
        f"Model inputs per student: {m.cpu_per_view:g} CPU-s per page view, {m.cpu_per_move:g} per slider move, "
        f"{m.kernel_mib:g} MiB, {m.cpu_per_pool_fill:g} CPU-s per login; same lecture assumptions as above "
        f"({lecture.views_per_minute:g} page view and {lecture.moves_per_minute:g} slider moves in the busiest "
        f"minute, peak factor {lecture.peak_factor:g}, {lecture.cpu_headroom:.0%} of the cores and "
        f"{lecture.memory_headroom:.0%} of the memory free, {lecture.memory_gib_per_core:g} GiB per core).", "",
        "| students | cores at peak | students' memory (GiB) | hub + proxy cores at peak | "
        + " | ".join(f"{c}-core / {c * lecture.memory_gib_per_core:g} GiB machines" for c in CORES) + " |",
        "|" + "---|" * (4 + len(CORES))]
    for r in hub_capacity_rows(result, lecture):
        cells = [f"{r['machines'][c]} (logins {r['login_minutes'][c]:.1f} min)" for c in CORES]
        lines.append(f"| {r['students']} | {r['cores']:.1f} | {r['student_gib']:.1f} | {r['hub_cores']:.2f} | "
                     + " | ".join(cells) + " |")
    if serve is not None:
        st = measured_from_result(serve, "stock")
        lines += ["", f"Beside `dpexplore-serve` (stock, above): a student holds {m.kernel_mib:g} MiB (PSS) under the "
                  f"hub against {st.kernel_mib:g} MiB (one kernel; the shared Voila server's {st.server_mib:g} MiB "
                  f"RSS once per machine), {m.kernel_mib / st.kernel_mib:.1f} times as much; CPU-s per page view "
                  f"{m.cpu_per_view:g} against {st.cpu_per_view:g}, per slider move {m.cpu_per_move:g} against "
                  f"{st.cpu_per_move:g}; and logging in (spawn + gallery) costs {m.cpu_per_pool_fill:g} CPU-s, "
                  "which a `dpexplore-serve` student does not pay."]
    return "\n".join(lines) + "\n"
