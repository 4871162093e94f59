// `pushwire-bench fanout`: the time one message takes to reach every device of an application,
// measured from outside the server. Registers N devices over RPC (pipelined) unless told to use
// the ones the application holds, sends one message in three languages to all of them, and
// polls GetMessageDetails until it is done; the figure's resolution is the poll interval.
import Glibc
import PushwireClient
import PushwireSystem
import PushwireWire

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
