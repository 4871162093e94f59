// The command line of `pushwire-bench fanout` (the scenario itself: FanOutScenario.swift).
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
        case "--server", "--target":
            let (address, tls) = try args.serverAddress(flag)
            guard !tls else { throw UsageError(message: "\(flag): fanout speaks clear text only (no pwires://)") }
            options.target = address
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
