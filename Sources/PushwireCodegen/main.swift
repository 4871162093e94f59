// pushwire-codegen: generates the Swift wrappers, the Methods namespace and the typed clients from
// a FileDescriptorSet written by
//   protoc --include_source_info --include_imports --descriptor_set_out=FILE
// Usage: pushwire-codegen --descriptor-set FILE --wire-out DIR --client-out DIR
// Output is deterministic: the same descriptor set always gives the same bytes.
import Glibc

/// Reads a whole file.
func readFile(_ path: String) throws -> [UInt8] {
    guard let f = fopen(path, "rb") else { throw GeneratorError("cannot open \(path)") }
    defer { fclose(f) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
        if n == 0 { break }
        out += chunk[0..<n]
    }
    guard ferror(f) == 0 else { throw GeneratorError("cannot read \(path)") }
    return out
}

/// Writes `files` into `dir` (created if needed) and removes other generated `.swift` files there.
func writeFiles(_ files: [String: String], to dir: String) throws {
    // mkdir -p, one component at a time.
    var path = dir.hasPrefix("/") ? "" : "."
    for component in dir.split(separator: "/") {
        path += "/" + component
        if mkdir(path, 0o755) != 0 && errno != EEXIST { throw GeneratorError("cannot create \(path)") }
    }
    if let d = opendir(dir) {
        var stale: [String] = []
        while let entry = readdir(d) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasSuffix(".swift"), files[name] == nil { stale.append(name) }
        }
        closedir(d)
        for name in stale { unlink("\(dir)/\(name)") }
    }
    for (name, text) in files.sorted(by: { $0.key < $1.key }) {
        let path = "\(dir)/\(name)"
        guard let f = fopen(path, "wb") else { throw GeneratorError("cannot write \(path)") }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
        fclose(f)
        guard written == bytes.count else { throw GeneratorError("cannot write \(path)") }
    }
}

func run(_ arguments: [String]) throws {
    var options: [String: String] = [:]
    var i = 0
    while i < arguments.count {
        let flag = arguments[i]
        guard ["--descriptor-set", "--wire-out", "--client-out"].contains(flag), i + 1 < arguments.count else {
            throw GeneratorError("usage: pushwire-codegen --descriptor-set FILE --wire-out DIR --client-out DIR")
        }
        options[flag] = arguments[i + 1]
        i += 2
    }
    guard let set = options["--descriptor-set"], let wireOut = options["--wire-out"], let clientOut = options["--client-out"] else {
        throw GeneratorError("usage: pushwire-codegen --descriptor-set FILE --wire-out DIR --client-out DIR")
    }
    let files = try readFileDescriptorSet(try readFile(set)).sorted { $0.name < $1.name }
    let symbols = try SymbolTable(files: files)
    let emitters = FileEmitters(files: files, symbols: symbols)
    try writeFiles(try emitters.wireFiles(), to: wireOut)
    try writeFiles(try emitters.clientFiles(), to: clientOut)
}

do {
    try run(Array(CommandLine.arguments.dropFirst()))
} catch {
    let text = Array("pushwire-codegen: \(error)\n".utf8)
    _ = text.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    // 64 (EX_USAGE) for a bad command line, as other Pushwire tools do.
    exit("\(error)".hasPrefix("usage") ? 64 : 1)
}
