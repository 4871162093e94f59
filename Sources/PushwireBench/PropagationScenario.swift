// `pushwire-bench propagation`: how long a category change made through one server takes to be
// served by another server of the same database (docs/DEPLOYMENT.md states the bound). Creates an
// application through the first server, then N times replaces one category through it and, from
// the moment that call is answered (committed), asks the second server SyncCategories as fast as
// one connection can until it answers the new version; prints the latencies' percentiles.
import Glibc
import PushwireClient
import PushwireSystem
import PushwireWire

/// The command line of `pushwire-bench propagation`.
struct PropagationOptions {
    /// Where the changes are made.
    var from = "127.0.0.1:7355"
    /// Where they are looked for.
    var to = "127.0.0.1:7356"
    var adminToken: String?
    var changes = 200
    var timeoutSeconds = 10.0
    var json = false
}

let propagationUsage = """
    pushwire-bench propagation: the time a category change through one server takes to be served
    by another server sharing its database.

    USAGE: pushwire-bench propagation --from host:port --to host:port --admin-token T [options]

    OPTIONS:
      --from host:port       the server the changes go through
      --to host:port         the server asked for them (SyncCategories, as fast as it answers)
      --admin-token T        the admin token (both servers'): an application is created for the run
      --changes N            how many changes (default 200)
      --timeout D            give up on one change after D (default 10s)
      --json                 print the result as JSON
      --help                 this text

    Each latency runs from UpsertCategory's answer through --from to the first SyncCategories
    answer through --to carrying the new version; its resolution is one SyncCategories call.
    """

/// Runs the scenario; returns the exit status.
func runPropagation(_ arguments: [String]) -> Int32 {
    var options = PropagationOptions()
    var args = FlagScanner(arguments)
    do throws(UsageError) {
        while let flag = args.next() {
            switch flag {
            case "--from": options.from = try args.value(flag)
            case "--to": options.to = try args.value(flag)
            case "--admin-token": options.adminToken = try args.value(flag)
            case "--changes": options.changes = try args.positiveInt(flag)
            case "--timeout": options.timeoutSeconds = try args.seconds(flag, positive: true)
            case "--json": options.json = true
            case "--help", "-h": throw UsageError(message: "")
            default: throw UsageError(message: "unknown option '\(flag)'")
            }
        }
        if options.adminToken == nil { throw UsageError(message: "--admin-token is required (an application is created for the run)") }
    } catch {
        if error.message.isEmpty {
            print(propagationUsage)
            return 0
        }
        printError("pushwire-bench propagation: \(error.message)\nsee 'pushwire-bench propagation --help'")
        return 64
    }
    do {
        let latencies = try measurePropagation(options)
        reportPropagation(latencies, options: options)
        return 0
    } catch {
        printError("pushwire-bench propagation: \(error)")
        return 1
    }
}

/// The latencies of `options.changes` changes, in nanoseconds, in the order made.
private func measurePropagation(_ options: PropagationOptions) throws(SetupError) -> [UInt64] {
    let from = try SetupCaller(target: options.from)
    let to = try SetupCaller(target: options.to)
    let created = try from.call(Methods.Admin.createApplication, CreateApplicationRequest(name: "propagation \(benchRunID)"),
                                token: options.adminToken)
    guard let code = created.application?.code else { throw SetupError(description: "CreateApplication returned no code") }
    let token = created.accessToken
    // The first change only waits for the other server to know the application.
    var version = try waitForVersion(1, of: code, through: to, timeout: options.timeoutSeconds)
    var category = Category()
    category.name = "Propagation"
    category.buttons = [Button(id: 0, label: "OK")]
    var latencies: [UInt64] = []
    latencies.reserveCapacity(options.changes)
    for index in 0..<options.changes {
        // Replace the one category (a new label each time): every change bumps the version
        // without nearing the limit of categories per application.
        category.buttons[0].label = "OK \(index)"
        let stored = try from.call(Methods.Categories.upsertCategory, UpsertCategoryRequest(category: category), token: token)
        let answered = monotonicNanos()
        if let id = stored.category?.categoryID { category.categoryID = id }
        guard stored.categoriesVersion > version else {
            throw SetupError(description: "UpsertCategory answered version \(stored.categoriesVersion) after \(version)")
        }
        version = try waitForVersion(stored.categoriesVersion, of: code, through: to, timeout: options.timeoutSeconds)
        latencies.append(monotonicNanos() - answered)
    }
    return latencies
}

/// Asks SyncCategories through `caller` until it answers `version` or later; that version.
private func waitForVersion(_ version: UInt64, of code: String, through caller: SetupCaller,
                            timeout: Double) throws(SetupError) -> UInt64 {
    let deadline = monotonicNanos() + UInt64(timeout * 1e9)
    while true {
        if let answer = try? caller.call(Methods.Devices.syncCategories,
                                         SyncCategoriesRequest(application: code, knownVersion: 0), token: nil),
           answer.version >= version {
            return answer.version
        }
        if monotonicNanos() > deadline {
            throw SetupError(description: "version \(version) of \(code) not served by the other server after \(timeout) s")
        }
    }
}

private func reportPropagation(_ latencies: [UInt64], options: PropagationOptions) {
    let sorted = latencies.sorted()
    func percentile(_ p: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let index = min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)
        return Double(sorted[max(0, index)]) / 1000
    }
    let (p50, p90, p99, maximum) = (percentile(0.5), percentile(0.9), percentile(0.99), Double(sorted.last ?? 0) / 1000)
    if options.json {
        print(String(format: "{\"changes\":%d,\"p50_us\":%.0f,\"p90_us\":%.0f,\"p99_us\":%.0f,\"max_us\":%.0f}",
                     sorted.count, p50, p90, p99, maximum))
        return
    }
    print("Category change through \(options.from), served by \(options.to):")
    print("  Changes:  \(sorted.count)")
    print(String(format: "  Latency:  p50 %.0f µs, p90 %.0f µs, p99 %.0f µs, max %.0f µs", p50, p90, p99, maximum))
}
