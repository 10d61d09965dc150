"""A deliberately plain kernel-websocket client: the legacy (non-v1) protocol, as a hostile or
naive client would speak it. Used to test what such a client can and cannot do to a Voila server."""

from __future__ import annotations

import datetime
import json
import re
import urllib.request
import uuid

from tornado import httpclient, websocket


def fetch_page(base_url: str, notebook: str, timeout: float = 120.0) -> tuple[str, str, list[str]]:
    """GET the rendered page; return (html, kernel id, widget model ids shown at top level)."""
    with urllib.request.urlopen(f"{base_url}/voila/render/{notebook}", timeout=timeout) as resp:  # noqa: S310
        html = resp.read().decode()
    kernel = re.search(r'kernelId"?\s*[:=]\s*"([0-9a-f-]{36})"', html)
    if kernel is None:
        raise AssertionError("no kernel id in the page")
    models = re.findall(r'model_id\\?"\s*:\s*\\?"([0-9a-f]{32})', html)
    return html, kernel.group(1), models


def message(msg_type: str, content: dict, channel: str = "shell") -> str:
    return json.dumps({
        "header": {"msg_id": uuid.uuid4().hex, "username": "hostile", "session": uuid.uuid4().hex,
                   "msg_type": msg_type, "version": "5.3",
                   "date": datetime.datetime.now(datetime.timezone.utc).isoformat()},
        "parent_header": {}, "metadata": {}, "content": content, "channel": channel, "buffers": [],
    })


def widget_update(comm_id: str, state: dict) -> str:
    return message("comm_msg", {"comm_id": comm_id, "data": {"method": "update", "state": state, "buffer_paths": []}})


async def connect(base_url: str, kernel_id: str, *, subprotocol: str | None = None):
    ws_url = base_url.replace("http://", "ws://") + f"/api/kernels/{kernel_id}/channels?session_id={uuid.uuid4().hex}"
    req = httpclient.HTTPRequest(ws_url, connect_timeout=10, request_timeout=10)
    return await websocket.websocket_connect(req, subprotocols=[subprotocol] if subprotocol else None)
