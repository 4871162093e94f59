/// One-dimensional arrays in PostgreSQL's binary format (what `array_send` writes and
/// `array_recv` reads), for `PGParameter.binary`: a header (dimensions, whether any element is
/// NULL, the element type), the length and lower bound of the one dimension, then each element
/// as its length (-1: NULL) and its bytes, every integer big-endian. A parameter's element type
/// must be the one its statement casts it to (`$1::bigint[]` takes `int8`).
///
/// Why: the hot statements' arrays (the creations' specs and targetings, the steps' columns)
/// written as text literals were escaped here and parsed back by `array_in`, 3 % of
/// PostgreSQL's CPU under a stream of CreateMessage calls; binary elements are copied on both
/// sides. `PGTextTests`/`PGBinaryTests` hold both forms to the same values.
enum PGBinary {
    /// Element type OIDs (`pg_type`).
    private enum Element: UInt32 {
        case bool = 16
        case int8 = 20
        case int4 = 23
        case text = 25
    }

    /// A `text[]` parameter.
    static func textArray<S: Sequence>(_ values: S) -> PGParameter where S.Element == String {
        optionalTextArray(values.lazy.map { Optional($0) })
    }

    /// A `text[]` parameter where nil is NULL.
    static func optionalTextArray<S: Sequence>(_ values: S) -> PGParameter where S.Element == String? {
        array(of: .text, values, reserving: 16) { value, bytes in
            var value = value
            value.withUTF8 { bytes.append(contentsOf: $0) }
        }
    }

    /// A `bigint[]` parameter.
    static func intArray<S: Sequence>(_ values: S) -> PGParameter where S.Element == Int64 {
        optionalIntArray(values.lazy.map { Optional($0) })
    }

    /// A `bigint[]` parameter where nil is NULL.
    static func optionalIntArray<S: Sequence>(_ values: S) -> PGParameter where S.Element == Int64? {
        array(of: .int8, values, reserving: 8) { value, bytes in append(UInt64(bitPattern: value), size: 8, to: &bytes) }
    }

    /// An `integer[]` parameter; values beyond 32 bits are clamped.
    static func int32Array<S: Sequence>(_ values: S) -> PGParameter where S.Element == Int64 {
        optionalInt32Array(values.lazy.map { Optional($0) })
    }

    /// An `integer[]` parameter where nil is NULL; values beyond 32 bits are clamped.
    static func optionalInt32Array<S: Sequence>(_ values: S) -> PGParameter where S.Element == Int64? {
        array(of: .int4, values, reserving: 4) { value, bytes in
            append(UInt64(UInt32(bitPattern: Int32(clamping: value))), size: 4, to: &bytes)
        }
    }

    /// A `boolean[]` parameter.
    static func boolArray<S: Sequence>(_ values: S) -> PGParameter where S.Element == Bool {
        array(of: .bool, values.lazy.map { Optional($0) }, reserving: 1) { value, bytes in bytes.append(value ? 1 : 0) }
    }

    /// The array of `values` whose elements `write` appends (each after its length, filled in
    /// once written).
    private static func array<S: Sequence, T>(of element: Element, _ values: S, reserving size: Int,
                                              _ write: (T, inout [UInt8]) -> Void) -> PGParameter where S.Element == T? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20 + values.underestimatedCount * (4 + size))
        append(1, size: 4, to: &bytes)  // dimensions
        append(0, size: 4, to: &bytes)  // has NULLs: set below
        append(UInt64(element.rawValue), size: 4, to: &bytes)
        append(0, size: 4, to: &bytes)  // the dimension's length: set below
        append(1, size: 4, to: &bytes)  // its lower bound
        var count: UInt64 = 0, hasNull = false
        for value in values {
            count += 1
            guard let value else {
                append(UInt64(UInt32(bitPattern: -1)), size: 4, to: &bytes)
                hasNull = true
                continue
            }
            let start = bytes.count
            append(0, size: 4, to: &bytes)
            write(value, &bytes)
            set(UInt64(bytes.count - start - 4), size: 4, at: start, in: &bytes)
        }
        if count == 0 {
            // No dimension at all: how PostgreSQL writes an empty array.
            return .binary([0, 0, 0, 0, 0, 0, 0, 0] + bytes[8..<12])
        }
        set(hasNull ? 1 : 0, size: 4, at: 4, in: &bytes)
        set(count, size: 4, at: 12, in: &bytes)
        return .binary(bytes)
    }

    private static func append(_ value: UInt64, size: Int, to bytes: inout [UInt8]) {
        for shift in stride(from: (size - 1) * 8, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    private static func set(_ value: UInt64, size: Int, at offset: Int, in bytes: inout [UInt8]) {
        for index in 0..<size { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> UInt64((size - 1 - index) * 8)) }
    }
}
