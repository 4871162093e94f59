"""Golden vectors: every file of Tests/Vectors decodes with the Python client and re-encodes byte
for byte, frame and inner method message alike; and matches what the manifest says it holds."""
from __future__ import annotations

import json

import pytest
from google.protobuf import json_format

from pushwire import METHODS, MESSAGE_CLASSES, PREFACE, FrameDecoder, encode_frame
from pushwire.v1 import rpc_pb2


def load(vectors_dir):
    manifest = json.loads((vectors_dir / "manifest.json").read_text())
    assert manifest["vectors"], "manifest lists no vectors"
    return manifest["vectors"]


def test_every_vector_round_trips(vectors_dir):
    checked = 0
    for vector in load(vectors_dir):
        data = (vectors_dir / vector["file"]).read_bytes()
        assert data.hex() == vector["hex"], vector["file"]
        if vector["kind"] == "preface":
            assert data == PREFACE
            continue
        decoder = FrameDecoder()
        # One byte at a time: the frame must appear exactly when its last byte arrives.
        for i, byte in enumerate(data):
            decoder.append(bytes([byte]))
            frame = decoder.next_frame()
            assert (frame is not None) == (i == len(data) - 1), vector["file"]
        assert frame.WhichOneof("kind") == vector["kind"], vector["file"]
        assert encode_frame(frame) == data, f"{vector['file']} re-encodes differently"
        expected = rpc_pb2.Frame()
        json_format.ParseDict(vector["frame"], expected)
        assert frame == expected, f"{vector['file']} differs from the manifest's JSON"
        inner = vector.get("inner")
        if inner:
            owner, field = inner["field"].split(".")
            body = getattr(getattr(frame, owner), field)
            cls = MESSAGE_CLASSES[inner["type"]]
            message = cls.FromString(body)
            assert message.SerializeToString() == body, f"{vector['file']}: inner re-encodes differently"
            assert body.hex() == inner["hex"]
            expected_inner = cls()
            json_format.ParseDict(inner["json"], expected_inner)
            assert message == expected_inner
            if owner == "request":
                assert METHODS[frame.request.method].request_type is cls
        checked += 1
    assert checked > 0


def test_all_vectors_in_one_stream(vectors_dir):
    """The frames back to back, as a connection would carry them, after the preface."""
    vectors = [v for v in load(vectors_dir) if v["kind"] != "preface"]
    stream = PREFACE + b"".join((vectors_dir / v["file"]).read_bytes() for v in vectors)
    decoder = FrameDecoder(expects_preface=True)
    decoder.append(stream)
    kinds = []
    while (frame := decoder.next_frame()) is not None:
        kinds.append(frame.WhichOneof("kind"))
    assert kinds == [v["kind"] for v in vectors]
    assert decoder.buffered_byte_count == 0


@pytest.mark.parametrize("limit", [0, 5])
def test_vectors_respect_a_small_limit(vectors_dir, limit):
    from pushwire import FrameTooLarge
    big = next(v for v in load(vectors_dir) if v["kind"] == "request")
    decoder = FrameDecoder(max_frame_size=limit)
    decoder.append((vectors_dir / big["file"]).read_bytes()[:4])
    with pytest.raises(FrameTooLarge):
        decoder.next_frame()
