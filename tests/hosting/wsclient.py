"""A deliberately plain kernel-websocket client: the legacy (non-v1) protocol, as a hostile or
naive client would speak it. Used to test what such a client can and cannot do to a Voila server."""

from __future__ import annotations

import datetime
import json
import re
import urllib.error
import urllib.request
import uuid

from tornado import httpclient, websocket

#: kernel id -> the ``Cookie`` header its page received for ``GET /api/kernels/<id>`` (see kernel_alive)
API_COOKIES: dict[str, str] = {}


def fetch_page(base_url: str, notebook: str, timeout: float = 120.0) -> tuple[str, str, list[str]]:
    """GET the rendered page; return (html, kernel id, widget model ids shown at top level).

    The page's cookie for reading its kernel's model is kept in :data:`API_COOKIES`, as a browser keeps it."""
    with urllib.request.urlopen(f"{base_url}/voila/render/{notebook}", timeout=timeout) as resp:  # noqa: S310
        html = resp.read().decode()
        set_cookies = resp.headers.get_all("Set-Cookie") or []
    kernel = re.search(r'kernelId"?\s*[:=]\s*"([0-9a-f-]{36})"', html)
    if kernel is None:
        raise AssertionError("no kernel id in the page")
    for c in set_cookies:
        pair = c.split(";", 1)[0].strip()
        if pair.startswith(f"dpx-kapi-{kernel.group(1)}="):
            API_COOKIES[kernel.group(1)] = pair
    models = re.findall(r'model_id\\?"\s*:\s*\\?"([0-9a-f]{32})', html)
    return html, kernel.group(1), models


def message(msg_type: str, content: dict, channel: str = "shell", metadata: dict | None = None) -> str:
    return json.dumps({
        "header": {"msg_id": uuid.uuid4().hex, "username": "hostile", "session": uuid.uuid4().hex,
                   "msg_type": msg_type, "version": "5.3",
                   "date": datetime.datetime.now(datetime.timezone.utc).isoformat()},
        "parent_header": {}, "metadata": metadata or {}, "content": content, "channel": channel, "buffers": [],
    })


def widget_update(comm_id: str, state: dict) -> str:
    return message("comm_msg", {"comm_id": comm_id, "data": {"method": "update", "state": state, "buffer_paths": []}})


async def connect(base_url: str, kernel_id: str, *, subprotocol: str | None = None, timeout: float = 10.0):
    ws_url = base_url.replace("http://", "ws://") + f"/api/kernels/{kernel_id}/channels?session_id={uuid.uuid4().hex}"
    req = httpclient.HTTPRequest(ws_url, connect_timeout=timeout, request_timeout=timeout)
    return await websocket.websocket_connect(req, subprotocols=[subprotocol] if subprotocol else None)


V1 = "v1.kernel.websocket.jupyter.org"


async def read_for(ws, seconds: float) -> tuple[list, bool]:
    """Every frame received within ``seconds``; and whether the server closed the socket."""
    import asyncio
    import time

    frames: list = []
    t_end = time.monotonic() + seconds
    while (left := t_end - time.monotonic()) > 0:
        try:
            m = await asyncio.wait_for(ws.read_message(), timeout=left)
        except asyncio.TimeoutError:
            break
        if m is None:
            return frames, True
        frames.append(m)
    return frames, False


async def walk_states(ws, models: list[str], *, seconds: float = 30.0) -> dict[str, dict]:
    """Widget states reachable from the page's top-level views (request_state on each model)."""
    import asyncio
    import time

    states: dict[str, dict] = {}
    pending = list(models)
    t_end = time.monotonic() + seconds
    while pending and time.monotonic() < t_end:
        mid = pending.pop()
        if mid in states:
            continue
        await ws.write_message(message("comm_msg", {"comm_id": mid, "data": {"method": "request_state"}}))
        while mid not in states and time.monotonic() < t_end:
            try:
                m = await asyncio.wait_for(ws.read_message(), timeout=1)
            except asyncio.TimeoutError:
                continue
            if not isinstance(m, str):
                continue
            msg = json.loads(m)
            content = msg.get("content", {})
            data = content.get("data", {})
            if data.get("method") == "update" and "state" in data:
                states.setdefault(content["comm_id"], {}).update(data["state"])
        for value in states.get(mid, {}).values():
            refs = value if isinstance(value, list) else [value]
            pending += [r[len("IPY_MODEL_"):] for r in refs if isinstance(r, str) and r.startswith("IPY_MODEL_")]
    return states


