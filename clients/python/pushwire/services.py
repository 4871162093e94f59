"""Typed per-service stubs, built at import time from the service descriptors of the generated
``_pb2`` modules, so every method of Protos/ is callable without hand-written code:
``client.devices.register_device(request)`` calls ``/pushwire.v1.Devices/RegisterDevice``."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from google.protobuf import descriptor as _descriptor
from google.protobuf.message import Message

from pushwire.v1 import (
    admin_pb2,
    categories_pb2,
    common_pb2,
    devices_pb2,
    health_pb2,
    messages_pb2,
    reflection_pb2,
    rpc_pb2,
)

if TYPE_CHECKING:
    from pushwire.client import Call

MODULES = (admin_pb2, categories_pb2, common_pb2, devices_pb2, health_pb2, messages_pb2,
           reflection_pb2, rpc_pb2)


def snake_case(name: str) -> str:
    """``RegisterDevice`` → ``register_device``, ``ListMethods`` → ``list_methods``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _message_classes() -> dict[str, type[Message]]:
    classes: dict[str, type[Message]] = {}

    def add(owner: Any, desc: _descriptor.Descriptor) -> None:
        cls = getattr(owner, desc.name)
        classes[desc.full_name] = cls
        for nested in desc.nested_types:
            add(cls, nested)

    for module in MODULES:
        for desc in module.DESCRIPTOR.message_types_by_name.values():
            add(module, desc)
    return classes


#: Every generated message class by full name ("pushwire.v1.Category").
MESSAGE_CLASSES: dict[str, type[Message]] = _message_classes()


class MethodInfo:
    """One RPC: its path and its request and response classes."""

    def __init__(self, service: _descriptor.ServiceDescriptor, method: _descriptor.MethodDescriptor):
        self.path = f"/{service.full_name}/{method.name}"
        self.name = method.name
        self.request_type = MESSAGE_CLASSES[method.input_type.full_name]
        self.response_type = MESSAGE_CLASSES[method.output_type.full_name]


def _methods() -> dict[str, MethodInfo]:
    table: dict[str, MethodInfo] = {}
    for module in MODULES:
        for service in module.DESCRIPTOR.services_by_name.values():
            for method in service.methods:
                info = MethodInfo(service, method)
                table[info.path] = info
    return table


#: Every method of the pushwire.v1 services by path ("/pushwire.v1.Health/Check").
METHODS: dict[str, MethodInfo] = _methods()


class BoundMethod:
    """A method bound to a client. Call it for a blocking call; ``.future(...)`` to pipeline.

    The request is a message of ``request_type`` or, for convenience, its fields as keyword
    arguments. ``timeout`` (seconds) is the call's deadline; ``metadata`` a dict or pairs.
    """

    def __init__(self, client: Any, info: MethodInfo):
        self._client = client
        self.info = info
        self.__doc__ = f"Calls {info.path}: {info.request_type.__name__} → {info.response_type.__name__}."

    def _request(self, request: Message | None, fields: dict[str, Any]) -> Message:
        if request is None:
            return self.info.request_type(**fields)
        if fields:
            raise TypeError("pass either a request message or its fields, not both")
        if not isinstance(request, self.info.request_type):
            raise TypeError(f"{self.info.path} takes {self.info.request_type.__name__}, "
                            f"not {type(request).__name__}")
        return request

    def __call__(self, request: Message | None = None, *, timeout: float | None = None,
                 metadata: Any = None, **fields: Any) -> Any:
        # The response message for a Client; a coroutine that returns it for an AsyncClient.
        return self._client._invoke(self.info.path, self._request(request, fields), self.info.response_type,
                                    timeout=timeout, metadata=metadata)

    def future(self, request: Message | None = None, *, timeout: float | None = None,
               metadata: Any = None, **fields: Any) -> "Call":
        """Sends the call and returns at once; ``.result()`` waits for the answer (Client only;
        with an AsyncClient, use asyncio.gather or tasks)."""
        return self._client.start_call(self.info.path, self._request(request, fields),
                                       self.info.response_type, timeout=timeout, metadata=metadata)


class ServiceStub:
    """The methods of one service, as snake_case attributes."""

    def __init__(self, client: Any, service: _descriptor.ServiceDescriptor):
        self.name = service.full_name
        for method in service.methods:
            info = METHODS[f"/{service.full_name}/{method.name}"]
            setattr(self, snake_case(method.name), BoundMethod(client, info))


def attach_services(client: Any) -> dict[str, ServiceStub]:
    """Creates one stub per service, keyed by snake_case service name (``devices``, ``admin``)."""
    stubs = {}
    for module in MODULES:
        for service in module.DESCRIPTOR.services_by_name.values():
            stubs[snake_case(service.name)] = ServiceStub(client, service)
    return stubs


__all__ = ["METHODS", "MESSAGE_CLASSES", "MethodInfo", "BoundMethod", "ServiceStub", "snake_case",
           "attach_services"]
