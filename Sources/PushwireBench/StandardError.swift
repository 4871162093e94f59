import PushwireSystem

/// Writes a line to standard error.
func printError(_ text: String) {
    var line = text
    if !line.hasSuffix("\n") { line += "\n" }
    writeStandardError(line)
}

/// Writes `text` to file descriptor 2 unbuffered (the C `stderr` global is not concurrency-safe).
func writeStandardError(_ text: String) {
    let bytes = Array(text.utf8)
    _ = try? bytes.withUnsafeBytes { bytes in try Syscall.writeAll(2, bytes) }
}
