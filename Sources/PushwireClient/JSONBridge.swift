// The JSON ↔ protobuf bridge lives in PushwireJSONBridge, shared with the server's HTTP door;
// re-exported so that the CLI, the bench and client users keep reaching it through this module.
@_exported import PushwireJSONBridge
