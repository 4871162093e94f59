import PushwireClient
import PushwireSystem

/// Reads a scenario's arguments one at a time, with one wording for a missing or malformed value;
/// shared by the load scenarios' parser and the fan-out's.
struct FlagScanner {
    private var arguments: ArraySlice<String>

    init(_ arguments: [String]) {
        self.arguments = arguments[...]
    }

    /// The next argument, if any.
    mutating func next() -> String? { arguments.popFirst() }

    /// The value after `flag`.
    mutating func value(_ flag: String) throws(UsageError) -> String {
        guard let next = arguments.popFirst() else { throw UsageError(message: "\(flag) needs a value") }
        return next
    }

    /// The value after `flag`, a server address (`host:port`, `[v6]:port`, either after
    /// `pwires://` for TLS), checked here so that a bad one is a usage error, not a failed connect;
    /// the address without its scheme, and whether the scheme asked for TLS.
    mutating func serverAddress(_ flag: String) throws(UsageError) -> (address: String, tls: Bool) {
        let (address, tls) = ClientTLSOptions.target(try value(flag))
        do {
            _ = try HostPort(parsing: address)
        } catch {
            throw UsageError(message: "\(flag): \(error.message)")
        }
        return (address, tls)
    }

    /// The value after `flag`, a positive integer.
    mutating func positiveInt(_ flag: String) throws(UsageError) -> Int {
        let text = try value(flag)
        guard let n = Int(text), n > 0 else { throw UsageError(message: "\(flag): expected a positive integer, got '\(text)'") }
        return n
    }

    /// The value after `flag`, a duration (`10s`, `250ms`, …) in seconds; with `positive`, zero is
    /// refused too. `example` is shown in the error.
    mutating func seconds(_ flag: String, example: String = "10s", positive: Bool = false) throws(UsageError) -> Double {
        let text = try value(flag)
        guard let d = parseDuration(text), !positive || d > 0 else {
            throw UsageError(message: "\(flag): expected a duration like \(example), got '\(text)'")
        }
        return d
    }
}
