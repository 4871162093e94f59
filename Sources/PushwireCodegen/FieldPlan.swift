/// How one proto field maps to Swift: its type, default, and the code that moves it between the
/// Swift value and protobuf-c's C struct (through the helpers of PushwireWire/ProtobufArena.swift
/// and WireLift.swift).
struct FieldPlan {
    /// The proto field name, e.g. `push_token`.
    var protoName: String
    /// The Swift property name, escaped, e.g. `pushToken`.
    var swiftName: String
    /// The Swift type, e.g. `String`, `[Tag]`, `Status?`.
    var swiftType: String
    /// The Swift type of one element (the type itself when not repeated; no `?`).
    var elementType: String
    /// The default value expression.
    var defaultValue: String
    /// protoc-c's struct member.
    var cMember: String
    var number: Int
    var isRepeated: Bool
    var kind: FieldDescriptor.Kind

    init(_ field: FieldDescriptor, symbols: SymbolTable) throws {
        protoName = field.name
        swiftName = Naming.escaped(Naming.lowerCamel(field.name))
        cMember = Naming.cMember(field.name)
        number = field.number
        isRepeated = field.isRepeated
        kind = field.kind
        guard !field.isProto3Optional else { throw GeneratorError("\(field.name): proto3 optional is not supported") }
        let element: String
        let scalarDefault: String
        switch field.kind {
        case .double: (element, scalarDefault) = ("Double", "0")
        case .float: (element, scalarDefault) = ("Float", "0")
        case .int64, .sint64, .sfixed64: (element, scalarDefault) = ("Int64", "0")
        case .uint64, .fixed64: (element, scalarDefault) = ("UInt64", "0")
        case .int32, .sint32, .sfixed32: (element, scalarDefault) = ("Int32", "0")
        case .uint32, .fixed32: (element, scalarDefault) = ("UInt32", "0")
        case .bool: (element, scalarDefault) = ("Bool", "false")
        case .string: (element, scalarDefault) = ("String", "\"\"")
        case .bytes: (element, scalarDefault) = ("[UInt8]", "[]")
        case .enum: (element, scalarDefault) = (try symbols.lookup(field.typeName).swiftName, ".init()")
        case .message: (element, scalarDefault) = (try symbols.lookup(field.typeName).swiftName, "nil")
        case .group: throw GeneratorError("\(field.name): groups are not supported")
        }
        elementType = element
        if field.isRepeated {
            swiftType = "[\(element)]"
            defaultValue = "[]"
        } else {
            swiftType = field.kind == .message ? "\(element)?" : element
            defaultValue = scalarDefault
        }
    }

    /// Statements that store the Swift value `value` into the C struct `c` (a singular field).
    func lowerSingular(_ value: String) -> String {
        let target = "c.pointee.\(cMember)"
        switch kind {
        case .string: return "\(target) = arena.string(\(value))"
        case .bytes: return "\(target) = arena.bytes(\(value))"
        case .bool: return "\(target) = \(value) ? 1 : 0"
        case .enum: return "\(target) = .init(rawValue: .init(truncatingIfNeeded: \(value).rawValue))"
        case .message: return "\(target) = \(value).lower(arena)"
        default: return "\(target) = \(value)"
        }
    }

    /// Statements that store a repeated field into the C struct `c`.
    func lowerRepeated() -> String {
        let target = "c.pointee.\(cMember)"
        let count = "c.pointee.n_\(cMember) = \(swiftName).count"
        let array: String
        switch kind {
        case .string: array = "arena.strings(\(swiftName))"
        case .bytes: array = "arena.mapped(\(swiftName)) { arena.bytes($0) }"
        case .bool: array = "arena.mapped(\(swiftName)) { $0 ? 1 : 0 }"
        case .enum: array = "arena.mapped(\(swiftName)) { .init(rawValue: .init(truncatingIfNeeded: $0.rawValue)) }"
        case .message: array = "arena.messages(\(swiftName))"
        default: array = "arena.scalars(\(swiftName))"
        }
        return "\(count)\n\(target) = \(array)"
    }

    /// An expression reading a singular field from the C struct `c`.
    func liftSingular() -> String {
        let source = "c.pointee.\(cMember)"
        switch kind {
        case .string: return "WireLift.string(\(source))"
        case .bytes: return "WireLift.bytes(\(source))"
        case .bool: return "\(source) != 0"
        case .enum: return "\(elementType)(rawValue: Int32(truncatingIfNeeded: \(source).rawValue))"
        case .message: return "WireLift.message(\(source))"
        default: return source
        }
    }

    /// An expression reading a repeated field from the C struct `c`.
    func liftRepeated() -> String {
        let args = "c.pointee.n_\(cMember), c.pointee.\(cMember)"
        switch kind {
        case .string: return "WireLift.strings(\(args))"
        case .bytes: return "WireLift.mapped(\(args)) { WireLift.bytes($0) }"
        case .bool: return "WireLift.mapped(\(args)) { $0 != 0 }"
        case .enum: return "WireLift.mapped(\(args)) { \(elementType)(rawValue: Int32(truncatingIfNeeded: $0.rawValue)) }"
        case .message: return "WireLift.messages(\(args))"
        default: return "WireLift.scalars(\(args))"
        }
    }
}
