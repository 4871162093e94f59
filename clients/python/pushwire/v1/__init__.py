"""Protobuf modules generated from Protos/pushwire/v1 by Scripts/generate (protoc --python_out)."""
