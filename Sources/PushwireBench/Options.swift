import Glibc
import PushwireClient
import PushwireWire

/// One kind of call the harness can generate.
enum CallKind: Equatable {
    /// Ping/Pong frames, answered by the server's runtime without a handler.
    case ping
    /// A unary request on `method` with prebuilt request message bytes.
    case unary(name: String, method: String, message: [UInt8])
    /// RegisterDevice with a new hwid on every call (`pool` nil), or re-registering a fixed pool of
    /// `pool` hwids, registered once before the clock starts.
    case register(pool: Int?)
    /// SyncCategories with the version the application has (answered `not_modified`).
    case sync
    /// CreateMessage of one notification to `devices` explicit hwids, registered before the clock
    /// starts (as the pool of a zero-weight `register`).
    case send(devices: Int)

    var name: String {
        switch self {
        case .ping: "ping"
        case .unary(let name, _, _): name
        case .register(let pool): pool.map { "register --pool \($0)" } ?? "register"
        case .sync: "sync"
        case .send(let devices): "send --devices \(devices)"
        }
    }

    /// Whether the scenario needs an application (found or created at setup).
    var needsApplication: Bool {
        switch self {
        case .register, .sync, .send: true
        case .ping, .unary: false
        }
    }
}

/// The command line of `pushwire-bench`, parsed.
struct Options {
    var scenarioName = ""
    var kinds: [(kind: CallKind, weight: Int)] = []
    var target = "127.0.0.1:7355"
    /// `--tls` (or a `pwires://` target): every connection speaks TLS.
    var tls = false
    /// `--ca-file`: PEM CAs to trust instead of the system's (implies TLS).
    var caFile: String?
    /// `--server-name`: the name to verify (default: the target's host; implies TLS).
    var serverName: String?
    var connections = 4
    var concurrency = 16
    var duration: Double? = 10
    var requests: Int?
    var rate: Double?
    var warmup: Double = 1
    var threads: Int?
    var json = false
    /// `handshake --http-get`: the same loop against an HTTP server (`openssl s_server -www`):
    /// each connection sends `GET / HTTP/1.0` and reads the answer to its end, instead of the
    /// preface and a Health/Check.
    var httpGet = false
    var token: String?
    var adminToken: String?
    /// The application code for `register` and `sync`; created at setup when nil.
    var application: String?
    /// Where `pushwired` keeps `admin-token`, read when `--admin-token` is not given.
    var dataDir: String?
    /// Under `register`: re-register this many hwids instead of new ones.
    var pool: Int?
    /// Under `send`: how many explicit devices each CreateMessage targets.
    var devices = 10
    var timeoutMS: UInt32 = 0
    var listen = "127.0.0.1:0"
    var serveLoopback = false
    /// `--yes`: write into an application that is not the bench's own, or beside real data.
    var yes = false
    /// `--version`: print the version and exit.
    var showVersion = false
}

/// A usage error: printed with a hint and exit status 64.
struct UsageError: Error {
    var message: String
}

