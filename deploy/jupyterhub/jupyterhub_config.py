"""JupyterHub configuration for a dpexplore class (issue 27): one single-user server per student, opening
the gallery in Voila, with dpexplore's hardening, no terminals, the instructors group, a shared poll store
and idle culling. Written for JupyterHub 5/6 (the project venv has 6.1.1) and configurable-http-proxy 4.

Use: ``jupyterhub -f deploy/jupyterhub/jupyterhub_config.py`` (or copy into The Littlest JupyterHub's
``/opt/tljh/config/jupyterhub_config.d/``). Settings read from the hub's environment:

* ``DPEXPLORE_NOTEBOOKS``: folder of the gallery notebooks (default: dpexplore's own, from the install);
* ``DPEXPLORE_POLL_DIR`` (one machine: a folder every student server can write) or ``DPEXPLORE_POLL_DB``
  (a ``postgresql+psycopg://`` URL, servers on several machines): the shared class-poll store;
* ``DPEXPLORE_INSTRUCTOR_GROUP`` (default ``instructors``), ``DPEXPLORE_INSTRUCTORS`` (comma-separated
  user names added to it at start), ``DPEXPLORE_CULL_SECONDS`` (default 3600).

Not yet run end to end by a test in this repository: see README.md, "Status".
"""

import os
import sys

from dpexplore.classroom.hub import GROUP_ENV, INSTRUCTOR_ENV, instructor_group, spawner_instructor_flag
from dpexplore.resources import data_root, notebooks_dir

c = get_config()  # noqa: F821 - provided by JupyterHub when it loads this file

group = instructor_group()
notebooks = os.environ.get("DPEXPLORE_NOTEBOOKS") or str(notebooks_dir())

# -- each student's own server: the gallery in Voila, nothing else --------------------------------
c.Spawner.notebook_dir = notebooks
c.Spawner.default_url = "/voila/render/00_index.ipynb"  # what python -m dpexplore.serve opens
c.Spawner.args = [
    "--ServerApp.terminals_enabled=False",
    "--ServerApp.jpserver_extensions=jupyterlab=False",
    "--ServerApp.jpserver_extensions=notebook=False",
    "--ServerApp.jpserver_extensions=jupyter_lsp=False",
    "--ServerApp.jpserver_extensions=jupyter_server_terminals=False",
    "--LimitedKernelManager.max_kernels=6",  # one student: a few tabs, not 40
    # nothing can be uploaded (a notebook put through /api/contents would run at /voila/render/<it>)
    "--ServerApp.contents_manager_class=dpexplore.hosting.lockdown.ReadOnlyContentsManager",
    # nor can frontend settings be written (PUT /api/config/<any name> would write a file per name)
    "--ServerApp.config_manager_class=dpexplore.hosting.lockdown.ReadOnlyConfigManager",
]
c.Spawner.environment = {
    # jupyter_config.json (beside the notebooks) selects dpexplore's LimitedKernelManager in the user's
    # server: kernel cap, page-kernel reaper, websocket frame checks (as on Binder, see
    # tests/hosting/test_extension_mode.py)
    "JUPYTER_CONFIG_PATH": str(data_root()),
    GROUP_ENV: group,
    INSTRUCTOR_ENV: lambda spawner: spawner_instructor_flag(spawner, group),  # called at each spawn
    "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
    # every kernel websocket drops client execute/inspect/complete/debug requests (dpexplore.hosting.lockdown)
    "DPEXPLORE_LOCKDOWN": "1",
}
for name in ("DPEXPLORE_POLL_DIR", "DPEXPLORE_POLL_DB"):
    if os.environ.get(name):
        c.Spawner.environment[name] = os.environ[name]
c.Spawner.mem_limit = "1G"  # applied by spawners that enforce it (systemd in TLJH, KubeSpawner)

# -- the instructors group -------------------------------------------------------------------
members = [u.strip() for u in os.environ.get("DPEXPLORE_INSTRUCTORS", "").split(",") if u.strip()]
c.JupyterHub.load_groups = {group: {"users": members}}

# -- idle culling: jupyterhub-idle-culler as a hub service with only the scopes it needs -------------
cull = int(os.environ.get("DPEXPLORE_CULL_SECONDS", "3600"))
c.JupyterHub.services = [{"name": "idle-culler",
                          "command": [sys.executable, "-m", "jupyterhub_idle_culler", f"--timeout={cull}"]}]
c.JupyterHub.load_roles = [{"name": "idle-culler", "services": ["idle-culler"],
                            "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"]}]
