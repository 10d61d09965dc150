"""``LimitedKernelManager``'s cull grace: a kernel that no browser has connected to yet is not culled
while it may still be executing the notebook (the idle culler once killed such a kernel 22 s into
executing the paper-1 dashboard: 'Culling idle kernel ... with 0 connections', then 'Kernel died')."""

import asyncio
import concurrent.futures
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


def _done(result=None, exc=None):
    fut = concurrent.futures.Future()  # the Task API the pool uses: done, cancelled, exception, result
    if exc is not None:
        fut.set_exception(exc)
    else:
        fut.set_result(result)
    return fut


def test_a_pooled_kernel_no_page_took_is_replaced_before_the_cell_timeout(monkeypatch):
    """Voila's pooled kernel waits for its page inside a cell: at VoilaExecutor.timeout that cell failed
    (every pooled kernel of an earlier measurement, after 3 minutes). The reaper replaces it first."""
    m = LimitedKernelManager(pool_max_age=100, connect_timeout=0)
    shut: list[str] = []

    async def shutdown(self, kernel_id, *a, **k):
        shut.append(kernel_id)

    monkeypatch.setattr(AsyncMappingKernelManager, "shutdown_kernel", shutdown)
    filled: list[str] = []
    m.fill_if_needed = lambda delay=None, notebook_name=None, **kw: filled.append(notebook_name)
    now = time.monotonic()
    m.started_at.update({"old": now - 101, "young": now - 5, "taken-old": now - 500})
    m.pooled.update({"old", "young"})  # "taken-old" was handed to a page: never recycled
    failed = _done(exc=RuntimeError("refused by the cap"))
    m._pools = {"nb.ipynb": [_done({"kernel_id": "old"}), _done({"kernel_id": "young"}), failed,
                             _done({"kernel_id": "taken-old"})]}
    asyncio.run(m._recycle_pool())
    assert shut == ["old"] and m.recycled == 1
    assert [t.result()["kernel_id"] for t in m._pools["nb.ipynb"]] == ["young", "taken-old"]
    assert filled == ["nb.ipynb"]
    assert "old" not in m.pooled and "young" in m.pooled


def test_the_default_pool_max_age_stays_inside_the_cell_timeout():
    m = LimitedKernelManager()
    assert m.effective_pool_max_age() == 120  # no Voila parent: 180 s timeout - 60
    m.pool_max_age = 30
    assert m.effective_pool_max_age() == 30


def test_a_pool_start_during_a_page_request_is_not_that_pages_kernel_until_handed_over(monkeypatch):
    """A pool refill is a task created while a page is served: it inherits the page's context. The
    kernel it starts must not get that page's owner cookie or count as its kernel."""
    from dpexplore.hosting import patches

    m = LimitedKernelManager(connect_timeout=0)
    seen_env: list[dict] = []

    async def start(self, *a, env=None, **k):
        seen_env.append(env)
        kid = f"k{len(self._kernels)}"
        self._kernels[kid] = types.SimpleNamespace(execution_state="idle")
        return kid

    monkeypatch.setattr(AsyncMappingKernelManager, "start_kernel", start)
    page = types.SimpleNamespace(kernel_id=None, started=[])
    page.kernel_started = page.started.append

    async def run():
        token = patches._CURRENT_PAGE.set(page)
        try:
            pooled = await m.start_kernel(env={"VOILA_PREHEAT": "True"})
            own = await m.start_kernel(env={"VOILA_PREHEAT": "False"})
        finally:
            patches._CURRENT_PAGE.reset(token)
        return pooled, own

    pooled, own = asyncio.run(run())
    assert page.started == [own] and m.pooled == {pooled} and pooled not in m.page_kernels
    assert seen_env[0]["DPEXPLORE_QUERY_TOKEN"] == patches.QUERY_TOKEN
    assert float(seen_env[0]["DPEXPLORE_PREHEAT_WAIT"]) > m.effective_pool_max_age()
    assert "DPEXPLORE_QUERY_TOKEN" not in seen_env[1]  # a page's own kernel never waits for a request
    m.started_at[pooled] -= 1000
    m.pool_kernel_taken(pooled)
    assert pooled in m.page_kernels and pooled not in m.pooled and m.in_grace(pooled)


