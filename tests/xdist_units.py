"""How a parallel run (pytest-xdist, ``-n auto --dist loadgroup`` in pyproject's addopts) hands tests to workers.

pytest-xdist's own ``loadgroup`` cannot be used as is: pytest 9 ignores the node-id suffix it relies on, and
its alternatives either interleave modules on a worker (``load``: a module's Voila server and Chromium would be
started again after every foreign test) or keep each module whole (``loadscope``: the 40 page renders of
tests/browser/test_dashboards.py on one worker while the other idles). :class:`UnitScheduling` cuts the
collection into *units*, each run whole on one worker, in this order:

* tests marked ``xdist_group(name)``: one unit per name (xdist's documented meaning);
* the tests of a module that share a module-, class- or package-scoped fixture (a Voila server, a browser, a
  computed table): one unit per module — except a browser module (``@pytest.mark.browser``), whose tests open
  their own page each: it is cut into consecutive chunks of at least ``BROWSER_CHUNK`` tests, at most one per
  worker, each chunk with its own server and Chromium on its worker (free ports and folders per worker, see
  tests/browser/harness.py);
* every other test: a unit of its own (spread one by one, as ``load`` does).

Units are handed out heaviest first (browser, then server, then notebook, then the rest; within a class in
collection order), so the long modules start at once and the short unit tests fill the gaps at the end.
Worker gw0 tells the controller which tests share a fixture (tests/conftest.py writes ``$DPX_XDIST_UNITS``);
without that file every module is one unit, as ``loadscope`` does.
"""

from __future__ import annotations

import json
import os
from collections import OrderedDict

from xdist.scheduler import LoadScopeScheduling

#: a browser module is cut into chunks of at least this many tests (a chunk costs a Voila server and a Chromium)
BROWSER_CHUNK = 4


def _strip_group(nodeid: str) -> str:
    """pytest < 9: xdist appends ``@group`` to a grouped test's node id."""
    at = nodeid.rfind("@")
    return nodeid[:at] if at > nodeid.rfind("]") and at > nodeid.rfind("::") else nodeid


class UnitScheduling(LoadScopeScheduling):
    """LoadScopeScheduling over the units described in the module docstring."""

    def _units(self, collection: list[str]) -> tuple[dict[str, str], dict[str, int]]:
        info = {}
        path = os.environ.get("DPX_XDIST_UNITS")
        if path:
            try:
                with open(path) as f:
                    info = json.load(f)
            except (OSError, ValueError):
                info = {}
        workers = max(1, len(self.nodes))
        by_module: dict[str, list[str]] = OrderedDict()
        scope_of: dict[str, str] = {}
        weight: dict[str, int] = {}
        for nodeid in collection:
            it = info.get(_strip_group(nodeid))
            module = nodeid.split("::", 1)[0]
            if it is None:  # no information: keep the module whole, like loadscope
                scope_of[nodeid] = module
            elif it["group"]:
                scope_of[nodeid] = "group:" + it["group"]
            elif it["shared"]:
                by_module.setdefault(module, []).append(nodeid)
                scope_of[nodeid] = module
            else:
                scope_of[nodeid] = nodeid
            rank = it["rank"] if it else 0
            weight[scope_of[nodeid]] = max(weight.get(scope_of[nodeid], 0), rank)
        for module, ids in by_module.items():
            if weight.get(module, 0) < 3:  # browser modules only
                continue
            chunks = max(1, min(workers, len(ids) // BROWSER_CHUNK))
            if chunks == 1:
                continue
            size = -(-len(ids) // chunks)
            for i, nodeid in enumerate(ids):
                scope_of[nodeid] = f"{module}#chunk{i // size}"
                weight[scope_of[nodeid]] = weight[module]
        return scope_of, weight

    def schedule(self) -> None:
        """LoadScopeScheduling.schedule() with the units and their order described above."""
        assert self.collection_is_completed
        if self.collection is not None:  # initial distribution done: new nodes (xdist's own behaviour)
            for node in self.nodes:
                self._reschedule(node)
            return
        if not self._check_nodes_have_same_collection():
            self.log("**Different tests collected, aborting run**")
            return
        self.collection = list(next(iter(self.registered_collections.values())))
        if not self.collection:
            return
        scope_of, weight = self._units(self.collection)
        self._scope_of = scope_of  # _split_scope (mark_test_complete) finds each test's unit here
        units: dict[str, dict[str, bool]] = {}
        for nodeid in self.collection:
            units.setdefault(scope_of[nodeid], {})[nodeid] = False
        first = {scope: i for i, scope in enumerate(units)}
        for scope in sorted(units, key=lambda sc: (-weight.get(sc, 0), first[sc])):
            self.workqueue[scope] = units[scope]
        for _ in range(max(0, len(self.nodes) - len(self.workqueue))):  # more workers than work
            unused, _assigned = self.assigned_work.popitem()
            unused.shutdown()
        for node in self.nodes:
            self._assign_work_unit(node)
        for node in self.nodes:
            self._reschedule(node)
        if not self.workqueue:
            for node in self.nodes:
                node.shutdown()

    def _split_scope(self, nodeid: str) -> str:
        scope_of = getattr(self, "_scope_of", None)
        if scope_of is not None and nodeid in scope_of:
            return scope_of[nodeid]
        return nodeid.split("::", 1)[0]
