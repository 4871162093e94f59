// `pushwire-bench fanout`: the time one message takes to reach every device of an application,
// measured from outside the server. Registers N devices over RPC (pipelined) unless told to use
// the ones the application holds, sends one message in three languages to all of them, and
// polls GetMessageDetails until it is done; the figure's resolution is the poll interval.
import Glibc
import PushwireClient
import PushwireSystem
import PushwireWire

/// The command line of `pushwire-bench fanout`.
struct FanOutOptions {
    var target = "127.0.0.1:7355"
    /// Devices to register before the clock starts; 0 sends to what the application holds.
    var devices = 0
    var application: String?
    var token: String?
    var adminToken: String?
    var dataDir: String?
    var pollSeconds = 0.02
    var timeoutSeconds = 600.0
    var serverPID: Int32?
    var json = false
    /// `--yes`: see `WriteGuard`.
    var yes = false
    /// `--android-half`: every second registered device is an Android device (an FCM token).
    var androidHalf = false
    /// `--apns TEAM:KEY:TOPIC:P8FILE`: APNs settings of the application the bench creates.
    var apns: (teamID: String, keyID: String, topic: String, p8File: String)?
    /// `--fcm-account FILE`: the service-account key file of the application the bench creates.
    var fcmAccountFile: String?
    /// `--apns-token-pool N`: iOS devices' push tokens cycle over N values (0: each its own).
    var apnsTokenPool = 0
}

let fanOutUsage = """
    pushwire-bench fanout: one message to every device of an application; prints the fan-out time.

    USAGE: pushwire-bench fanout [--devices N] [--application CODE [--token T]] [options]

    OPTIONS:
      --server host:port     server address (default 127.0.0.1:7355; --target is another name)
      --devices N            register N iOS devices (fo-00000000…, languages en/de/fr in turn;
                             every second one Android with --android-half) before the clock
                             starts; 0 (default) uses the devices the application already holds
      --application CODE     the application (default: create one with the admin token)
      --token T              its access token; without it the token is rotated with the admin token
      --admin-token T        the admin token, or
      --data-dir D           pushwired's data directory (reads D/admin-token)
      --poll D               GetMessageDetails interval: the figure's resolution (default 20ms)
      --timeout D            give up after D (default 600s)
      --server-pid P         also report pushwired's RSS before and its peak during the fan-out,
                             and the CPU time it spent on the fan-out
      --android-half         register every second device as Android (an FCM registration
                             token) instead of iOS
      --apns T:K:TOPIC:P8    give the application the bench creates APNs settings: team id,
                             key id, topic and the .p8 file (sandbox)
      --fcm-account FILE     give the application the bench creates this Firebase service
                             account key file
      --apns-token-pool N    iOS devices' push tokens cycle over N values (the hex of 0…N-1), so
                             that a static HTTP/2 server can answer every APNs path from a file;
                             default: each device its own token
      --json                 print the result as JSON
      --yes                  go ahead although it writes into --application CODE (registering
                             devices, rotating its token when --token is not given), or the
                             server holds applications that are not pushwire-bench's
      --help                 this text

    The message has de and fr translations; pushwired's gateway decides where it goes (start it
    with `--sink /dev/null` to measure the fan-out without writing a sink file).
    """

/// Runs the scenario; returns the exit status.
func runFanOut(_ arguments: [String]) -> Int32 {
    let options: FanOutOptions
    do {
        options = try parseFanOutOptions(arguments)
    } catch {
        if error.message.isEmpty {
            print(fanOutUsage)
            return 0
        }
        printError("pushwire-bench fanout: \(error.message)\nsee 'pushwire-bench fanout --help'")
        return 64
    }
    do {
        try FanOutRun(options).run()
        return 0
    } catch {
        printError("pushwire-bench fanout: \(error)")
        return (error as? SetupError)?.usage == true ? 64 : 1
    }
}

