"""Framing edge cases of the Python decoder and encoder."""
from __future__ import annotations

import struct

import pytest

from pushwire import PREFACE, FrameDecoder, FrameTooLarge, ProtocolError, StatusCode, encode_frame
from pushwire.v1 import rpc_pb2


def ping(payload: int) -> rpc_pb2.Frame:
    frame = rpc_pb2.Frame()
    frame.ping.payload = payload
    return frame


def test_empty_decoder_needs_bytes():
    decoder = FrameDecoder()
    assert decoder.next_frame() is None
    decoder.append(b"\x00\x00")
    assert decoder.next_frame() is None
    assert decoder.buffered_byte_count == 2


def test_two_frames_in_one_read_and_a_partial_third():
    data = encode_frame(ping(1)) + encode_frame(ping(2)) + encode_frame(ping(3))[:3]
    decoder = FrameDecoder()
    decoder.append(data)
    assert decoder.next_frame().ping.payload == 1
    assert decoder.next_frame().ping.payload == 2
    assert decoder.next_frame() is None
    decoder.append(encode_frame(ping(3))[3:])
    assert decoder.next_frame().ping.payload == 3


def test_length_above_limit_is_refused_before_the_payload_arrives():
    decoder = FrameDecoder(max_frame_size=1024)
    decoder.append(struct.pack(">I", 0xFFFFFFFF))
    with pytest.raises(FrameTooLarge) as info:
        decoder.next_frame()
    assert info.value.length == 0xFFFFFFFF and info.value.limit == 1024


def test_frame_exactly_at_the_limit_is_accepted():
    data = encode_frame(ping(2**64 - 1))
    decoder = FrameDecoder(max_frame_size=len(data) - 4)
    decoder.append(data)
    assert decoder.next_frame().ping.payload == 2**64 - 1


def test_zero_length_frame_has_no_kind():
    decoder = FrameDecoder()
    decoder.append(b"\x00\x00\x00\x00")
    with pytest.raises(ProtocolError, match="no kind"):
        decoder.next_frame()


def test_garbage_payload_is_a_protocol_error():
    decoder = FrameDecoder()
    decoder.append(b"\x00\x00\x00\x03\xff\xff\xff")
    with pytest.raises(ProtocolError):
        decoder.next_frame()


def test_preface_partial_then_wrong_byte():
    decoder = FrameDecoder(expects_preface=True)
    decoder.append(b"PWI")
    assert decoder.next_frame() is None
    decoder.append(b"X")
    with pytest.raises(ProtocolError, match="preface"):
        decoder.next_frame()


def test_http_instead_of_preface():
    decoder = FrameDecoder(expects_preface=True)
    decoder.append(b"GET / HTTP/1.1\r\n")
    with pytest.raises(ProtocolError):
        decoder.next_frame()


def test_preface_then_frame_in_one_read():
    decoder = FrameDecoder(expects_preface=True)
    decoder.append(PREFACE + encode_frame(ping(9)))
    assert decoder.next_frame().ping.payload == 9


def test_encoder_refuses_frames_above_the_peer_limit():
    frame = rpc_pb2.Frame(call_id=1)
    frame.request.method = "/pushwire.v1.Health/Check"
    frame.request.message = b"x" * 100
    with pytest.raises(FrameTooLarge):
        encode_frame(frame, max_frame_size=50)


def test_cancel_frame_carries_an_empty_cancel():
    frame = rpc_pb2.Frame(call_id=3)
    frame.cancel.SetInParent()
    assert encode_frame(frame) == bytes.fromhex("0000000408032200")


def test_status_codes():
    assert len(StatusCode) == 17
    assert StatusCode.UNAUTHENTICATED == 16
    assert StatusCode.from_wire(99) is StatusCode.UNKNOWN
