/// Emits the Swift struct for one proto message.
struct MessageEmitter {
    let file: FileDescriptor
    let message: MessageDescriptor
    /// The message's index in its file (for comment paths).
    let index: Int
    let symbols: SymbolTable
    /// Methods using this message, for the fallback doc comment, e.g. "The request of `Devices.RegisterDevice`."
    let usage: String?

    private var fullName: String { "\(file.package).\(message.name)" }

    func emit(into w: inout CodeWriter) throws {
        let plans = try message.fields.map { try FieldPlan($0, symbols: symbols) }
        let symbol = try symbols.lookup(".\(fullName)")
        let plain = zip(message.fields, plans).filter { $0.0.oneofIndex == nil }.map(\.1)
        let oneofs = message.oneofs.indices.map { o in
            (name: message.oneofs[o], index: o,
             members: zip(message.fields, plans).filter { $0.0.oneofIndex == o }.map(\.1))
        }

        w.raw(DocComment.lines(file.comments[[4, index]], fallback: usage ?? "`\(fullName)`.", indent: ""))
        w.line("public struct \(message.name): WireMessage, Hashable {")
        for (i, field) in message.fields.enumerated() where field.oneofIndex == nil {
            let plan = plans[i]
            w.raw(DocComment.lines(file.comments[[4, index, 2, i]], fallback: "The `\(field.name)` field.", indent: "    "))
            w.line("    public var \(plan.swiftName): \(plan.swiftType) = \(plan.defaultValue)")
        }
        for oneof in oneofs {
            let typeName = Naming.upperCamel(oneof.name)
            w.raw(DocComment.lines(file.comments[[4, index, 8, oneof.index]],
                                   fallback: "The `\(oneof.name)` oneof: at most one of its fields is set.", indent: "    "))
            w.line("    public var \(Naming.escaped(Naming.lowerCamel(oneof.name))): \(typeName)? = nil")
        }
        for oneof in oneofs {
            w.line()
            w.raw(DocComment.lines(nil, fallback: "The fields of the `\(oneof.name)` oneof.", indent: "    "))
            w.line("    public enum \(Naming.upperCamel(oneof.name)): Sendable, Hashable {")
            for member in oneof.members {
                let i = message.fields.firstIndex { $0.number == member.number } ?? 0
                w.raw(DocComment.lines(file.comments[[4, index, 2, i]], fallback: "The `\(member.protoName)` field.", indent: "        "))
                w.line("        case \(member.swiftName)(\(member.elementType))")
            }
            w.line("    }")
        }

        w.line()
        w.line("    /// The message with every field at its default.")
        w.line("    public init() {}")
        let parameters = plain.map { ($0.swiftName, $0.swiftType, $0.defaultValue) }
            + oneofs.map { (Naming.escaped(Naming.lowerCamel($0.name)), Naming.upperCamel($0.name) + "?", "nil") }
        if !parameters.isEmpty {
            w.line()
            w.line("    /// Creates the message with the given fields; the others keep their defaults.")
            w.line("    public init(")
            for (i, p) in parameters.enumerated() {
                w.line("        \(p.0): \(p.1) = \(p.2)\(i == parameters.count - 1 ? "" : ",")")
            }
            w.line("    ) {")
            for p in parameters { w.line("        self.\(p.0) = \(p.0)") }
            w.line("    }")
        }
        w.line()
        w.line("    /// `\(fullName)`.")
        w.line("    public static let protoName = \"\(fullName)\"")
        w.line()
        w.line("    /// protoc-c's descriptor of `\(fullName)`.")
        w.line("    public static var descriptor: UnsafePointer<ProtobufCMessageDescriptor> { cDescriptor }")
        w.line()
        w.line("    // Safe: a pointer to protoc-c's immutable static descriptor, read once.")
        w.line("    nonisolated(unsafe) private static let cDescriptor = WireSupport.descriptor(\(symbol.cType).self, \(symbol.cPrefix)__init)")
        w.line()
        w.line("    /// Decodes the message from its protobuf encoding (validated first, then unpacked by protobuf-c).")
        w.line("    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `\(fullName)`.")
        w.line("    public init(decoding bytes: UnsafeRawBufferPointer) throws(WireDecodingError) {")
        w.line("        self = try WireCodec.decode(bytes)")
        w.line("    }")
        w.line()
        w.line("    /// Decodes the message from its protobuf encoding in an array.")
        w.line("    /// - Throws: `WireDecodingError` for bytes that are not a valid encoding of `\(fullName)`.")
        w.line("    public init(decoding bytes: [UInt8]) throws(WireDecodingError) {")
        w.line("        self = try WireCodec.decode(bytes)")
        w.line("    }")
        w.line()
        w.line("    /// Appends the protobuf encoding, packed by protobuf-c; with `lengthPrefixed`, after its length")
        w.line("    /// as 4 bytes big-endian. Strings are cut at a NUL character (see WireCodec.swift).")
        w.line("    public func encode(appendingTo buffer: inout [UInt8], lengthPrefixed: Bool) {")
        w.line("        WireCodec.encode(self, appendingTo: &buffer, lengthPrefixed: lengthPrefixed)")
        w.line("    }")
        w.line("}")
        w.line()
        emitCBridge(plans: plans, plain: plain, oneofs: oneofs, symbol: symbol, into: &w)
    }

