import PushwireWire

/// Keeps `pushwire-bench` from writing into data that is not its own by surprise: a scenario that
/// registers devices or sends messages says what it will create and needs `--yes` when it would
/// write into an application it was given (`--application`), or create its application on a
/// server that holds applications other than pushwire-bench's (real data). A fresh server, or one
/// only earlier bench runs wrote to, needs no `--yes`, so `Scripts/bench` runs as before.
enum WriteGuard {
    /// The prefix of the names of the applications the bench creates.
    static let applicationPrefixes = ["pushwire-bench", "fanout-bench"]

    /// Throws a refusal unless `confirmed` or the write is harmless.
    /// - Parameters:
    ///   - plan: what the scenario will create, e.g. `register 10 devices named 3-bench-1a2b3c4d…`.
    ///   - application: the application given with `--application`, if any.
    ///   - caller, adminToken: to list the server's applications when the bench creates its own.
    static func check(_ plan: String, application: String?, confirmed: Bool, caller: SetupCaller, adminToken: String?) throws(SetupError) {
        if confirmed { return }
        if let application {
            throw SetupError(description: "this would \(plan) in application \(application), which is not the bench's own; pass --yes to go ahead", usage: true)
        }
        guard let adminToken else { return }
        let listed = try caller.call(Methods.Admin.listApplications, ListApplicationsRequest(), token: adminToken)
        let others = listed.applications.filter { app in !applicationPrefixes.contains(where: { app.name.hasPrefix($0) }) }
        if !others.isEmpty {
            let names = others.prefix(3).map { "'\($0.name)'" }.joined(separator: ", ") + (others.count > 3 ? ", …" : "")
            throw SetupError(description: "the server holds \(others.count) application(s) of its own (\(names)); this would create an application "
                                 + "named pushwire-bench… and \(plan) in it; pass --yes to go ahead, or run against a server of its own", usage: true)
        }
    }
}
