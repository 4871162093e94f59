import PushwireWire

/// A group command (`app`, `device`, `category`, `message`, `demo`) parsed down to the request it
/// sends, so that tests can check flags → request without a server.
enum GroupCommand: Equatable {
    case createApplication(CreateApplicationRequest)
    case listApplications
    case updateApplication(UpdateApplicationRequest)
    case registerDevice(RegisterDeviceRequest)
    /// `device track`: an open or a button tap, as a device reports it.
    case trackAction(TrackActionRequest)
    case unregisterDevice(UnregisterDeviceRequest)
    /// `device tags` with changes.
    case setTags(SetTagsRequest)
    /// `device tags` without changes: shows the tags.
    case getTags(GetTagsRequest)
    /// `device get`: the application's view of one device (access token).
    case getDevice(GetDeviceRequest)
    case upsertCategory(UpsertCategoryRequest)
    case deleteCategory(DeleteCategoryRequest)
    case listCategories
    case syncCategories(SyncCategoriesRequest)
    case createMessage(CreateMessageRequest)
    /// `message send --category NAME`: the id is looked up (ListCategories) before sending.
    case createMessageNamingCategory(CreateMessageRequest, category: String)
    case getMessageDetails(GetMessageDetailsRequest)
    case deleteMessage(DeleteMessageRequest)
    case demo

    /// The group commands and their subcommands, for dispatch and `--help`.
    static let groups: [String: [String]] = [
        "app": ["create", "list", "update"],
        "device": ["register", "track", "unregister", "tags", "get"],
        "category": ["upsert", "delete", "list", "sync"],
        "message": ["send", "details", "cancel", "delete"],
        "demo": [],
    ]

    /// The global options that take a value; skipped when looking for the command name.
    private static let globalValueOptions: Set<String> = ["--server", "-s", "--token", "--timeout", "--admin-token", "--data-dir", "--ca-file", "--server-name", "--client-cert", "--client-key"]

    /// The group named by `arguments`, if its first word is one.
    static func group(in arguments: [String]) -> String? {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if globalValueOptions.contains(argument) {
                index += 2
                continue
            }
            if argument.hasPrefix("-") {
                index += 1
                continue
            }
            return groups[argument] == nil ? nil : argument
        }
        return nil
    }

    /// Parses a group command line (without the program name).
    static func parse(_ arguments: [String], options: inout GlobalOptions) throws(UsageError) -> Invocation.Command {
        let scanned = try OptionScanner.scan(arguments, options: &options)
        guard let group = scanned.words.first, let subcommands = groups[group] else {
            throw UsageError(message: "missing command", command: nil)
        }
        if group == "demo" {
            if scanned.wantsHelp { return .help(topic: "demo") }
            try scanned.allow([], command: "demo")
            if scanned.words.count > 1 { throw UsageError(message: "unexpected argument '\(scanned.words[1])'", command: "demo") }
            return .operation(.demo)
        }
        guard scanned.words.count >= 2 else {
            if scanned.wantsHelp { return .help(topic: group) }
            throw UsageError(message: "missing subcommand: \(subcommands.joined(separator: ", "))", command: group)
        }
        let subcommand = scanned.words[1]
        guard subcommands.contains(subcommand) else {
            throw UsageError(message: "unknown command '\(group) \(subcommand)'", command: group)
        }
        let command = "\(group) \(subcommand)"
        if scanned.wantsHelp { return .help(topic: command) }
        let operation: GroupCommand
        switch group {
        case "app": operation = try AppCommands.parse(subcommand, scanned, command: command)
        case "device": operation = try DeviceCommands.parse(subcommand, scanned, command: command)
        case "category": operation = try CategoryCommands.parse(subcommand, scanned, command: command)
        default: operation = try MessageCommands.parse(subcommand, scanned, command: command)
        }
        try operation.checkCredentials(options, command: command)
        return .operation(operation)
    }

    /// Category and message methods (and `device get`) need the application's access token; saying so before
    /// connecting beats an UNAUTHENTICATED from the server.
    private func checkCredentials(_ options: GlobalOptions, command: String) throws(UsageError) {
        switch self {
        case .upsertCategory, .deleteCategory, .listCategories, .createMessage, .createMessageNamingCategory, .getMessageDetails, .deleteMessage,
             .getDevice:
            if options.token == nil {
                throw UsageError(message: "needs the application's access token: --token or $PUSHWIRE_TOKEN", command: command)
            }
        default:
            break
        }
    }
}
