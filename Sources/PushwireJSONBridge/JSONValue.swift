/// A parsed JSON document. Numbers keep their source text so that 64-bit integers survive
/// exactly (Foundation's parser would round them through `Double`), and objects keep their key
/// order so output follows the descriptor's field order.
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    /// A number, as written in the source (or as produced by the encoder).
    case number(String)
    case string(String)
    case array([JSONValue])
    /// Members in source order.
    case object([(key: String, value: JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)): a == b || (Double(a) != nil && Double(a) == Double(b))
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)):
            a.count == b.count && a.allSatisfy { member in b.contains { $0.key == member.key && $0.value == member.value } }
        default: false
        }
    }

    /// A short name of the kind, for error messages.
    var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// Why a JSON text did not parse, or did not fit the message.
public struct ProtoJSONError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, naming the field path, e.g. `unknown field "hwidd" in pushwire.v1.RegisterDeviceRequest`.
    public var message: String
    /// Creates an error.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}
