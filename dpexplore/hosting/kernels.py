"""A kernel manager that refuses to start more than ``max_kernels`` kernels (HTTP 503), counting
starts in progress, and shuts down a Voila page's kernel when no browser connected to it within
``connect_timeout`` seconds after the page was sent (a plain GET otherwise held a slot for 20 min),
or when it has had no open connection for ``disconnect_timeout`` seconds (one websocket open and
close made a kernel "connected", and only the 20-min idle cull freed it), or when its open page has sent
no input for ``idle_page_timeout`` seconds (issue 39 H2: a connected page was never culled; the page's kit
tells the reader first and offers a link that resumes with the same settings, :mod:`dpexplore.ui.idle`).
Messages buffered for a disconnected page (jupyter_server's replay buffer) are bounded by
``max_replay_buffer`` bytes.

Every page view of a Voila dashboard starts one kernel (about 100–150 MiB here). Without a cap, a
class (or one script reloading a page) can exhaust the machine's memory. The repository's
``voila.json`` / ``jupyter_config.json`` select it with
``VoilaConfiguration.multi_kernel_manager_class`` (standalone Voila) and ``ServerApp.kernel_manager_class``
(Voila as a Jupyter server extension: JupyterLab, Binder, where Voila ignores the former), both
``"dpexplore.hosting.kernels.LimitedKernelManager"``.

Importing this module also installs :func:`dpexplore.hosting.install_voila_mitigations` (the
websocket fix): Voila imports its kernel-manager class at start-up, before serving anything, so a
JSON configuration is enough to harden a server — no Python config file, no launcher required.
"""

from __future__ import annotations

import os
import time

from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from tornado import web
from traitlets import Integer, List, Unicode

from . import connections, install_voila_mitigations
from .patches import QUERY_TOKEN, current_page

__all__ = ["LimitedKernelManager"]

install_voila_mitigations()
# One BLAS/OpenMP thread per kernel: kernels inherit the server's environment, and on a shared
# machine several multi-threaded kernels oversubscribe the cores (a 300×300 eigh measured 1.7 s
# instead of 2 ms on a loaded 2-core machine). Set the variables before starting Voila to override.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


def _forget_request_info(kernel_id: str) -> None:
    """Drop the request info Voila keeps for a preheated kernel (its dict is never emptied otherwise)."""
    try:
        from voila.request_info_handler import RequestInfoSocketHandler
    except ImportError:  # pragma: no cover - Voila not installed
        return
    RequestInfoSocketHandler._cache.pop(kernel_id, None)