func parseFanOutOptions(_ arguments: [String]) throws(UsageError) -> FanOutOptions {
    var options = FanOutOptions()
    var args = FlagScanner(arguments)
    while let flag = args.next() {
        switch flag {
        case "--server", "--target": options.target = try args.value(flag)
        case "--yes": options.yes = true
        case "--devices":
            let text = try args.value(flag)
            guard let n = Int(text), n >= 0 else { throw UsageError(message: "--devices: expected a count, got '\(text)'") }
            options.devices = n
        case "--application": options.application = try args.value(flag)
        case "--token": options.token = try args.value(flag)
        case "--admin-token": options.adminToken = try args.value(flag)
        case "--data-dir": options.dataDir = try args.value(flag)
        case "--poll": options.pollSeconds = try args.seconds(flag, example: "20ms", positive: true)
        case "--timeout": options.timeoutSeconds = try args.seconds(flag, example: "20ms", positive: true)
        case "--server-pid":
            let text = try args.value(flag)
            guard let pid = Int32(text), pid > 0 else { throw UsageError(message: "--server-pid: expected a process id, got '\(text)'") }
            options.serverPID = pid
        case "--json": options.json = true
        case "--android-half": options.androidHalf = true
        case "--apns":
            let text = try args.value(flag)
            let parts = text.split(separator: ":", maxSplits: 3).map(String.init)
            guard parts.count == 4, parts.allSatisfy({ !$0.isEmpty }) else {
                throw UsageError(message: "--apns: expected TEAM:KEY:TOPIC:P8FILE, got '\(text)'")
            }
            options.apns = (parts[0], parts[1], parts[2], parts[3])
        case "--fcm-account": options.fcmAccountFile = try args.value(flag)
        case "--apns-token-pool":
            let text = try args.value(flag)
            guard let n = Int(text), n > 0 else { throw UsageError(message: "--apns-token-pool: expected a positive count, got '\(text)'") }
            options.apnsTokenPool = n
        case "--help", "-h": throw UsageError(message: "")
        default: throw UsageError(message: "unknown option '\(flag)'")
        }
    }
    return options
}

/// One run of the scenario.
struct FanOutRun {
    let options: FanOutOptions

    init(_ options: FanOutOptions) { self.options = options }

    func run() throws {
        let caller = try SetupCaller(target: options.target)
        var plan = ["send one message to every device"]
        if options.devices > 0 { plan.insert("register \(options.devices) devices", at: 0) }
        if options.application != nil && options.token == nil { plan.insert("rotate its access token", at: 0) }
        try WriteGuard.check(plan.joined(separator: ", "), application: options.application, confirmed: options.yes, caller: caller,
                             adminToken: options.application == nil ? try resolveAdminToken(adminOptions()) : nil)
        let (application, token) = try applicationAndToken(caller)
        if options.devices > 0 {
            let start = monotonicNanos()
            try registerDevices(application: application, count: options.devices)
            printError(String(format: "pushwire-bench fanout: registered %d devices in %.1f s", options.devices,
                              Double(monotonicNanos() - start) / 1e9))
        }

        var notification = Notification()
        notification.title = "Shop"
        notification.content = "Your order has shipped"
        notification.localizedContent = [text("de", "Ihre Bestellung ist unterwegs"), text("fr", "Votre commande est partie")]
        var request = CreateMessageRequest()
        request.notifications = [notification]

        let rssBefore = options.serverPID.flatMap { residentKiB($0, field: "VmRSS:") }
        let cpuBefore = options.serverPID.flatMap(cpuSeconds)
        var rssPeak = rssBefore
        let start = monotonicNanos()
        let created = try caller.call(Methods.Messages.createMessage, request, token: token)
        guard let code = created.messageCodes.first else { throw SetupError(description: "CreateMessage returned no code") }
        var details = GetMessageDetailsRequest()
        details.messageCode = code
        var last = GetMessageDetailsResponse()
        var polls = 0
        let deadline = start + UInt64(options.timeoutSeconds * 1e9)
        while true {
            last = try caller.call(Methods.Messages.getMessageDetails, details, token: token)
            polls += 1
            if let pid = options.serverPID, let rss = residentKiB(pid, field: "VmRSS:") { rssPeak = max(rssPeak ?? 0, rss) }
            if last.status == .done || last.status == .cancelled { break }
            if monotonicNanos() > deadline { throw SetupError(description: "not done after \(options.timeoutSeconds) s: \(last.sent) sent") }
            usleep(UInt32(options.pollSeconds * 1e6))
        }
        let seconds = Double(monotonicNanos() - start) / 1e9
        let cpu = options.serverPID.flatMap(cpuSeconds).flatMap { after in cpuBefore.map { after - $0 } }
        report(code: code, seconds: seconds, details: last, polls: polls, rssBefore: rssBefore, rssPeak: rssPeak, serverCPU: cpu)
    }

