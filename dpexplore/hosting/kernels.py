"""A kernel manager that refuses to start more than ``max_kernels`` kernels (HTTP 503).

Every page view of a Voila dashboard starts one kernel (about 100–150 MiB here). Without a cap, a
class (or one script reloading a page) can exhaust the machine's memory. The repository's
``voila.json`` / ``jupyter_config.json`` select it with
``VoilaConfiguration.multi_kernel_manager_class = "dpexplore.hosting.kernels.LimitedKernelManager"``
and ``LimitedKernelManager.max_kernels`` (0: automatic, from the number of CPU cores).

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

__all__ = ["LimitedKernelManager", "auto_max_kernels"]

install_voila_mitigations()
# One BLAS/OpenMP thread per kernel: kernels inherit the server's environment, and on a shared
# machine several multi-threaded kernels oversubscribe the cores (a 300×300 eigh measured 1.7 s
# instead of 2 ms on a loaded 2-core machine). Set the variables before starting Voila to override.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


def auto_max_kernels(cpus: int | None = None) -> int:
    """The automatic kernel cap: 5 sessions per 2 CPU cores (at least 2).

    Measured with ``benchmarks/load_test.py`` on a 2-core machine (paper 1 dashboard, browsers on the
    same machine): 5 simultaneous sessions all render (median page-ready 82 s, slider 3.3 s), while
    10 make 9 of the 10 notebook executions fail Voila's 180 s cell timeout — so beyond about 2.5
    sessions per core a further user is better served by an immediate "server is full" page.

    Examples
    --------
    >>> auto_max_kernels(2), auto_max_kernels(1), auto_max_kernels(32)
    (5, 2, 80)
    """
    cpus = (os.cpu_count() or 1) if cpus is None else cpus
    return max(2, (5 * cpus) // 2)


class LimitedKernelManager(AsyncMappingKernelManager):
    """AsyncMappingKernelManager with a cap on the number of running kernels."""

    max_kernels = Integer(
        0, config=True,
        help="Refuse to start a kernel (HTTP 503) when this many are already running; 0 (default) means "
             "automatic: 5 per 2 CPU cores (dpexplore.hosting.kernels.auto_max_kernels).",
    )

    @property
    def kernel_cap(self) -> int:
        """The cap in force: ``max_kernels``, or :func:`auto_max_kernels` when it is 0 (or negative)."""
        return self.max_kernels if self.max_kernels > 0 else auto_max_kernels()

    async def start_kernel(self, *args, **kwargs):  # type: ignore[override]
        cap = self.kernel_cap
        if len(self.list_kernel_ids()) >= cap:
            raise web.HTTPError(503, f"dashboard server is full ({cap} sessions); close a tab or try again later")
        return await super().start_kernel(*args, **kwargs)
