import Glibc
import PushwireClient
import PushwireSystem
import PushwireWire

/// What the `register` and `sync` scenarios need from the server, found before the clock starts.
struct BenchSetup {
    /// The application's code.
    var application: String
    /// Its access token, when known (given, or returned by CreateApplication).
    var token: String?
    /// Its categories version, as SyncCategories answered at setup.
    var categoriesVersion: UInt64
}

/// A failed setup step: printed, exit status 1.
struct SetupError: Error, CustomStringConvertible {
    var description: String
    /// A refusal the command line can lift (`--yes`): exit status 64 rather than 1.
    var usage = false
}

/// A blocking one-call-at-a-time connection for the few setup calls, made with the generated
/// wrappers: it runs once before the measurement, so its speed does not matter.
final class SetupCaller {
    private let fd: Int32
    private var input: [UInt8] = []
    private var prefaceSeen = false
    private var nextCallID: UInt32 = 1

    init(target: String) throws(SetupError) {
        do {
            fd = try Syscall.connect(to: target, timeout: .seconds(10))
        } catch {
            throw SetupError(description: "setup: \(error)")
        }
        let preface = WireProtocol.preface
        guard (try? preface.withUnsafeBytes({ bytes in try Syscall.sendAll(fd, bytes) })) != nil else {
            throw SetupError(description: "setup: write failed")
        }
    }

    deinit { close(fd) }

    /// Calls `method` with `request`, returns the decoded response or throws the call's status.
    func call<Req: WireMessage, Resp: WireMessage>(_ method: MethodDescriptor<Req, Resp>, _ request: Req, token: String?) throws(SetupError) -> Resp {
        let callID = nextCallID
        nextCallID += 1
        var metadata: [(key: String, value: String)] = []
        if let token { metadata.append(("authorization", "Bearer \(token)")) }
        let requestBytes = HotFrames.requestMessage(method: method.path, timeoutMS: 10_000, metadata: metadata, message: request.encode())
        var out: [UInt8] = []
        HotFrames.appendRequestFrame(callID: callID, request: requestBytes, to: &out)
        guard (try? out.withUnsafeBytes({ bytes in try Syscall.sendAll(fd, bytes) })) != nil else {
            throw SetupError(description: "\(method.path): write failed")
        }
        while true {
            let frame = try readFrame(method.path)
            guard frame.callID == callID, case .response(let response) = frame.kind else { continue }
            let code = response.status?.code ?? 0
            guard code == 0 else {
                let status = StatusCode(wireValue: code).name
                throw SetupError(description: "\(method.path): \(status): \(response.status?.message ?? "")")
            }
            do {
                return try Resp(decoding: response.message)
            } catch {
                throw SetupError(description: "\(method.path): undecodable response: \(error)")
            }
        }
    }

    /// Reads until one whole frame is buffered (after the server's preface) and decodes it.
    private func readFrame(_ what: String) throws(SetupError) -> Frame {
        let preface = WireProtocol.preface
        while true {
            if !prefaceSeen, input.count >= preface.count {
                guard Array(input[0..<preface.count]) == preface else { throw SetupError(description: "\(what): bad preface") }
                input.removeFirst(preface.count)
                prefaceSeen = true
            }
            if prefaceSeen, input.count >= 4 {
                let length = Int(input[0]) << 24 | Int(input[1]) << 16 | Int(input[2]) << 8 | Int(input[3])
                if input.count >= 4 + length {
                    let body = Array(input[4..<4 + length])
                    input.removeFirst(4 + length)
                    do {
                        return try Frame(decoding: body)
                    } catch {
                        throw SetupError(description: "\(what): malformed frame: \(error)")
                    }
                }
            }
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            let n = (try? chunk.withUnsafeMutableBytes { raw in try Syscall.blockingRead(fd, into: raw) }) ?? -1
            guard n > 0 else { throw SetupError(description: "\(what): connection closed") }
            input.append(contentsOf: chunk[0..<n])
        }
    }
}

/// The admin token: `--admin-token`, else `<data-dir>/admin-token`; nil when neither is given.
func resolveAdminToken(_ options: Options) throws(SetupError) -> String? {
    if let token = options.adminToken { return token }
    guard let dir = options.dataDir else { return nil }
    let path = dir + "/admin-token"
    guard let file = fopen(path, "r") else {
        throw SetupError(description: "--data-dir: cannot read \(path): \(String(cString: strerror(errno)))")
    }
    defer { fclose(file) }
    var buffer = [CChar](repeating: 0, count: 512)
    guard fgets(&buffer, Int32(buffer.count), file) != nil else { throw SetupError(description: "\(path) is empty") }
    let token = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        .trimmingWhitespace()
    guard !token.isEmpty else { throw SetupError(description: "\(path) is empty") }
    return token
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }
        return String(self.drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}

/// Finds or creates the application the scenarios use, and reads its categories version once.
/// Prints what it created on standard error.
func prepareApplication(_ options: Options) throws(SetupError) -> BenchSetup {
    let caller = try SetupCaller(target: options.target)
    var application = options.application
    var token = options.token
    if let plan = writePlan(options) {
        try WriteGuard.check(plan, application: application, confirmed: options.yes, caller: caller,
                             adminToken: application == nil ? try resolveAdminToken(options) : nil)
    }
    if application == nil {
        guard let admin = try resolveAdminToken(options) else {
            throw SetupError(description: "\(options.scenarioName): give --application CODE [--token T], or --admin-token T / --data-dir D to create one")
        }
        let name = "pushwire-bench \(benchRunID)"
        let created = try caller.call(Methods.Admin.createApplication, CreateApplicationRequest(name: name), token: admin)
        application = created.application?.code
        token = created.accessToken
        printError("pushwire-bench: created application \(created.application?.code ?? "?") '\(name)' with access token \(created.accessToken)")
    }
    guard let application, !application.isEmpty else { throw SetupError(description: "CreateApplication returned no code") }
    let sync = try caller.call(Methods.Devices.syncCategories, SyncCategoriesRequest(application: application, knownVersion: 0), token: token)
    return BenchSetup(application: application, token: token, categoriesVersion: sync.version)
}

/// What the scenario writes besides its application, for `WriteGuard`; nil when it writes nothing.
func writePlan(_ options: Options) -> String? {
    var parts: [String] = []
    for (kind, _) in options.kinds {
        switch kind {
        case .register(let pool?): parts.append("register \(pool) devices")
        case .register(nil): parts.append("register a new device per call (named <n>-bench-\(benchRunID))")
        case .send: parts.append("create a message per call")
        case .ping, .unary, .sync: break
        }
    }
    return parts.isEmpty ? nil : parts.joined(separator: " and ")
}

/// This run's id: 8 hex digits that differ between runs, so `register` makes new hwids each run.
let benchRunID = makeRunID()

/// 8 hex digits from the clock and the pid.
func makeRunID() -> String {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    let mixed = (UInt64(ts.tv_sec) &* 1_000_000_007) ^ UInt64(ts.tv_nsec) ^ (UInt64(getpid()) << 20)
    return String(PatchableRequest.text(mixed).suffix(8))
}