class LimitedKernelManager(AsyncMappingKernelManager):
    """AsyncMappingKernelManager with a cap on the number of kernels, and shutdown of abandoned pages' kernels."""

    max_kernels = Integer(
        40, config=True,
        help="Refuse to start a kernel (HTTP 503) when this many are running or starting. Starts still in "
             "progress count: with the count taken before the start was awaited, a burst of 8 simultaneous "
             "page requests started 8 kernels under a cap of 2.",
    )

    max_kernels_per_client = Integer(
        8, config=True,
        help="Page kernels one client may hold at once (issue 39 H2: one address could hold all 40 seats, and "
             "every other visitor got 503). A client is its own address where the server knows it "
             "(dpexplore.hosting.instructor.client_address: not a proxy's 127.0.0.1 unless the proxy is trusted "
             "through $DPEXPLORE_TRUSTED_PROXIES); under a hub each student has their own server and cap. "
             "Beyond it a new page gets 503 ('close a tab'). 0: no per-client cap.",
    )
    unconnected_grace = Integer(
        300, config=True,
        help="Never cull a kernel that no browser has connected to yet until this many seconds after it "
             "started (keep it above VoilaExecutor.timeout + startup_timeout). Voila executes the notebook "
             "before the page connects, and the idle culler can take that executing kernel for idle: a load "
             "test with a 20 s cull time saw 'Culling idle kernel ... with 0 connections due to 22 seconds of "
             "inactivity' followed by 'Kernel died while waiting for execute reply'.",
    )

    connect_timeout = Integer(
        120, config=True,
        help="Shut down a Voila page's kernel when no browser has connected to it this many seconds after "
             "Voila finished sending the page (its notebook has executed by then, so this never cuts an "
             "execution short). A plain GET (a script, a crawler) otherwise holds a kernel slot for the "
             "whole idle-cull time. 0 disables. The page's JavaScript (~10 MB, cached after the first "
             "page) must load within this time on the slowest network you serve.",
    )

    disconnect_timeout = Integer(
        180, config=True,
        help="Shut down a Voila page's kernel that has had no open websocket for this many seconds, whether "
             "or not a browser was ever connected (a tab closed without its unload request, a sleeping "
             "laptop, a script's websocket open + close). A page that reconnects within this time keeps "
             "its kernel. 0 disables (then only the idle cull frees such a kernel).",
    )

    idle_page_timeout = Integer(
        3600, config=True,
        help="Shut down a Voila page's kernel whose open page has sent no input (no control moved, no button "
             "pressed) for this many seconds plus idle_notice_margin (issue 39 H2: an idle open tab held its "
             "seat for ever, and one visitor's idle tabs could fill the server). The page's dashboard kit says "
             "so two minutes before, and at this time shows a link that reopens the page with the same "
             "settings. Kernels inherit the value ($DPEXPLORE_IDLE_PAGE_TIMEOUT). 0 disables.",
    )

    idle_notice_margin = Integer(
        30, config=True,
        help="Seconds between the page's own 'paused' notice (at idle_page_timeout) and the shutdown, so the "
             "notice and its resume link reach the page before the kernel goes.",
    )

    max_replay_buffer = Integer(
        4 * 2**20, config=True,
        help="Bytes of kernel messages jupyter_server keeps for a page whose websocket dropped, to replay "
             "when it reconnects; beyond that the buffer is dropped (the page asks for the widgets' state "
             "again when it reconnects). jupyter_server's own buffer has no bound.",
    )

    reap_interval = Integer(10, config=True, help="Seconds between checks for pages that never connected.")

    preheat_notebooks = List(
        Unicode(), config=True,
        help="With Voila's --preheat_kernel: the notebooks (paths relative to the served folder) that get a pool "
             "of VoilaConfiguration.default_pool_size preheated kernels; empty: every notebook (Voila's "
             "default, one pool per notebook found). Pooled kernels count against max_kernels.",
    )

    pool_fill_quiet = Integer(
        60, config=True,
        help="Start a kernel that refills a preheated pool only once no page was requested for this many "
             "seconds (at most pool_max_age later): the refill of a class's pool does not compete with "
             "the class. A page never waits for a refill: with no pooled kernel ready it gets a new kernel "
             "at once (see dpexplore.hosting.patches).",
    )

    pool_max_age = Integer(
        0, config=True,
        help="Replace a pooled (preheated) kernel that no page has taken after this many seconds. A pooled "
             "kernel waits for its page inside the dashboard cell, and Voila fails that cell at "
             "VoilaExecutor.timeout: replacing it first keeps the pool usable. 0: VoilaExecutor.timeout - 60 "
             "(at least 30).",
    )

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.started_at: dict[str, float] = {}  # kernel id -> time.monotonic() at start
        self.ever_connected: set[str] = set()  # kernel ids a browser has connected to
        self.page_kernels: dict[str, float | None] = {}  # Voila page kernels -> when the page was sent
        self.starting = 0  # starts in progress (not yet in list_kernel_ids())
        self.pooled: set[str] = set()  # preheated kernels no page has taken yet
        self.recycled = 0  # pooled kernels replaced for age (see pool_max_age)
        self.last_page_at = float("-inf")  # time.monotonic() of the last page request
        self.last_disconnect: dict[str, float] = {}  # kernel id -> when its last connection closed
        self.kernel_clients: dict[str, str] = {}  # page kernel id -> the client that holds it (when known)
        self.pending_pages: dict[str, int] = {}  # client -> its page requests being served right now
        self.last_input: dict[str, float] = {}  # page kernel id -> time.monotonic() of its page's last message
        self._reaper = None
        if self.idle_page_timeout > 0:  # the kernels' kit reads it (dpexplore.ui.idle): kernels inherit it
            os.environ["DPEXPLORE_IDLE_PAGE_TIMEOUT"] = str(int(self.idle_page_timeout))
        else:
            os.environ.pop("DPEXPLORE_IDLE_PAGE_TIMEOUT", None)
        connections.configure(parent=self.parent)
        if self.preheat_notebooks and hasattr(self, "kernel_pools_config"):  # wrapped by Voila's preheat factory
            size = int(getattr(getattr(self.parent, "voila_configuration", None), "default_pool_size", 1))
            env = dict(getattr(self, "default_env_variables", {}) or {})
            self.kernel_pools_config = {"default": {"pool_size": 0, "kernel_env_variables": env},
                                        **{nb: {"pool_size": size, "kernel_env_variables": env}
                                           for nb in self.preheat_notebooks}}

    def _cell_timeout(self) -> float:
        try:
            return float(self.parent.config.VoilaExecutor.timeout)
        except (AttributeError, TypeError, ValueError):
            return 180.0

    def effective_pool_max_age(self) -> float:
        """Seconds after which an untaken pooled kernel is replaced (see ``pool_max_age``)."""
        return float(self.pool_max_age) if self.pool_max_age > 0 else max(30.0, self._cell_timeout() - 60.0)

    async def start_kernel(self, *args, **kwargs):  # type: ignore[override]
        env = kwargs.get("env")
        pooled = isinstance(env, dict) and env.get("VOILA_PREHEAT") == "True"
        if pooled:  # a preheated kernel for the pool (voila_kernel_manager.VoilaKernelManager._initialize)
            ip = str(getattr(self.parent, "ip", "") or "127.0.0.1")
            kwargs["env"] = {**env, "DPEXPLORE_QUERY_TOKEN": QUERY_TOKEN,
                             # the kit's wait gives up before Voila's cell timeout; the reaper replaces it sooner
                             "DPEXPLORE_PREHEAT_WAIT": str(int(self.effective_pool_max_age() + 30)),
                             "VOILA_APP_IP": "127.0.0.1" if ip in ("0.0.0.0", "::", "") else ip}
            await self._wait_until_quiet()  # before the cap check: the check and the count stay together
        # check and count in one step (no await in between): the cap holds under a burst
        if len(self.list_kernel_ids()) + self.starting >= self.max_kernels:
            raise web.HTTPError(
                503, f"dashboard server is full ({self.max_kernels} sessions)",
                reason=f"Dashboard server is full ({self.max_kernels} sessions): close a tab or try again later",
            )
        self.starting += 1
        try:
            kernel_id = await super().start_kernel(*args, **kwargs)
        finally:
            self.starting -= 1
        self.started_at[kernel_id] = time.monotonic()
        # a pool refill runs in a task created while a page was being served: it inherits that page's
        # context, but the kernel is not that page's
        page = None if pooled else current_page()
        if pooled:
            self.pooled.add(kernel_id)
        if page is not None:
            self.page_kernels[kernel_id] = None
            page.kernel_started(kernel_id)
        self._start_reaper()
        return kernel_id

    def page_requested(self, client: str | None = None) -> None:
        """A page request arrived (called by the patched render handler, with the client when it is known).

        Refuses it (HTTP 503) when that client already holds ``max_kernels_per_client`` page kernels,
        counting its requests still being served (a burst cannot pass the check together); call
        :meth:`page_done` with the same client when the request ends.
        """
        self.last_page_at = time.monotonic()
        if not client:
            return
        cap = self.max_kernels_per_client
        held = sum(1 for c in self.kernel_clients.values() if c == client) + self.pending_pages.get(client, 0)
        if cap > 0 and held >= cap:
            raise web.HTTPError(
                503, f"client holds {held} dashboard sessions (at most {cap} per visitor)",
                reason=f"You have {held} dashboards open on this server (at most {cap} per visitor): "
                       "close a tab, or wait a few minutes for closed ones to be freed")
        self.pending_pages[client] = self.pending_pages.get(client, 0) + 1

    def page_done(self, client: str | None) -> None:
        """A page request that :meth:`page_requested` counted for ``client`` has ended."""
        if client and client in self.pending_pages:
            self.pending_pages[client] -= 1
            if self.pending_pages[client] <= 0:
                del self.pending_pages[client]

    def page_kernel_of(self, kernel_id: str, client: str | None) -> None:
        """``kernel_id`` now serves a page of ``client`` (a new kernel or a preheated one)."""
        if client:
            self.kernel_clients[kernel_id] = client

    async def _wait_until_quiet(self) -> None:
        import asyncio

        t_end = time.monotonic() + self.effective_pool_max_age()
        while time.monotonic() - self.last_page_at < self.pool_fill_quiet and time.monotonic() < t_end:
            await asyncio.sleep(1.0)

    def ready_pool_first(self, notebook: str) -> bool:
        """Put the pool's started kernels first (Voila takes ``pool[0]``) and drop failed starts; True if
        a started kernel is there. Called by the patched render handler before it takes one."""
        pool = getattr(self, "_pools", {}).get(notebook)
        if not pool:
            return False
        ok = [t for t in pool if t.done() and not t.cancelled() and t.exception() is None]
        pending = [t for t in pool if not t.done()]
        pool[:] = ok + pending
        return bool(ok)

    def pool_kernel_taken(self, kernel_id: str) -> None:
        """Voila handed the pooled kernel ``kernel_id`` to the page being served (called from the patched
        ``RequestInfoSocketHandler.send_updates``): from now on it is that page's kernel, with its grace,
        connect timeout and owner cookie counted from now."""
        self.pooled.discard(kernel_id)
        self.started_at[kernel_id] = time.monotonic()
        self.page_kernels[kernel_id] = None
        self._start_reaper()

    def page_sent(self, kernel_id: str) -> None:
        """Voila finished sending the page of ``kernel_id`` (called by the render handler)."""
        if kernel_id in self.page_kernels:
            self.page_kernels[kernel_id] = time.monotonic()

    def client_input(self, kernel_id: str) -> None:
        """The page of ``kernel_id`` sent a message (called for every message a page kernel accepts)."""
        if kernel_id in self.page_kernels:
            self.last_input[kernel_id] = time.monotonic()

    def notify_connect(self, kernel_id):
        if kernel_id in self.page_kernels:
            self.last_input[kernel_id] = time.monotonic()  # a (re)connection is input
        self.ever_connected.add(kernel_id)
        self.last_disconnect.pop(kernel_id, None)
        super().notify_connect(kernel_id)

    def notify_disconnect(self, kernel_id):
        super().notify_disconnect(kernel_id)
        if self._kernel_connections.get(kernel_id, 0) <= 0 and kernel_id in self.page_kernels:
            self.last_disconnect[kernel_id] = time.monotonic()
            self._start_reaper()

    def start_buffering(self, kernel_id, session_key, channels):
        """jupyter_server's replay buffer for a dropped page, bounded by ``max_replay_buffer`` bytes."""
        super().start_buffering(kernel_id, session_key, channels)
        info = self._kernel_buffers.get(kernel_id) if self.buffer_offline_messages else None
        if not info or info.get("session_key") != session_key:
            return
        size = [0]

        def buffer_msg(channel, msg_parts):
            if info.get("session_key") != session_key:
                return
            size[0] += sum(len(p) for p in msg_parts)
            if size[0] > self.max_replay_buffer:
                self.log.warning("Dropping the replay buffer of kernel %s: over %d bytes while no page is "
                                 "connected", kernel_id, self.max_replay_buffer)
                self.stop_buffering(kernel_id)
                return
            info["buffer"].append((channel, msg_parts))

        from functools import partial

        for channel, stream in channels.items():
            stream.on_recv(partial(buffer_msg, channel))

    def in_grace(self, kernel_id: str) -> bool:
        """True while a kernel has never had a browser connection and started < ``unconnected_grace`` s ago."""
        started = self.started_at.get(kernel_id)
        return (kernel_id not in self.ever_connected and started is not None
                and time.monotonic() - started < self.unconnected_grace)

    def abandoned(self) -> list[str]:
        """Page kernels whose page was sent more than ``connect_timeout`` s ago and never connected."""
        return [k for k, why in self.unattended() if why == "never"]

    def unattended(self) -> list[tuple[str, str]]:
        """Page kernels to shut down: ``(kernel id, "never")`` when no browser connected within
        ``connect_timeout`` (or ``disconnect_timeout``, the smaller) after the page was sent,
        ``(kernel id, "gone")`` when the last connection closed more than ``disconnect_timeout`` s ago,
        ``(kernel id, "idle")`` when its connected page sent no input for ``idle_page_timeout`` +
        ``idle_notice_margin`` s."""
        timeouts = [t for t in (self.connect_timeout, self.disconnect_timeout) if t > 0]
        now, out = time.monotonic(), []
        idle_after = self.idle_page_timeout + max(0, self.idle_notice_margin)
        for k, sent in self.page_kernels.items():
            if self._kernel_connections.get(k, 0) > 0:
                if self.idle_page_timeout > 0 and now - self.last_input.get(k, now) > idle_after:
                    out.append((k, "idle"))
                continue
            if sent is None or not timeouts:
                continue
            never = min(timeouts)
            if k not in self.ever_connected:
                if now - sent > never:
                    out.append((k, "never"))
            elif self.disconnect_timeout > 0 and now - self.last_disconnect.get(k, now) > self.disconnect_timeout:
                out.append((k, "gone"))
        return out

    def _start_reaper(self) -> None:
        if self._reaper is None and (self.connect_timeout > 0 or self.disconnect_timeout > 0 or self.pooled
                                     or self.idle_page_timeout > 0):
            from tornado.ioloop import PeriodicCallback

            self._reaper = PeriodicCallback(self._reap, 1000 * max(1, self.reap_interval))
            self._reaper.start()

    async def _recycle_pool(self) -> None:
        """Replace pooled kernels older than ``pool_max_age`` and drop pool entries whose start failed
        (e.g. refused by the cap), then refill the pools."""
        pools = getattr(self, "_pools", None)
        if not pools:
            return
        max_age, now = self.effective_pool_max_age(), time.monotonic()
        for notebook, pool in list(pools.items()):
            old: list[dict] = []
            for task in list(pool):  # no await in this loop: get_rendered_notebook cannot interleave
                if not task.done():
                    continue
                if task.cancelled() or task.exception() is not None:
                    pool.remove(task)
                    continue
                content = task.result()
                kid = content.get("kernel_id")
                if kid in self.pooled and now - self.started_at.get(kid, now) > max_age:
                    pool.remove(task)
                    self.pooled.discard(kid)
                    old.append(content)
            for content in old:
                self.recycled += 1
                self.log.info("Replacing pooled kernel %s of %s: no page took it within %.0f s",
                              content["kernel_id"], notebook, max_age)
                render = content.get("task")
                if render is not None and not render.done():
                    render.cancel()
                try:
                    await self.shutdown_kernel(content["kernel_id"])
                except Exception:  # noqa: BLE001 - a kernel that is already going away
                    self.log.exception("Shutting down pooled kernel %s failed", content["kernel_id"])
            fill = getattr(self, "fill_if_needed", None)
            if fill is not None and notebook in pools:
                fill(delay=0, notebook_name=notebook)

    async def _reap(self) -> None:
        try:
            await self._recycle_pool()
        except Exception:  # noqa: BLE001 - the reaper must keep running
            self.log.exception("Recycling the preheated pool failed")
        for kernel_id, why in self.unattended():
            if kernel_id in self:
                if why == "never":
                    self.log.warning("Shutting down kernel %s: its page was sent more than %d s ago and no "
                                     "browser has connected to it", kernel_id, self.connect_timeout)
                elif why == "idle":
                    self.log.warning("Shutting down kernel %s: its open page sent no input for more than %d s "
                                     "(the page was told and offered a link that resumes it)", kernel_id,
                                     self.idle_page_timeout + max(0, self.idle_notice_margin))
                else:
                    self.log.warning("Shutting down kernel %s: no connection for more than %d s",
                                     kernel_id, self.disconnect_timeout)
                try:
                    await self.shutdown_kernel(kernel_id)
                except Exception:  # noqa: BLE001 - a kernel that is already going away
                    self.log.exception("Shutting down abandoned kernel %s failed", kernel_id)
            self.page_kernels.pop(kernel_id, None)

    async def cull_kernel_if_idle(self, kernel_id):
        kernel = self._kernels.get(kernel_id)
        if kernel is not None and getattr(kernel, "execution_state", None) != "dead" and self.in_grace(kernel_id):
            return  # still executing the notebook for a page that has not connected yet
        await super().cull_kernel_if_idle(kernel_id)

    async def shutdown_kernel(self, kernel_id, *args, **kwargs):  # type: ignore[override]
        self.started_at.pop(kernel_id, None)
        self.pooled.discard(kernel_id)
        _forget_request_info(kernel_id)
        self.ever_connected.discard(kernel_id)
        self.page_kernels.pop(kernel_id, None)
        self.last_disconnect.pop(kernel_id, None)
        self.kernel_clients.pop(kernel_id, None)
        self.last_input.pop(kernel_id, None)
        return await super().shutdown_kernel(kernel_id, *args, **kwargs)
