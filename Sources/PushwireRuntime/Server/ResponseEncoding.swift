import PushwireWire

/// Appends a framed `Frame { call_id, response: Response { status: Status { code, message }, message } }`
/// straight to an output buffer, byte for byte what `Frame.response(…).encode(appendingTo:lengthPrefixed: true)`
/// produces (a test checks it), without building the C structs: responses are the server's
/// hottest frames, and going through protobuf-c cost about a fifth of a small call.
enum ResponseEncoding {
    static func append(callID: UInt32, status: StatusCode, message: String, body: [UInt8], to output: inout [UInt8]) {
        var message = message
        message.withUTF8 { text in
            // Sizes, inside out; proto3 leaves zero/empty scalars out, and protobuf-c writes fields
            // in number order.
            let code = status.rawValue
            let statusSize = (code == 0 ? 0 : 1 + varintSize(UInt64(code)))
                + (text.isEmpty ? 0 : 1 + varintSize(UInt64(text.count)) + text.count)
            let responseSize = 1 + varintSize(UInt64(statusSize)) + statusSize
                + (body.isEmpty ? 0 : 1 + varintSize(UInt64(body.count)) + body.count)
            let frameSize = (callID == 0 ? 0 : 1 + varintSize(UInt64(callID)))
                + 1 + varintSize(UInt64(responseSize)) + responseSize
            output.reserveCapacity(output.count + 4 + frameSize)
            let length = UInt32(truncatingIfNeeded: frameSize)
            output.append(UInt8(truncatingIfNeeded: length >> 24))
            output.append(UInt8(truncatingIfNeeded: length >> 16))
            output.append(UInt8(truncatingIfNeeded: length >> 8))
            output.append(UInt8(truncatingIfNeeded: length))
            if callID != 0 {
                output.append(0x08)  // Frame.call_id, varint
                appendVarint(UInt64(callID), to: &output)
            }
            output.append(0x1A)  // Frame.response (3), length-delimited
            appendVarint(UInt64(responseSize), to: &output)
            output.append(0x0A)  // Response.status (1), length-delimited
            appendVarint(UInt64(statusSize), to: &output)
            if code != 0 {
                output.append(0x08)  // Status.code (1), varint
                appendVarint(UInt64(code), to: &output)
            }
            if !text.isEmpty {
                output.append(0x12)  // Status.message (2), length-delimited
                appendVarint(UInt64(text.count), to: &output)
                output.append(contentsOf: text)
            }
            if !body.isEmpty {
                output.append(0x12)  // Response.message (2), length-delimited
                appendVarint(UInt64(body.count), to: &output)
                output.append(contentsOf: body)
            }
        }
    }

    @inline(__always)
    static func varintSize(_ value: UInt64) -> Int {
        var size = 1
        var rest = value >> 7
        while rest != 0 {
            size += 1
            rest >>= 7
        }
        return size
    }

    @inline(__always)
    static func appendVarint(_ value: UInt64, to output: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            output.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        output.append(UInt8(rest))
    }
}
