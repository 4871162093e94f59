import PushwireClient

/// A command line that cannot be run as given; exits 64 (EX_USAGE) with the message.
struct UsageError: Error {
    var message: String
    /// The subcommand whose help to point at, if any.
    var command: String?
}

/// Options every subcommand accepts, before or after its name.
struct GlobalOptions {
    var server: String
    var token: String?
    var timeout: Duration = .seconds(10)
    var json = false
    /// The admin token for `app` and `demo` (`--admin-token`, `$PUSHWIRE_ADMIN_TOKEN`).
    var adminToken: String?
    /// pushwired's data directory, where the admin token is read when not given
    /// (`--data-dir`, `$PUSHWIRE_DATA_DIR`, default `./data`).
    var dataDirectory = "data"
    /// `--tls` (or a `pwires://` server): connect over TLS.
    var tls = false
    /// `--ca-file`: PEM CAs to trust instead of the system's; implies `--tls`.
    var caFile: String?
    /// `--server-name`: the name to verify in the server's certificate; implies `--tls`.
    var serverName: String?
    /// `--client-cert`: a PEM client certificate chain presented when the server asks (a server
    /// with `--tls-client-ca` needs one for the Admin service); implies `--tls`.
    var clientCertificateFile: String?
    /// `--client-key`: the PEM key of `--client-cert` (default: read from `--client-cert`'s file).
    var clientKeyFile: String?

    /// The TLS options to connect with; nil in clear text.
    var tlsOptions: ClientTLSOptions? {
        let wantsTLS = tls || caFile != nil || serverName != nil || clientCertificateFile != nil || ClientTLSOptions.target(server).tls
        return wantsTLS
            ? ClientTLSOptions(caFile: caFile, serverName: serverName, clientCertificateFile: clientCertificateFile, clientKeyFile: clientKeyFile)
            : nil
    }
}

/// The parsed command line.
struct Invocation {
    enum Command: Equatable {
        case help(topic: String?)
        case version
        case health(service: String)
        case methods(local: Bool)
        case call(method: String, data: String, emitDefaults: Bool)
        case ping(count: Int)
        /// A group command: `app`, `device`, `category`, `message`, `demo`.
        case operation(GroupCommand)
    }

    var command: Command
    var options: GlobalOptions

    static let subcommands = ["health", "methods", "call", "ping", "help"]

    /// Parses `arguments` (without the program name); `environment` supplies defaults for
    /// `--server` (`PUSHWIRE_SERVER`) and `--token` (`PUSHWIRE_TOKEN`).
    static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError) -> Invocation {
        var options = GlobalOptions(server: environment["PUSHWIRE_SERVER"] ?? "127.0.0.1:7355",
                                    token: environment["PUSHWIRE_TOKEN"].flatMap { $0.isEmpty ? nil : $0 })
        options.adminToken = environment["PUSHWIRE_ADMIN_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        if let directory = environment["PUSHWIRE_DATA_DIR"], !directory.isEmpty { options.dataDirectory = directory }
        if GroupCommand.group(in: arguments) != nil {
            let command = try GroupCommand.parse(arguments, options: &options)
            try checkServer(command, options)
            return Invocation(command: command, options: options)
        }
        let scanned = try OptionScanner.scan(arguments, options: &options)
        let subcommand = scanned.words.first
        let positionals = Array(scanned.words.dropFirst())
        if scanned.wantsHelp || subcommand == "help" {
            // `help app create` names a subcommand of a group.
            let topic = positionals.isEmpty ? nil : positionals.prefix(2).joined(separator: " ")
            return Invocation(command: .help(topic: subcommand == "help" ? topic : subcommand), options: options)
        }
        if subcommand == nil, scanned.switches == ["--version"], scanned.flags.isEmpty {
            return Invocation(command: .version, options: options)
        }
        guard let subcommand else { throw UsageError(message: "missing command", command: nil) }
        guard subcommands.contains(subcommand) else { throw UsageError(message: "unknown command '\(subcommand)'", command: nil) }
        let flags = Dictionary(scanned.flags.map { ($0.name, $0.value) }, uniquingKeysWith: { _, last in last })
        let switches = scanned.switches

        let allowed: [String: Set<String>] = [
            "health": ["--service"], "methods": ["--local"], "call": ["--data", "--emit-defaults"], "ping": ["--count"],
        ]
        try scanned.allow(allowed[subcommand] ?? [], command: subcommand)
        let command: Command
        switch subcommand {
        case "health":
            guard positionals.isEmpty else { throw UsageError(message: "unexpected argument '\(positionals[0])'", command: subcommand) }
            command = .health(service: flags["--service"] ?? "")
        case "methods":
            guard positionals.isEmpty else { throw UsageError(message: "unexpected argument '\(positionals[0])'", command: subcommand) }
            command = .methods(local: switches.contains("--local"))
        case "call":
            guard positionals.count == 1 else {
                throw UsageError(message: positionals.isEmpty ? "missing <method>" : "unexpected argument '\(positionals[1])'", command: subcommand)
            }
            command = .call(method: positionals[0], data: flags["--data"] ?? "{}", emitDefaults: switches.contains("--emit-defaults"))
        case "ping":
            guard positionals.isEmpty else { throw UsageError(message: "unexpected argument '\(positionals[0])'", command: subcommand) }
            let text = flags["--count"] ?? "1"
            guard let count = Int(text), count > 0 else { throw UsageError(message: "--count expects a positive integer, got '\(text)'", command: subcommand) }
            command = .ping(count: count)
        default:
            throw UsageError(message: "unknown command '\(subcommand)'", command: nil)
        }
        try checkServer(command, options)
        return Invocation(command: command, options: options)
    }

    /// A malformed `--server` (or `$PUSHWIRE_SERVER`), e.g. a host without a port, is a usage
    /// error before anything connects; commands that do not connect do not care.
    private static func checkServer(_ command: Command, _ options: GlobalOptions) throws(UsageError) {
        switch command {
        case .help, .version, .methods(local: true): return
        default: break
        }
        if let problem = ClientConnection.addressProblem(ClientTLSOptions.target(options.server).address) {
            throw UsageError(message: "--server: \(problem)", command: nil)
        }
    }
}
