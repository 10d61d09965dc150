"""The client-frame checks of dpexplore.hosting.frames agree with jupyter_server's framing and refuse
the frames that hung it (issue 13 items 1 and 2); every check is bounded by the frame's length."""

import random
import struct
import time

import pytest
from jupyter_client.session import Session
from jupyter_server.services.kernels.connection.base import (
    deserialize_msg_from_ws_v1,
    serialize_binary_message,
    serialize_msg_to_ws_v1,
)

from dpexplore.hosting.frames import MAX_INCOMING_PARTS, BadFrame, parse_legacy_frame, parse_v1_frame


def _parts(msg_type="comm_msg", buffers=()):
    s = Session()
    msg = s.msg(msg_type, {"comm_id": "x", "data": {"method": "update"}})
    return [s.pack(msg[k]) for k in ("header", "parent_header", "metadata", "content")] + list(buffers)


@pytest.mark.parametrize("buffers", [(), (b"\x00\x01",), tuple(bytes([i]) * i for i in range(50))])
def test_real_v1_frames_pass_and_split_as_jupyter_server_splits_them(buffers):
    frame = serialize_msg_to_ws_v1(_parts(buffers=buffers), "shell")
    msg, channel, msg_list = parse_v1_frame(frame)
    assert (channel, msg_list) == deserialize_msg_from_ws_v1(frame)
    assert msg.msg_type == "comm_msg" and msg.content["comm_id"] == "x"


def test_real_legacy_frames_pass():
    s = Session()
    msg = s.msg("comm_msg", {"comm_id": "y"})
    msg["buffers"] = [b"\x00" * 10, b"\x01" * 3]
    msg["channel"] = "shell"
    assert parse_legacy_frame(serialize_binary_message(msg)).content == {"comm_id": "y"}


@pytest.mark.parametrize("frame", [
    (2**62).to_bytes(8, "little") + bytes(8),  # the frame that hung the server
    b"\x01" * 7,
    b"",
    (MAX_INCOMING_PARTS + 1).to_bytes(8, "little") + bytes(8 * (MAX_INCOMING_PARTS + 2)),
    (6).to_bytes(8, "little") + bytes(8),  # offsets do not fit
    (6).to_bytes(8, "little") + b"".join(o.to_bytes(8, "little") for o in (56, 61, 60, 70, 80, 90)) + bytes(40),
    "a text frame",
])
def test_hostile_v1_frames_are_refused(frame):
    with pytest.raises(BadFrame):
        parse_v1_frame(frame)


@pytest.mark.parametrize("frame", [
    struct.pack("!i", 4_000_000) + bytes(8),  # kept ~130 MB per distinct count in struct's cache
    struct.pack("!i", -5) + bytes(8),
    struct.pack("!i", 0) + bytes(8),
    struct.pack("!iI", 1, 2) + b"{}",  # offset inside the offset table
    struct.pack("!iI", 1, 8) + b'{"header": {}}',  # no msg_type, no parent_header
    b"\x00\x00",
    "[1, 2]",
    '{"header": "x"}',
])
def test_hostile_legacy_frames_are_refused(frame):
    with pytest.raises(BadFrame):
        parse_legacy_frame(frame)


def test_random_frames_are_refused_or_parsed_quickly():
    rng = random.Random(0)
    t0 = time.perf_counter()
    for _ in range(3000):
        blob = bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 80)))
        for parse in (parse_v1_frame, parse_legacy_frame):
            try:
                parse(blob)
            except BadFrame:
                pass
    assert time.perf_counter() - t0 < 10  # the unpatched v1 reader does not return at all on b"\x01" * 7


@pytest.mark.parametrize("depth", [65, 100_000])
def test_deeply_nested_json_is_a_bad_frame_not_a_recursion_error(depth):
    """Issue 31.10: a header nested ~100,000 deep raised an uncaught RecursionError in the check."""
    import json

    nested = "[" * depth + "]" * depth
    text = ('{"header": {"msg_type": "comm_msg", "x": ' + nested + '}, "parent_header": {}, "metadata": {}, '
            '"content": {}, "channel": "shell"}')
    with pytest.raises(BadFrame, match="nested too deeply"):
        parse_legacy_frame(text)
    header = ('{"msg_type": "comm_msg", "x": ' + nested + "}").encode()
    parts = [b"shell", header, b"{}", b"{}", b"{}"]
    offsets, pos = [], 8 * 7
    for p in parts:
        offsets.append(pos)
        pos += len(p)
    v1 = struct.pack("<7Q", 6, *offsets, pos) + b"".join(parts)
    with pytest.raises(BadFrame, match="nested too deeply"):
        parse_v1_frame(v1)
    ok = '{"header": {"msg_type": "comm_msg", "x": ' + "[" * 60 + "]" * 60 + '}, "parent_header": {}, "content": {}}'
    assert parse_legacy_frame(ok).msg_type == "comm_msg"
    assert json.loads(ok)  # (the same text is valid JSON)
