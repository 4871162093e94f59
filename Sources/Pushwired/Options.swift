import PushwireDelivery
import PushwirePostgresStore
import PushwireRuntime

/// pushwired's settings, from defaults, then the `--config` file, then the flags.
struct Options {
    var configuration: ServerConfiguration = {
        var configuration = ServerConfiguration()
        configuration.http = HTTPConfiguration(listen: HTTPConfiguration.defaultListenAddress)
        return configuration
    }()
    /// Whether `--http-listen` named the address; otherwise it follows `--listen` (see `usage`).
    private var httpAddressGiven = false
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
    /// `--tls-cert` / `--tls-key`: the PEM chain and key that make `--listen` speak TLS; both or neither.
    var tlsCertificateFile: String?
    var tlsKeyFile: String?
    /// `--tls-client-ca`: the admin methods then need a client certificate leading to this CA.
    var tlsClientCAFile: String?
    /// `--tls-handshake-timeout`: how long a TLS handshake may take.
    var tlsHandshakeTimeout: Duration = .seconds(10)

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

    static let usage = """
        USAGE: pushwired [options]
               pushwired backup --data-dir <dir> --to <file> [--force]
               pushwired restore --from <file> --data-dir <dir> [--force]

        Runs the Pushwire server; backup and restore copy its database (see
        'pushwired backup --help').

        OPTIONS:
          --listen <address>             host:port to listen on: 127.0.0.1:7355 (default), [::1]:7355,
                                         0.0.0.0:7355; port 0 picks a free port
          --http-listen <address|off>    host:port of the HTTP door (Connect JSON for every method,
                                         the Pushwoosh API, the console at /console/, /healthz,
                                         /metrics); off disables it
                                         (default: 127.0.0.1, port --listen's + 1, i.e. 7356; a
                                         free port when --listen's port is 0)
          --tls-cert <file>              PEM certificate chain, leaf first (an ACME client's
                                         fullchain.pem): --listen then speaks TLS only (TLS 1.2 or
                                         later, ALPN pwire/1); needs --tls-key. Re-read with the key
                                         on SIGHUP
          --tls-key <file>               the PEM private key of --tls-cert's certificate
          --tls-client-ca <file>         ask TLS clients for a certificate; the Admin service then
                                         needs one that leads to these PEM CAs, besides the admin
                                         token (calls in clear text cannot call it)
          --tls-handshake-timeout <dur>  time allowed to complete the TLS handshake (default: 10s)
          --plaintext-listen <address>   with --tls-cert, a second RPC listener in clear text (for
                                         loopback or a private network), e.g. 127.0.0.1:7354
          --http-max-body <bytes>        largest HTTP request body accepted (default: 4194304)
          --http-request-timeout <dur>   time allowed to send one HTTP request (default: 10s)
          --http-idle-timeout <duration> close HTTP keep-alive connections idle this long
                                         (default: 60s)
          --call-metrics <on|off>        count calls and the binary door's bytes for /metrics
                                         (default: on; off only to measure what counting costs)
          --threads <n>                  event-loop threads (default: one per core)
          --data-dir <path>              data directory (default: ./data); with SQLite, one pushwired
                                         at a time; with --database-url it holds only the admin
                                         token and the sink
          --database-url <url>           keep the store in PostgreSQL instead of SQLite in the data
                                         directory: postgresql://user[:password]@host[:port]/dbname,
                                         with libpq parameters such as ?sslmode=require (default:
                                         $PUSHWIRE_DATABASE_URL; unset: SQLite); several pushwired
                                         may share one database, each following the others'
                                         changes (docs/DEPLOYMENT.md)
          --outbox-lease <duration>      how long a server's claim on a message of the outbox lasts
                                         unless renewed (every third of it): a server that dies
                                         holds its messages this long, then another one takes them
                                         over (default: 10s; at least 1s)
          --sink <file>                  where notifications of apps without APNs credentials go, one
                                         JSON line each (default: <data-dir>/sink.jsonl); reopened
                                         on SIGHUP (for logrotate)
          --sink-max-bytes <bytes>       rotate the sink file at this size: it becomes <file>.1
                                         (older ones .2, .3, …) and a new file starts (default: never)
          --sink-keep <n>                rotated sink files kept (default: 5)
          --max-frame-size <bytes>       largest frame accepted (default: 4194304)
          --max-calls-per-connection <n> calls in flight per connection (default: 1024)
          --max-connections <n>          open connections (default: 100000)
          --max-connections-per-peer <n> open connections from one IPv4 address or IPv6 /64
                                         (default: 1000)
          --idle-timeout <duration>      close connections idle this long; 0 = never (default: 300s)
          --preface-timeout <duration>   time allowed to send the preface (default: 10s)
          --frame-timeout <duration>     time allowed to complete a started frame (default: 30s)
          --drain-timeout <duration>     time calls in flight get on shutdown (default: 10s)
          --max-output-buffer <bytes>    a connection's byte budget: unsent responses plus the
                                         requests and answers of its calls at work; above it
                                         its input is paused (default: 4194304)
          --max-buffered-bytes <bytes>   bytes held for all connections together; above it,
                                         connections holding more than 64 KiB wait
                                         (default: 536870912)
          --socket-send-buffer <bytes|auto>
                                         the kernel's send buffer per connection (SO_SNDBUF):
                                         what a peer leaves unread waits in the connection's
                                         budget instead (default: 262144; auto: the kernel's
                                         autotuning, up to 4 MB)
          --log-level <level>            trace, debug, info, notice, warning, error, critical
                                         (default: info); debug logs one line per call
          --log-format <format>          text (key=value, default) or json (one object per line)
          --admin-token <token>          the admin token (default: <data-dir>/admin-token,
                                         generated on first start)
          --apns-url <url>               send every app's APNs requests to this https:// base URL
                                         instead of Apple's (e.g. a local APNs double:
                                         https://127.0.0.1:8443)
          --apns-ca-file <file>          trust these PEM CA certificates for APNs instead of the
                                         system's; TLS verification is never turned off
          --fcm-url <url>                send every app's FCM requests to this https:// base URL
                                         instead of https://fcm.googleapis.com (e.g. a local FCM
                                         double); OAuth2 tokens still come from each service
                                         account's token_uri
          --fcm-ca-file <file>           trust these PEM CA certificates for FCM and for the
                                         service accounts' token URIs instead of the system's
          --config <file>                `key = value` lines with the same names as the flags
                                         (without --); flags override the file
          --check                        check the integrity of the --data-dir database and exit:
                                         0 when whole, 1 when damaged (stop the server first)
          --help                         show this help
          --version                      show the version

        Durations are a number of seconds or a number with ms, s, m or h: 500ms, 30s, 5m; at most
        365 days.
        SIGTERM or SIGINT drains gracefully and exits 0; a second signal exits at once (status 1).
        SIGHUP reopens the sink file and reloads --tls-cert and --tls-key (open connections are
        kept; a pair that does not load is logged and the old one kept). pushwired warns when it
        listens in clear text on an address other than loopback. The HTTP door speaks clear text
        only: keep it on loopback or put a TLS proxy in front of it. Under systemd (Type=notify), pushwired reports READY=1 on
        $NOTIFY_SOCKET once it listens. The log goes to stderr.
        """

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

