// pushwire-apns-bench: drives an APNsGateway (or, with --service fcm, an FCMGateway) as fast as it
// goes against an HTTP/2 TLS endpoint (nghttpd or a double on 127.0.0.1) and prints the figures to
// compare with h2load's. Scripts/apns-double/bench and Scripts/fcm-double/bench run both against
// the same nghttpd in one go.
import Glibc
import PushwireAPNs
import PushwireDelivery

struct Options {
    var url = ""
    var caFile: String?
    var p8Path = ""
    var teamID = "TEAM123456"
    var keyID = "KEY1234567"
    var topic = "com.example.pushwire"
    var token = String(repeating: "ab", count: 32)
    var connections = 2
    var streams = 100
    var count = 200_000
    var batch = 500
    var payloadBytes = 256
    var maxAttempts = APNsRetryPolicy().maxAttempts
    var maxInFlight: Int?
    var transport = APNsConfiguration().transport
    /// `apns` or `fcm`.
    var service = "apns"
    /// FCM: the service account's key file.
    var accountPath = ""
}

let usage = """
    USAGE: pushwire-apns-bench --url URL --p8 FILE [--ca FILE] [--connections N] [--streams N]
                               [--count N] [--batch N] [--payload-bytes N] [--token HEX] [--max-attempts N]
                               [--max-in-flight N] [--transport nghttp2|libcurl]
                               [--team-id ID] [--key-id ID] [--topic TOPIC]
           pushwire-apns-bench --service fcm --url URL --account FILE [--ca FILE] [--connections N] …

    With --service fcm: an FCMGateway with the service account's key file (--account; its
    token_uri is asked for the access token) sends to URL/v1/projects/<project>/messages:send.

    Sends --count notifications to URL/3/device/TOKEN through one APNsGateway with --connections
    HTTP/2 connections of --streams concurrent streams, feeding it batches of --batch, and prints
    count, seconds, requests/s, latency-free outcome counts (like h2load's summary). --transport
    picks the gateway's HTTP/2 implementation (default nghttp2, the gateway's default).
    """

func printError(_ text: String) {
    var bytes = Array(text.utf8)
    _ = write(2, &bytes, bytes.count)
}

func fail(_ message: String) -> Never {
    printError("pushwire-apns-bench: \(message)\n\n\(usage)\n")
    exit(64)
}

func parse() -> Options {
    var options = Options()
    var arguments = CommandLine.arguments.dropFirst().makeIterator()
    while let flag = arguments.next() {
        if flag == "--help" || flag == "-h" { print(usage); exit(0) }
        guard let value = arguments.next() else { fail("\(flag) needs a value") }
        func number() -> Int {
            guard let parsed = Int(value), parsed > 0 else { fail("\(flag) needs a positive number") }
            return parsed
        }
        switch flag {
        case "--url": options.url = value
        case "--ca": options.caFile = value
        case "--p8": options.p8Path = value
        case "--team-id": options.teamID = value
        case "--key-id": options.keyID = value
        case "--topic": options.topic = value
        case "--token": options.token = value
        case "--connections": options.connections = number()
        case "--streams": options.streams = number()
        case "--count": options.count = number()
        case "--batch": options.batch = number()
        case "--payload-bytes": options.payloadBytes = number()
        case "--max-attempts": options.maxAttempts = number()
        case "--max-in-flight": options.maxInFlight = number()
        case "--service":
            guard value == "apns" || value == "fcm" else { fail("--service is apns or fcm") }
            options.service = value
        case "--account": options.accountPath = value
        case "--transport":
            guard let transport = APNsTransport(rawValue: value) else { fail("--transport is nghttp2 or libcurl") }
            options.transport = transport
        default: fail("unknown option \(flag)")
        }
    }
    guard !options.url.isEmpty, !(options.service == "apns" ? options.p8Path : options.accountPath).isEmpty else {
        fail("--url and --p8 (--account with --service fcm) are required")
    }
    return options
}

func readFile(_ path: String) -> String? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let read = fread(&buffer, 1, buffer.count, file)
        if read <= 0 { break }
        bytes += buffer[0..<read]
    }
    return String(decoding: bytes, as: UTF8.self)
}

let options = parse()
let configuration = APNsConfiguration(
    baseURLOverride: options.url, caFile: options.caFile,
    maxConnections: options.connections, maxConcurrentStreams: options.streams, maxInFlight: options.maxInFlight,
    retryPolicy: APNsRetryPolicy(maxAttempts: options.maxAttempts), transport: options.transport)
