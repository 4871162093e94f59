// pushwire-bench: the load generator. Parses the command line, connects, runs the workers and
// prints the report; the engine is in LoadWorker and BenchConnection, the histogram, report and
// request template in LoadTest/ (unit-tested in Tests/PushwireBenchTests).
import Glibc
import PushwireClient
import PushwireOpenSSL
import PushwireSystem
import PushwireWire

keepOpenSSLUntilExit()

// `fanout` is a one-message scenario with its own options (FanOutScenario.swift).
if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "fanout" {
    exit(runFanOut(Array(CommandLine.arguments.dropFirst(2))))
}
// `propagation` measures two servers of one database (PropagationScenario.swift).
if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "propagation" {
    exit(runPropagation(Array(CommandLine.arguments.dropFirst(2))))
}
// `metrics-server` serves synthetic methods and /metrics for timing a scrape (MetricsServer.swift).
if CommandLine.arguments.count > 1, CommandLine.arguments[1] == "metrics-server" {
    exit(runMetricsServer(Array(CommandLine.arguments.dropFirst(2))))
}

let options: Options
do {
    options = try parseOptions(Array(CommandLine.arguments.dropFirst()))
} catch {
    if error.message.isEmpty {
        print(usage)
        exit(0)
    }
    printError("pushwire-bench: \(error.message)\nsee 'pushwire-bench --help'")
    exit(64)
}

if options.showVersion {
    print("pushwire-bench \(PushwireVersion.current)")
    exit(0)
}

if options.scenarioName == "encode-cost" {
    printEncodeCost()
    exit(0)
}

if options.serveLoopback {
    do {
        try LoopbackServer.run(listen: options.listen)
    } catch {
        printError("pushwire-bench: \(error)")
        exit(1)
    }
}

var benchTLS: BenchTLS?
if options.tls {
    let host = (try? HostPort(parsing: options.target).host) ?? "127.0.0.1"
    do {
        benchTLS = try BenchTLS(caFile: options.caFile, serverName: options.serverName ?? host)
    } catch {
        printError("pushwire-bench: \(error)")
        exit(1)
    }
}
if options.scenarioName == "handshake" { exit(runHandshakes(options, tls: benchTLS)) }

var setup: BenchSetup?
let plan: RunPlan
do {
    if options.kinds.contains(where: { $0.kind.needsApplication }) { setup = try prepareApplication(options) }
    plan = try makePlan(options, setup: setup)
} catch {
    printError("pushwire-bench: \(error)")
    exit(error.usage ? 64 : 1)
}
let threadCount = min(options.connections, options.threads ?? max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) / 2))

// Connect everything before the clock starts, so connection setup is never measured.
var connections: [BenchConnection] = []
for index in 0..<options.connections {
    let fd: Int32
    do {
        fd = try Syscall.connect(to: options.target, timeout: nil)
    } catch {
        printError("pushwire-bench: \(error)")
        exit(1)
    }
    var ssl: OpaquePointer?
    if let benchTLS {
        do {
            ssl = try benchTLS.handshake(fd: fd)
        } catch {
            printError("pushwire-bench: \(error)")
            exit(1)
        }
    }
    Syscall.setNonBlocking(fd)
    var quota = Int.max
    if let requests = options.requests {
        quota = requests / options.connections + (index < requests % options.connections ? 1 : 0)
    }
    connections.append(BenchConnection(fd: fd, concurrency: options.concurrency, quota: quota, index: index, ssl: ssl))
}


// register --pool: the pool is registered once, before the clock starts.
if let pool = options.kinds.compactMap({ entry -> Int? in if case .register(let p) = entry.kind { return p } else { return nil } }).first {
    let quotas = connections.map(\.quota)
    guard prefillPool(plan: plan, pool: pool, connections: connections, threadCount: threadCount) else {
        printError("pushwire-bench: registering the pool failed")
        exit(1)
    }
    for (conn, quota) in zip(connections, quotas) { conn.quota = quota }
}

let start = monotonicNanos()
let measureStart = start + UInt64(options.warmup * 1e9)
var runPlan = plan
runPlan.start = start
runPlan.measureStart = measureStart
runPlan.end = options.duration.map { measureStart + UInt64($0 * 1e9) }
if let rate = options.rate {
    // Each connection gets an equal share of the rate, staggered so sends are evenly spread.
    let interval = Double(options.connections) / rate * 1e9
    for (index, conn) in connections.enumerated() {
        conn.interval = UInt64(max(interval, 1))
        conn.nextIntended = start + UInt64(interval * Double(index) / Double(options.connections))
    }
}

let workers = runWorkers(plan: runPlan, connections: connections, threadCount: threadCount, showProgress: isatty(2) == 1)

let report = makeReport(options: options, plan: runPlan, workers: workers, threadCount: threadCount)
if options.json {
    print(report.json())
} else {
    print(report.text(), terminator: "")
}
for worker in workers {
    if let failure = worker.failure { printError("pushwire-bench: \(failure)") }
    let limit = worker.serverMaxConcurrentCalls
    if limit > 0, options.concurrency > Int(limit) {
        printError("pushwire-bench: the server allows \(limit) calls in flight per connection; --concurrency \(options.concurrency) exceeds it")
    }
}
exit(report.errorCount == 0 && report.count > 0 ? 0 : 1)
