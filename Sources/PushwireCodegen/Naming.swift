/// Swift and protobuf-c names for proto names.
enum Naming {
    /// Segments written in capitals when they are not first: `call_id` → `callID`,
    /// `user_ids` → `userIDs`, `timeout_ms` → `timeoutMS`.
    private static let acronyms: [String: String] = [
        "id": "ID", "ids": "IDs", "ms": "MS", "ttl": "TTL", "url": "URL", "json": "JSON",
    ]

    /// Swift keywords that need backticks as identifiers.
    private static let swiftKeywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init",
        "inout", "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public",
        "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue",
        "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return",
        "throw", "switch", "where", "while", "as", "false", "is", "nil", "self", "Self", "super", "throws",
        "true", "try", "any", "some", "Type", "Protocol",
    ]

    /// C and C++ keywords protoc-c suffixes with `_` in struct member names.
    private static let cKeywords: Set<String> = [
        "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch", "char", "class",
        "compl", "const", "const_cast", "continue", "default", "delete", "do", "double", "dynamic_cast",
        "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if",
        "inline", "int", "long", "mutable", "namespace", "new", "not", "not_eq", "operator", "or", "or_eq",
        "private", "protected", "public", "register", "reinterpret_cast", "return", "short", "signed",
        "sizeof", "static", "static_cast", "struct", "switch", "template", "this", "throw", "true", "try",
        "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void", "volatile",
        "wchar_t", "while", "xor", "xor_eq",
    ]

    /// `push_token` → `pushToken`, `call_id` → `callID` (unescaped).
    static func lowerCamel(_ snake: String) -> String {
        let parts = snake.lowercased().split(separator: "_").map(String.init)
        guard let first = parts.first else { return snake }
        return first + parts.dropFirst().map { acronyms[$0] ?? capitalized($0) }.joined()
    }

    /// `go_away` → `GoAway`.
    static func upperCamel(_ snake: String) -> String {
        let camel = lowerCamel(snake)
        return capitalized(camel)
    }

    /// `RegisterDevice` → `registerDevice`.
    static func lowerFirst(_ name: String) -> String {
        guard let first = name.first else { return name }
        return first.lowercased() + name.dropFirst()
    }

    /// An identifier, backticked when it is a Swift keyword.
    static func escaped(_ identifier: String) -> String {
        swiftKeywords.contains(identifier) ? "`\(identifier)`" : identifier
    }

    /// `DeviceType` → `DEVICE_TYPE`.
    static func upperSnake(_ camel: String) -> String {
        var out = ""
        for (i, ch) in camel.enumerated() {
            if ch.isUppercase, i > 0 { out += "_" }
            out += ch.uppercased()
        }
        return out
    }

    /// protoc-c's CamelToLower: `RegisterDeviceRequest` → `register_device_request`.
    static func cLower(_ camel: String) -> String {
        var out = ""
        for (i, ch) in camel.enumerated() {
            if ch.isUppercase {
                if i > 0 { out += "_" }
                out += ch.lowercased()
            } else {
                out.append(ch)
            }
        }
        return out
    }

    /// protoc-c's struct name for `pushwire.v1.Foo`: `Pushwire__V1__Foo`.
    static func cType(package: String, name: String) -> String {
        (package.split(separator: ".").map { capitalized(String($0)) } + [name]).joined(separator: "__")
    }

    /// protoc-c's function prefix for `pushwire.v1.Foo`: `pushwire__v1__foo`.
    static func cFunctionPrefix(package: String, name: String) -> String {
        (package.split(separator: ".").map { cLower(String($0)) } + [cLower(name)]).joined(separator: "__")
    }

    /// protoc-c's struct member name for a field.
    static func cMember(_ field: String) -> String {
        cKeywords.contains(field) ? field + "_" : field
    }

    /// An enum value's case name: `DEVICE_TYPE_WINDOWS_PHONE` in `DeviceType` → `windowsPhone`.
    static func enumCase(_ value: String, enumName: String) -> String {
        let prefix = upperSnake(enumName) + "_"
        let stripped = value.hasPrefix(prefix) && value.count > prefix.count ? String(value.dropFirst(prefix.count)) : value
        var name = lowerCamel(stripped)
        // A case name cannot start with a digit.
        if let first = name.first, first.isNumber { name = "_" + name }
        return name
    }

    private static func capitalized(_ word: String) -> String {
        guard let first = word.first else { return word }
        return first.uppercased() + word.dropFirst()
    }
}

/// Proto comments as `///` doc comment lines.
enum DocComment {
    /// The comment lines, indented; `fallback` when the proto has no comment.
    static func lines(_ comment: String?, fallback: String, indent: String) -> String {
        var text = comment ?? ""
        while text.hasSuffix("\n") { text.removeLast() }
        if text.trimmingSpaces.isEmpty { text = " " + fallback }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            var line = Substring(line)
            if line.hasPrefix(" ") { line = line.dropFirst() }
            while line.hasSuffix(" ") { line = line.dropLast() }
            return line.isEmpty ? "\(indent)///\n" : "\(indent)/// \(line)\n"
        }.joined()
    }
}

extension String {
    /// The string without leading and trailing spaces and newlines.
    var trimmingSpaces: Substring {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\n" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\n" { s = s.dropLast() }
        return s
    }
}
