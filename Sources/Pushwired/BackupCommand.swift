#if canImport(Glibc)
import Glibc
#endif
import PushwireSQLiteStore
import PushwireStore

/// `pushwired backup` and `pushwired restore`: an online backup of the SQLite store while a server
/// serves, and the checked install of one into a data directory no server is using.
enum BackupCommand {
    static let usage = """
        USAGE: pushwired backup --data-dir <dir> --to <file> [--force]
               pushwired restore --from <file> --data-dir <dir> [--force]

        backup   copies the database in <dir> to <file> while pushwired may be serving from it:
                 one consistent snapshot (SQLite's online backup API, on a connection of its
                 own), checked and synced before it takes <file>'s name. --force replaces an
                 existing <file>. The admin token (<dir>/admin-token) is not in it: keep it apart.
        restore  checks <file> (SQLite's integrity check; a schema version this pushwired knows)
                 and installs it as <dir>'s database. Refused while a pushwired uses <dir>, and
                 when <dir> already holds a database unless --force is given.

        Exit status: 0 done, 1 refused or failed (the reason on stderr), 64 usage error.
        """

    /// Runs `backup` or `restore` with the arguments after it; returns the exit status.
    static func run(_ command: String, _ arguments: [String]) -> Int32 {
        var values: [String: String] = [:]
        var force = false
        var index = 0
        func usageError(_ message: String) -> Int32 {
            printError("pushwired \(command): \(message)\nsee 'pushwired \(command) --help'")
            return 64
        }
        let allowed: Set<String> = command == "backup" ? ["--data-dir", "--to"] : ["--data-dir", "--from"]
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            switch argument {
            case "--help", "-h":
                printLine(usage)
                return 0
            case "--force":
                force = true
            case _ where allowed.contains(argument):
                guard index < arguments.count, !arguments[index].isEmpty else { return usageError("\(argument) needs a value") }
                values[argument] = arguments[index]
                index += 1
            default:
                return usageError(argument.hasPrefix("-") ? "unknown option '\(argument)'" : "unexpected argument '\(argument)'")
            }
        }
        for name in allowed.sorted() where values[name] == nil { return usageError("missing \(name)") }
        let dataDirectory = values["--data-dir"] ?? ""
        do throws(SQLiteBackup.Failure) {
            if command == "backup" {
                let target = values["--to"] ?? ""
                let summary = try SQLiteBackup.backup(dataDirectory: dataDirectory, to: target, replace: force)
                printLine("backed up \(dataDirectory) to \(target): \(describe(summary))")
            } else {
                let file = values["--from"] ?? ""
                let summary = try SQLiteBackup.restore(from: file, dataDirectory: dataDirectory, replace: force)
                printLine("restored \(file) into \(dataDirectory): \(describe(summary))")
            }
            return 0
        } catch {
            printError("pushwired \(command): \(error.description)")
            return 1
        }
    }

    private static func describe(_ summary: SQLiteBackup.Summary) -> String {
        "schema v\(summary.schemaVersion), \(summary.bytes) bytes, \(summary.applications) applications, "
            + "\(summary.devices) devices, \(summary.messages) messages"
    }
}