let usage = """
    pushwire-bench: load generator for a Pushwire server (protocol v1), in the manner of ghz and wrk2.

    USAGE:
      pushwire-bench ping   [options]                  Ping/Pong frames
      pushwire-bench health [options]                  /pushwire.v1.Health/Check unary calls
      pushwire-bench call <method> [--data '<json>' | --data-hex HEX] [options]
                                                       any unary method, e.g. Health/Check or
                                                       /pushwire.v1.Reflection/ListMethods; --data
                                                       is the request in proto3 JSON
      pushwire-bench register [--pool N] [setup] [options]
                                                       RegisterDevice of a new hwid per call
                                                       (<n>-bench-<run>, <n> spread over the key
                                                       space; iOS token, en, +3600); with
                                                       --pool, N hwids registered once before the
                                                       clock starts, then re-registered unchanged
      pushwire-bench sync [setup] [options]            SyncCategories with the current version
                                                       (fetched once at setup): not_modified
      pushwire-bench send [--devices K] [setup] [options]
                                                       CreateMessage of one notification to K
                                                       explicit hwids (default 10), registered
                                                       before the clock starts; needs the app's
                                                       access token (--token, or a created app)
      pushwire-bench fanout [--devices N] [--application CODE] [--poll 20ms]
                                                       one message to every device of an app,
                                                       timed until GetMessageDetails says done
                                                       (`pushwire-bench fanout --help`)
      pushwire-bench propagation --from A --to B --admin-token T
                                                       category changes through server A, timed
                                                       until server B (same database) serves
                                                       them (`pushwire-bench propagation --help`)
      pushwire-bench metrics-server [--methods N]     a server with N synthetic methods and its
                                                       /metrics on 127.0.0.1, for timing a scrape
                                                       (`pushwire-bench metrics-server --help`)
      pushwire-bench mix --weights ping=1,health=3 [options]
                                                       a weighted mix of scenarios (ping, health,
                                                       register, sync)
      pushwire-bench loopback-server [--listen 127.0.0.1:0]
                                                       a minimal in-process echo server (Ping→Pong,
                                                       every request → OK), to measure the harness
      pushwire-bench handshake [--duration D] [--http-get]
                                                       new connections one after another, each
                                                       the full TLS handshake (with --tls), the
                                                       preface and one Health/Check: connections/s;
                                                       --http-get: GET / HTTP/1.0 instead, read to
                                                       the end (the same loop against openssl
                                                       s_server -www)
      pushwire-bench encode-cost                       ns per per-call register request: patched
                                                       template vs the generated wrappers

    OPTIONS:
      --server host:port     server address (default 127.0.0.1:7355; [::1]:port for IPv6;
                             pwires://host:port for TLS); --target is another name for it
      --tls                  speak TLS, verifying the server against the system's CAs and the
                             host of --server (ping, health, call and handshake only)
      --ca-file F            trust these PEM CAs instead (implies --tls)
      --server-name N        the name the certificate must carry (implies --tls)
      --connections N        TCP connections (default 4)
      --concurrency K        calls in flight per connection (default 16)
      --duration D           measure for D (10s, 500ms, 2m; default 10s)
      --requests N           measure N calls instead of a duration
      --rate R               fixed arrival rate, calls/s over all connections; latency is measured
                             from each call's intended send time (no coordinated omission)
      --warmup D             run unmeasured for D first (default 1s)
      --threads T            harness threads (default: min(connections, max(1, cores/2)))
      --timeout D            deadline sent with each unary call (default: the server's)
      --token T              send `authorization: Bearer T` with every unary call
      --admin-token T        the same, for /pushwire.v1.Admin/ methods
      --json                 print the report as JSON

    SETUP (register, sync):
      --application CODE     use this application (with --token T for its access token)
      --admin-token T        else create one with Admin/CreateApplication (printed on stderr)
      --data-dir D           read the admin token from D/admin-token (pushwired's data directory)
      --yes                  go ahead although the scenario writes into --application CODE, or
                             the server holds applications that are not pushwire-bench's: without
                             it the bench says what it would create and exits 64
      --help                 this text
      --version              the version

    A live progress line is shown on standard error when it is a terminal.
    Exit status: 0 when every call succeeded, 1 on errors or failures, 64 on usage errors.
    """

/// Seconds from `10s`, `500ms`, `250us`, `2m` or a bare number of seconds.
func parseDuration(_ text: String) -> Double? {
    let units: [(String, Double)] = [("ms", 1e-3), ("us", 1e-6), ("µs", 1e-6), ("s", 1), ("m", 60)]
    var number = Substring(text)
    var scale = 1.0
    for (suffix, factor) in units where text.hasSuffix(suffix) {
        number = text.dropLast(suffix.count)
        scale = factor
        break
    }
    // At most a year: the seconds become UInt64 nanoseconds, which traps for 1e300 or inf.
    guard let value = Double(number), value >= 0, value.isFinite, value * scale <= 365 * 24 * 3600 else { return nil }
    return value * scale
}

/// `Health/Check` → `/pushwire.v1.Health/Check`; full paths are kept.
func methodPath(_ name: String) -> String {
    name.hasPrefix("/") ? name : "/pushwire.v1.\(name)"
}

/// Bytes from hex, e.g. `0a03616263`; nil when not hex.
func parseHex(_ text: String) -> [UInt8]? {
    let digits = Array(text.utf8)
    guard digits.count % 2 == 0 else { return nil }
    var out: [UInt8] = []
    var i = 0
    while i < digits.count {
        guard let pair = UInt8(String(decoding: digits[i..<i + 2], as: UTF8.self), radix: 16) else { return nil }
        out.append(pair)
        i += 2
    }
    return out
}

/// The request message of `method` from JSON (proto3 JSON mapping), through PushwireClient's
/// descriptor-driven bridge, so every method works without per-method code.
func requestMessage(method: String, json: String) throws(UsageError) -> [UInt8] {
    guard let entry = MethodCatalog.find(method) else {
        throw UsageError(message: "call: unknown method '\(method)' (see `pushwire methods`)")
    }
    do {
        return try ProtoJSON.encode(json, as: entry.requestDescriptor)
    } catch {
        throw UsageError(message: "--data: \(error.message)")
    }
}

