"""A kernel manager that refuses to start more than ``max_kernels`` kernels (HTTP 503).

Every page view of a Voila dashboard starts one kernel (about 100–150 MiB here). Without a cap, a
class (or one script reloading a page) can exhaust the machine's memory. The repository's
``voila.json`` / ``jupyter_config.json`` select it with
``VoilaConfiguration.multi_kernel_manager_class = "dpexplore.hosting.kernels.LimitedKernelManager"``
and ``LimitedKernelManager.max_kernels``.

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

__all__ = ["LimitedKernelManager"]

install_voila_mitigations()
# One BLAS/OpenMP thread per kernel: kernels inherit the server's environment, and on a shared
# machine several multi-threaded kernels oversubscribe the cores (a 300×300 eigh measured 1.7 s
# instead of 2 ms on a loaded 2-core machine). Set the variables before starting Voila to override.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


class LimitedKernelManager(AsyncMappingKernelManager):
    """AsyncMappingKernelManager with a cap on the number of running kernels."""

    max_kernels = Integer(
        40, config=True, help="Refuse to start a kernel (HTTP 503) when this many are already running."
    )

    unconnected_grace = Integer(
        300, config=True,
        help="Never cull a kernel that no browser has connected to yet until this many seconds after it "
             "started (keep it above VoilaExecutor.timeout + startup_timeout). Voila executes the notebook "
             "before the page connects, and the idle culler can take that executing kernel for idle: a load "
             "test with a 20 s cull time saw 'Culling idle kernel ... with 0 connections due to 22 seconds of "
             "inactivity' followed by 'Kernel died while waiting for execute reply'.",
    )

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.started_at: dict[str, float] = {}  # kernel id -> time.monotonic() at start
        self.ever_connected: set[str] = set()  # kernel ids a browser has connected to

    async def start_kernel(self, *args, **kwargs):  # type: ignore[override]
        if len(self.list_kernel_ids()) >= self.max_kernels:
            raise web.HTTPError(
                503, f"dashboard server is full ({self.max_kernels} sessions); close a tab or try again later"
            )
        kernel_id = await super().start_kernel(*args, **kwargs)
        self.started_at[kernel_id] = time.monotonic()
        return kernel_id

    def notify_connect(self, kernel_id):
        self.ever_connected.add(kernel_id)
        super().notify_connect(kernel_id)

    def in_grace(self, kernel_id: str) -> bool:
        """True while a kernel has never had a browser connection and started < ``unconnected_grace`` s ago."""
        started = self.started_at.get(kernel_id)
        return (kernel_id not in self.ever_connected and started is not None
                and time.monotonic() - started < self.unconnected_grace)

    async def cull_kernel_if_idle(self, kernel_id):
        kernel = self._kernels.get(kernel_id)
        if kernel is not None and getattr(kernel, "execution_state", None) != "dead" and self.in_grace(kernel_id):
            return  # still executing the notebook for a page that has not connected yet
        await super().cull_kernel_if_idle(kernel_id)

    async def shutdown_kernel(self, kernel_id, *args, **kwargs):  # type: ignore[override]
        self.started_at.pop(kernel_id, None)
        self.ever_connected.discard(kernel_id)
        return await super().shutdown_kernel(kernel_id, *args, **kwargs)
