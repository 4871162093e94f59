import PushwireJSONBridge

/// Reading Pushwoosh's loosely typed request fields (numbers often arrive as strings) with an
/// argument error naming the field when a value does not fit.
extension JSONValue {
    /// The member `key` of an object; nil when absent, null, or not an object.
    subscript(_ key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        let value = members.first { $0.key == key }?.value
        if value == .null { return nil }
        return value
    }

    /// The object's keys.
    var keys: [String] {
        guard case .object(let members) = self else { return [] }
        return members.map(\.key)
    }
}

enum Read {
    static func string(_ object: JSONValue, _ key: String, required: Bool = false) throws(PushwooshFailure) -> String? {
        switch object[key] {
        case nil:
            if required { throw .argument("\(key) is required") }
            return nil
        case .string(let text)?:
            if required, text.isEmpty { throw .argument("\(key) is required") }
            return text
        case .number(let text)?:
            return text
        case let other?:
            throw .argument("\(key) must be a string, not \(kind(other))")
        }
    }

    static func integer(_ object: JSONValue, _ key: String) throws(PushwooshFailure) -> Int64? {
        switch object[key] {
        case nil: return nil
        case .number(let text)?, .string(let text)?:
            if let value = Int64(text) { return value }
            if let double = Double(text), double.rounded() == double, let value = Int64(exactly: double) { return value }
            throw .argument("\(key) must be a whole number, not \(text)")
        case .bool(let flag)?: return flag ? 1 : 0
        case let other?: throw .argument("\(key) must be a number, not \(kind(other))")
        }
    }

    static func flag(_ object: JSONValue, _ key: String) throws(PushwooshFailure) -> Bool? {
        switch object[key] {
        case nil: return nil
        case .bool(let flag)?: return flag
        case .number(let text)?, .string(let text)?:
            switch text.lowercased() {
            case "1", "true": return true
            case "0", "false": return false
            default: throw .argument("\(key) must be true or false, not \(text)")
            }
        case let other?: throw .argument("\(key) must be true or false, not \(kind(other))")
        }
    }

    static func strings(_ object: JSONValue, _ key: String) throws(PushwooshFailure) -> [String]? {
        switch object[key] {
        case nil: return nil
        case .array(let items)?:
            var out: [String] = []
            for item in items {
                switch item {
                case .string(let text): out.append(text)
                case .number(let text): out.append(text)
                default: throw .argument("\(key) must be a list of strings")
                }
            }
            return out
        case let other?: throw .argument("\(key) must be a list, not \(kind(other))")
        }
    }

    static func kind(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "a list"
        case .object: "an object"
        }
    }
}