func parseOptions(_ arguments: [String]) throws(UsageError) -> Options {
    var options = Options()
    var args = FlagScanner(arguments)
    var data: [UInt8] = []
    var json: String?
    var callMethod: String?
    var weights: String?

    guard let first = args.next() else { throw UsageError(message: "missing scenario") }
    options.scenarioName = first
    switch first {
    case "ping", "health", "mix", "register", "sync", "send", "encode-cost", "handshake": break
    case "loopback-server": options.serveLoopback = true
    case "call":
        guard let method = args.next(), !method.hasPrefix("--") else { throw UsageError(message: "call: missing <method>") }
        callMethod = method
    case "--help", "-h", "help": throw UsageError(message: "")
    case "--version":
        options.showVersion = true
        return options
    default: throw UsageError(message: "unknown scenario '\(first)'")
    }

    while let flag = args.next() {
        switch flag {
        case "--server", "--target":
            let (address, tls) = try args.serverAddress(flag)
            options.target = address
            if tls { options.tls = true }
        case "--tls": options.tls = true
        case "--ca-file": options.caFile = try args.value(flag); options.tls = true
        case "--server-name": options.serverName = try args.value(flag); options.tls = true
        case "--yes": options.yes = true
        case "--version":
            options.showVersion = true
            return options
        case "--connections": options.connections = try args.positiveInt(flag)
        case "--concurrency":
            options.concurrency = try args.positiveInt(flag)
            guard options.concurrency < 65_536 else { throw UsageError(message: "--concurrency: at most 65535") }
        case "--duration": options.duration = try args.seconds(flag); options.requests = nil
        case "--requests": options.requests = try args.positiveInt(flag); options.duration = nil
        case "--rate":
            let text = try args.value(flag)
            guard let r = Double(text), r > 0 else { throw UsageError(message: "--rate: expected calls/s, got '\(text)'") }
            options.rate = r
        case "--warmup": options.warmup = try args.seconds(flag)
        case "--threads": options.threads = try args.positiveInt(flag)
        case "--timeout": options.timeoutMS = UInt32(min(try args.seconds(flag) * 1000, Double(UInt32.max)))
        case "--json": options.json = true
        case "--http-get": options.httpGet = true
        case "--token": options.token = try args.value(flag)
        case "--admin-token": options.adminToken = try args.value(flag)
        case "--data": json = try args.value(flag)
        case "--data-hex":
            let text = try args.value(flag)
            guard let bytes = parseHex(text) else { throw UsageError(message: "--data-hex: not hex: '\(text)'") }
            data = bytes
        case "--weights": weights = try args.value(flag)
        case "--application": options.application = try args.value(flag)
        case "--data-dir": options.dataDir = try args.value(flag)
        case "--pool": options.pool = try args.positiveInt(flag)
        case "--devices": options.devices = try args.positiveInt(flag)
        case "--listen": options.listen = try args.value(flag)
        case "--help", "-h": throw UsageError(message: "")
        default: throw UsageError(message: "unknown option '\(flag)'")
        }
    }

    func kind(named name: String) throws(UsageError) -> CallKind {
        switch name {
        case "ping": return .ping
        case "health": return .unary(name: "health", method: Methods.Health.check.path, message: [])
        case "register": return .register(pool: options.pool)
        case "sync": return .sync
        default: throw UsageError(message: "--weights: unknown scenario '\(name)' (ping, health, register, sync)")
        }
    }
    if options.pool != nil, first != "register", first != "mix" {
        throw UsageError(message: "--pool: only for register (or a mix with register)")
    }
    let setsUpAnApplication = ["register", "sync", "send"].contains(first)
        || (first == "mix" && ["register", "sync"].contains { (weights ?? "").contains($0) })
    if options.tls, setsUpAnApplication {
        throw UsageError(message: "--tls: the scenarios that set up an application (register, sync, send) run in clear text only for now; use ping, health, call or handshake")
    }
    switch first {
    case "handshake":
        // Sequential new connections: TCP, the full TLS handshake, preface, one Health/Check, close.
        options.kinds = [(.unary(name: "health", method: Methods.Health.check.path, message: []), 1)]
        options.scenarioName = "handshake"
    case "send":
        options.kinds = [(.send(devices: options.devices), 1), (.register(pool: options.devices), 0)]
        options.scenarioName = options.kinds[0].kind.name
    case "ping", "health", "register", "sync":
        options.kinds = [(try kind(named: first), 1)]
        options.scenarioName = options.kinds[0].kind.name
    case "call":
        let method = callMethod ?? ""
        var path = methodPath(method)
        if let json {
            data = try requestMessage(method: method, json: json)
        }
        if let entry = MethodCatalog.find(method) { path = entry.path }
        options.kinds = [(.unary(name: "call \(path)", method: path, message: data), 1)]
        options.scenarioName = "call \(path)"
    case "mix":
        guard let weights else { throw UsageError(message: "mix: --weights ping=1,health=3 is required") }
        for item in weights.split(separator: ",") {
            let parts = item.split(separator: "=")
            guard parts.count == 2, let w = Int(parts[1]), w >= 0 else {
                throw UsageError(message: "--weights: expected name=weight, got '\(item)'")
            }
            if w > 0 { options.kinds.append((try kind(named: String(parts[0])), w)) }
        }
        guard !options.kinds.isEmpty else { throw UsageError(message: "--weights: no positive weight") }
        options.scenarioName = "mix " + weights
    default: break
    }
    return options
}
