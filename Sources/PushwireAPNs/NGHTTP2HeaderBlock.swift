import CNGHTTP2

/// Header names and values laid out in one byte buffer, for handing to nghttp2 as `nghttp2_nv`s
/// (nghttp2 copies them while submitting, so the buffer only has to live through that call).
/// Reused from request to request so that building a request's headers allocates nothing.
struct NGHTTP2HeaderBlock {
    private var bytes: [UInt8] = []
    private var spans: [(name: Range<Int>, value: Range<Int>, indexed: Bool)] = []

    /// The number of headers.
    var count: Int { spans.count }

    /// Empties the block, keeping its storage.
    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        spans.removeAll(keepingCapacity: true)
    }

    /// Appends one header. `indexed: false` keeps it out of HPACK's dynamic table (values that
    /// differ on every request would only evict useful entries).
    mutating func append(_ name: String, _ value: String, indexed: Bool = true) {
        let nameStart = bytes.count
        bytes.append(contentsOf: name.utf8)
        let valueStart = bytes.count
        bytes.append(contentsOf: value.utf8)
        spans.append((nameStart..<valueStart, valueStart..<bytes.count, indexed))
    }

    /// Appends the headers at `range` as `nghttp2_nv`s pointing into the block to `list`, and
    /// calls `body`; the pointers are valid only inside `body`.
    func withEntries<Result>(_ range: Range<Int>, appendedTo list: inout [nghttp2_nv], _ body: (inout [nghttp2_nv]) -> Result) -> Result {
        bytes.withUnsafeBufferPointer { buffer in
            if let base = buffer.baseAddress {
                // nghttp2 takes non-const pointers but only reads (and copies) them.
                let start = UnsafeMutablePointer(mutating: base)
                for span in spans[range] {
                    let flags = span.indexed ? NGHTTP2_NV_FLAG_NONE : NGHTTP2_NV_FLAG_NO_INDEX
                    list.append(nghttp2_nv(name: start + span.name.lowerBound, value: start + span.value.lowerBound,
                                           namelen: span.name.count, valuelen: span.value.count, flags: UInt8(flags.rawValue)))
                }
            }
            return body(&list)
        }
    }
}
