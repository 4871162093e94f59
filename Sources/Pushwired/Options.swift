import PushwireDelivery
import PushwirePostgresStore
import PushwireRuntime

/// pushwired's settings, from defaults, then the `--config` file, then the flags. Its `--help`
/// text is in Options+Usage.swift, each option's meaning and checks in Options+Values.swift.
struct Options {
    var configuration: ServerConfiguration = {
        var configuration = ServerConfiguration()
        configuration.http = HTTPConfiguration(listen: HTTPConfiguration.defaultListenAddress)
        return configuration
    }()
    /// Whether `--http-listen` named the address; otherwise it follows `--listen` (see `usage`).
    var httpAddressGiven = false
    var dataDirectory = "./data"
    /// The PostgreSQL database to keep the store in (`--database-url`, else `PUSHWIRE_DATABASE_URL`);
    /// nil: SQLite in the data directory.
    var databaseURL: String?
    /// The file sink of applications without push credentials; nil: `<data-dir>/sink.jsonl`.
    var sinkPath: String?
    var logLevel = Logger.Level.info
    var adminToken: String?
    /// Replaces Apple's APNs base URL (a local APNs double); nil: each app's environment decides.
    var apnsURL: String?
    /// CA certificates (PEM) APNs connections trust instead of the system's.
    var apnsCAFile: String?
    /// Replaces FCM's base URL (a local FCM double); nil: `https://fcm.googleapis.com`.
    var fcmURL: String?
    /// CA certificates (PEM) FCM connections and OAuth2 token requests trust instead of the system's.
    var fcmCAFile: String?
    /// `--sink-max-bytes` / `--sink-keep`: rotate the sink file by size; nil: never.
    var sinkRotation: FileSinkGateway.Rotation?
    /// `--log-format`: key=value text (default) or one JSON object per line.
    var logFormat = Logger.Format.text
    /// `--outbox-lease`: how long a server's claim on a message lasts unrenewed.
    var outboxLease: Duration = .seconds(10)
    /// `--fanout-batch`: devices per shared fan-out batch on PostgreSQL (0: never cut).
    var fanOutBatchDevices = 20_000
    /// `--delivery-cache-bytes`: the delivery pipeline's in-memory hand-over budget.
    var deliveryCacheBytes = 32 << 20  // DeliveryPipeline.defaultMaxCachedMessageBytes
    /// `--tls-cert` / `--tls-key`: the PEM chain and key that make `--listen` speak TLS; both or neither.
    var tlsCertificateFile: String?
    var tlsKeyFile: String?
    /// `--tls-client-ca`: the admin methods then need a client certificate leading to this CA.
    var tlsClientCAFile: String?
    /// `--tls-handshake-timeout`: how long a TLS handshake may take.
    var tlsHandshakeTimeout: Duration = .seconds(10)
    /// `--http-plaintext-listen`: a clear-text HTTP listener beside the TLS door (applied to
    /// `configuration.http` once every option is read, as `--http-listen` may come after it).
    var httpPlaintextListen: SocketAddress?

    /// A usage error: printed with the usage text, exit status 64.
    struct UsageError: Error {
        var message: String
    }

    /// What the command line asks for.
    enum Command {
        case run(Options)
        /// `--check`: check the integrity of the data directory's database and exit.
        case check(Options)
        case help
        case version
    }

    /// Parses the arguments (without the program name).
    static func parse(_ arguments: [String], environment: [String: String] = [:],
                      readFile: (String) throws -> String) throws(UsageError) -> Command {
        var flags: [(String, String)] = []
        var configPath: String?
        var check = false
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--help" || argument == "-h" { return .help }
            if argument == "--version" { return .version }
            if argument == "--check" {
                check = true
                continue
            }
            guard argument.hasPrefix("--") else { throw UsageError(message: "unexpected argument '\(argument)'") }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            // Named before a value is taken: an unknown option would otherwise swallow the next
            // flag as its value (`--bogus --listen X` then blamed 'X').
            guard name == "config" || Self.names.contains(name) else { throw UsageError(message: "unknown option '--\(name)'") }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.count else { throw UsageError(message: "--\(name) needs a value") }
                value = arguments[index]
                index += 1
            }
            if name == "config" { configPath = value } else { flags.append((name, value)) }
        }
        var options = Options()
        // The environment's database URL counts as a default: the file and the flags override it.
        if let url = environment["PUSHWIRE_DATABASE_URL"], !url.isEmpty {
            do {
                try options.apply("database-url", url)
            } catch {
                throw UsageError(message: "PUSHWIRE_DATABASE_URL: \(error.message)")
            }
        }
        if let configPath { try options.applyFile(configPath, readFile: readFile) }
        for (name, value) in flags { try options.apply(name, value) }
        guard (options.tlsCertificateFile == nil) == (options.tlsKeyFile == nil) else {
            throw UsageError(message: options.tlsCertificateFile == nil ? "--tls-key needs --tls-cert" : "--tls-cert needs --tls-key")
        }
        if options.tlsCertificateFile == nil {
            if options.configuration.plaintextListen != nil {
                throw UsageError(message: "--plaintext-listen needs --tls-cert and --tls-key (without them --listen is clear text already)")
            }
            if options.tlsClientCAFile != nil { throw UsageError(message: "--tls-client-ca needs --tls-cert and --tls-key") }
            if options.httpPlaintextListen != nil {
                throw UsageError(message: "--http-plaintext-listen needs --tls-cert and --tls-key (without them the HTTP door is clear text already)")
            }
        }
        if let plaintext = options.httpPlaintextListen {
            guard options.configuration.http != nil else { throw UsageError(message: "--http-plaintext-listen needs the HTTP door (--http-listen is off)") }
            options.configuration.http?.plaintextListen = plaintext
        }
        if !options.httpAddressGiven, let http = options.configuration.http {
            // Loopback whatever --listen says: the door is opened wider only on request.
            let port = options.configuration.listen.port
            options.configuration.http?.listen = http.listen.withPort(port == 0 ? 0 : min(port + 1, 65535))
        }
        return check ? .check(options) : .run(options)
    }

    /// Applies the `key = value` lines of the config file at `configPath`.
    private mutating func applyFile(_ configPath: String, readFile: (String) throws -> String) throws(UsageError) {
        let text: String
        do {
            text = try readFile(configPath)
        } catch {
            throw UsageError(message: "cannot read the config file '\(configPath)': \(error)")
        }
        for (lineNumber, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw UsageError(message: "\(configPath):\(lineNumber + 1): expected 'key = value'")
            }
            let key = line[..<equals].trimmingWhitespace()
            let value = line[line.index(after: equals)...].trimmingWhitespace()
            do {
                try apply(key, value)
            } catch {
                throw UsageError(message: "\(configPath):\(lineNumber + 1): \(error.message)")
            }
        }
    }
}
