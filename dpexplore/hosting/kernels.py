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

    async def start_kernel(self, *args, **kwargs):  # type: ignore[override]
        if len(self.list_kernel_ids()) >= self.max_kernels:
            raise web.HTTPError(
                503, f"dashboard server is full ({self.max_kernels} sessions); close a tab or try again later"
            )
        return await super().start_kernel(*args, **kwargs)
