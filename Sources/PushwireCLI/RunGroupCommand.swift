import PushwireWire

/// Runs a group command: resolves the admin token where needed (a usage error when there is
/// none), connects once, and hands the session to the command group.
func runGroupCommand(_ operation: GroupCommand, options: GlobalOptions) async throws {
    var adminToken = ""
    switch operation {
    case .createApplication, .listApplications, .updateApplication:
        adminToken = try Session.adminToken(options, command: "app")
    case .demo:
        adminToken = try Session.adminToken(options, command: "demo")
    default:
        break
    }
    let session = try await Session.open(options)
    defer { session.close() }
    switch operation {
    case .createApplication, .listApplications, .updateApplication:
        try await AppCommands.run(operation, session: session, adminToken: adminToken)
    case .registerDevice, .trackAction, .unregisterDevice, .setTags, .getTags, .getDevice, .syncCategories:
        try await DeviceCommands.run(operation, session: session)
    case .upsertCategory, .deleteCategory, .listCategories:
        try await CategoryCommands.run(operation, session: session)
    case .createMessage, .createMessageNamingCategory, .getMessageDetails, .deleteMessage:
        try await MessageCommands.run(operation, session: session)
    case .demo:
        try await DemoCommand.run(session: session, adminToken: adminToken)
    }
}
