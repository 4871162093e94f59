"""Pushwire client for Python: ``Client(host, port).health.check()``, or with asyncio
``await (await AsyncClient.connect(host, port)).health.check()``.

See docs/clients/python.md. Messages are the protobuf classes in ``pushwire.v1.*_pb2``.
"""
from pushwire.aio import AsyncClient
from pushwire.client import Call, Client
from pushwire.framing import PREFACE, FrameDecoder, FrameTooLarge, encode_frame
from pushwire.services import MESSAGE_CLASSES, METHODS
from pushwire.status import ProtocolError, PushwireError, StatusCode

__version__ = "0.1.0"

__all__ = ["AsyncClient", "Call", "Client", "FrameDecoder", "FrameTooLarge", "MESSAGE_CLASSES", "METHODS",
           "PREFACE", "ProtocolError", "PushwireError", "StatusCode", "encode_frame"]
