import CNGHTTP2

/// Header names and values laid out in one byte buffer, for handing to nghttp2 as `nghttp2_nv`s
/// (nghttp2 copies them while submitting, so the buffer only has to live through that call).
/// Reused from request to request: a connection lays the headers every request shares out once
/// and, per request, cuts the block back to them and appends that request's own (`removeAll
/// (keepingFirst:)`), so building a request's headers allocates nothing and makes no `String`.
struct NGHTTP2HeaderBlock {
    private struct Span {
        var nameStart: Int
        var valueStart: Int
        var valueEnd: Int
        var indexed: Bool
    }

    private var bytes: [UInt8] = []
    private var spans: [Span] = []

    /// The number of headers.
    var count: Int { spans.count }

    /// Keeps the first `headers` headers (all of them from `0` on) and drops the rest, keeping the
    /// storage.
    mutating func removeAll(keepingFirst headers: Int = 0) {
        guard headers < spans.count else { return }
        if headers == 0 {
            bytes.removeAll(keepingCapacity: true)
            spans.removeAll(keepingCapacity: true)
        } else {
            bytes.removeSubrange(spans[headers].nameStart...)
            spans.removeSubrange(headers...)
        }
    }

    /// Appends one header. `indexed: false` keeps it out of HPACK's dynamic table (values that
    /// differ on every request would only evict useful entries).
    mutating func append(_ name: String, _ value: String, indexed: Bool = true) {
        let nameStart = bytes.count
        appendUTF8(name)
        let valueStart = bytes.count
        appendUTF8(value)
        spans.append(Span(nameStart: nameStart, valueStart: valueStart, valueEnd: bytes.count, indexed: indexed))
    }

    /// Appends one header whose value is `prefix` followed by `value` (a request path), without
    /// making the joined string.
    mutating func append(_ name: String, _ prefix: String, _ value: String) {
        let nameStart = bytes.count
        appendUTF8(name)
        let valueStart = bytes.count
        appendUTF8(prefix)
        appendUTF8(value)
        spans.append(Span(nameStart: nameStart, valueStart: valueStart, valueEnd: bytes.count, indexed: true))
    }

    /// Appends one header whose value is `number` in decimal, written straight into the block.
    mutating func append(_ name: String, decimal number: Int64) {
        let nameStart = bytes.count
        appendUTF8(name)
        let valueStart = bytes.count
        if number < 0 { bytes.append(UInt8(ascii: "-")) }
        // The magnitude as UInt64: Int64.min has no positive Int64.
        var rest = number.magnitude
        let digitsStart = bytes.count
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        bytes[digitsStart...].reverse()
        spans.append(Span(nameStart: nameStart, valueStart: valueStart, valueEnd: bytes.count, indexed: true))
    }

    private mutating func appendUTF8(_ text: String) {
        // Native strings (literals, the gateway's own) are contiguous: one copy of their bytes.
        let copied: Void? = text.utf8.withContiguousStorageIfAvailable { bytes.append(contentsOf: $0) }
        if copied == nil { bytes.append(contentsOf: text.utf8) }
    }

    /// The headers as strings, in the order they were appended (libcurl's header lines, tests).
    var fields: [(name: String, value: String)] {
        spans.map { span in
            (String(decoding: bytes[span.nameStart..<span.valueStart], as: UTF8.self),
             String(decoding: bytes[span.valueStart..<span.valueEnd], as: UTF8.self))
        }
    }

    /// Whether each header may enter HPACK's dynamic table, in the order they were appended.
    var indexing: [Bool] { spans.map(\.indexed) }

    /// Fills `list` with the headers as `nghttp2_nv`s pointing into the block — pseudo-headers
    /// (names starting with `:`) first, as RFC 9113 §8.3 requires, the rest after, each group in
    /// the order appended — and calls `body` with it; the pointers are valid only inside `body`.
    func withEntries<Result>(_ list: inout [nghttp2_nv], _ body: (inout [nghttp2_nv]) -> Result) -> Result {
        list.removeAll(keepingCapacity: true)
        return bytes.withUnsafeBufferPointer { buffer in
            if let base = buffer.baseAddress {
                // nghttp2 takes non-const pointers but only reads (and copies) them.
                let start = UnsafeMutablePointer(mutating: base)
                func add(pseudo: Bool) {
                    for span in spans where (span.valueStart > span.nameStart && buffer[span.nameStart] == UInt8(ascii: ":")) == pseudo {
                        let flags = span.indexed ? NGHTTP2_NV_FLAG_NONE : NGHTTP2_NV_FLAG_NO_INDEX
                        list.append(nghttp2_nv(name: start + span.nameStart, value: start + span.valueStart,
                                               namelen: span.valueStart - span.nameStart, valuelen: span.valueEnd - span.valueStart,
                                               flags: UInt8(flags.rawValue)))
                    }
                }
                add(pseudo: true)
                add(pseudo: false)
            }
            return body(&list)
        }
    }
}
