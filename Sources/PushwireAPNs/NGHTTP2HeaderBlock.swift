import CNGHTTP2
import PushwireJSON

/// A request's header list for nghttp2: names are static strings (literals in the code that lays
/// the headers out), values are laid out in one byte buffer.
///
/// Reused from request to request: a connection lays the headers every request shares out once
/// and, per request, cuts the block back to them and appends that request's own (`removeAll
/// (keepingFirst:)`), so building a request's headers allocates nothing and makes no `String`.
/// The names go to nghttp2 with `NGHTTP2_NV_FLAG_NO_COPY_NAME`: static storage outlives any use
/// nghttp2 makes of them, and being lower-case literals they need no down-casing — nghttp2 copies
/// (and down-cases) every other name on each request. Values are copied by nghttp2 while
/// submitting, so the buffer only has to live through that call.
struct NGHTTP2HeaderBlock {
    private struct Field {
        var name: StaticString
        var valueStart: Int
        var valueEnd: Int
        var indexed: Bool
    }

    private var bytes: [UInt8] = []
    private var fieldList: [Field] = []

    /// The number of headers.
    var count: Int { fieldList.count }

    /// Keeps the first `headers` headers (all of them from `0` on) and drops the rest, keeping the
    /// storage.
    mutating func removeAll(keepingFirst headers: Int = 0) {
        guard headers < fieldList.count else { return }
        if headers == 0 {
            bytes.removeAll(keepingCapacity: true)
            fieldList.removeAll(keepingCapacity: true)
        } else {
            bytes.removeSubrange(fieldList[headers].valueStart...)
            fieldList.removeSubrange(headers...)
        }
    }

    /// Appends one header. `name` must be a lower-case literal of more than one character (HTTP/2
    /// names are lower-case; nghttp2 reads it in place). `indexed: false` keeps the header out of
    /// HPACK's dynamic table (values that differ on every request would only evict useful entries).
    mutating func append(_ name: StaticString, _ value: String, indexed: Bool = true) {
        let valueStart = bytes.count
        appendUTF8(value)
        add(name, valueStart, indexed: indexed)
    }

    /// Appends one header whose value is `prefix` followed by `value` (a request path), without
    /// making the joined string.
    mutating func append(_ name: StaticString, _ prefix: String, _ value: String) {
        let valueStart = bytes.count
        appendUTF8(prefix)
        appendUTF8(value)
        add(name, valueStart, indexed: true)
    }

    /// Appends one header whose value is `number` in decimal, written straight into the block.
    mutating func append(_ name: StaticString, decimal number: Int64) {
        let valueStart = bytes.count
        JSONText.appendDecimal(number, to: &bytes)
        add(name, valueStart, indexed: true)
    }

    private mutating func add(_ name: StaticString, _ valueStart: Int, indexed: Bool) {
        // A one-scalar StaticString has no pointer to hand to nghttp2; no header name is one.
        precondition(name.hasPointerRepresentation, "header names are literals of more than one character")
        fieldList.append(Field(name: name, valueStart: valueStart, valueEnd: bytes.count, indexed: indexed))
    }

    private mutating func appendUTF8(_ text: String) {
        // Native strings (literals, the gateway's own) are contiguous: one copy of their bytes.
        let copied: Void? = text.utf8.withContiguousStorageIfAvailable { bytes.append(contentsOf: $0) }
        if copied == nil { bytes.append(contentsOf: text.utf8) }
    }

    /// The headers as strings, in the order they were appended (libcurl's header lines, tests).
    var fields: [(name: String, value: String)] {
        fieldList.map { field in
            (field.name.description, String(decoding: bytes[field.valueStart..<field.valueEnd], as: UTF8.self))
        }
    }

    /// Whether each header may enter HPACK's dynamic table, in the order they were appended.
    var indexing: [Bool] { fieldList.map(\.indexed) }

    /// Fills `list` with the headers as `nghttp2_nv`s — pseudo-headers (names starting with `:`)
    /// first, as RFC 9113 §8.3 requires, the rest after, each group in the order appended — and
    /// calls `body` with it; the value pointers are valid only inside `body`.
    func withEntries<Result>(_ list: inout [nghttp2_nv], _ body: (inout [nghttp2_nv]) -> Result) -> Result {
        list.removeAll(keepingCapacity: true)
        return bytes.withUnsafeBufferPointer { buffer in
            // nghttp2 takes non-const pointers but only reads (and copies) them. An empty buffer
            // (every value empty) has no address; any valid pointer does for zero-length values.
            let values = UnsafeMutablePointer(mutating: buffer.baseAddress ?? UnsafePointer(Self.empty.utf8Start))
            func add(pseudo: Bool) {
                for field in fieldList where (field.name.utf8Start.pointee == UInt8(ascii: ":")) == pseudo {
                    var flags = NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue
                    if !field.indexed { flags |= NGHTTP2_NV_FLAG_NO_INDEX.rawValue }
                    list.append(nghttp2_nv(name: UnsafeMutablePointer(mutating: field.name.utf8Start), value: values + field.valueStart,
                                           namelen: field.name.utf8CodeUnitCount, valuelen: field.valueEnd - field.valueStart,
                                           flags: UInt8(flags)))
                }
            }
            add(pseudo: true)
            add(pseudo: false)
            return body(&list)
        }
    }

    private static let empty: StaticString = "--"
}