    /// The options that take a value, as `apply` knows them (and the config file's keys): the
    /// parser checks a flag's name against it before taking the next argument as its value.
    static let names: Set<String> = [
        "listen", "http-listen", "tls-cert", "tls-key", "tls-client-ca", "tls-handshake-timeout", "plaintext-listen",
        "call-metrics", "http-max-body", "http-request-timeout", "http-idle-timeout", "threads", "data-dir",
        "database-url", "sink", "max-frame-size", "max-calls-per-connection", "max-connections",
        "max-connections-per-peer", "max-output-buffer", "max-buffered-bytes", "socket-send-buffer", "idle-timeout",
        "preface-timeout", "frame-timeout", "drain-timeout", "outbox-lease", "sink-max-bytes", "sink-keep",
        "log-format", "log-level", "admin-token", "apns-url", "apns-ca-file", "fcm-url", "fcm-ca-file",
    ]

    /// Applies one option (`names` lists them all; a name missing there is refused before this).
    private mutating func apply(_ name: String, _ value: String) throws(UsageError) {
        switch name {
        case "listen":
            do {
                configuration.listen = try SocketAddress(parsing: value)
            } catch {
                throw UsageError(message: "--listen: \(error)")
            }
        case "http-listen":
            if value == "off" {
                configuration.http = nil
            } else {
                do {
                    let address = try SocketAddress(parsing: value)
                    httpAddressGiven = true
                    if configuration.http == nil {
                        configuration.http = HTTPConfiguration(listen: address)
                    } else {
                        configuration.http?.listen = address
                    }
                } catch {
                    throw UsageError(message: "--http-listen: \(error)")
                }
            }
        case "tls-cert":
            guard !value.isEmpty else { throw UsageError(message: "--tls-cert must not be empty") }
            tlsCertificateFile = value
        case "tls-key":
            guard !value.isEmpty else { throw UsageError(message: "--tls-key must not be empty") }
            tlsKeyFile = value
        case "tls-client-ca":
            guard !value.isEmpty else { throw UsageError(message: "--tls-client-ca must not be empty") }
            tlsClientCAFile = value
        case "tls-handshake-timeout":
            tlsHandshakeTimeout = try Self.duration(name, value)
            guard tlsHandshakeTimeout > .zero else { throw UsageError(message: "--tls-handshake-timeout must be more than 0") }
        case "plaintext-listen":
            do {
                configuration.plaintextListen = try SocketAddress(parsing: value)
            } catch {
                throw UsageError(message: "--plaintext-listen: \(error)")
            }
        case "call-metrics":
            guard value == "on" || value == "off" else { throw UsageError(message: "--call-metrics: '\(value)' is not on or off") }
            configuration.recordsCallMetrics = value == "on"
        case "http-max-body": configuration.http?.maxBodyBytes = try Self.count(name, value, minimum: 1024)
        case "http-request-timeout": configuration.http?.requestTimeout = try Self.duration(name, value)
        case "http-idle-timeout": configuration.http?.idleTimeout = try Self.duration(name, value)
        case "threads": configuration.threads = try Self.count(name, value, minimum: 1)
        case "data-dir": dataDirectory = value
        case "database-url":
            guard value.hasPrefix("postgresql://") || value.hasPrefix("postgres://") else {
                throw UsageError(message: "--database-url: '\(PostgresStore.redacted(value))' is not a postgresql:// URL")
            }
            databaseURL = value
        case "sink": sinkPath = value
        case "max-frame-size": configuration.maxFrameSize = try Self.count(name, value, minimum: 64)
        case "max-calls-per-connection": configuration.maxConcurrentCallsPerConnection = try Self.count(name, value, minimum: 1)
        case "max-connections": configuration.maxConnections = try Self.count(name, value, minimum: 1)
        case "max-connections-per-peer": configuration.maxConnectionsPerPeer = try Self.count(name, value, minimum: 1)
        case "max-output-buffer": configuration.maxOutputBufferBytes = try Self.count(name, value, minimum: 1024)
        case "max-buffered-bytes": configuration.maxBufferedBytes = try Self.count(name, value, minimum: 1024 * 1024)
        case "socket-send-buffer":
            configuration.socketSendBufferBytes = value == "auto" ? nil : try Self.count(name, value, minimum: 4096)
        case "idle-timeout": configuration.idleTimeout = try Self.duration(name, value)
        case "preface-timeout": configuration.prefaceTimeout = try Self.duration(name, value)
        case "frame-timeout": configuration.incompleteFrameTimeout = try Self.duration(name, value)
        case "drain-timeout": configuration.drainTimeout = try Self.duration(name, value)
        case "outbox-lease":
            let lease = try Self.duration(name, value)
            guard lease >= .seconds(1) else { throw UsageError(message: "--outbox-lease: '\(value)' is shorter than 1s") }
            outboxLease = lease
        case "sink-max-bytes":
            let bytes = try Self.count(name, value, minimum: 4096)
            sinkRotation = FileSinkGateway.Rotation(maxBytes: Int64(bytes), keep: sinkRotation?.keep ?? 5)
        case "sink-keep":
            let keep = try Self.count(name, value, minimum: 1)
            sinkRotation = FileSinkGateway.Rotation(maxBytes: sinkRotation?.maxBytes ?? Int64.max, keep: keep)
        case "log-format":
            guard let format = Logger.Format(rawValue: value) else {
                throw UsageError(message: "--log-format: '\(value)' is not text or json")
            }
            logFormat = format
        case "log-level":
            guard let level = Logger.Level(name: value) else {
                throw UsageError(message: "--log-level: '\(value)' is not one of trace, debug, info, notice, warning, error, critical")
            }
            logLevel = level
        case "admin-token": adminToken = try Self.nonEmpty(name, value)
        case "apns-url": apnsURL = try Self.httpsURL(name, value)
        case "apns-ca-file": apnsCAFile = try Self.nonEmpty(name, value)
        case "fcm-url": fcmURL = try Self.httpsURL(name, value)
        case "fcm-ca-file": fcmCAFile = try Self.nonEmpty(name, value)
        default:
            throw UsageError(message: "unknown option '--\(name)'")
        }
    }

