/// Why the bytes a peer sent are not valid Pushwire framing.
///
/// Every case is a protocol violation: the connection answers with a `GoAway` carrying an error
/// status where it can, and closes. `badPreface` and `frameTooLarge` leave the decoder unusable
/// (the byte stream cannot be resynchronised); after `undecodableFrame` and `emptyFrame` the
/// offending frame has been consumed.
public enum FramingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The first 8 bytes were not `PWIRE/1\n` (`WireProtocol.preface`).
    case badPreface
    /// A length prefix announced a frame larger than the limit; nothing of it was buffered.
    case frameTooLarge(length: Int, limit: Int)
    /// The frame's bytes are not a valid `pushwire.v1.Frame`.
    case undecodableFrame(WireDecodingError)
    /// A `Frame` with no `kind` set.
    case emptyFrame

    /// A sentence for logs and for the `GoAway` status message.
    public var description: String {
        switch self {
        case .badPreface:
            "bad preface: expected \"PWIRE/1\\n\""
        case .frameTooLarge(let length, let limit):
            "frame of \(length) bytes exceeds the limit of \(limit) bytes"
        case .undecodableFrame(let error):
            "undecodable frame: \(error.message)"
        case .emptyFrame:
            "frame has no kind"
        }
    }

    /// The status a peer is told in the `GoAway` sent before closing: an oversized frame is
    /// RESOURCE_EXHAUSTED, everything else a malformed request (INVALID_ARGUMENT).
    public var statusCode: StatusCode {
        switch self {
        case .frameTooLarge: .resourceExhausted
        case .badPreface, .undecodableFrame, .emptyFrame: .invalidArgument
        }
    }
}
