import PushwireWire

/// A prebuilt `Request` message whose per-call part is a fixed-width counter, patched in place.
///
/// Why: scenarios such as `register` need a different hwid on every call, but encoding a
/// `RegisterDeviceRequest` and its `Request` envelope through the generated wrappers on every call
/// costs more than the rest of the harness's per-call work. Because the counter has a fixed width
/// (`digits` lowercase hex digits), every length prefix in the encoding stays the same, so a call
/// is the template's bytes with `digits` bytes overwritten at each of `offsets`.
public struct PatchableRequest: Sendable, Equatable {
    /// The `Request` message bytes with the counter at 0.
    public let bytes: [UInt8]
    /// Where the counter's digits start in `bytes`, one entry per place it appears.
    public let offsets: [Int]
    /// How many hex digits the counter has: values wrap at 16^digits.
    public static let digits = 12
    /// The marker written where the counter goes, to find its offsets in the encoded template.
    public static let marker = "\u{7F}PWCOUNTER\u{7F}!"  // 12 bytes, never valid in real data

    /// The error when the template does not hold the marker exactly where the builder put it.
    public struct TemplateError: Error, Equatable {
        /// What went wrong.
        public var message: String
    }

    /// Builds the template: `build` returns the request message with `PatchableRequest.marker`
    /// where the counter goes (in string fields); its encoding becomes the `Request`'s body.
    /// - Parameters:
    ///   - method: the method path, `/pushwire.v1.<Service>/<Method>`.
    ///   - timeoutMS: the deadline sent to the server; 0 for the server's default.
    ///   - metadata: request metadata, e.g. `("authorization", "Bearer …")`.
    ///   - places: how many times the marker appears; checked.
    ///   - message: the method's request message, protobuf-encoded, containing the marker.
    /// - Throws: `TemplateError` when the marker is not found `places` times.
    public init(
        method: String, timeoutMS: UInt32 = 0, metadata: [(key: String, value: String)] = [], places: Int,
        message: [UInt8]
    ) throws(TemplateError) {
        var encoded = HotFrames.requestMessage(method: method, timeoutMS: timeoutMS, metadata: metadata, message: message)
        let marker = Array(Self.marker.utf8)
        precondition(marker.count == Self.digits, "the marker is as wide as the counter")
        var found: [Int] = []
        var i = 0
        while i + marker.count <= encoded.count {
            if encoded[i] == marker[0], Array(encoded[i..<i + marker.count]) == marker {
                found.append(i)
                i += marker.count
            } else {
                i += 1
            }
        }
        guard found.count == places else {
            throw TemplateError(message: "the counter marker appears \(found.count) times in the request, expected \(places)")
        }
        for offset in found { Self.write(0, into: &encoded, at: offset) }
        bytes = encoded
        offsets = found
    }

    /// `value` as `digits` lowercase hex digits: the text the counter takes in the request.
    public static func text(_ value: UInt64) -> String {
        var out = [UInt8](repeating: 0, count: digits)
        write(value, into: &out, at: 0)
        return String(decoding: out, as: UTF8.self)
    }

    /// Overwrites the `digits` bytes at `offset` of `buffer` with `value` in hex.
    @inline(__always)
    public static func write(_ value: UInt64, into buffer: inout [UInt8], at offset: Int) {
        buffer.withUnsafeMutableBufferPointer { out in
            var v = value
            var i = offset + digits - 1
            while i >= offset {
                let nibble = UInt8(truncatingIfNeeded: v & 0xF)
                out[i] = nibble < 10 ? 0x30 &+ nibble : 0x57 &+ nibble  // "0"… / "a"…
                v >>= 4
                i -= 1
            }
        }
    }

    /// Appends a length-prefixed `Frame { call_id, request }` whose request is this template with
    /// the counter set to `counter`.
    @inlinable
    public func appendFrame(callID: UInt32, counter: UInt64, to out: inout [UInt8]) {
        HotFrames.appendRequestFrame(callID: callID, request: bytes, to: &out)
        let base = out.count - bytes.count
        // The 12 digits as two words of ASCII, computed once and stored at every place.
        var high: UInt32 = 0  // digits 0…3
        var low: UInt64 = 0  // digits 4…11
        var v = counter
        for i in 0..<8 {
            let nibble = UInt64(v & 0xF)
            low |= (nibble < 10 ? 0x30 + nibble : 0x57 + nibble) << UInt64(8 * i)
            v >>= 4
        }
        for i in 0..<4 {
            let nibble = UInt32(truncatingIfNeeded: v & 0xF)
            high |= (nibble < 10 ? 0x30 + nibble : 0x57 + nibble) << UInt32(8 * i)
            v >>= 4
        }
        out.withUnsafeMutableBytes { raw in
            guard let start = raw.baseAddress else { return }
            for offset in offsets {
                (start + base + offset).storeBytes(of: high.bigEndian, as: UInt32.self)
                (start + base + offset + 4).storeBytes(of: low.bigEndian, as: UInt64.self)
            }
        }
    }
}