    /// A value that must not be empty (a token, a file name).
    private static func nonEmpty(_ name: String, _ value: String) throws(UsageError) -> String {
        guard !value.isEmpty else { throw UsageError(message: "--\(name) must not be empty") }
        return value
    }

    /// A push service's base URL. TLS verification is never off, so only https:// URLs make
    /// sense; a trailing slash is harmless.
    private static func httpsURL(_ name: String, _ value: String) throws(UsageError) -> String {
        guard value.hasPrefix("https://"), value.count > "https://".count else {
            throw UsageError(message: "--\(name): '\(value)' is not an https:// URL")
        }
        return value
    }

    private static func count(_ name: String, _ value: String, minimum: Int) throws(UsageError) -> Int {
        guard let number = Int(value), number >= minimum else {
            throw UsageError(message: "--\(name): '\(value)' is not a whole number of at least \(minimum)")
        }
        return number
    }

    static func duration(_ name: String, _ value: String) throws(UsageError) -> Duration {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        var number = Substring(value)
        var scale = 1.0
        for (suffix, factor) in units where value.hasSuffix(suffix) {
            number = value.dropLast(suffix.count)
            scale = factor
            break
        }
        guard let amount = Double(number), amount >= 0, amount.isFinite else {
            throw UsageError(message: "--\(name): '\(value)' is not a duration such as 30s, 500ms or 5m")
        }
        let milliseconds = (amount * scale * 1000).rounded()
        // Checked before the conversion: Int64(1e300) traps, and no timeout needs more than a year.
        guard milliseconds <= Self.longestDurationMilliseconds else {
            throw UsageError(message: "--\(name): '\(value)' is longer than the longest duration accepted, 365 days")
        }
        return .milliseconds(Int64(milliseconds))
    }

    /// 365 days, in milliseconds.
    static let longestDurationMilliseconds = 365.0 * 24 * 3600 * 1000
}

extension StringProtocol {
    func trimmingWhitespace() -> String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" || first == "\r" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text = text.dropLast() }
        return String(text)
    }
}
