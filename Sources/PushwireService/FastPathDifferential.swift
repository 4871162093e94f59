import PushwireWire

/// The rule every raw fast path of the Devices service keeps, as a function that a test or a
/// fuzzer can call on any bytes: its scanner either declines a request message or reads exactly
/// what the regular path decodes from it (the wire validator, then protobuf-c). The decision
/// that follows is the same code for both paths (`DevicesService.decide`), so this is what stands
/// between the two answers. `FastPathDifferentialTests` runs it over generated and mutated
/// messages.
public enum FastPathDifferential {
    /// How `RegisterDeviceScanner` and the decoder differ on `message`; nil when they agree.
    public static func registerDeviceMismatch(_ message: UnsafeRawBufferPointer) -> String? {
        compare(RegisterDeviceScanner.scan(message), message)
    }

    /// How `SyncCategoriesScanner` and the decoder differ on `message`; nil when they agree.
    public static func syncCategoriesMismatch(_ message: UnsafeRawBufferPointer) -> String? {
        compare(SyncCategoriesScanner.scan(message), message)
    }

    private static func compare<M: WireMessage & Equatable>(_ scanned: M?, _ message: UnsafeRawBufferPointer) -> String? {
        guard let scanned else { return nil }  // declined: the regular path answers
        let decoded: M
        do throws(WireDecodingError) {
            decoded = try M(decoding: message)
        } catch {
            return "\(M.self): the scanner accepts bytes the decoder rejects (\(error))"
        }
        return scanned == decoded ? nil : "\(M.self): the scanner reads \(scanned), the decoder \(decoded)"
    }
}
