"""The Pushwire wire protocol by hand, the few messages Scripts/abuse needs (field numbers from
Protos/pushwire/v1): protobuf fields, request and cancel frames, parsing answers, a blocking client."""

import socket
import struct


PREFACE = b"PWIRE/1\n"



def varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def f_varint(number, value):
    return varint(number << 3) + varint(value) if value else b""


def f_bytes(number, data):
    if isinstance(data, str):
        data = data.encode()
    return varint(number << 3 | 2) + varint(len(data)) + data


def request_frame(call_id, method, message=b"", metadata=(), timeout_ms=0):
    request = f_bytes(1, method) + f_varint(2, timeout_ms)
    for key, value in metadata:
        request += f_bytes(3, f_bytes(1, key) + f_bytes(2, value))
    request += f_bytes(4, message)
    frame = f_varint(1, call_id) + f_bytes(2, request)
    return struct.pack(">I", len(frame)) + frame


def cancel_frame(call_id):
    frame = f_varint(1, call_id) + f_bytes(4, b"")
    return struct.pack(">I", len(frame)) + frame


def parse(data):
    """Fields of a protobuf message: {number: [values]} (varints as int, the rest as bytes)."""
    fields = {}
    i = 0
    while i < len(data):
        key, i = read_varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = read_varint(data, i)
        elif wire == 2:
            length, i = read_varint(data, i)
            value = data[i:i + length]
            i += length
        elif wire == 1:
            value, i = data[i:i + 8], i + 8
        elif wire == 5:
            value, i = data[i:i + 4], i + 4
        else:
            raise ValueError(f"wire type {wire}")
        fields.setdefault(number, []).append(value)
    return fields


def read_varint(data, i):
    shift = result = 0
    while True:
        byte = data[i]
        i += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, i
        shift += 7


def frames_in(buffer):
    """Splits complete length-prefixed frames off `buffer` (a bytearray); returns their payloads."""
    out = []
    while len(buffer) >= 4:
        length = struct.unpack(">I", buffer[:4])[0]
        if len(buffer) < 4 + length:
            break
        out.append(bytes(buffer[4:4 + length]))
        del buffer[:4 + length]
    return out


def response_of(payload):
    """(call id, status code, status message, body) of a Response frame, or None."""
    frame = parse(payload)
    if 3 not in frame:
        return None
    response = parse(frame[3][0])
    status = parse(response.get(1, [b""])[0])
    return (frame.get(1, [0])[0], status.get(1, [0])[0], status.get(2, [b""])[0].decode(errors="replace"),
            response.get(2, [b""])[0])


class Client:
    """A blocking client: preface, Settings, one call at a time."""

    def __init__(self, address):
        self.sock = socket.create_connection(address, timeout=30)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.sendall(PREFACE)
        self.buffer = bytearray()
        self.next_id = 1
        preface = self._read_exactly(8)
        assert preface == PREFACE, preface
        self._next_frame()  # Settings

    def _read_exactly(self, count):
        while len(self.buffer) < count:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise ConnectionError("closed")
            self.buffer += chunk
        data = bytes(self.buffer[:count])
        del self.buffer[:count]
        return data

    def _next_frame(self):
        length = struct.unpack(">I", self._read_exactly(4))[0]
        return self._read_exactly(length)

    def call(self, method, message=b"", metadata=()):
        call_id = self.next_id
        self.next_id += 1
        self.sock.sendall(request_frame(call_id, method, message, metadata))
        while True:
            answer = response_of(self._next_frame())
            if answer and answer[0] == call_id:
                return answer[1], answer[2], answer[3]
