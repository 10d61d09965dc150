"""``LimitedKernelManager``'s cull grace: a kernel that no browser has connected to yet is not culled
while it may still be executing the notebook (the idle culler once killed such a kernel 22 s into
executing the paper-1 dashboard: 'Culling idle kernel ... with 0 connections', then 'Kernel died')."""

import asyncio
import time
import types

from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager

from dpexplore.hosting.kernels import LimitedKernelManager


def _manager(monkeypatch, grace=300):
    m = LimitedKernelManager(unconnected_grace=grace)
    culled: list[str] = []

    async def parent_cull(self, kernel_id):
        culled.append(kernel_id)

    monkeypatch.setattr(AsyncMappingKernelManager, "cull_kernel_if_idle", parent_cull)
    return m, culled


def _add(m, kernel_id, *, age, state="idle"):
    m._kernels[kernel_id] = types.SimpleNamespace(execution_state=state)
    m.started_at[kernel_id] = time.monotonic() - age


def test_unconnected_young_kernel_is_not_culled_but_old_connected_and_dead_ones_are(monkeypatch):
    m, culled = _manager(monkeypatch, grace=300)
    _add(m, "executing", age=22)  # the failure seen: 22 s old, never connected
    _add(m, "abandoned", age=301)  # page closed before it connected: culled after the grace
    _add(m, "dead", age=5, state="dead")  # dead kernels are always cleaned up
    _add(m, "viewed", age=5)  # a browser connected: normal culling rules apply at once
    m._kernel_connections["viewed"] = 0
    m.notify_connect("viewed")
    for k in ("executing", "abandoned", "dead", "viewed"):
        asyncio.run(m.cull_kernel_if_idle(k))
    assert culled == ["abandoned", "dead", "viewed"]
    assert m.in_grace("executing") and not m.in_grace("viewed") and not m.in_grace("unknown")


def test_grace_zero_restores_the_plain_culler(monkeypatch):
    m, culled = _manager(monkeypatch, grace=0)
    _add(m, "executing", age=1)
    asyncio.run(m.cull_kernel_if_idle("executing"))
    assert culled == ["executing"]


def test_only_never_connected_page_kernels_past_the_connect_timeout_are_abandoned(monkeypatch):
    m, _ = _manager(monkeypatch)
    m.connect_timeout = 120
    now = time.monotonic()
    m.page_kernels.update({"sent-long-ago": now - 121, "sent-just-now": now - 5, "still-executing": None,
                           "viewed": now - 500})
    m.ever_connected.add("viewed")
    assert m.abandoned() == ["sent-long-ago"]  # a kernel started through the REST API is never in page_kernels
    m.connect_timeout = 0
    assert m.abandoned() == []


def test_the_cap_counts_starts_in_progress(monkeypatch):
    """Eight concurrent starts under a cap of 2: two start, six get 503 (the count included pending starts)."""
    from tornado import web

    m = LimitedKernelManager(max_kernels=2, connect_timeout=0)

    async def slow_start(self, *a, **k):
        await asyncio.sleep(0.05)
        kid = f"k{len(self._kernels)}"
        self._kernels[kid] = types.SimpleNamespace(execution_state="idle")
        return kid

    monkeypatch.setattr(AsyncMappingKernelManager, "start_kernel", slow_start)

    async def burst():
        return await asyncio.gather(*(m.start_kernel() for _ in range(8)), return_exceptions=True)

    out = asyncio.run(burst())
    started = [x for x in out if isinstance(x, str)]
    refused = [x for x in out if isinstance(x, web.HTTPError)]
    assert len(started) == 2 and len(refused) == 6 and m.starting == 0
    assert "close a tab" in refused[0].reason
