"""The capacity model's arithmetic on given inputs, its validation, and the table in the docs."""

import json
import math
import re
from pathlib import Path

import pytest

from dpexplore.hosting.capacity import (
    Lecture,
    Measured,
    demand,
    hub_capacity_rows,
    machines_needed,
    measured_from_hub_result,
    measured_from_result,
    render_hub_markdown,
    render_markdown,
)

ROOT = Path(__file__).resolve().parents[2]
M = Measured(cpu_per_view=3.0, cpu_per_move=0.5, server_cpu_per_view=0.6, server_cpu_per_move=0.1,
             kernel_mib=128.0, server_mib=256.0, cpu_per_pool_fill=2.0)
L = Lecture(views_per_minute=1, moves_per_minute=6, peak_factor=2, cpu_headroom=0.5, memory_headroom=0.5,
            memory_gib_per_core=1, os_mib=768)


def test_demand_arithmetic():
    d = demand(30, M, L)
    # per student per minute: 1 * 3.0 + 6 * 0.5 = 6 CPU-s; * 30 / 60 = 3 cores; * 2 / (1 - 0.5) = 12
    assert d["cores"] == pytest.approx(12.0)
    assert d["server_cores"] == pytest.approx(30 * (0.6 + 0.6) / 60 * 2 / 0.5)  # 2.4
    assert d["kernel_mib"] == pytest.approx(30 * 128 / 0.5)  # 7680


def test_machines_take_the_binding_constraint():
    need = machines_needed(30, 4, M, L)
    assert need["by_cores"] == 3  # 12 cores / 4
    # per machine (768 + 256) / 0.5 = 2048 MiB; 4 GiB machine -> 2048 MiB for kernels; 7680 / 2048 -> 4
    assert need["by_memory"] == 4
    assert need["by_server"] == math.ceil(2.4)  # 3: one server process per machine, one core each
    assert need["machines"] == 4  # memory binds
    assert need["memory_gib"] == pytest.approx((7680 + 4 * 2048) / 1024)
    assert need["prefill_minutes"] == pytest.approx(30 * 2.0 / (4 * 4) / 60)
    fast_server = Measured(3.0, 0.5, 0.06, 0.01, 1.0, 1.0)  # little memory, light server: cores bind
    assert machines_needed(30, 4, fast_server, L)["machines"] == 3
    assert machines_needed(1, 16, M, L)["machines"] == 1


def test_validation():
    with pytest.raises(ValueError, match="students"):
        demand(0, M, L)
    with pytest.raises(TypeError, match="students"):
        demand(2.5, M, L)
    with pytest.raises(ValueError, match="cores_per_machine"):
        machines_needed(10, 0, M, L)
    with pytest.raises(ValueError, match="cpu_headroom"):
        Lecture(cpu_headroom=1.0)
    with pytest.raises(ValueError, match="peak_factor"):
        Lecture(peak_factor=0.5)
    with pytest.raises(TypeError, match="kernel_mib"):
        Measured(1, 1, 0, 0, "128", 1)
    with pytest.raises(ValueError, match="cpu_per_view"):
        Measured(-1, 1, 0, 0, 1, 1)
    with pytest.raises(ValueError, match="server_cpu"):
        Measured(1, 1, 2, 0, 1, 1)
    with pytest.raises(ValueError, match="no memory left"):
        machines_needed(10, 1, M, Lecture(memory_gib_per_core=0.5))
    with pytest.raises(ValueError, match="mode"):
        measured_from_result({}, "warm")
    with pytest.raises(ValueError, match="stock"):
        measured_from_result({}, "stock")


def test_the_docs_table_is_what_the_model_computes_from_the_measurements():
    result = json.loads((ROOT / "benchmarks" / "results" / "capacity.json").read_text())
    for doc_path in (ROOT / "docs" / "guides" / "capacity.md",):
        doc = doc_path.read_text()
        table = re.search(r"<!-- capacity-table:start -->\n(.*?)<!-- capacity-table:end -->", doc, re.S)
        assert table is not None, f"{doc_path.name} lost its capacity table markers"
        assert table.group(1) == render_markdown(result), doc_path.name
        assert result["date"] in doc