    private func emitCBridge(
        plans: [FieldPlan], plain: [FieldPlan], oneofs: [(name: String, index: Int, members: [FieldPlan])],
        symbol: SymbolTable.Symbol, into w: inout CodeWriter
    ) {
        let unused = plans.isEmpty
        w.line("extension \(message.name): CStructBacked {")
        w.line("    init(lifting \(unused ? "_" : "c"): UnsafePointer<\(symbol.cType)>) {")
        for plan in plain {
            w.line("        \(plan.swiftName) = \(plan.isRepeated ? plan.liftRepeated() : plan.liftSingular())")
        }
        for oneof in oneofs {
            let property = Naming.escaped(Naming.lowerCamel(oneof.name))
            w.line("        switch c.pointee.\(Naming.cMember(oneof.name))_case.rawValue {")
            for member in oneof.members {
                w.line("        case \(member.number):")
                if member.kind == .message {
                    w.line("            if let value: \(member.elementType) = \(member.liftSingular()) { \(property) = .\(member.swiftName)(value) }")
                } else {
                    w.line("            \(property) = .\(member.swiftName)(\(member.liftSingular()))")
                }
            }
            w.line("        default:")
            w.line("            \(property) = nil")
            w.line("        }")
        }
        w.line("    }")
        w.line()
        w.line("    func lower(_ arena: ArenaRef) -> UnsafeMutablePointer<\(symbol.cType)> {")
        w.line("        let c = arena.message(\(symbol.cType).self, \(symbol.cPrefix)__init)")
        for plan in plain {
            if plan.isRepeated {
                for line in plan.lowerRepeated().split(separator: "\n") { w.line("        \(line)") }
            } else if plan.kind == .message {
                w.line("        if let value = \(plan.swiftName) { \(plan.lowerSingular("value")) }")
            } else {
                w.line("        \(plan.lowerSingular(plan.swiftName))")
            }
        }
        for oneof in oneofs {
            let property = Naming.escaped(Naming.lowerCamel(oneof.name))
            w.line("        switch \(property) {")
            for member in oneof.members {
                w.line("        case .\(member.swiftName)(let value)?:")
                w.line("            c.pointee.\(Naming.cMember(oneof.name))_case = .init(rawValue: \(member.number))")
                w.line("            \(member.lowerSingular("value"))")
            }
            w.line("        case nil:")
            w.line("            break")
            w.line("        }")
        }
        w.line("        return c")
        w.line("    }")
        w.line("}")
    }
}

/// Emits the Swift enum for one proto enum.
struct EnumEmitter {
    let file: FileDescriptor
    let enumeration: EnumDescriptor
    let index: Int

    func emit(into w: inout CodeWriter) throws {
        let name = enumeration.name
        let full = "\(file.package).\(name)"
        var seen = Set<Int32>()
        let cases = enumeration.values.enumerated().compactMap { i, value -> (name: String, number: Int32, index: Int)? in
            // Aliases (allow_alias) share the first name.
            guard seen.insert(value.number).inserted else { return nil }
            return (Naming.escaped(Naming.enumCase(value.name, enumName: name)), value.number, i)
        }
        guard let zero = cases.first(where: { $0.number == 0 }) else { throw GeneratorError("\(full) has no value 0") }

        w.raw(DocComment.lines(file.comments[[5, index]], fallback: "`\(full)`.", indent: ""))
        w.line("///")
        w.line("/// proto3 enums are open: a value this version does not know decodes as `.unrecognized` and")
        w.line("/// encodes back unchanged.")
        w.line("public enum \(name): RawRepresentable, CaseIterable, Sendable, Hashable {")
        for c in cases {
            let original = enumeration.values[c.index].name
            w.raw(DocComment.lines(file.comments[[5, index, 2, c.index]], fallback: "`\(original)` (\(c.number)).", indent: "    "))
            w.line("    case \(c.name)")
        }
        w.line("    /// A value this version does not know.")
        w.line("    case unrecognized(Int32)")
        w.line()
        w.line("    /// The known values.")
        w.line("    public static let allCases: [\(name)] = [\(cases.map { "." + $0.name }.joined(separator: ", "))]")
        w.line()
        w.line("    /// The default: `.\(zero.name)`.")
        w.line("    public init() { self = .\(zero.name) }")
        w.line()
        w.line("    /// The enum for a wire value; a value this version does not know becomes `.unrecognized`.")
        w.line("    public init(rawValue: Int32) {")
        w.line("        switch rawValue {")
        for c in cases { w.line("        case \(c.number): self = .\(c.name)") }
        w.line("        default: self = .unrecognized(rawValue)")
        w.line("        }")
        w.line("    }")
        w.line()
        w.line("    /// The wire value.")
        w.line("    public var rawValue: Int32 {")
        w.line("        switch self {")
        for c in cases { w.line("        case .\(c.name): return \(c.number)") }
        w.line("        case .unrecognized(let value): return value")
        w.line("        }")
        w.line("    }")
        w.line()
        w.line("    /// Equal when the wire values are: `.unrecognized(\(cases.last?.number ?? 0))` equals `.\(cases.last?.name ?? zero.name)`.")
        w.line("    public static func == (lhs: \(name), rhs: \(name)) -> Bool { lhs.rawValue == rhs.rawValue }")
        w.line()
        w.line("    /// Hashes the wire value.")
        w.line("    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }")
        w.line("}")
    }
}
