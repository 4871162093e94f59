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
        if GroupCommand.group(in: arguments) != nil {
            let command = try GroupCommand.parse(arguments, options: &options)
            return Invocation(command: command, options: options)
        }
        var subcommand: String?
        var positionals: [String] = []
        var flags: [String: String] = [:]
        var switches = Set<String>()
        var wantsHelp = false
        var index = 0

        func value(_ name: String, inline: String?) throws(UsageError) -> String {
            if let inline { return inline }
            index += 1
            guard index < arguments.count else { throw UsageError(message: "\(name) needs a value", command: subcommand) }
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
            case "-h", "--help": wantsHelp = true
            case "--version": if subcommand == nil { return Invocation(command: .version, options: options) }
            case "--server", "-s": options.server = try value(name, inline: inline)
            case "--token": options.token = try value(name, inline: inline)
            case "--admin-token": options.adminToken = try value(name, inline: inline)
            case "--timeout":
                let text = try value(name, inline: inline)
                guard let seconds = Double(text), seconds > 0, seconds < 1e9 else {
                    throw UsageError(message: "--timeout expects a positive number of seconds, got '\(text)'", command: subcommand)
                }
                options.timeout = .milliseconds(Int64((seconds * 1000).rounded(.up)))
            case "--json": options.json = true
            case "--service", "--data", "-d", "--count":
                flags[name == "-d" ? "--data" : name] = try value(name, inline: inline)
            case "--emit-defaults", "--local": switches.insert(name)
            case "--":
                positionals += arguments[(index + 1)...]
                index = arguments.count
                continue
            default:
                if argument.hasPrefix("-") && argument != "-" {
                    throw UsageError(message: "unknown option '\(argument)'", command: subcommand)
                }
                if subcommand == nil {
                    guard subcommands.contains(argument) else {
                        throw UsageError(message: "unknown command '\(argument)'", command: nil)
                    }
                    subcommand = argument
                } else {
                    positionals.append(argument)
                }
            }
            index += 1
        }

        if wantsHelp || subcommand == "help" {
            // `help app create` names a subcommand of a group.
            let topic = positionals.isEmpty ? nil : positionals.prefix(2).joined(separator: " ")
            return Invocation(command: .help(topic: subcommand == "help" ? topic : subcommand), options: options)
        }
        guard let subcommand else { throw UsageError(message: "missing command", command: nil) }

        let allowed: [String: Set<String>] = [
            "health": ["--service"], "methods": ["--local"], "call": ["--data", "--emit-defaults"], "ping": ["--count"],
        ]
        for flag in Set(flags.keys).union(switches) where !(allowed[subcommand]?.contains(flag) ?? false) {
            throw UsageError(message: "'\(subcommand)' does not take \(flag)", command: subcommand)
        }
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
        return Invocation(command: command, options: options)
    }
}
