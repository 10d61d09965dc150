"""A kernel manager that refuses to start more than ``max_kernels`` kernels (HTTP 503), counting
starts in progress, and shuts down a Voila page's kernel when no browser connected to it within
``connect_timeout`` seconds after the page was sent (a plain GET otherwise held a slot for 20 min).

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
from traitlets import Integer

from . import install_voila_mitigations
from .patches import current_page

__all__ = ["LimitedKernelManager"]

install_voila_mitigations()
# One BLAS/OpenMP thread per kernel: kernels inherit the server's environment, and on a shared
# machine several multi-threaded kernels oversubscribe the cores (a 300×300 eigh measured 1.7 s
# instead of 2 ms on a loaded 2-core machine). Set the variables before starting Voila to override.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


class LimitedKernelManager(AsyncMappingKernelManager):
    """AsyncMappingKernelManager with a cap on the number of kernels, and shutdown of abandoned pages' kernels."""

    max_kernels = Integer(
        40, config=True,
        help="Refuse to start a kernel (HTTP 503) when this many are running or starting. Starts still in "
             "progress count: with the count taken before the start was awaited, a burst of 8 simultaneous "
             "page requests started 8 kernels under a cap of 2.",
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

    reap_interval = Integer(10, config=True, help="Seconds between checks for pages that never connected.")

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.started_at: dict[str, float] = {}  # kernel id -> time.monotonic() at start
        self.ever_connected: set[str] = set()  # kernel ids a browser has connected to
        self.page_kernels: dict[str, float | None] = {}  # Voila page kernels -> when the page was sent
        self.starting = 0  # starts in progress (not yet in list_kernel_ids())
        self._reaper = None

    async def start_kernel(self, *args, **kwargs):  # type: ignore[override]
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
        page = current_page()
        if page is not None:
            self.page_kernels[kernel_id] = None
            page.kernel_started(kernel_id)
        self._start_reaper()
        return kernel_id

    def page_sent(self, kernel_id: str) -> None:
        """Voila finished sending the page of ``kernel_id`` (called by the render handler)."""
        if kernel_id in self.page_kernels:
            self.page_kernels[kernel_id] = time.monotonic()

    def notify_connect(self, kernel_id):
        self.ever_connected.add(kernel_id)
        super().notify_connect(kernel_id)

    def in_grace(self, kernel_id: str) -> bool:
        """True while a kernel has never had a browser connection and started < ``unconnected_grace`` s ago."""
        started = self.started_at.get(kernel_id)
        return (kernel_id not in self.ever_connected and started is not None
                and time.monotonic() - started < self.unconnected_grace)

    def abandoned(self) -> list[str]:
        """Page kernels whose page was sent more than ``connect_timeout`` s ago and never connected."""
        if self.connect_timeout <= 0:
            return []
        now = time.monotonic()
        return [k for k, sent in self.page_kernels.items()
                if sent is not None and k not in self.ever_connected and now - sent > self.connect_timeout]

    def _start_reaper(self) -> None:
        if self._reaper is None and self.connect_timeout > 0:
            from tornado.ioloop import PeriodicCallback

            self._reaper = PeriodicCallback(self._reap, 1000 * max(1, self.reap_interval))
            self._reaper.start()

    async def _reap(self) -> None:
        for kernel_id in self.abandoned():
            if kernel_id in self:
                self.log.warning("Shutting down kernel %s: its page was sent more than %d s ago and no browser "
                                 "has connected to it", kernel_id, self.connect_timeout)
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
        self.ever_connected.discard(kernel_id)
        self.page_kernels.pop(kernel_id, None)
        return await super().shutdown_kernel(kernel_id, *args, **kwargs)
