#if canImport(Glibc)
import Glibc
#endif

/// The admin token: given, or read from `<data-dir>/admin-token`, or generated on first start and
/// written there (mode 0600) once the server has started, so that a start that fails (a port in
/// use, a bad flag) leaves no token behind that nobody saw.
enum AdminToken {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The token to use, and whether it was generated just now (then `save` it once started, and
    /// print it once).
    static func load(dataDirectory: String) throws(Failure) -> (token: String, generated: Bool) {
        if mkdir(dataDirectory, 0o700) != 0 && errno != EEXIST {
            throw Failure(description: "cannot create the data directory '\(dataDirectory)': \(String(cString: strerror(errno)))")
        }
        let path = dataDirectory + "/admin-token"
        if let existing = read(path) {
            let token = existing.trimmingWhitespace().filter { $0 != "\n" }
            if !token.isEmpty { return (token, false) }
        }
        var generator = SystemRandomNumberGenerator()
        let token = (0..<32).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
        return (token, true)
    }

    /// Writes a generated `token` to `<data-dir>/admin-token` (mode 0600) and syncs it.
    static func save(_ token: String, dataDirectory: String) throws(Failure) {
        let path = dataDirectory + "/admin-token"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw Failure(description: "cannot write '\(path)': \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let line = Array((token + "\n").utf8)
        let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == line.count, fsync(fd) == 0 else {
            throw Failure(description: "cannot write '\(path)': \(String(cString: strerror(errno)))")
        }
    }

    private static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Reads a whole text file; used for `--config`.
func readTextFile(_ path: String) throws -> String {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw AdminToken.Failure(description: String(cString: strerror(errno))) }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 { throw AdminToken.Failure(description: String(cString: strerror(errno))) }
        if count == 0 { break }
        bytes += chunk[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}
