// `pushwire-bench metrics-server`: a server whose /metrics holds as many series as asked for, for
// timing a scrape (Scripts/bench-http): the runtime's own Server, HTTP door and exposition, with
// `--methods N` synthetic methods that answer OK or an error named in the request, so that
// calling each with a few outcomes fills calls_total and a latency histogram per method.
import Glibc
import PushwireRuntime
import PushwireSystem
import PushwireWire

let metricsServerUsage = """
    pushwire-bench metrics-server: serves N synthetic methods and /metrics, for timing a scrape.

    USAGE: pushwire-bench metrics-server [--methods N] [--threads T]

    OPTIONS:
      --methods N   methods /pushwire.bench.Metrics/M0…M<N-1> (default 50); each answers OK, or
                    fails with the code its HealthCheckRequest.service names (not_found,
                    invalid_argument, permission_denied, unavailable)
      --threads T   event loops (default 2)
      --help        this text

    Listens on 127.0.0.1 with ephemeral ports, prints `listening on host:port` and
    `HTTP listening on host:port`, and serves until it is terminated. Each method called with
    every outcome adds 23 series (4 calls_total, 19 of its histogram): 50 methods make ~1,150.
    """

/// Runs the server; returns the exit status only when it cannot start.
func runMetricsServer(_ arguments: [String]) -> Int32 {
    var methods = 50
    var threads = 2
    var index = 0
    while index < arguments.count {
        let argument = arguments[index]
        switch argument {
        case "--help", "-h":
            print(metricsServerUsage)
            return 0
        case "--methods", "--threads":
            guard index + 1 < arguments.count, let value = Int(arguments[index + 1]), value > 0, value <= 10_000 else {
                printError("pushwire-bench metrics-server: \(argument) takes a number from 1 to 10000")
                return 64
            }
            if argument == "--methods" { methods = value } else { threads = value }
            index += 2
        default:
            printError("pushwire-bench metrics-server: unknown option \(argument)\nsee 'pushwire-bench metrics-server --help'")
            return 64
        }
    }
    let server: Server
    do {
        let loopback = try SocketAddress(parsing: "127.0.0.1:0")
        var configuration = ServerConfiguration(listen: loopback, threads: threads)
        configuration.http = HTTPConfiguration(listen: loopback)
        server = Server(configuration: configuration, logger: Logger(label: "pushwire-bench", level: .warning))
        for number in 0..<methods {
            let method = MethodDescriptor<HealthCheckRequest, HealthCheckResponse>(service: "pushwire.bench.Metrics", method: "M\(number)")
            server.register(method) { _, request throws(RPCError) in
                switch request.service {
                case "": return HealthCheckResponse(status: .serving)
                case "not_found": throw RPCError(.notFound, "no such thing")
                case "invalid_argument": throw RPCError(.invalidArgument, "bad argument")
                case "permission_denied": throw RPCError(.permissionDenied, "not yours")
                default: throw RPCError(.unavailable, "try later")
                }
            }
        }
        let address = try server.start()
        var lines = "listening on \(address)\n"
        if let http = server.httpAddress { lines += "HTTP listening on \(http)\n" }
        // Unbuffered, so a script reading our stdout through a pipe sees it at once.
        _ = try? Array(lines.utf8).withUnsafeBytes { bytes in try Syscall.writeAll(1, bytes) }
    } catch {
        printError("pushwire-bench metrics-server: \(error)")
        return 1
    }
    // The loops run on their own threads; this one keeps the server alive until terminated.
    while true {
        pause()
        withExtendedLifetime(server) {}
    }
}
