import Foundation
import PushwireSQLiteStore
import PushwireStore

/// Every engine the store contract runs against, in order. An engine adds its `ContractEngine`
/// (in a file of its own, like `sqlite` below) and its entry here.
let contractEngines: [ContractEngine] = [.sqlite]

extension ContractEngine {
    /// SQLite in a fresh data directory.
    static let sqlite = ContractEngine(name: "SQLite") {
        let directory = NSTemporaryDirectory() + "pushwire-contract-\(getpid())-\(UUID().uuidString.prefix(8))"
        return try SQLiteStore(dataDirectory: directory)
    }
}
