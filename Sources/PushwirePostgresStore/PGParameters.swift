import Glibc

/// A statement parameter: text (nil is NULL), or a value in PostgreSQL's binary format of the
/// parameter's type (`PGBinary`), which the server takes as it is — no escaping here, no
/// parsing there.
enum PGParameter {
    case text(String?)
    case binary([UInt8])
}

/// A statement's parameters packed for libpq in one buffer: text values NUL-terminated (nil a
/// null pointer), binary ones as they are, with their lengths and formats beside them when any
/// is binary. Copied and checked in one pass: the parameters of a batch of fan-out steps are
/// arrays of thousands of values, and copying them byte by byte (then scanning them again for a
/// NUL) was the writer's largest cost in pushwired under a stream of CreateMessage calls.
struct PackedParameters {
    private var bytes: [UInt8] = []
    private var offsets: [Int?] = []
    private var lengths: [Int32] = []
    /// 0 for a text value, 1 for a binary one; empty when every value is text (libpq then reads
    /// each text to its NUL and needs no lengths).
    private var formats: [Int32] = []

    static let empty = PackedParameters()

    private init() {}

    /// How many parameters.
    var count: Int { offsets.count }

    /// Text values; nil when one holds a NUL byte (PostgreSQL text cannot, and libpq would cut
    /// it short) unless `allowingNUL`.
    init?(_ strings: [String?], allowingNUL: Bool = false) {
        var total = 0
        for case let string? in strings { total += string.utf8.count + 1 }
        bytes.reserveCapacity(total)
        offsets.reserveCapacity(strings.count)
        for string in strings {
            guard appendText(string, allowingNUL: allowingNUL) else { return nil }
        }
    }

    /// Text and binary values; nil when a text value holds a NUL byte. A binary text element
    /// holding one is refused by the server (`22021`, as here).
    init?(_ parameters: [PGParameter]) {
        var total = 0
        for parameter in parameters {
            switch parameter {
            case .text(let string?): total += string.utf8.count + 1
            case .text(nil): break
            case .binary(let value): total += value.count
            }
        }
        bytes.reserveCapacity(total)
        offsets.reserveCapacity(parameters.count)
        lengths.reserveCapacity(parameters.count)
        formats.reserveCapacity(parameters.count)
        for parameter in parameters {
            switch parameter {
            case .text(let string):
                guard appendText(string, allowingNUL: false) else { return nil }
                lengths.append(0)
                formats.append(0)
            case .binary(let value):
                offsets.append(bytes.count)
                bytes.append(contentsOf: value)
                lengths.append(Int32(value.count))
                formats.append(1)
            }
        }
    }

    /// Appends `string` NUL-terminated (nil: a null pointer); false when it holds a NUL byte and
    /// that is not allowed.
    private mutating func appendText(_ string: String?, allowingNUL: Bool) -> Bool {
        guard let string else {
            offsets.append(nil)
            return true
        }
        let start = bytes.count
        offsets.append(start)
        bytes.append(contentsOf: string.utf8)
        if !allowingNUL, bytes.count > start {
            let found = bytes.withUnsafeBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return false }
                return memchr(base + start, 0, buffer.count - start) != nil
            }
            if found { return false }
        }
        bytes.append(0)
        return true
    }

    /// Calls `body` with a pointer to each value's copy (or null), followed by one null pointer;
    /// the values' lengths and formats (nil when every value is text).
    func withPointers<R>(_ body: (UnsafePointer<UnsafePointer<CChar>?>, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> R) -> R {
        bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { characters in
                // A value that is not nil has at least one byte (a text its NUL, a binary value its
                // header), so the buffer has an address when there is one.
                var pointers: [UnsafePointer<CChar>?] = offsets.map { offset in
                    guard let offset, let base = characters.baseAddress else { return nil }
                    return base + offset
                }
                pointers.append(nil)
                if !formats.contains(1) {
                    // The array passed as a pointer to its elements, valid for the call.
                    return body(pointers, nil, nil)
                }
                return body(pointers, lengths, formats)
            }
        }
    }
}
