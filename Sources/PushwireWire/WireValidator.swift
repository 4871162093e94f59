import CProtobufC

/// Checks that bytes are a well-formed encoding of a message before protobuf-c unpacks them.
///
/// protobuf-c trusts its input more than a network service can: it does not check UTF-8, stores
/// strings NUL-terminated (a NUL inside would silently cut the string), and recurses without a
/// depth limit. This walker, driven by protobuf-c's own runtime descriptors, accepts only what
/// protobuf-c accepts and additionally rejects invalid UTF-8, NUL in strings and deep nesting.
enum WireValidator {
    /// Validates `bytes` as an encoding of the message `descriptor` describes.
    /// - Parameter maxDepth: the deepest nesting allowed; the message itself is at depth 1.
    /// - Throws: `WireDecodingError` naming the message and field at fault.
    static func validate(
        _ bytes: UnsafeRawBufferPointer,
        _ descriptor: UnsafePointer<ProtobufCMessageDescriptor>,
        maxDepth: Int = WireLimits.maxNestingDepth
    ) throws(WireDecodingError) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        guard maxDepth >= 1 else { throw WireDecodingError(.tooDeep, "\(name(descriptor)): nesting limit \(maxDepth)") }
        try walk(base.assumingMemoryBound(to: UInt8.self), 0, bytes.count, descriptor, depth: 1, maxDepth: maxDepth)
    }

    private static func walk(
        _ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int,
        _ descriptor: UnsafePointer<ProtobufCMessageDescriptor>, depth: Int, maxDepth: Int
    ) throws(WireDecodingError) {
        var i = start
        while i < end {
            // protobuf-c reads a key of at most 5 bytes.
            guard let key = readVarint(p, &i, end, maxBytes: 5) else {
                throw malformed(descriptor, nil, "malformed field key at byte \(i)")
            }
            // protobuf-c would silently truncate a key above 32 bits; reject it instead.
            guard key <= UInt64(UInt32.max) else { throw malformed(descriptor, nil, "field key above 2^32") }
            let number = UInt32(truncatingIfNeeded: key >> 3)
            guard number != 0 else { throw malformed(descriptor, nil, "field number 0") }
            let field = lookup(descriptor, number)
            // Raw values: comparing imported C enums directly goes through generic `==`.
            let type = field?.pointee.type.rawValue
            switch key & 7 {
            case 0:
                guard readVarint(p, &i, end, maxBytes: 10) != nil else {
                    throw malformed(descriptor, field, "malformed varint")
                }
                if let type, !isVarint(type) { throw wrongWireType(descriptor, field, 0) }
            case 1:
                guard end - i >= 8 else { throw malformed(descriptor, field, "truncated 64-bit value") }
                i += 8
                if let type, !isFixed64(type) { throw wrongWireType(descriptor, field, 1) }
            case 5:
                guard end - i >= 4 else { throw malformed(descriptor, field, "truncated 32-bit value") }
                i += 4
                if let type, !isFixed32(type) { throw wrongWireType(descriptor, field, 5) }
            case 2:
                // protobuf-c reads a length of at most 5 bytes.
                guard let length = readVarint(p, &i, end, maxBytes: 5), length <= UInt64(end - i) else {
                    throw malformed(descriptor, field, "length past the end of the message")
                }
                let valueStart = i
                i += Int(length)
                guard let field, let type else { continue }
                switch type {
                case PROTOBUF_C_TYPE_STRING.rawValue:
                    switch UTF8Check.check(p + valueStart, Int(length)) {
                    case .valid: break
                    case .nul: throw WireDecodingError(.invalidUTF8, "\(name(descriptor)).\(name(field)): NUL in a string")
                    case .invalid: throw WireDecodingError(.invalidUTF8, "\(name(descriptor)).\(name(field)): invalid UTF-8")
                    }
                case PROTOBUF_C_TYPE_BYTES.rawValue:
                    break
                case PROTOBUF_C_TYPE_MESSAGE.rawValue:
                    guard depth < maxDepth else {
                        throw WireDecodingError(.tooDeep, "\(name(descriptor)).\(name(field)): nested deeper than \(maxDepth)")
                    }
                    guard let sub = field.pointee.descriptor else { throw malformed(descriptor, field, "no descriptor") }
                    try walk(p, valueStart, i, sub.assumingMemoryBound(to: ProtobufCMessageDescriptor.self),
                             depth: depth + 1, maxDepth: maxDepth)
                default:
                    // A packed repeated scalar field; protobuf-c accepts packed and unpacked alike.
                    guard field.pointee.label.rawValue == PROTOBUF_C_LABEL_REPEATED.rawValue else { throw wrongWireType(descriptor, field, 2) }
                    try checkPacked(p, valueStart, i, type, descriptor, field)
                }
            default:
                // Groups (3, 4) are not used by Pushwire; 6 and 7 do not exist.
                throw malformed(descriptor, field, "unsupported wire type \(key & 7)")
            }
        }
    }

    private static func checkPacked(
        _ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int, _ type: UInt32,
        _ descriptor: UnsafePointer<ProtobufCMessageDescriptor>, _ field: UnsafePointer<ProtobufCFieldDescriptor>
    ) throws(WireDecodingError) {
        let length = end - start
        if isFixed32(type) {
            guard length % 4 == 0 else { throw malformed(descriptor, field, "packed 32-bit values of \(length) bytes") }
        } else if isFixed64(type) {
            guard length % 8 == 0 else { throw malformed(descriptor, field, "packed 64-bit values of \(length) bytes") }
        } else {
            var i = start
            while i < end {
                guard readVarint(p, &i, end, maxBytes: 10) != nil else { throw malformed(descriptor, field, "malformed packed varint") }
            }
        }
    }

    /// The field with `number`, or nil for an unknown field. protoc-c sorts `fields` by number, and
    /// Pushwire numbers fields 1, 2, 3, …, so the field is usually at index `number - 1`;
    /// otherwise protobuf-c's binary search finds it.
    @inline(__always)
    private static func lookup(
        _ descriptor: UnsafePointer<ProtobufCMessageDescriptor>, _ number: UInt32
    ) -> UnsafePointer<ProtobufCFieldDescriptor>? {
        let index = Int(number) - 1
        if index < Int(descriptor.pointee.n_fields), let fields = descriptor.pointee.fields, fields[index].id == number {
            return fields + index
        }
        return protobuf_c_message_descriptor_get_field(descriptor, number)
    }

    /// Reads a varint of at most `maxBytes` bytes; nil when it is longer or runs past `end`.
    @inline(__always)
    private static func readVarint(_ p: UnsafePointer<UInt8>, _ i: inout Int, _ end: Int, maxBytes: Int) -> UInt64? {
        guard i < end else { return nil }
        // Most keys and lengths are one byte.
        let first = p[i]
        if first < 0x80 {
            i &+= 1
            return UInt64(first)
        }
        var result = UInt64(first & 0x7f)
        var shift: UInt64 = 7
        var j = i &+ 1
        let limit = min(end, i &+ maxBytes)
        while j < limit {
            let byte = p[j]
            j &+= 1
            // Wrapping shifts: bits past 64 are dropped, as protobuf-c does.
            result |= UInt64(byte & 0x7f) &<< shift
            if byte < 0x80 {
                i = j
                return result
            }
            shift &+= 7
        }
        return nil
    }

    @inline(__always)
    private static func isVarint(_ type: UInt32) -> Bool {
        switch type {
        case PROTOBUF_C_TYPE_INT32.rawValue, PROTOBUF_C_TYPE_SINT32.rawValue, PROTOBUF_C_TYPE_UINT32.rawValue,
             PROTOBUF_C_TYPE_INT64.rawValue, PROTOBUF_C_TYPE_SINT64.rawValue, PROTOBUF_C_TYPE_UINT64.rawValue,
             PROTOBUF_C_TYPE_BOOL.rawValue, PROTOBUF_C_TYPE_ENUM.rawValue:
            return true
        default:
            return false
        }
    }

    @inline(__always)
    private static func isFixed32(_ type: UInt32) -> Bool {
        type == PROTOBUF_C_TYPE_FIXED32.rawValue || type == PROTOBUF_C_TYPE_SFIXED32.rawValue || type == PROTOBUF_C_TYPE_FLOAT.rawValue
    }

    @inline(__always)
    private static func isFixed64(_ type: UInt32) -> Bool {
        type == PROTOBUF_C_TYPE_FIXED64.rawValue || type == PROTOBUF_C_TYPE_SFIXED64.rawValue || type == PROTOBUF_C_TYPE_DOUBLE.rawValue
    }

    // MARK: Errors (built only on failure)

    private static func name(_ descriptor: UnsafePointer<ProtobufCMessageDescriptor>) -> String {
        descriptor.pointee.name.map { String(cString: $0) } ?? "?"
    }

    private static func name(_ field: UnsafePointer<ProtobufCFieldDescriptor>) -> String {
        field.pointee.name.map { String(cString: $0) } ?? "?"
    }

    private static func malformed(
        _ descriptor: UnsafePointer<ProtobufCMessageDescriptor>, _ field: UnsafePointer<ProtobufCFieldDescriptor>?, _ what: String
    ) -> WireDecodingError {
        let place = field.map { "\(name(descriptor)).\(name($0))" } ?? name(descriptor)
        return WireDecodingError(.malformed, "\(place): \(what)")
    }

    private static func wrongWireType(
        _ descriptor: UnsafePointer<ProtobufCMessageDescriptor>, _ field: UnsafePointer<ProtobufCFieldDescriptor>?, _ wireType: UInt64
    ) -> WireDecodingError {
        malformed(descriptor, field, "wire type \(wireType) does not match the field's type")
    }
}