HUB = {"summary": {"cpu_s_per_page_view": 2.9, "cpu_s_per_slider_move": 0.4, "hub_proxy_cpu_s_per_page_view": 0.1,
                   "hub_proxy_cpu_s_per_slider_move": 0.1, "student_pss_mib": 384.0, "hub_rss_mib": 200.0,
                   "proxy_rss_mib": 56.0, "cpu_s_per_spawn": 3.0, "cpu_s_per_gallery_view": 0.5,
                   "hub_proxy_cpu_s_per_login": 0.5}}


def test_hub_measured_and_rows_arithmetic():
    m = measured_from_hub_result(HUB)
    # a student's CPU includes the hub's and proxy's share; memory is own server + kernels; the "server" is the hub
    assert (m.cpu_per_view, m.cpu_per_move) == (pytest.approx(3.0), pytest.approx(0.5))
    assert (m.server_cpu_per_view, m.server_cpu_per_move, m.kernel_mib, m.server_mib) == (0.1, 0.1, 384.0, 256.0)
    assert m.cpu_per_pool_fill == pytest.approx(4.0)  # spawn + gallery + hub/proxy: a login
    (row,) = hub_capacity_rows(HUB, L, students=(30,), cores=(4,))
    assert row["cores"] == pytest.approx(12.0)  # as M above: 30 * (3 + 6 * 0.5) / 60 * 2 / 0.5
    assert row["hub_cores"] == pytest.approx(30 * (0.1 + 0.6) / 60 * 2 / 0.5)  # 1.4
    assert row["student_gib"] == pytest.approx(30 * 384 / 0.5 / 1024)  # 22.5
    # per machine (768 + 256) / 0.5 = 2048 MiB of 4096; 23040 MiB / 2048 -> 12 machines: memory binds
    assert row["machines"][4] == 12
    assert row["login_minutes"][4] == pytest.approx(30 * 4.0 / (12 * 4) / 60)
    with pytest.raises(ValueError, match="hub measurement"):
        measured_from_hub_result({"summary": {"cpu_s_per_page_view": 1.0}})
    with pytest.raises(ValueError, match="hub measurement"):
        measured_from_hub_result({})


def test_the_docs_hub_table_is_what_the_model_computes_from_the_hub_measurements():
    result = json.loads((ROOT / "benchmarks" / "results" / "hub_capacity.json").read_text())
    serve = json.loads((ROOT / "benchmarks" / "results" / "capacity.json").read_text())
    doc = (ROOT / "docs" / "guides" / "capacity.md").read_text()
    table = re.search(r"<!-- hub-capacity-table:start -->\n(.*?)<!-- hub-capacity-table:end -->", doc, re.S)
    assert table is not None, "capacity.md lost its hub-capacity table markers"
    assert table.group(1) == render_hub_markdown(result, serve=serve)
    assert result["date"] in doc and result["students"] >= 8 and result["errors"] == 0


def test_hub_benchmark_refuses_bad_arguments_before_starting_anything():
    import importlib.util

    spec = importlib.util.spec_from_file_location("hub_capacity", ROOT / "benchmarks" / "hub_capacity.py")
    hc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hc)  # imports psutil and dpexplore.hub only; starts nothing
    from dpexplore.hub import MAX_DEMO_STUDENTS

    assert hc.MAX_STUDENTS == MAX_DEMO_STUDENTS
    hc.check_args(8, 3, 300)
    for args, match in (((0, 3, 300), "students"), ((MAX_DEMO_STUDENTS + 1, 3, 300), "students"),
                        ((8, 0, 300), "moves"), ((8, hc.MAX_MOVES + 1, 300), "moves"), ((8, 3, 5), "timeout"),
                        ((8, 3, float("nan")), "timeout")):
        with pytest.raises(ValueError, match=match):
            hc.check_args(*args)
    with pytest.raises(TypeError, match="students"):
        hc.check_args(8.0, 3, 300)
    with pytest.raises(ValueError, match="password"):
        hc.check_args(8, 3, 300, password="short")
    with pytest.raises(ValueError, match="dashboard"):
        hc.check_args(8, 3, 300, dashboard="../etc/passwd.ipynb")
    with pytest.raises(ValueError, match="dashboard"):
        hc.check_args(8, 3, 300, dashboard="no_such_page.ipynb")
