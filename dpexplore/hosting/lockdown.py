"""A student's own server under a hub: Voila only, no way to put code into it (issue 27).

The hub recipe (``deploy/jupyterhub/jupyterhub_config.py``) turns these on in every single-user server:

* ``$DPEXPLORE_LOCKDOWN=1``: every kernel websocket drops the client requests that run code
  (:data:`dpexplore.hosting.patches.CODE_REQUESTS`), not only a Voila page's (which are dropped always);
* ``--ServerApp.contents_manager_class=dpexplore.hosting.lockdown.ReadOnlyContentsManager``: the
  contents API reads but never writes — without it, a student could upload a notebook through
  ``PUT /api/contents`` and have Voila run it at ``/voila/render/<it>``;
* ``--ServerApp.config_manager_class=dpexplore.hosting.lockdown.ReadOnlyConfigManager``: the frontend
  config API (``/api/config/<section>``) reads but never writes — without it, ``PUT``/``PATCH`` of any
  section name writes ``~/.jupyter/serverconfig/<section>.json`` (20 MB in 0.2 s, any number of sections:
  a way to fill the disk).

Together with terminals and JupyterLab off, a student using their server's HTTP API cannot run code of
their choosing in it, so cannot reach the shared poll store except through the poll page (tested in
tests/hosting/test_extension_mode.py).
"""

from __future__ import annotations

from jupyter_server.services.config.manager import ConfigManager
from jupyter_server.services.contents.largefilemanager import LargeFileManager
from tornado import web

__all__ = ["ReadOnlyConfigManager", "ReadOnlyContentsManager"]

_REFUSED = "this server is read-only: the dashboards are shown, nothing can be saved, uploaded, renamed or deleted"


class ReadOnlyContentsManager(LargeFileManager):
    """jupyter_server's file contents manager with every write refused (HTTP 403)."""

    def save(self, model, path=""):  # noqa: D102 - refuses
        raise web.HTTPError(403, _REFUSED)

    def delete_file(self, path):  # noqa: D102
        raise web.HTTPError(403, _REFUSED)

    def rename_file(self, old_path, new_path):  # noqa: D102
        raise web.HTTPError(403, _REFUSED)

    def new(self, model=None, path=""):  # noqa: D102
        raise web.HTTPError(403, _REFUSED)

    def new_untitled(self, path="", type="", ext=""):  # noqa: A002, D102
        raise web.HTTPError(403, _REFUSED)

    def copy(self, from_path, to_path=None):  # noqa: D102
        raise web.HTTPError(403, _REFUSED)

    def create_checkpoint(self, path):  # noqa: D102
        raise web.HTTPError(403, _REFUSED)

    def restore_checkpoint(self, checkpoint_id, path):  # noqa: D102
        raise web.HTTPError(403, _REFUSED)

    def delete_checkpoint(self, checkpoint_id, path):  # noqa: D102
        raise web.HTTPError(403, _REFUSED)


_REFUSED_CONFIG = "this server is read-only: its frontend settings cannot be changed"


class ReadOnlyConfigManager(ConfigManager):
    """jupyter_server's frontend config manager with every write refused (HTTP 403); reads work as before."""

    def set(self, section_name, data):  # noqa: D102 - refuses
        raise web.HTTPError(403, _REFUSED_CONFIG)

    def update(self, section_name, new_data):  # noqa: D102 - refuses
        raise web.HTTPError(403, _REFUSED_CONFIG)
