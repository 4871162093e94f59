// `pushwire`: the command-line client. Parses arguments and calls into PushwireClient; see
// Help.swift for the commands and exit codes.
import Foundation
import PushwireClient
import PushwireOpenSSL
import PushwireWire

keepOpenSSLUntilExit()

/// EX_USAGE from sysexits.h.
let usageExitCode: Int32 = 64

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

func run() async -> Int32 {
    let arguments = Array(ProcessInfo.processInfo.arguments.dropFirst())
    let parsed: Invocation
    do {
        parsed = try Invocation.parse(arguments, environment: ProcessInfo.processInfo.environment)
    } catch {
        printError("error: \(error.message)")
        printError("see 'pushwire \(error.command.map { "\($0) " } ?? "")--help'")
        return usageExitCode
    }
    let commands = Commands(options: parsed.options)
    do {
        switch parsed.command {
        case .help(let topic):
            print(Help.text(for: topic))
        case .version:
            print("pushwire \(Help.version)")
        case .health(let service):
            return try await commands.health(service: service) ? 0 : 1
        case .methods(let local):
            try await commands.methods(local: local)
        case .call(let method, let data, let emitDefaults):
            try await commands.call(method: method, data: data, emitDefaults: emitDefaults)
        case .ping(let count):
            try await commands.ping(count: count)
        case .operation(let operation):
            try await runGroupCommand(operation, options: parsed.options)
        }
        return 0
    } catch let error as UsageError {
        printError("error: \(error.message)")
        printError("see 'pushwire \(error.command.map { "\($0) " } ?? "")--help'")
        return usageExitCode
    } catch let failure as CommandFailure {
        printError(failure.error.description)
        if parsed.options.json {
            print(ProtoJSON.serialize(.object([("error", .object([
                ("code", .number(String(failure.error.code.rawValue))),
                ("status", .string(failure.error.code.name)),
                ("message", .string(failure.error.message)),
            ]))]), pretty: false))
        }
        return 1
    } catch {
        printError("error: \(error)")
        return 1
    }
}

exit(await run())
