import PushwireWire

/// The rule the runtime's frame scanner (`ScannedRequest`) keeps, as a function a test or a
/// fuzzer can call on any frame payload: it either declines the frame or reads exactly the
/// call id, method, timeout and message that the regular decoder (the wire validator, then
/// protobuf-c) decodes from it, and lifts exactly its request (metadata too, `request()`) — and
/// it never accepts a frame the decoder rejects, which would have been answered with GoAway.
public enum RawFrameDifferential {
    /// How `ScannedRequest` and `Frame(decoding:)` differ on `payload`; nil when they agree.
    public static func mismatch(_ payload: UnsafeRawBufferPointer) -> String? {
        guard let scanned = ScannedRequest(frame: payload) else { return nil }
        let frame: Frame
        do throws(WireDecodingError) {
            frame = try Frame(decoding: payload)
        } catch {
            return "the scanner accepts a frame the decoder rejects (\(error))"
        }
        guard case .request(let request)? = frame.kind else { return "scanned as a request, decoded as \(String(describing: frame.kind))" }
        var differences: [String] = []
        if scanned.callID != frame.callID { differences.append("call id \(scanned.callID) ≠ \(frame.callID)") }
        if !scanned.method.elementsEqual(request.method.utf8) { differences.append("method \(Array(scanned.method)) ≠ \(request.method)") }
        if scanned.timeoutMS != request.timeoutMS { differences.append("timeout \(scanned.timeoutMS) ≠ \(request.timeoutMS)") }
        if !scanned.message.elementsEqual(request.message) { differences.append("message \(Array(scanned.message)) ≠ \(request.message)") }
        let lifted = scanned.request()
        if lifted != request { differences.append("lifted request \(lifted) ≠ \(request)") }
        return differences.isEmpty ? nil : differences.joined(separator: "; ")
    }
}
