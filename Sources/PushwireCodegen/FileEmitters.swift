/// Emits whole files: one wrapper file per `.proto`, the `Methods` namespace, the list of message
/// types, and one client file per `.proto` that declares services.
struct FileEmitters {
    let files: [FileDescriptor]
    let symbols: SymbolTable

    /// `pushwire/v1/devices.proto` → `devices`.
    static func baseName(_ file: FileDescriptor) -> String {
        let last = file.name.split(separator: "/").last.map(String.init) ?? file.name
        return last.hasSuffix(".proto") ? String(last.dropLast(6)) : last
    }

    static func source(_ file: FileDescriptor) -> String { "Protos/\(file.name)" }

    /// Which method uses each message, for messages the proto leaves undocumented.
    private var usages: [String: String] {
        var out: [String: String] = [:]
        for file in files {
            for service in file.services {
                for method in service.methods {
                    let name = "`\(service.name).\(method.name)`"
                    if out[method.inputType] == nil { out[method.inputType] = "The request of \(name)." }
                    if out[method.outputType] == nil { out[method.outputType] = "The response of \(name)." }
                }
            }
        }
        return out
    }

    /// File name → contents for `--wire-out`.
    func wireFiles() throws -> [String: String] {
        var out: [String: String] = [:]
        let usages = self.usages
        for file in files {
            var w = CodeWriter()
            w.raw(generatedHeader(source: Self.source(file)))
            w.line()
            w.line("import CProtobufC")
            w.line("import PushwireProtoC")
            for (i, e) in file.enums.enumerated() {
                w.line()
                try EnumEmitter(file: file, enumeration: e, index: i).emit(into: &w)
            }
            for (i, m) in file.messages.enumerated() {
                guard !m.isMapEntry else { throw GeneratorError("maps are not supported") }
                w.line()
                try MessageEmitter(file: file, message: m, index: i, symbols: symbols,
                                   usage: usages[".\(file.package).\(m.name)"]).emit(into: &w)
            }
            out["\(Self.baseName(file)).pb.swift"] = w.text
        }
        out["Methods.swift"] = try methodsFile()
        out["MessageTypes.swift"] = messageTypesFile()
        return out
    }

    private var allSources: String {
        let dirs = Set(files.map { Self.source($0).split(separator: "/").dropLast().joined(separator: "/") })
        return dirs.sorted().map { "\($0)/*.proto" }.joined(separator: ", ")
    }

    private func methodsFile() throws -> String {
        var w = CodeWriter()
        w.raw(generatedHeader(source: allSources))
        w.line()
        w.line("/// Every method of the Pushwire protocol, by service, with its request and response types.")
        w.line("public enum Methods {")
        var all: [String] = []
        for file in files {
            for (s, service) in file.services.enumerated() {
                w.raw(DocComment.lines(file.comments[[6, s]], fallback: "`\(file.package).\(service.name)`.", indent: "    "))
                w.line("    public enum \(service.name) {")
                var names: [String] = []
                for (m, method) in service.methods.enumerated() {
                    guard !method.isStreaming else { throw GeneratorError("\(service.name).\(method.name): streaming is not supported yet") }
                    let name = Naming.escaped(Naming.lowerFirst(method.name))
                    let input = try symbols.lookup(method.inputType).swiftName
                    let output = try symbols.lookup(method.outputType).swiftName
                    w.raw(DocComment.lines(file.comments[[6, s, 2, m]], fallback: "`\(service.name).\(method.name)`.", indent: "        "))
                    w.line("        public static let \(name) = MethodDescriptor<\(input), \(output)>(")
                    w.line("            service: \"\(file.package).\(service.name)\", method: \"\(method.name)\"")
                    w.line("        )")
                    names.append(name)
                    all.append("\(service.name).\(name)")
                }
                w.line()
                w.line("        /// Every method of `\(file.package).\(service.name)`, in `.proto` order.")
                w.line("        public static let all: [AnyMethodDescriptor] = [\(names.map { "\($0).erased" }.joined(separator: ", "))]")
                w.line("    }")
                w.line()
            }
        }
        w.line("    /// Every method of every service, in `.proto` order.")
        w.line("    public static let all: [AnyMethodDescriptor] = [")
        for name in all { w.line("        \(name).erased,") }
        w.line("    ]")
        w.line("}")
        return w.text
    }

    private func messageTypesFile() -> String {
        var w = CodeWriter()
        w.raw(generatedHeader(source: allSources))
        w.line()
        w.line("/// Every message type of the Pushwire protocol.")
        w.line("public enum MessageTypes {")
        w.line("    /// Every generated message type, by file and then in `.proto` order.")
        w.line("    public static let all: [any WireMessage.Type] = [")
        for file in files {
            for m in file.messages { w.line("        \(m.name).self,") }
        }
        w.line("    ]")
        w.line("}")
        return w.text
    }

    /// File name → contents for `--client-out`.
    func clientFiles() throws -> [String: String] {
        var out: [String: String] = [:]
        for file in files where !file.services.isEmpty {
            var w = CodeWriter()
            w.raw(generatedHeader(source: Self.source(file)))
            w.line()
            w.line("import PushwireWire")
            for (s, service) in file.services.enumerated() {
                let client = "\(service.name)Client"
                let serviceDoc = DocComment.lines(file.comments[[6, s]], fallback: "`\(file.package).\(service.name)`.", indent: "")
                w.line()
                w.line("/// A typed client of `\(file.package).\(service.name)` over any `UnaryCaller`.")
                w.line("///")
                w.raw(serviceDoc)
                w.line("public struct \(client)<Caller: UnaryCaller>: Sendable {")
                w.line("    /// What the calls go through: a connection or a pool.")
                w.line("    public let caller: Caller")
                w.line()
                w.line("    /// Creates a client that calls through `caller`.")
                w.line("    public init(caller: Caller) {")
                w.line("        self.caller = caller")
                w.line("    }")
                for (m, method) in service.methods.enumerated() {
                    let name = Naming.escaped(Naming.lowerFirst(method.name))
                    let input = try symbols.lookup(method.inputType).swiftName
                    let output = try symbols.lookup(method.outputType).swiftName
                    w.line()
                    w.raw(DocComment.lines(file.comments[[6, s, 2, m]], fallback: "Calls `\(service.name).\(method.name)`.", indent: "    "))
                    w.line("    /// - Throws: `RPCError` with the server's status, or a local failure.")
                    w.line("    public func \(name)(_ request: \(input), options: CallOptions = CallOptions()) async throws -> \(output) {")
                    w.line("        try await caller.call(Methods.\(service.name).\(name), request, options: options)")
                    w.line("    }")
                }
                w.line("}")
                w.line()
                w.line("extension UnaryCaller {")
                w.line("    /// The `\(file.package).\(service.name)` methods, called through this caller.")
                w.line("    public var \(Naming.escaped(Naming.lowerFirst(service.name))): \(client)<Self> { \(client)(caller: self) }")
                w.line("}")
            }
            out["\(Self.baseName(file)).client.swift"] = w.text
        }
        return out
    }
}