    private func report(code: String, seconds: Double, details: GetMessageDetailsResponse, polls: Int, rssBefore: Int?, rssPeak: Int?,
                        serverCPU: Double?) {
        let rate = seconds > 0 ? Double(details.sent) / seconds : 0
        let growthMiB = rssBefore.flatMap { before in rssPeak.map { Double(max(0, $0 - before)) / 1024 } }
        if options.json {
            var fields = [
                "\"message_code\":\"\(code)\"", "\"targeted\":\(details.targeted)", "\"sent\":\(details.sent)",
                "\"failed\":\(details.failed)", String(format: "\"seconds\":%.3f", seconds),
                String(format: "\"resolution_seconds\":%.3f", options.pollSeconds), String(format: "\"devices_per_second\":%.0f", rate),
                "\"polls\":\(polls)",
                // The reasons, so that a run whose deliveries failed says why.
                "\"failures\":{" + details.failures.map { "\(jsonQuoted($0.reason)):\($0.count)" }.joined(separator: ",") + "}",
            ]
            if let rssBefore, let growthMiB {
                fields.append("\"rss_before_mib\":\(rssBefore / 1024)")
                fields.append(String(format: "\"rss_growth_mib\":%.1f", growthMiB))
            }
            if let serverCPU { fields.append(String(format: "\"server_cpu_seconds\":%.2f", serverCPU)) }
            print("{" + fields.joined(separator: ",") + "}")
            return
        }
        print("Fan-out of message \(code):")
        print("  Targeted:     \(details.targeted)")
        print("  Sent:         \(details.sent) (failed \(details.failed))")
        print(String(format: "  Time:         %.3f s (± %.0f ms: the poll interval)", seconds, options.pollSeconds * 1000))
        print(String(format: "  Devices/sec:  %.0f", rate))
        if let rssBefore, let growthMiB {
            print(String(format: "  Server RSS:   %d MiB before, grew by %.1f MiB at most (sampled at each poll)", rssBefore / 1024, growthMiB))
        }
        if let serverCPU, details.sent > 0 {
            print(String(format: "  Server CPU:   %.2f s (%.1f µs per device sent)", serverCPU, serverCPU * 1e6 / Double(details.sent)))
        }
    }

    /// The application and its access token: given, rotated with the admin token, or created.
    private func applicationAndToken(_ caller: SetupCaller) throws -> (String, String) {
        if let application = options.application, let token = options.token { return (application, token) }
        guard let admin = try resolveAdminToken(adminOptions()) else {
            throw SetupError(description: "give --application CODE --token T, or --admin-token T / --data-dir D")
        }
        if let application = options.application {
            var update = UpdateApplicationRequest()
            update.application = application
            update.rotateAccessToken = true
            let updated = try caller.call(Methods.Admin.updateApplication, update, token: admin)
            return (application, updated.accessToken)
        }
        var create = CreateApplicationRequest()
        create.name = "fanout-bench"
        if let apns = options.apns {
            var settings = ApnsSettings()
            settings.teamID = apns.teamID
            settings.keyID = apns.keyID
            settings.topic = apns.topic
            settings.privateKeyP8 = try readText(apns.p8File, flag: "--apns")
            settings.environment = .sandbox
            create.apns = settings
        }
        if let file = options.fcmAccountFile {
            var settings = FcmSettings()
            settings.serviceAccountJSON = try readText(file, flag: "--fcm-account")
            create.fcm = settings
        }
        let created = try caller.call(Methods.Admin.createApplication, create, token: admin)
        guard let code = created.application?.code else { throw SetupError(description: "CreateApplication returned no application") }
        return (code, created.accessToken)
    }

    private func adminOptions() -> Options {
        var admin = Options()
        admin.adminToken = options.adminToken
        admin.dataDir = options.dataDir
        return admin
    }

    /// RegisterDevice of `count` devices on one connection, 256 in flight.
    private func registerDevices(application: String, count: Int) throws {
        let connection = try PipelinedConnection(target: options.target)
        let languages = ["en", "de", "fr"]
        var next = 0, answered = 0, failed = 0
        var lastError = ""
        while answered < count {
            var out: [UInt8] = []
            while next < count, next - answered < 256 {
                var request = RegisterDeviceRequest()
                request.application = application
                request.hwid = hwid(next)
                let android = options.androidHalf && next % 2 == 1
                request.pushToken = android ? fcmToken(next) : hexToken(options.apnsTokenPool > 0 ? next % options.apnsTokenPool : next)
                request.deviceType = android ? .android : .ios
                request.language = languages[next % 3]
                request.appVersion = "1.0"
                let bytes = HotFrames.requestMessage(method: Methods.Devices.registerDevice.path, timeoutMS: 60_000, metadata: [],
                                                     message: request.encode())
                HotFrames.appendRequestFrame(callID: UInt32(truncatingIfNeeded: next + 1), request: bytes, to: &out)
                next += 1
            }
            if !out.isEmpty { try connection.send(out) }
            let (code, message) = try connection.nextResponseStatus()
            if code != 0 {
                failed += 1
                lastError = message
            }
            answered += 1
        }
        if failed > 0 { throw SetupError(description: "\(failed) of \(count) registrations failed, the last: \(lastError)") }
    }

