import FuzzSupport
@testable import PushwireService
import PushwireWire

/// libFuzzer target: the RegisterDevice fast path's in-place read of the request
/// (`RegisterDeviceScanner`), differential against the regular decode.
///
/// Input: a `RegisterDeviceRequest` encoding. Oracle: when the scanner accepts it, the regular
/// decode (validator + protobuf-c + wrapper) accepts it too and gives an equal request.
///
/// The entry point (Fuzz/Driver/FuzzMain.swift) runs libFuzzer's driver on `fuzzOneInput` below.
/// Returns 0 for every input (an oracle that fails aborts instead).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let message = FuzzInput(data, size).bytes
    guard let scanned = RegisterDeviceScanner.scan(message) else { return 0 }
    let decoded = regularDecode(RegisterDeviceRequest.self, message)
    require(decoded == .success(scanned), "the fast path reads \(hex(message)) as \(scanned), the regular decode as \(decoded)")
    return 0
}
