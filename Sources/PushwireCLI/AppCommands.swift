import Foundation
import PushwireClient
import PushwireWire

/// `pushwire app create|list|update`: applications, with the admin token.
enum AppCommands {
    private static let apnsOptions: Set<String> = ["--apns-team-id", "--apns-key-id", "--apns-topic", "--apns-key-file", "--apns-environment"]

    /// Turns the options of `app <subcommand>` into its request.
    /// - Throws: `UsageError` (exit 64) for a missing, repeated, unknown or malformed option.
    static func parse(_ subcommand: String, _ scanned: ScannedArguments, command: String) throws(UsageError) -> GroupCommand {
        switch subcommand {
        case "create":
            try scanned.allow(apnsOptions.union(["--name", "--fcm-service-account"]), command: command)
            _ = try scanned.positionals([], command: command)
            var request = CreateApplicationRequest()
            request.name = try scanned.required("--name", command: command)
            request.apns = try apns(scanned, command: command)
            request.fcm = try fcm(scanned, command: command)
            return .createApplication(request)
        case "list":
            try scanned.allow([], command: command)
            _ = try scanned.positionals([], command: command)
            return .listApplications
        default:
            try scanned.allow(apnsOptions.union(["--name", "--rotate-token", "--clear-apns", "--fcm-service-account", "--clear-fcm"]),
                              command: command)
            var request = UpdateApplicationRequest()
            request.application = try scanned.positionals(["<code>"], command: command)[0]
            request.name = try scanned.value("--name", command: command) ?? ""
            request.apns = try apns(scanned, command: command)
            request.clearApns = scanned.switches.contains("--clear-apns")
            request.rotateAccessToken = scanned.switches.contains("--rotate-token")
            request.fcm = try fcm(scanned, command: command)
            request.clearFcm = scanned.switches.contains("--clear-fcm")
            if request.apns != nil && request.clearApns {
                throw UsageError(message: "--clear-apns cannot be combined with APNs settings", command: command)
            }
            if request.fcm != nil && request.clearFcm {
                throw UsageError(message: "--clear-fcm cannot be combined with --fcm-service-account", command: command)
            }
            if request.name.isEmpty && request.apns == nil && !request.clearApns && !request.rotateAccessToken
                && request.fcm == nil && !request.clearFcm {
                throw UsageError(message: "nothing to change: give --name, --rotate-token, --clear-apns, --clear-fcm, APNs settings or --fcm-service-account",
                                 command: command)
            }
            return .updateApplication(request)
        }
    }

    /// The FCM settings from `--fcm-service-account <file.json>` (a Firebase service account's
    /// key file, sent as it is; the server checks it), or none.
    private static func fcm(_ scanned: ScannedArguments, command: String) throws(UsageError) -> FcmSettings? {
        guard let file = try scanned.value("--fcm-service-account", command: command) else { return nil }
        var settings = FcmSettings()
        settings.serviceAccountJSON = try ValueSyntax.readFile(file, option: "--fcm-service-account", command: command)
        return settings
    }

    /// The APNs settings from the flags: none, or all of team id, key id, topic and key file
    /// (the server replaces settings as a whole, so a partial set would lose the rest).
    private static func apns(_ scanned: ScannedArguments, command: String) throws(UsageError) -> ApnsSettings? {
        guard scanned.flags.contains(where: { apnsOptions.contains($0.name) }) else { return nil }
        var settings = ApnsSettings()
        settings.teamID = try scanned.required("--apns-team-id", command: command)
        settings.keyID = try scanned.required("--apns-key-id", command: command)
        settings.topic = try scanned.required("--apns-topic", command: command)
        let keyFile = try scanned.required("--apns-key-file", command: command)
        settings.privateKeyP8 = try ValueSyntax.readFile(keyFile, option: "--apns-key-file", command: command)
        switch try scanned.value("--apns-environment", command: command) ?? "production" {
        case "sandbox", "development": settings.environment = .sandbox
        case "production": settings.environment = .production
        case let other: throw UsageError(message: "--apns-environment expects sandbox or production, got '\(other)'", command: command)
        }
        return settings
    }

    /// Calls the server and prints the result (one JSON line with `--json`).
    /// - Throws: `CommandFailure` (exit 1) with the call's status.
    static func run(_ operation: GroupCommand, session: Session, adminToken: String) async throws(CommandFailure) {
        let json = session.options.json
        switch operation {
        case .createApplication(let request):
            let response = try await session.call(Methods.Admin.createApplication, request, token: adminToken)
            if json { return Session.printJSON(response) }
            print("created application \(response.application?.code ?? "?") (\(response.application?.name ?? request.name))")
            print("access token: \(response.accessToken)")
            print("The access token is shown only once: store it now (pass it as --token or $PUSHWIRE_TOKEN).")
        case .listApplications:
            let response = try await session.call(Methods.Admin.listApplications, ListApplicationsRequest(), token: adminToken)
            if json { return Session.printJSON(response) }
            if response.applications.isEmpty { print("no applications") }
            for application in response.applications {
                print(describe(application))
            }
        case .updateApplication(let request):
            let response = try await session.call(Methods.Admin.updateApplication, request, token: adminToken)
            if json { return Session.printJSON(response) }
            if let application = response.application { print("updated " + describe(application)) }
            if !response.accessToken.isEmpty {
                print("new access token: \(response.accessToken)")
                print("The old token no longer works; the new one is shown only once: store it now.")
            }
        default:
            break
        }
    }

    /// `A1B2C-3D4E5  My app  apns: sandbox com.example.app (key stored)  categories v3`.
    private static func describe(_ application: Application) -> String {
        var line = "\(application.code)  \(application.name)"
        if let apns = application.apns {
            let environment = apns.environment == .sandbox ? "sandbox" : "production"
            line += "  apns: \(environment) \(apns.topic) team \(apns.teamID) key \(apns.keyID)\(application.hasApnsKey ? "" : " (no key)")"
        } else {
            line += "  apns: none (file sink)"
        }
        return line + "  categories v\(application.categoriesVersion)"
    }
}