    private func hwid(_ index: Int) -> String {
        let digits = String(index)
        return "fo-" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }

    /// An FCM registration token's shape: a colon, then URL-safe base64 (about 160 characters).
    private func fcmToken(_ index: Int) -> String {
        "fo\(index):APA91b" + String(repeating: "x", count: 140)
    }

    /// A small file's text (a key), or a usage error naming `flag`.
    private func readText(_ path: String, flag: String) throws -> String {
        guard let file = fopen(path, "r") else { throw SetupError(description: "\(flag): cannot open \(path)") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            if n <= 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
            if bytes.count > 1 << 20 { throw SetupError(description: "\(flag): \(path) is over 1 MiB") }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func hexToken(_ index: Int) -> String {
        let digits = String(index, radix: 16)
        return String(repeating: "0", count: max(0, 64 - digits.count)) + digits
    }

    private func text(_ language: String, _ value: String) -> LocalizedText {
        var localized = LocalizedText()
        localized.language = language
        localized.text = value
        return localized
    }
}

/// A connection that sends many requests before reading their answers.
final class PipelinedConnection {
    private let fd: Int32
    private var input: [UInt8] = []
    private var offset = 0
    private var prefaceSeen = false

    init(target: String) throws {
        fd = try Syscall.connect(to: target, timeout: .seconds(10))
        try send(WireProtocol.preface)
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in try Syscall.sendAll(fd, raw) }
    }

    /// The status code and message of the next response frame (other frames are skipped).
    func nextResponseStatus() throws -> (UInt32, String) {
        while true {
            let frame = try nextFrame()
            if case .response(let response) = frame.kind {
                return (response.status?.code ?? 0, response.status?.message ?? "")
            }
        }
    }

    private func nextFrame() throws -> Frame {
        let preface = WireProtocol.preface
        while true {
            let available = input.count - offset
            if !prefaceSeen, available >= preface.count {
                guard Array(input[offset..<offset + preface.count]) == preface else { throw SetupError(description: "bad preface") }
                offset += preface.count
                prefaceSeen = true
                continue
            }
            if prefaceSeen, available >= 4 {
                let length = Int(input[offset]) << 24 | Int(input[offset + 1]) << 16 | Int(input[offset + 2]) << 8 | Int(input[offset + 3])
                if available >= 4 + length {
                    let body = Array(input[offset + 4..<offset + 4 + length])
                    offset += 4 + length
                    return try Frame(decoding: body)
                }
            }
            if offset > 0 {
                input.removeFirst(offset)
                offset = 0
            }
            var chunk = [UInt8](repeating: 0, count: 256 << 10)
            let n = try chunk.withUnsafeMutableBytes { raw in try Syscall.blockingRead(fd, into: raw) }
            guard n > 0 else { throw SetupError(description: "connection closed") }
            input.append(contentsOf: chunk[0..<n])
        }
    }
}

/// A process's user + system CPU time in seconds (/proc/PID/stat), or nil.
func cpuSeconds(_ pid: Int32) -> Double? {
    guard let file = fopen("/proc/\(pid)/stat", "r") else { return nil }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 1024)
    guard fgets(&line, Int32(line.count), file) != nil else { return nil }
    let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    guard let close = text.lastIndex(of: ")") else { return nil }
    let fields = text[text.index(after: close)...].split(separator: " ")
    // fields[0] is the state (field 3): utime and stime are fields 14 and 15.
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// `text` as a JSON string (quotes, backslashes and control characters escaped).
func jsonQuoted(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case _ where scalar.value < 0x20: out += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}

/// A field of /proc/PID/status in KiB (VmRSS:, VmHWM:), or nil.
func residentKiB(_ pid: Int32, field: String) -> Int? {
    guard let file = fopen("/proc/\(pid)/status", "r") else { return nil }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix(field) {
            return Int(text.dropFirst(field.count).split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first ?? "")
        }
    }
    return nil
}
