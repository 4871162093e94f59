import FuzzSupport
import PushwireWire

/// libFuzzer target: `HotFrames.scan`, the load generator's and loopback server's in-place read
/// of a frame, differential against the regular decode.
///
/// Input: a frame payload (no length prefix). Oracle: for a frame the regular decode accepts, the
/// scan gives nothing or what the frame means (`expectedEvent`).
///
/// The entry point (Fuzz/Driver/FuzzMain.swift) runs libFuzzer's driver on `fuzzOneInput` below.
/// Returns 0 for every input (an oracle that fails aborts instead).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let payload = FuzzInput(data, size).bytes
    guard let event = HotFrames.scan(payload) else { return 0 }
    // A frame the regular decode refuses is not checked: the harness reads the frames of the
    // server it measures, and skips fields it does not need without validating them (their UTF-8,
    // their wire types) — that is what makes it cheap. The server's own fast paths are strict
    // (targets scanned-request and register-device-scanner).
    guard case .success(let frame) = regularDecode(Frame.self, payload) else { return 0 }
    if case .request(let callID, let method) = event, case .request(let request)? = frame.kind {
        // The event names the method by its byte range in the payload.
        require(callID == frame.callID && Array(payload[method]) == Array(request.method.utf8),
                "the scan reads \(hex(payload)) as \(event), the regular decode as \(frame)")
        return 0
    }
    require(event == expectedEvent(frame), "the scan reads \(hex(payload)) as \(event), the regular decode as \(frame)")
    return 0
}

/// What `HotFrames.scan` should say about `frame`.
private func expectedEvent(_ frame: Frame) -> HotFrames.Event {
    switch frame.kind {
    case .response(let response)?:
        response.status.map { .response(callID: frame.callID, code: $0.code) } ?? .streamItem(callID: frame.callID)
    case .ping(let ping)?: .ping(payload: ping.payload)
    case .pong(let pong)?: .pong(payload: pong.payload)
    case .goAway(let goAway)?: .goAway(lastCallID: goAway.lastCallID, code: goAway.status?.code ?? 0)
    case .settings(let settings)?: .settings(maxConcurrentCalls: settings.maxConcurrentCalls)
    case .request(let request)?: .request(callID: frame.callID, method: 0..<request.method.utf8.count)
    case .cancel?, nil: .other
    }
}
