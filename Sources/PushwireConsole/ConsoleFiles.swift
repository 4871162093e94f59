/// One file of the console, as embedded from `Console/` by `Scripts/embed-console`.
struct ConsoleFile: Sendable {
    /// The `Content-Type` it is served with.
    let contentType: String
    /// Its text (UTF-8 when served).
    let text: String
}

/// The console's files, embedded at generation time (see `Generated/EmbeddedConsoleFiles.swift`).
enum ConsoleFiles {}
