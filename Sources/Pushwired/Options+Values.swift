import PushwireDelivery
import PushwirePostgresStore
import PushwireRuntime

/// Each option's meaning and checks: the flags, the config file's keys and the environment's
/// database URL all go through `apply`.
extension Options {
    /// The options that take a value, as `apply` knows them (and the config file's keys): the
    /// parser checks a flag's name against it before taking the next argument as its value.
    static let names: Set<String> = [
        "listen", "http-listen", "tls-cert", "tls-key", "tls-client-ca", "tls-handshake-timeout", "plaintext-listen", "http-plaintext-listen",
        "call-metrics", "http-max-body", "http-request-timeout", "http-idle-timeout", "threads", "data-dir",
        "database-url", "sink", "max-frame-size", "max-calls-per-connection", "max-connections",
        "max-connections-per-peer", "max-output-buffer", "max-buffered-bytes", "socket-send-buffer", "idle-timeout",
        "preface-timeout", "frame-timeout", "drain-timeout", "outbox-lease", "fanout-batch", "delivery-cache-bytes", "sink-max-bytes", "sink-keep",
        "log-format", "log-level", "admin-token", "apns-url", "apns-ca-file", "fcm-url", "fcm-ca-file",
    ]

    /// Applies one option (`names` lists them all; a name missing there is refused before this).
    mutating func apply(_ name: String, _ value: String) throws(UsageError) {
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
        case "http-plaintext-listen":
            do {
                httpPlaintextListen = try SocketAddress(parsing: value)
            } catch {
                throw UsageError(message: "--http-plaintext-listen: \(error)")
            }
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
        case "fanout-batch": fanOutBatchDevices = try Self.count(name, value, minimum: 0)
        case "delivery-cache-bytes": deliveryCacheBytes = try Self.count(name, value, minimum: 0)
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
