/// Every message and enum of the descriptor set by fully qualified name (`.pushwire.v1.Foo`),
/// with its Swift and C names.
struct SymbolTable {
    /// A message or enum type.
    struct Symbol {
        enum Kind { case message, enumeration }
        var kind: Kind
        /// The Swift type name, e.g. `RegisterDeviceRequest`.
        var swiftName: String
        /// protoc-c's type name, e.g. `Pushwire__V1__RegisterDeviceRequest`.
        var cType: String
        /// protoc-c's function prefix, e.g. `pushwire__v1__register_device_request`.
        var cPrefix: String
        /// The `.proto` file that declares it.
        var file: String
    }

    private(set) var symbols: [String: Symbol] = [:]

    init(files: [FileDescriptor]) throws {
        for file in files {
            guard file.syntax == "proto3" else { throw GeneratorError("\(file.name): only proto3 is supported") }
            for message in file.messages {
                guard message.nestedMessages.isEmpty, message.enums.isEmpty else {
                    throw GeneratorError("\(file.name): nested types in \(message.name) are not supported")
                }
                try add(file: file, name: message.name, kind: .message)
            }
            for e in file.enums { try add(file: file, name: e.name, kind: .enumeration) }
        }
    }

    private mutating func add(file: FileDescriptor, name: String, kind: Symbol.Kind) throws {
        let full = ".\(file.package).\(name)"
        guard symbols[full] == nil else { throw GeneratorError("\(full) is declared twice") }
        symbols[full] = Symbol(
            kind: kind,
            swiftName: name,
            cType: Naming.cType(package: file.package, name: name),
            cPrefix: Naming.cFunctionPrefix(package: file.package, name: name),
            file: file.name
        )
    }

    /// The symbol for a field's or method's `type_name`.
    func lookup(_ typeName: String) throws -> Symbol {
        guard let symbol = symbols[typeName] else { throw GeneratorError("unknown type \(typeName)") }
        return symbol
    }
}

/// A failure that stops generation.
struct GeneratorError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Appends lines of code.
struct CodeWriter {
    private(set) var text = ""

    /// Appends one line (a newline is added).
    mutating func line(_ s: String = "") {
        text += s.isEmpty ? "\n" : s + "\n"
    }

    /// Appends text as is.
    mutating func raw(_ s: String) {
        text += s
    }
}

/// The header every generated file starts with.
func generatedHeader(source: String) -> String {
    "// generated — do not edit. Source: \(source). Regenerate with Scripts/generate.\n"
}
