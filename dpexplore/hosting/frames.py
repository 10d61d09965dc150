"""Check a kernel-websocket frame a client sent before jupyter_server parses it (standard library only).

jupyter_server 2.x parses every frame a client sends on ``/api/kernels/<id>/channels`` without any
check of its framing. With the ``v1.kernel.websocket.jupyter.org`` subprotocol the first 8 bytes are
an offset count: ``(2**62).to_bytes(8, "little") + bytes(8)`` (or ``b"\\x01" * 7``) makes
``deserialize_msg_from_ws_v1`` build a list of ~10¹⁸ offsets, which hangs the event loop for every
user and grows memory until the machine runs out. Without a subprotocol, the first 4 bytes of a
binary frame are a buffer count: ``struct.pack("!i", 4_000_000) + bytes(8)`` makes
``deserialize_binary_message`` build (and cache) a 4-million-code struct format, ~130 MB kept per frame.

:func:`parse_v1_frame` and :func:`parse_legacy_frame` accept a frame only when its counts are small
and consistent with the frame's length, its offsets are in order and inside the frame, and its header
is a JSON object with a ``msg_type``, nested at most :data:`MAX_JSON_DEPTH` deep (a header nested
~100,000 deep used to raise an uncaught ``RecursionError``, ~100 log lines per frame); otherwise they
raise :class:`BadFrame` (the server then closes the socket). Their cost is bounded by the frame's length.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["BadFrame", "MAX_INCOMING_PARTS", "MAX_JSON_DEPTH", "json_depth", "V1_MIN_OFFSETS", "ClientMessage",
           "parse_v1_frame", "parse_legacy_frame", "parse_client_frame"]

#: Most message parts (header, parent header, metadata, content and binary buffers) a client frame
#: may have. A widget update from a browser carries a handful of buffers at most.
MAX_INCOMING_PARTS = 1024
#: Deepest nesting of JSON objects/arrays a client message may have (a widget message has < 10 levels).
MAX_JSON_DEPTH = 64
#: A v1 frame has offsets for: channel, header, parent header, metadata, content, end.
V1_MIN_OFFSETS = 6
_CHANNELS = ("shell", "iopub", "stdin", "control")


class BadFrame(ValueError):
    """A client frame that is not a well-formed kernel message."""


def json_depth(value: Any, limit: int = MAX_JSON_DEPTH) -> int:
    """Nesting depth of a parsed JSON value (a scalar is 0), counted without recursion; stops counting
    once it exceeds ``limit`` (returns ``limit + 1``).

    Examples
    --------
    >>> json_depth({"a": [1, {"b": []}]})
    4
    """
    deepest, stack = 0, [(value, 0)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            v = v.values()
        elif not isinstance(v, list):
            continue
        d += 1
        if d > limit:
            return limit + 1
        deepest = max(deepest, d)
        stack.extend((c, d) for c in v if isinstance(c, (dict, list)))
    return deepest


def _loads(raw: bytes | str, what: str) -> Any:
    """``json.loads`` that raises :class:`BadFrame` on bad JSON and on nesting deeper than MAX_JSON_DEPTH."""
    try:
        value = json.loads(raw.decode("utf-8") if isinstance(raw, (bytes, bytearray)) else raw)
    except RecursionError:
        raise BadFrame(f"{what} is nested too deeply (more than {MAX_JSON_DEPTH} levels)") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise BadFrame(f"{what} is not JSON ({exc.__class__.__name__})") from None
    if json_depth(value) > MAX_JSON_DEPTH:
        raise BadFrame(f"{what} is nested too deeply (more than {MAX_JSON_DEPTH} levels)")
    return value


class ClientMessage:
    """What the server needs to know about a checked client frame: channel, header and content."""

    __slots__ = ("channel", "header", "_content_bytes", "_content")

    def __init__(self, channel: str | None, header: dict, content: Any = None, content_bytes: bytes | None = None):
        self.channel, self.header = channel, header
        self._content, self._content_bytes = content, content_bytes

    @property
    def msg_type(self) -> str:
        return self.header["msg_type"]

    @property
    def content(self) -> dict:
        """The message content (parsed on first use; {} when it is not a JSON object)."""
        if self._content is None and self._content_bytes is not None:
            try:
                self._content = _loads(self._content_bytes, "content")
            except BadFrame:
                self._content = {}
        return self._content if isinstance(self._content, dict) else {}


def _header(raw: Any) -> dict:
    if isinstance(raw, (bytes, bytearray, memoryview)):
        raw = _loads(bytes(raw), "message header")
    elif json_depth(raw) > MAX_JSON_DEPTH:
        raise BadFrame(f"message header is nested too deeply (more than {MAX_JSON_DEPTH} levels)")
    if not isinstance(raw, dict) or not isinstance(raw.get("msg_type"), str):
        raise BadFrame("message header is not a JSON object with a msg_type")
    return raw


def _offsets(data: bytes, count: int, width: int, order: str) -> list[int]:
    table_end = width * (count + 1)
    offsets = [int.from_bytes(data[width * (i + 1): width * (i + 2)], order) for i in range(count)]
    if offsets[0] < table_end or offsets[-1] > len(data) or any(a > b for a, b in zip(offsets, offsets[1:])):
        raise BadFrame(f"offsets are out of order or outside the {len(data)}-byte frame")
    return offsets


def parse_v1_frame(frame: Any) -> tuple[ClientMessage, str, list[bytes]]:
    """Check a v1-protocol client frame; return (message, channel, msg_list).

    ``channel`` and ``msg_list`` are what jupyter_server's ``deserialize_msg_from_ws_v1`` returns
    for a well-formed frame. Raises :class:`BadFrame` otherwise.

    Examples
    --------
    >>> parse_v1_frame((2**62).to_bytes(8, "little") + bytes(8))
    Traceback (most recent call last):
    ...
    dpexplore.hosting.frames.BadFrame: v1 frame: offset count 4611686018427387904 is not in [6, 1024]
    >>> parse_v1_frame(b"\\x01" * 7)
    Traceback (most recent call last):
    ...
    dpexplore.hosting.frames.BadFrame: v1 frame: 7 bytes, shorter than its 8-byte offset count
    """
    if not isinstance(frame, (bytes, bytearray, memoryview)):
        raise BadFrame("v1 frame: a text frame (the v1 protocol sends binary frames only)")
    data = bytes(frame)
    if len(data) < 8:
        raise BadFrame(f"v1 frame: {len(data)} bytes, shorter than its 8-byte offset count")
    count = int.from_bytes(data[:8], "little")
    if not V1_MIN_OFFSETS <= count <= MAX_INCOMING_PARTS:
        raise BadFrame(f"v1 frame: offset count {count} is not in [{V1_MIN_OFFSETS}, {MAX_INCOMING_PARTS}]")
    if 8 * (count + 1) > len(data):
        raise BadFrame(f"v1 frame: {count} offsets do not fit in {len(data)} bytes")
    offsets = _offsets(data, count, 8, "little")
    try:
        channel = data[offsets[0]: offsets[1]].decode("utf-8")
    except UnicodeDecodeError:
        raise BadFrame("v1 frame: channel name is not UTF-8") from None
    if channel not in _CHANNELS:
        raise BadFrame(f"v1 frame: unknown channel {channel[:20]!r}")
    msg_list = [data[offsets[i]: offsets[i + 1]] for i in range(1, count - 1)]
    msg = ClientMessage(channel, _header(msg_list[0]), content_bytes=msg_list[3])
    return msg, channel, msg_list


def parse_legacy_frame(frame: Any) -> ClientMessage:
    """Check a legacy-protocol client frame (JSON text, or jupyter_server's binary framing).

    Examples
    --------
    >>> import struct
    >>> parse_legacy_frame(struct.pack("!i", 4_000_000) + bytes(8))
    Traceback (most recent call last):
    ...
    dpexplore.hosting.frames.BadFrame: binary frame: buffer count 4000000 is not in [1, 1024]
    >>> parse_legacy_frame('{"header": {"msg_type": "comm_msg"}, "content": {}}').msg_type
    'comm_msg'
    """
    if isinstance(frame, str):
        msg = _loads(frame, "text frame")
        if not isinstance(msg, dict) or (msg.get("channel") is not None and not isinstance(msg["channel"], str)):
            raise BadFrame("text frame is not a JSON message object")
        return ClientMessage(msg.get("channel"), _header(msg.get("header")), content=msg.get("content"))
    if not isinstance(frame, (bytes, bytearray, memoryview)):
        raise BadFrame("frame is neither text nor binary")
    data = bytes(frame)
    if len(data) < 4:
        raise BadFrame(f"binary frame: {len(data)} bytes, shorter than its 4-byte buffer count")
    count = int.from_bytes(data[:4], "big", signed=True)  # jupyter_server reads it as struct "!i"
    if not 1 <= count <= MAX_INCOMING_PARTS:
        raise BadFrame(f"binary frame: buffer count {count} is not in [1, {MAX_INCOMING_PARTS}]")
    if 4 * (count + 1) > len(data):
        raise BadFrame(f"binary frame: {count} offsets do not fit in {len(data)} bytes")
    offsets = _offsets(data, count, 4, "big")
    end = offsets[1] if count > 1 else len(data)
    msg = _loads(data[offsets[0]: end], "binary frame: first buffer")
    if not isinstance(msg, dict) or not isinstance(msg.get("parent_header"), dict):
        raise BadFrame("binary frame: first buffer is not a JSON message with a parent_header")
    channel = msg.get("channel")
    if channel is not None and not isinstance(channel, str):
        raise BadFrame("binary frame: channel is not a string")
    return ClientMessage(channel, _header(msg.get("header")), content=msg.get("content"))


def parse_client_frame(frame: Any, *, v1: bool) -> ClientMessage:
    """:func:`parse_v1_frame` (``v1=True``) or :func:`parse_legacy_frame`, returning the message only."""
    return parse_v1_frame(frame)[0] if v1 else parse_legacy_frame(frame)
