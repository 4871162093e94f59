import PushwireClient
import PushwireWire

/// `pushwire category upsert|delete|list` (with the application's access token) and
/// `category sync` (as a device would, by application code).
enum CategoryCommands {
    /// Turns the options of `category <subcommand>` into its request.
    /// - Throws: `UsageError` (exit 64) for a missing, repeated, unknown or malformed option.
    static func parse(_ subcommand: String, _ scanned: ScannedArguments, command: String) throws(UsageError) -> GroupCommand {
        switch subcommand {
        case "upsert":
            try scanned.allow(["--file", "--name", "--button", "--id"], command: command)
            _ = try scanned.positionals([], command: command)
            var category: Category
            if let file = try scanned.value("--file", command: command) {
                if scanned.flags.contains(where: { $0.name == "--name" || $0.name == "--button" }) {
                    throw UsageError(message: "--file cannot be combined with --name or --button", command: command)
                }
                let text = try ValueSyntax.readFile(file, option: "--file", command: command)
                category = try ValueSyntax.message(text, as: Category.self, option: "--file", command: command)
            } else {
                category = Category()
                category.name = try scanned.required("--name", command: command)
                let buttons = scanned.values("--button")
                guard !buttons.isEmpty else { throw UsageError(message: "missing --button (or --file)", command: command) }
                for (index, text) in buttons.enumerated() {
                    category.buttons.append(try ValueSyntax.button(text, id: UInt32(index), command: command))
                }
            }
            if let id = try scanned.value("--id", command: command) {
                category.categoryID = try categoryID(id, command: command)
            }
            var request = UpsertCategoryRequest()
            request.category = category
            return .upsertCategory(request)
        case "delete":
            try scanned.allow(["--id"], command: command)
            _ = try scanned.positionals([], command: command)
            var request = DeleteCategoryRequest()
            request.categoryID = try categoryID(try scanned.required("--id", command: command), command: command)
            return .deleteCategory(request)
        case "list":
            try scanned.allow([], command: command)
            _ = try scanned.positionals([], command: command)
            return .listCategories
        default:
            return try DeviceCommands.parse(subcommand, scanned, command: command)
        }
    }

    private static func categoryID(_ text: String, command: String) throws(UsageError) -> UInt32 {
        guard let id = UInt32(text), id > 0 else {
            throw UsageError(message: "--id expects a category id (a positive integer), got '\(text)'", command: command)
        }
        return id
    }

    /// Calls the server and prints the result (one JSON line with `--json`).
    /// - Throws: `CommandFailure` (exit 1) with the call's status.
    static func run(_ operation: GroupCommand, session: Session) async throws(CommandFailure) {
        let json = session.options.json
        let token = session.options.token
        switch operation {
        case .upsertCategory(let request):
            let response = try await session.call(Methods.Categories.upsertCategory, request, token: token)
            if json { return Session.printJSON(response) }
            let verb = request.category?.categoryID == 0 ? "created" : "replaced"
            print("\(verb) category; categories v\(response.categoriesVersion)")
            if let category = response.category { print(Render.categories([category])) }
        case .deleteCategory(let request):
            let response = try await session.call(Methods.Categories.deleteCategory, request, token: token)
            if json { return Session.printJSON(response) }
            print("deleted category \(request.categoryID); categories v\(response.categoriesVersion)")
        case .listCategories:
            let response = try await session.call(Methods.Categories.listCategories, ListCategoriesRequest(), token: token)
            if json { return Session.printJSON(response) }
            print("categories v\(response.categoriesVersion):")
            print(response.categories.isEmpty ? "  (none)" : Render.categories(response.categories))
        default:
            break
        }
    }
}
