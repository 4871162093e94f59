/// A command line (`pushwire app create --name N …`, `pushwire call M --data …`), split into words
/// and flags. Flags keep their order because some are applied in order (`device tags --set … --remove …`).
struct ScannedArguments {
    /// The words that are not options: group, subcommand, then positional arguments.
    var words: [String] = []
    /// Value options in command-line order, e.g. `("--tag", "plan=gold")`.
    var flags: [(name: String, value: String)] = []
    /// Options without a value that were given, e.g. `--rotate-token`.
    var switches = Set<String>()
    /// `-h` or `--help` was given.
    var wantsHelp = false

    /// Every value of a repeatable option, in order.
    func values(_ name: String) -> [String] {
        flags.filter { $0.name == name }.map(\.value)
    }

    /// The value of an option given at most once.
    func value(_ name: String, command: String) throws(UsageError) -> String? {
        let all = values(name)
        guard all.count <= 1 else { throw UsageError(message: "\(name) given more than once", command: command) }
        return all.first
    }

    /// The value of an option that must be given.
    func required(_ name: String, command: String) throws(UsageError) -> String {
        guard let value = try value(name, command: command) else {
            throw UsageError(message: "missing \(name)", command: command)
        }
        return value
    }

    /// Rejects options that `command` does not take.
    func allow(_ names: Set<String>, command: String) throws(UsageError) {
        for name in flags.map(\.name) + switches where !names.contains(name) {
            throw UsageError(message: "'\(command)' does not take \(name)", command: command)
        }
    }

    /// Rejects positional arguments beyond the group and subcommand names plus `expected`.
    func positionals(_ expected: [String], command: String) throws(UsageError) -> [String] {
        let rest = Array(words.dropFirst(2))
        if rest.count > expected.count {
            throw UsageError(message: "unexpected argument '\(rest[expected.count])'", command: command)
        }
        if rest.count < expected.count {
            throw UsageError(message: "missing \(expected[rest.count])", command: command)
        }
        return rest
    }
}

/// Splits the arguments of every command. One table says which options take a value, so that an
/// option means the same thing whichever command it follows.
enum OptionScanner {
    /// Options that take a value (besides the global ones).
    static let valueOptions: Set<String> = [
        "--admin-token", "--name", "--apns-team-id", "--apns-key-id", "--apns-topic", "--apns-key-file",
        "--apns-environment", "--app", "--hwid", "--push-token", "--type", "--language", "--timezone", "--user",
        "--app-version", "--tag", "--set", "--increment", "--remove", "--known-version", "--file", "--button",
        "--id", "--content", "--title", "--subtitle", "--category", "--device", "--platform", "--language-content",
        "--language-title", "--data", "--send-at", "--transaction-id", "--badge", "--sound", "--thread-id",
        "--service", "--count", "--fcm-service-account", "--message", "--text",
    ]
    /// Options that take no value.
    static let switchOptions: Set<String> = ["--rotate-token", "--clear-apns", "--clear-fcm", "--trim", "--emit-defaults", "--local", "--version"]

    /// Scans `arguments`, applying the global options to `options`.
    static func scan(_ arguments: [String], options: inout GlobalOptions) throws(UsageError) -> ScannedArguments {
        var scanned = ScannedArguments()
        var index = 0
        var command: String? { scanned.words.count >= 2 ? scanned.words[0] + " " + scanned.words[1] : scanned.words.first }

        func value(_ name: String, inline: String?) throws(UsageError) -> String {
            if let inline { return inline }
            index += 1
            guard index < arguments.count else { throw UsageError(message: "\(name) needs a value", command: command) }
            return arguments[index]
        }

        while index < arguments.count {
            let argument = arguments[index]
            var name = argument
            var inline: String?
            if argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") {
                name = String(argument[..<eq])
                inline = String(argument[argument.index(after: eq)...])
            }
            switch name {
            case "-h", "--help": scanned.wantsHelp = true
            case "--server", "-s": options.server = try value(name, inline: inline)
            case "--token": options.token = try value(name, inline: inline)
            case "--data-dir": options.dataDirectory = try value(name, inline: inline)
            case "--timeout":
                let text = try value(name, inline: inline)
                guard let seconds = Double(text), seconds > 0, seconds < 1e9 else {
                    throw UsageError(message: "--timeout expects a positive number of seconds, got '\(text)'", command: command)
                }
                options.timeout = .milliseconds(Int64((seconds * 1000).rounded(.up)))
            case "--json": options.json = true
            case "--tls": options.tls = true
            case "--ca-file": options.caFile = try value(name, inline: inline)
            case "--server-name": options.serverName = try value(name, inline: inline)
            case "--client-cert": options.clientCertificateFile = try value(name, inline: inline)
            case "--client-key": options.clientKeyFile = try value(name, inline: inline)
            case "--admin-token": options.adminToken = try value(name, inline: inline)
            case "--":
                scanned.words += arguments[(index + 1)...]
                index = arguments.count
                continue
            default:
                if valueOptions.contains(name) || name == "-d" {
                    scanned.flags.append((name == "-d" ? "--data" : name, try value(name, inline: inline)))
                } else if switchOptions.contains(name) && inline == nil {
                    scanned.switches.insert(name)
                } else if argument.hasPrefix("-") && argument != "-" {
                    throw UsageError(message: "unknown option '\(argument)'", command: command)
                } else {
                    scanned.words.append(argument)
                }
            }
            index += 1
        }
        if options.clientKeyFile != nil, options.clientCertificateFile == nil {
            throw UsageError(message: "--client-key needs --client-cert", command: command)
        }
        return scanned
    }
}
