import FuzzSupport
@testable import PushwireService
import PushwireWire

/// libFuzzer target: the RegisterDevice fast path's in-place read of the request
/// (`RegisterDeviceScanner`), differential against the regular decode.
///
/// Input: a `RegisterDeviceRequest` encoding. Oracle: when the scanner accepts it, the regular
/// decode (validator + protobuf-c + wrapper) accepts it too and gives an equal request.
///
/// The executable's entry point runs libFuzzer's driver on `LLVMFuzzerTestOneInput` below.
@main
enum FuzzMain {
    static func main() { runFuzzer(fuzzRegisterDeviceScanner) }
}

/// One input; always 0 (an oracle that fails aborts instead).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRegisterDeviceScanner(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let message = FuzzInput(data, size).bytes
    guard let scanned = RegisterDeviceScanner.scan(message) else { return 0 }
    let decoded = regularDecode(RegisterDeviceRequest.self, message)
    require(decoded == .success(scanned), "the fast path reads \(hex(message)) as \(scanned), the regular decode as \(decoded)")
    return 0
}
