// pushwired: parses its arguments, builds the server configuration and runs the server.
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import PushwireAPNs
import PushwireDelivery
import PushwireConsole
import PushwireOpenSSL
import PushwirePushwoosh
import PushwireRuntime
import PushwirePostgresStore
import PushwireService
import PushwireSQLiteStore
import PushwireStore
import PushwireWire

/// Writes `text` to stdout and flushes, so a parent reading a pipe sees it at once.
func printLine(_ text: String) {
    let bytes = Array((text + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { raw -> Int in
            guard let base = raw.baseAddress else { return 0 }
            return write(1, base + offset, raw.count - offset)
        }
        if written <= 0 { break }
        offset += written
    }
}

func printError(_ text: String) {
    let bytes = Array((text + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

/// The environment variables pushwired reads (only PUSHWIRE_DATABASE_URL).
func databaseURLEnvironment() -> [String: String] {
    guard let value = getenv("PUSHWIRE_DATABASE_URL") else { return [:] }
    return ["PUSHWIRE_DATABASE_URL": String(cString: value)]
}

keepOpenSSLUntilExit()

// `pushwired backup …` and `pushwired restore …` (BackupCommand.swift) run and exit.
if CommandLine.arguments.count > 1, ["backup", "restore"].contains(CommandLine.arguments[1]) {
    exit(BackupCommand.run(CommandLine.arguments[1], Array(CommandLine.arguments.dropFirst(2))))
}

let command: Options.Command
do {
    command = try Options.parse(Array(CommandLine.arguments.dropFirst()), environment: databaseURLEnvironment(),
                                readFile: readTextFile)
} catch {
    printError("pushwired: \(error.message)\nsee 'pushwired --help'")
    exit(64)
}

switch command {
case .help:
    printLine(Options.usage)
    exit(0)
case .version:
    printLine("pushwired \(PushwireVersion.current)")
    exit(0)
case .check(let options):
    // No server, no logger: the findings on stdout, problems on stderr, the verdict in the status.
    do {
        let report = try SQLiteStore.check(dataDirectory: options.dataDirectory)
        if report.isWhole {
            printLine("\(report.path): ok (\(report.pages) pages checked)")
            exit(0)
        }
        printError("\(report.path): damaged (\(report.problems.count) problems found):")
        for problem in report.problems.prefix(100) { printError("  \(problem)") }
        exit(1)
    } catch {
        printError("pushwired: \(error.description)")
        exit(1)
    }
case .run(let options):
    let logger = Logger(label: "pushwired", level: options.logLevel, format: options.logFormat)
    let adminToken: String
    var generatedAdminToken = false
    if let given = options.adminToken {
        adminToken = given
    } else {
        do {
            (adminToken, generatedAdminToken) = try AdminToken.load(dataDirectory: options.dataDirectory)
        } catch {
            logger.critical("cannot set up the admin token", ["error": error.description])
            exit(1)
        }
    }
    var configuration = options.configuration
    if let certificate = options.tlsCertificateFile, let key = options.tlsKeyFile {
        // Loaded before anything starts: a pair that does not load is a reason not to start.
        do {
            configuration.tls = try TLSServerContext(certificateFile: certificate, keyFile: key, clientCAFile: options.tlsClientCAFile,
                                                     handshakeTimeout: options.tlsHandshakeTimeout)
        } catch {
            logger.critical("cannot load the TLS certificate", ["error": error.description])
            exit(1)
        }
    }
    if options.tlsClientCAFile != nil {
        // docs/DEPLOYMENT.md: the admin token alone no longer opens the Admin service.
        configuration.clientCertificateServices = ["pushwire.v1.Admin"]
    }
    let tls = configuration.tls
    let server = Server(configuration: configuration, logger: logger)
    do {
        // First, before any thread starts (the store's, the loops'): every thread inherits the
        // blocked signal mask, so SIGTERM and SIGINT reach only the server's signal watcher.
        try server.handleTerminationSignals()
        // SIGHUP: logrotate moved the sink file away; new lines go to a new file at its path.
        try server.handleHangUp {
            if let tls {
                // New handshakes take the new pair; open connections keep the one they started on.
                do {
                    try tls.reload()
                    logger.notice("SIGHUP: reloaded the TLS certificate and key", ["cert": tls.certificateFile])
                } catch {
                    logger.error("SIGHUP: cannot reload the TLS certificate; keeping the old one", ["error": "\(error)"])
                }
            }
            let failures = FileSinkGateway.reopenAll()
            if failures.isEmpty {
                logger.notice("SIGHUP: reopened the sink files")
            } else {
                for failure in failures { logger.error("SIGHUP: cannot reopen a sink file", ["error": failure.description]) }
            }
        }
    } catch {
        logger.critical("cannot watch signals", ["error": "\(error)"])
        exit(1)
    }
    // Freed memory goes back to the kernel within a second (jemalloc's own thread purges it),
    // after the signal mask above so that its thread inherits it too.
    let allocatorProblem = Allocator.configure()
    FileSinkGateway.defaultRotation.withLock { $0 = options.sinkRotation }
    // A CA file that cannot be read or holds no certificate OpenSSL can load would fail every APNs
    // connection later, one message at a time; refuse to start instead.
    for (service, file) in [("APNs", options.apnsCAFile), ("FCM", options.fcmCAFile)] {
        guard let caFile = file else { continue }
        do {
            try APNsConfiguration.checkCAFile(caFile)
        } catch {
            logger.critical("cannot load the \(service) CA file", ["path": caFile, "error": "\(error)"])
            exit(1)
        }
    }
    // SQLite's own reports (a log recovered at open, corruption, I/O errors) become log lines:
    // installed before the store opens, the only time SQLite takes it.
    SQLiteDiagnostics.install { level, message in
        switch level {
        case .notice: logger.notice(message)
        case .warning: logger.warning(message)
        case .error: logger.error(message)
        }
    }
    // The engine: PostgreSQL when a database URL is given, else SQLite in the data directory
    // (opening it takes the directory's lock: a second pushwired, or a restore, is refused).
    // The services see only the store protocols.
    let store: any PushwireStore & MessageStore
    do {
        if let url = options.databaseURL {
            // The data directory still holds the sink (and the generated admin token).
            if mkdir(options.dataDirectory, 0o700) != 0 && errno != EEXIST {
                logger.critical("cannot create the data directory",
                                ["path": options.dataDirectory, "error": String(cString: strerror(errno))])
                exit(1)
            }
            let postgres = try PostgresStore(url: url)
            logger.info("store", ["engine": "postgresql", "database": postgres.location])
            store = postgres
        } else {
            store = try SQLiteStore(dataDirectory: options.dataDirectory)
        }
    } catch {
        logger.critical(options.databaseURL == nil ? "cannot open the data directory" : "cannot open the database",
                        ["error": error.description])
        exit(1)
    }
    let sinkPath = options.sinkPath ?? options.dataDirectory + "/" + MessagesService.defaultSinkFileName
    let apnsURL = options.apnsURL, apnsCAFile = options.apnsCAFile, fcmURL = options.fcmURL, fcmCAFile = options.fcmCAFile
    var delivery = DeliveryPipeline.Configuration()
    delivery.leaseDuration = options.outboxLease
    delivery.sharedBatchDevices = options.fanOutBatchDevices
    delivery.maxCachedMessageBytes = options.deliveryCacheBytes
    let deliveryConfiguration = delivery
    // The gateways are this composition root's choice, as the store engine is.
    let gateways: DeliveryGateways
    do {
        gateways = try makeDeliveryGateways(sinkPath: sinkPath, apns: APNsConfiguration(baseURLOverride: apnsURL, caFile: apnsCAFile),
                                            fcm: APNsConfiguration(baseURLOverride: fcmURL, caFile: fcmCAFile))
    } catch {
        store.close()
        logger.critical("cannot open the sink file", ["error": error.description])
        exit(1)
    }
    let services: PushwireServices
    switch waitForStartup({ () async throws(ServicesStartupError) in
        try await PushwireServices(store: store, adminToken: adminToken, gateways: gateways, delivery: deliveryConfiguration)
    }) {
    case .success(let started):
        services = started
    case .failure(let error):
        logger.critical("cannot open \(error.what)", ["error": error.description])
        exit(1)
    }
    services.register(on: server)
    services.registerOperations(on: server)
    #if !PUSHWIRE_SYSTEM_MALLOC
    server.addMetricsCollector { out in Allocator.collectMetrics(&out) }
    #endif
    PushwooshAPI.register(on: server)
    Console.register(on: server)
    services.registry.log.use(logger)
    let registry = services.registry
    server.describeCalls { method, metadata, message in registry.describeCall(method: method, metadata: metadata, message: message) }
    do {
        let address = try server.start()
        logger.info("memory allocator", ["allocator": Allocator.description])
        if let allocatorProblem { logger.warning("memory allocator: could not set", ["settings": allocatorProblem]) }
        if generatedAdminToken {
            try AdminToken.save(adminToken, dataDirectory: options.dataDirectory)
            let path = options.dataDirectory + "/admin-token"
            logger.notice("generated an admin token", ["path": path])
            // Shown to a person at a terminal; under systemd stdout is the journal, where a
            // secret does not belong.
            printLine(isatty(1) == 1 ? "admin token: \(adminToken) (kept in \(path))" : "admin token written to \(path)")
        }
        // Tokens and device data would cross the network readable by anyone on the path.
        if tls == nil, !address.isLoopback {
            logger.warning("listening in clear text on a non-loopback address; use --tls-cert and --tls-key", ["address": address.description])
        }
        if let plaintext = server.plaintextAddress, !plaintext.isLoopback {
            logger.warning("--plaintext-listen is a non-loopback address: its calls cross the network in clear text",
                           ["address": plaintext.description])
        }
        if tls == nil, let http = server.httpAddress, !http.isLoopback {
            logger.warning("the HTTP door listens in clear text on a non-loopback address; use --tls-cert and --tls-key",
                           ["address": http.description])
        }
        if let plaintext = server.httpPlaintextAddress, !plaintext.isLoopback {
            logger.warning("--http-plaintext-listen is a non-loopback address: its requests cross the network in clear text",
                           ["address": plaintext.description])
        }
        printLine("listening on \(address)")
        if let plaintext = server.plaintextAddress { printLine("plaintext listening on \(plaintext)") }
        SystemdNotify.send("READY=1\nSTATUS=listening on \(address)\nMAINPID=\(getpid())")
        if let http = server.httpAddress { printLine("HTTP listening on \(http)") }
        if let plaintext = server.httpPlaintextAddress { printLine("HTTP plaintext listening on \(plaintext)") }
    } catch {
        logger.critical("cannot start", ["error": "\(error)", "listen": options.configuration.listen.description])
        exit(1)
    }
    server.waitUntilStopped()
    // The pipeline gives its leases up before the store closes (bounded: a gateway that hangs
    // does not hold the exit; those leases then expire as after a crash).
    let deliveryStopped = DispatchSemaphore(value: 0)
    // Detached: a task made here would inherit the main actor, whose thread waits below.
    Task.detached {
        await services.stopDelivery()
        deliveryStopped.signal()
    }
    if deliveryStopped.wait(timeout: .now() + .seconds(10)) == .timedOut {
        logger.warning("delivery did not stop within 10 s; its leases expire by themselves")
    }
    services.close()
    exit(0)
}