let gateway: any NotificationGateway
/// Peak in flight and connection retries, for the summary.
let figures: () -> (peak: Int?, retries: Int)
let shutdown: () -> Void
let payload: [UInt8]
var deviceToken = options.token
if options.service == "fcm" {
    guard let json = readFile(options.accountPath) else { fail("cannot read \(options.accountPath)") }
    do {
        let fcm = try FCMGateway(account: try FCMServiceAccount(json: json), configuration: configuration)
        gateway = fcm
        figures = { (nil, fcm.connectionRetryCount) }
        shutdown = { fcm.shutdown() }
    } catch {
        printError("pushwire-apns-bench: \(error)\n")
        exit(1)
    }
    // The message without its token, as pushwired renders it; the gateway adds the token.
    let body = #"{"data":{"pw_msg":"BENCH","pw_title":"Pushwire","pw_body":"#
    let filler = String(repeating: "x", count: max(0, options.payloadBytes - body.utf8.count - 35))
    payload = Array((body + "\"" + filler + #""},"android":{"priority":"HIGH"}}"#).utf8)
    if deviceToken == Options().token { deviceToken = "bench-device:APA91b" + String(repeating: "x", count: 140) }
} else {
    guard let p8 = readFile(options.p8Path) else { fail("cannot read \(options.p8Path)") }
    do {
        let credentials = try APNsCredentials(teamID: options.teamID, keyID: options.keyID, topic: options.topic,
                                              p8PEM: p8, environment: .production)
        let apns = try APNsGateway(credentials: credentials, configuration: configuration)
        gateway = apns
        figures = { (apns.peakInFlight, apns.connectionRetryCount) }
        shutdown = { apns.shutdown() }
    } catch {
        printError("pushwire-apns-bench: \(error)\n")
        exit(1)
    }
    let body = #"{"aps":{"alert":{"title":"Pushwire","body":"#
    let filler = String(repeating: "x", count: max(0, options.payloadBytes - body.utf8.count - 5))
    payload = Array((body + "\"" + filler + "\"}}}").utf8)
}
let token = deviceToken
let batches = (options.count + options.batch - 1) / options.batch
// Enough batches in flight to keep the window full while finished ones are being replaced.
let feeders = max(2, (options.connections * options.streams) / options.batch + 2)

func run() async -> (seconds: Double, outcomes: [String: Int]) {
    let start = ContinuousClock.now
    let counts = await withTaskGroup(of: [String: Int].self) { group in
        for feeder in 0..<feeders {
            group.addTask {
                var counts: [String: Int] = [:]
                var batchIndex = feeder
                while batchIndex < batches {
                    let size = min(options.batch, options.count - batchIndex * options.batch)
                    let notifications = (0..<size).map { index in
                        OutgoingNotification(deliveryID: UInt64(batchIndex * options.batch + index), messageCode: "BENCH",
                                             deviceToken: token, payload: payload,
                                             deviceType: options.service == "fcm" ? PushPlatform.android : PushPlatform.iOS)
                    }
                    for outcome in await gateway.deliver(notifications) {
                        switch outcome {
                        case .sent: counts["sent", default: 0] += 1
                        case .retry(let reason, _), .failed(let reason), .invalidToken(let reason), .deadToken(let reason, _):
                            counts[reason, default: 0] += 1
                        }
                    }
                    batchIndex += feeders
                }
                return counts
            }
        }
        var total: [String: Int] = [:]
        for await counts in group { total.merge(counts, uniquingKeysWith: +) }
        return total
    }
    let elapsed = start.duration(to: .now)
    return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, counts)
}

let result = await run()
let rps = Double(options.count) / result.seconds
let label = options.service == "fcm" ? "fcm" : "\(options.transport)"
print("pushwire-apns-bench (\(label)): \(options.count) requests, \(options.connections) connections x \(options.streams) streams, payload \(payload.count) B")
print("finished in \(Double(Int(result.seconds * 100)) / 100)s, \(Int(rps.rounded())) req/s")
for (outcome, count) in result.outcomes.sorted(by: { $0.key < $1.key }) { print("  \(outcome): \(count)") }
let (peak, retries) = figures()
print("peak in flight: \(peak.map(String.init) ?? "-"), connection retries: \(retries)")
shutdown()
exit(result.outcomes["sent", default: 0] == options.count ? 0 : 1)
