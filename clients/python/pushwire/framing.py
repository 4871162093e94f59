"""The wire framing of docs/PROTOCOL.md: the 8-byte preface, then frames, each a 4-byte
big-endian length N followed by N bytes of a protobuf ``pushwire.v1.Frame``."""
from __future__ import annotations

import struct

from pushwire.status import ProtocolError
from pushwire.v1 import rpc_pb2

PREFACE = b"PWIRE/1\n"
PROTOCOL_VERSION = 1
DEFAULT_MAX_FRAME_SIZE = 4 * 1024 * 1024
LENGTH_PREFIX_SIZE = 4

_LENGTH = struct.Struct(">I")


class FrameTooLarge(ProtocolError):
    """A frame's announced length is above the receiver's limit."""

    def __init__(self, length: int, limit: int):
        super().__init__(f"frame of {length} bytes exceeds the limit of {limit}")
        self.length = length
        self.limit = limit


def encode_frame(frame: rpc_pb2.Frame, max_frame_size: int = DEFAULT_MAX_FRAME_SIZE) -> bytes:
    """The frame with its length prefix. Raises FrameTooLarge above ``max_frame_size``."""
    payload = frame.SerializeToString()
    if len(payload) > max_frame_size:
        raise FrameTooLarge(len(payload), max_frame_size)
    return _LENGTH.pack(len(payload)) + payload


class FrameDecoder:
    """Incremental decoder: feed bytes as they arrive, take frames as they complete.

    The announced length is checked against the limit before the payload is buffered, so a peer
    cannot make the decoder hold more than ``max_frame_size`` bytes plus one read.
    """

    def __init__(self, max_frame_size: int = DEFAULT_MAX_FRAME_SIZE, expects_preface: bool = False):
        self.max_frame_size = max_frame_size
        self._expects_preface = expects_preface
        self._buffer = bytearray()

    @property
    def buffered_byte_count(self) -> int:
        """Bytes received and not yet consumed."""
        return len(self._buffer)

    def append(self, data: bytes) -> None:
        """Adds bytes read from the peer."""
        self._buffer += data

    def next_frame(self) -> rpc_pb2.Frame | None:
        """The next complete frame, or None until more bytes arrive.

        Raises ProtocolError for a wrong preface, a frame with no kind or bytes that are not a
        Frame, and FrameTooLarge for a length above the limit.
        """
        if self._expects_preface:
            have = bytes(self._buffer[: len(PREFACE)])
            if not PREFACE.startswith(have):
                raise ProtocolError(f"bad preface {have!r}")
            if len(have) < len(PREFACE):
                return None
            del self._buffer[: len(PREFACE)]
            self._expects_preface = False
        if len(self._buffer) < LENGTH_PREFIX_SIZE:
            return None
        (length,) = _LENGTH.unpack_from(self._buffer)
        if length > self.max_frame_size:
            raise FrameTooLarge(length, self.max_frame_size)
        if len(self._buffer) < LENGTH_PREFIX_SIZE + length:
            return None
        payload = bytes(self._buffer[LENGTH_PREFIX_SIZE : LENGTH_PREFIX_SIZE + length])
        del self._buffer[: LENGTH_PREFIX_SIZE + length]
        frame = rpc_pb2.Frame()
        try:
            frame.ParseFromString(payload)
        except Exception as error:  # protobuf raises DecodeError; any failure means garbage
            raise ProtocolError(f"undecodable frame: {error}") from error
        if frame.WhichOneof("kind") is None:
            raise ProtocolError("frame has no kind")
        return frame