def test_a_page_takes_only_a_started_pooled_kernel_and_failed_starts_are_dropped():
    m = LimitedKernelManager(connect_timeout=0)
    pending = concurrent.futures.Future()
    failed = _done(exc=RuntimeError("refused by the cap"))
    ready = _done({"kernel_id": "ready"})
    m._pools = {"nb.ipynb": [pending, failed, ready]}
    assert m.ready_pool_first("nb.ipynb")
    assert m._pools["nb.ipynb"] == [ready, pending]  # Voila takes pool[0]: the started one
    m._pools = {"nb.ipynb": [pending]}
    assert not m.ready_pool_first("nb.ipynb")  # only a start in progress: the page gets a new kernel now
    assert not m.ready_pool_first("other.ipynb")


def test_a_pool_refill_waits_until_no_page_arrived_for_pool_fill_quiet_seconds():
    m = LimitedKernelManager(pool_fill_quiet=1, pool_max_age=30, connect_timeout=0)
    t0 = time.monotonic()
    asyncio.run(m._wait_until_quiet())
    assert time.monotonic() - t0 < 0.5  # no page yet: at once
    m.page_requested()
    t0 = time.monotonic()
    asyncio.run(m._wait_until_quiet())
    assert 0.9 <= time.monotonic() - t0 < 5


def test_a_page_kernel_without_connections_for_disconnect_timeout_is_shut_down(monkeypatch):
    """Issue 31.3: one websocket open + close made a kernel "ever connected" and only the 20-min idle
    cull freed it; now any page kernel with no open connection for disconnect_timeout s goes."""
    m, _ = _manager(monkeypatch)
    m.connect_timeout, m.disconnect_timeout = 120, 180
    now = time.monotonic()
    for k in ("left-long-ago", "left-just-now", "open", "never"):
        _add(m, k, age=1000)
        m.page_kernels[k] = now - 1000
        m._kernel_connections[k] = 0
    for k in ("left-long-ago", "left-just-now", "open"):
        m.notify_connect(k)
    m.notify_connect("open")
    for k in ("left-long-ago", "left-just-now", "open"):
        m.notify_disconnect(k)  # "open" keeps one of its two connections
    m.last_disconnect["left-long-ago"] = now - 181
    assert sorted(m.unattended()) == [("left-long-ago", "gone"), ("never", "never")]
    m.disconnect_timeout = 0  # disabled: only never-connected kernels go (connect_timeout)
    assert m.unattended() == [("never", "never")]


class _Stream:
    def __init__(self):
        self.callback, self.socket = None, types.SimpleNamespace(closed=False)

    def on_recv(self, callback):
        self.callback = callback

    def closed(self):
        return self.socket.closed

    def close(self):
        self.socket.closed = True


def test_the_replay_buffer_of_a_disconnected_page_is_bounded(monkeypatch):
    """Issue 31.2: jupyter_server buffered every message of a disconnected session without bound."""
    m, _ = _manager(monkeypatch)
    m.max_replay_buffer = 10_000
    _add(m, "k", age=1)
    channels = {"iopub": _Stream(), "shell": _Stream()}
    m.start_buffering("k", "k:session", channels)
    for _ in range(9):
        channels["iopub"].callback([b"x" * 1000])
    assert len(m._kernel_buffers["k"]["buffer"]) == 9
    channels["iopub"].callback([b"x" * 2000])  # 11,000 bytes: over the bound
    assert "buffer" not in m._kernel_buffers.get("k", {}), "the buffer was kept past max_replay_buffer"
    assert all(s.closed() for s in channels.values())