def kernel_alive(base_url: str, kernel_id: str, cookie: str | None = None) -> bool:
    """Does the server still know this kernel? (``GET /api/kernels/<id>``: 200 or 404).

    Sent with the page's cookie (``cookie``, or the one :func:`fetch_page` kept): on a server without
    authentication, a page kernel's model answers only its page, 404 to anyone else."""
    cookie = cookie or API_COOKIES.get(kernel_id)
    req = urllib.request.Request(f"{base_url}/api/kernels/{kernel_id}", headers={"Cookie": cookie} if cookie else {})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:  # noqa: S310
            return resp.status == 200
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return False
        raise


def decode(frame) -> dict:
    """A legacy-protocol frame from the server as a message dict (text JSON, or binary with buffers)."""
    if isinstance(frame, str):
        return json.loads(frame)
    import struct

    (n,) = struct.unpack("!i", frame[:4])
    offsets = list(struct.unpack("!" + "I" * n, frame[4: 4 * (n + 1)])) + [len(frame)]
    return json.loads(frame[offsets[0]: offsets[1]].decode())


async def request_states(ws, *, seconds: float = 30.0, dropped: list | None = None) -> dict[str, dict]:
    """Every widget's state, asked for as the page's widget manager does (the ``jupyter.widget.control``
    comm, ``request_states``): model id -> state, with ``_model_name`` from the reply.

    Widget updates that arrive before the reply are not applied (a page's widget manager has no model
    for them yet either); ``dropped`` receives them (comm id, state), to tell whether a view that never
    completes missed one."""
    import asyncio
    import time

    control = uuid.uuid4().hex
    await ws.write_message(message("comm_open", {"comm_id": control, "target_name": "jupyter.widget.control",
                                                 "data": {}}, metadata={"version": "1.0.0"}))
    await ws.write_message(message("comm_msg", {"comm_id": control, "data": {"method": "request_states"}}))
    t_end = time.monotonic() + seconds
    while (left := t_end - time.monotonic()) > 0:
        try:
            frame = await asyncio.wait_for(ws.read_message(), timeout=min(1.0, left))
        except asyncio.TimeoutError:
            continue
        if frame is None:
            raise ConnectionError("the server closed the websocket")
        content = decode(frame).get("content") or {}
        data = content.get("data") or {}
        if data.get("method") == "update" and dropped is not None:
            dropped.append((content.get("comm_id"), data.get("state") or {}))
        if data.get("method") == "update_states":
            return {k: {"_model_name": v.get("model_name"), **(v.get("state") or {})}
                    for k, v in data.get("states", {}).items()}
    raise TimeoutError("no widget states")


def raw_websocket(port: int, kernel_id: str, *, rcvbuf: int = 4096, timeout: float = 10.0):
    """A kernel websocket over a plain socket with a small receive buffer (legacy protocol), for a
    client that never reads: returns the connected socket after the 101 handshake."""
    import base64
    import os
    import socket

    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(timeout)
    s.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET /api/kernels/{kernel_id}/channels?session_id={uuid.uuid4().hex} HTTP/1.1\r\n"
               f"Host: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = s.recv(1)
        if not chunk:
            raise ConnectionError(f"handshake refused: {head!r}")
        head += chunk
    if not head.startswith(b"HTTP/1.1 101"):
        raise ConnectionError(f"handshake refused: {head.splitlines()[0]!r}")
    return s


def ws_text_frame(text: str) -> bytes:
    """One masked client text frame."""
    import os
    import struct

    data = text.encode()
    mask = os.urandom(4)
    n = len(data)
    head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else
                            bytes([0x80 | 126]) + struct.pack("!H", n) if n < 65536 else
                            bytes([0x80 | 127]) + struct.pack("!Q", n))
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))
