import PushwireWire

/// Reads a `RegisterDeviceRequest` in place for the RegisterDevice fast path, without protobuf-c's
/// unpack, the UTF-8 validator's walk and the generated wrapper's lifting (together about a fifth
/// of an event loop's time per new registration in `perf`).
///
/// Strict on purpose, like `ScannedRequest`: it accepts only what the regular decoder accepts and
/// reads identically — fields 1–8 and 10, each at most once, with their proto3 wire types, keys
/// and lengths of at most 5 bytes, and text that is plain ASCII without NUL (always valid UTF-8).
/// Anything else (tags, unknown or repeated fields, other text) is nil, and the call takes the
/// regular path, which decodes and reports it. `FastPathDifferential.registerDeviceMismatch`
/// states the rule as a function; `FastPathDifferentialTests` runs it over generated messages.
enum RegisterDeviceScanner {
    static func scan(_ message: UnsafeRawBufferPointer) -> RegisterDeviceRequest? {
        var reader = HotFrames.Reader(message)
        var request = RegisterDeviceRequest()
        var seen: UInt16 = 0
        while !reader.atEnd {
            guard let (field, wireType) = reader.tag(), field <= 10 else { return nil }
            let bit = UInt16(1) << UInt16(field)
            guard seen & bit == 0 else { return nil }
            seen |= bit
            switch (field, wireType) {
            case (1, 2), (2, 2), (3, 2), (5, 2), (7, 2), (8, 2):
                guard let text = reader.submessage(), let string = DevicesService.asciiString(text.bytes) else { return nil }
                switch field {
                case 1: request.application = string
                case 2: request.hwid = string
                case 3: request.pushToken = string
                case 5: request.language = string
                case 7: request.userID = string
                default: request.appVersion = string
                }
            case (4, 0):
                // An enum, like protobuf-c: the varint's low 32 bits; unknown values stay unknown.
                guard let value = reader.varint() else { return nil }
                request.deviceType = DeviceType(rawValue: Int32(truncatingIfNeeded: value))
            case (6, 0):
                guard let value = reader.varint() else { return nil }
                request.timezone = Int32(truncatingIfNeeded: value)
            case (10, 0):
                guard let value = reader.varint() else { return nil }
                request.knownCategoriesVersion = value
            default:
                return nil
            }
        }
        return request
    }
}
