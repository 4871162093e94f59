"""Status codes and the exception every failed call raises."""
from __future__ import annotations

import enum


class StatusCode(enum.IntEnum):
    """The 17 gRPC status codes carried in ``Status.code``, with gRPC's meanings."""

    OK = 0
    CANCELLED = 1
    UNKNOWN = 2
    INVALID_ARGUMENT = 3
    DEADLINE_EXCEEDED = 4
    NOT_FOUND = 5
    ALREADY_EXISTS = 6
    PERMISSION_DENIED = 7
    RESOURCE_EXHAUSTED = 8
    FAILED_PRECONDITION = 9
    ABORTED = 10
    OUT_OF_RANGE = 11
    UNIMPLEMENTED = 12
    INTERNAL = 13
    UNAVAILABLE = 14
    DATA_LOSS = 15
    UNAUTHENTICATED = 16

    @classmethod
    def from_wire(cls, value: int) -> "StatusCode":
        """The code for a wire value; values outside 0...16 read as UNKNOWN."""
        try:
            return cls(value)
        except ValueError:
            return cls.UNKNOWN


class PushwireError(Exception):
    """A call that did not succeed.

    ``code`` is a :class:`StatusCode`: the server's answer, or one the client chose for a local
    failure (DEADLINE_EXCEEDED when the deadline passed before the answer, UNAVAILABLE when the
    connection is closed or the server is going away, CANCELLED when the caller cancelled).
    ``local`` tells the two apart.
    """

    def __init__(self, code: StatusCode | int, message: str = "", *, local: bool = False):
        self.code = StatusCode.from_wire(int(code))
        self.message = message
        self.local = local
        super().__init__(f"{self.code.name}: {message}" if message else self.code.name)


class ProtocolError(PushwireError):
    """The server broke the wire protocol (bad preface, oversized or undecodable frame)."""

    def __init__(self, message: str):
        super().__init__(StatusCode.INTERNAL, message, local=True)
