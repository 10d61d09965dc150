"""Hardening for serving the dashboards to a class with Voila.

Installed when Voila loads :class:`dpexplore.hosting.kernels.LimitedKernelManager`, which the
repository's ``voila.json`` (read by ``voila`` started in the repository root, e.g. by
``python -m dpexplore.serve``) and ``jupyter_config.json`` select. This module uses the standard
library only: importing it does not import Voila.

What it fixes
-------------
* **Outgoing frames** (standalone Voila): voila 0.5.13's ``read_header_from_binary_message`` treats
  every binary websocket frame as a v1-protocol frame. A client that did not negotiate the
  ``v1.kernel.websocket.jupyter.org`` subprotocol receives legacy frames, whose first 8 bytes then
  read as an offset count near 10¹⁸: building that list hangs the server's event loop for every user
  and grows memory without bound. :func:`safe_read_header_from_binary_message` accepts a frame only
  when its offset table is plausible (3…4096 offsets that fit in the frame, in order) and otherwise
  answers "no header", which is what the original does for any undecodable frame.
* **Incoming frames** (every kernel websocket): jupyter_server parses a client's frame without
  checking its framing (one 16-byte frame hangs the server; 12-byte frames keep ~130 MB each).
  :mod:`dpexplore.hosting.frames` checks each frame first and the socket is closed on a bad one.
* **Client-created widgets, tab-close shutdown, page tracking**: see :mod:`dpexplore.hosting.patches`.
* **Connections** (timeouts, caps, a websocket client that never reads, accept errors at the
  open-files limit, secrets in logs, ``Referrer-Policy``): see :mod:`dpexplore.hosting.connections`.
"""

from __future__ import annotations

import json
from typing import Any

from .limits import raise_open_files_limit

__all__ = ["MAX_OFFSETS", "safe_read_header_from_binary_message", "install_voila_mitigations",
           "raise_open_files_limit"]

MAX_OFFSETS = 4096


def safe_read_header_from_binary_message(ws_msg: bytes) -> dict[str, Any] | None:
    """Read a v1-protocol message header, or return None if the frame is not a plausible v1 frame.

    Examples
    --------
    >>> safe_read_header_from_binary_message(b"\\x00" * 7) is None
    True
    >>> legacy = (10**18).to_bytes(8, "little") + b"{}"
    >>> safe_read_header_from_binary_message(legacy) is None
    True
    """
    if not isinstance(ws_msg, (bytes, bytearray, memoryview)):
        return None
    data = bytes(ws_msg)
    if len(data) < 8:
        return None
    count = int.from_bytes(data[:8], "little")
    if not 3 <= count <= MAX_OFFSETS or 8 * (count + 1) > len(data):
        return None
    offsets = [int.from_bytes(data[8 * (i + 1) : 8 * (i + 2)], "little") for i in range(count)]
    if offsets != sorted(offsets) or offsets[0] < 8 * (count + 1) or offsets[-1] > len(data):
        return None
    try:
        header = json.loads(data[offsets[1] : offsets[2]].decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return header if isinstance(header, dict) else None


def install_voila_mitigations() -> bool:
    """Install every websocket and handler fix (idempotent).

    Replaces Voila's unsafe header reader with :func:`safe_read_header_from_binary_message` and
    applies :func:`dpexplore.hosting.patches.install` (incoming-frame checks, client ``comm_open``
    refusal, tab-close shutdown, page tracking). Returns True if Voila's websocket handler module was
    found and patched.
    """
    from . import connections, instructor, patches

    patches.install()
    instructor.install()  # after patches: it wraps their render handler (the instructor credential)
    connections.install()
    try:
        from voila.tornado import kernel_websocket_handler as handler
    except ImportError:  # pragma: no cover - Voila not installed or restructured
        return False
    if not hasattr(handler, "read_header_from_binary_message"):  # pragma: no cover - fixed upstream
        return False
    handler.read_header_from_binary_message = safe_read_header_from_binary_message
    return True
