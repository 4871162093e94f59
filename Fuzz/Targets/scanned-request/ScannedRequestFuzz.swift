import FuzzSupport
@testable import PushwireRuntime
import PushwireWire

/// libFuzzer target: the runtime's raw fast-path scan of a request frame (`ScannedRequest`),
/// differential against the regular decode (validator + protobuf-c + `Frame`).
///
/// Input: a frame payload (no length prefix). Oracle: when the scan accepts a frame for a method
/// with a fast path (those pushwired registers, `fastPaths`), the regular decode accepts it too
/// and reads the same call id, method, timeout and message; the scan may decline anything.
///
/// The entry point (Fuzz/Driver/FuzzMain.swift) runs libFuzzer's driver on `fuzzOneInput` below.
/// Returns 0 for every input (an oracle that fails aborts instead).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let payload = FuzzInput(data, size).bytes
    // A scanned frame takes a fast path only when its method has one (else it is decoded as usual).
    guard let scanned = ScannedRequest(frame: payload), fastPaths.entry(forPath: scanned.method) != nil else { return 0 }
    let decoded = regularDecode(Frame.self, payload)
    guard case .success(let frame) = decoded, case .request(let request)? = frame.kind else {
        require(false, "the fast path accepts \(hex(payload)), the regular decode gives \(decoded)")
        return 0
    }
    require(scanned.callID == frame.callID, "call id \(scanned.callID) vs \(frame.callID) in \(hex(payload))")
    require(Array(scanned.method) == Array(request.method.utf8), "method \(hex(scanned.method)) vs \(request.method) in \(hex(payload))")
    require(scanned.timeoutMS == request.timeoutMS, "timeout \(scanned.timeoutMS) vs \(request.timeoutMS) in \(hex(payload))")
    require(Array(scanned.message) == request.message, "message \(hex(scanned.message)) vs \(hex(request.message)) in \(hex(payload))")
    return 0
}

/// The methods pushwired gives raw fast paths (PushwireServices.swift), matched as the server does.
private let fastPaths = RawFastPaths([
    Methods.Devices.registerDevice.path: { _ in .decline },
    Methods.Devices.syncCategories.path: { _ in .decline },
])
