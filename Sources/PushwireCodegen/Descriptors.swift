/// The parts of `google/protobuf/descriptor.proto` the generator uses, decoded from a
/// `FileDescriptorSet` (field numbers as in descriptor.proto).

/// A `.proto` file.
struct FileDescriptor {
    var name = ""
    var package = ""
    var syntax = ""
    var messages: [MessageDescriptor] = []
    var enums: [EnumDescriptor] = []
    var services: [ServiceDescriptor] = []
    /// Leading comments by source path (descriptor.proto's `SourceCodeInfo.Location.path`).
    var comments: [[Int]: String] = [:]

    init(_ bytes: ArraySlice<UInt8>) throws {
        for (number, value) in try ProtobufReader.fields(bytes) {
            switch number {
            case 1: name = value.string
            case 2: package = value.string
            case 4: messages.append(try MessageDescriptor(value.payload))
            case 5: enums.append(try EnumDescriptor(value.payload))
            case 6: services.append(try ServiceDescriptor(value.payload))
            case 9: try readSourceCodeInfo(value.payload)
            case 12: syntax = value.string
            default: break
            }
        }
    }

    private mutating func readSourceCodeInfo(_ bytes: ArraySlice<UInt8>) throws {
        for (number, value) in try ProtobufReader.fields(bytes) where number == 1 {
            var path: [Int] = []
            var leading: String?
            for (n, v) in try ProtobufReader.fields(value.payload) {
                switch n {
                case 1: path += try ProtobufReader.packedIntegers(v)
                case 3: leading = v.string
                default: break
                }
            }
            if let leading { comments[path] = leading }
        }
    }
}

/// A message type.
struct MessageDescriptor {
    var name = ""
    var fields: [FieldDescriptor] = []
    var nestedMessages: [MessageDescriptor] = []
    var enums: [EnumDescriptor] = []
    var oneofs: [String] = []
    var isMapEntry = false

    init(_ bytes: ArraySlice<UInt8>) throws {
        for (number, value) in try ProtobufReader.fields(bytes) {
            switch number {
            case 1: name = value.string
            case 2: fields.append(try FieldDescriptor(value.payload))
            case 3: nestedMessages.append(try MessageDescriptor(value.payload))
            case 4: enums.append(try EnumDescriptor(value.payload))
            case 7:
                // MessageOptions.map_entry = 7
                for (n, v) in try ProtobufReader.fields(value.payload) where n == 7 { isMapEntry = v.integer != 0 }
            case 8:
                let oneof = try ProtobufReader.fields(value.payload).first { $0.number == 1 }
                oneofs.append(oneof?.value.string ?? "")
            default: break
            }
        }
    }
}

/// A field of a message.
struct FieldDescriptor {
    /// `FieldDescriptorProto.Type`.
    enum Kind: Int {
        case double = 1, float, int64, uint64, int32, fixed64, fixed32, bool, string, group, message, bytes
        case uint32, `enum`, sfixed32, sfixed64, sint32, sint64
    }

    var name = ""
    var number = 0
    var isRepeated = false
    var kind = Kind.int32
    /// Fully qualified with a leading dot, for messages and enums.
    var typeName = ""
    var oneofIndex: Int?
    var isProto3Optional = false

    init(_ bytes: ArraySlice<UInt8>) throws {
        for (number, value) in try ProtobufReader.fields(bytes) {
            switch number {
            case 1: name = value.string
            case 3: self.number = Int(value.integer)
            case 4: isRepeated = value.integer == 3
            case 5:
                guard let kind = Kind(rawValue: Int(value.integer)) else {
                    throw ProtobufReader.Error(description: "unknown field type \(value.integer)")
                }
                self.kind = kind
            case 6: typeName = value.string
            case 9: oneofIndex = Int(value.integer)
            case 17: isProto3Optional = value.integer != 0
            default: break
            }
        }
    }
}

/// An enum type.
struct EnumDescriptor {
    var name = ""
    var values: [(name: String, number: Int32)] = []

    init(_ bytes: ArraySlice<UInt8>) throws {
        for (number, value) in try ProtobufReader.fields(bytes) {
            switch number {
            case 1: name = value.string
            case 2:
                var valueName = ""
                var valueNumber: Int32 = 0
                for (n, v) in try ProtobufReader.fields(value.payload) {
                    if n == 1 { valueName = v.string }
                    if n == 2 { valueNumber = Int32(truncatingIfNeeded: v.integer) }
                }
                values.append((valueName, valueNumber))
            default: break
            }
        }
    }
}

/// A service and its methods.
struct ServiceDescriptor {
    struct Method {
        var name = ""
        var inputType = ""
        var outputType = ""
        var isStreaming = false
    }

    var name = ""
    var methods: [Method] = []

    init(_ bytes: ArraySlice<UInt8>) throws {
        for (number, value) in try ProtobufReader.fields(bytes) {
            switch number {
            case 1: name = value.string
            case 2:
                var method = Method()
                for (n, v) in try ProtobufReader.fields(value.payload) {
                    switch n {
                    case 1: method.name = v.string
                    case 2: method.inputType = v.string
                    case 3: method.outputType = v.string
                    case 5, 6: if v.integer != 0 { method.isStreaming = true }
                    default: break
                    }
                }
                methods.append(method)
            default: break
            }
        }
    }
}

/// Reads a `FileDescriptorSet`.
func readFileDescriptorSet(_ bytes: [UInt8]) throws -> [FileDescriptor] {
    try ProtobufReader.fields(bytes[...]).filter { $0.number == 1 }.map { try FileDescriptor($0.value.payload) }
}
