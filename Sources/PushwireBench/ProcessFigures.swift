// What the fanout scenario reads of the server's process from /proc, and how it quotes text in its JSON.
import Glibc

/// A process's user + system CPU time in seconds (/proc/PID/stat), or nil.
func cpuSeconds(_ pid: Int32) -> Double? {
    guard let file = fopen("/proc/\(pid)/stat", "r") else { return nil }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 1024)
    guard fgets(&line, Int32(line.count), file) != nil else { return nil }
    let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    guard let close = text.lastIndex(of: ")") else { return nil }
    let fields = text[text.index(after: close)...].split(separator: " ")
    // fields[0] is the state (field 3): utime and stime are fields 14 and 15.
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// `text` as a JSON string (quotes, backslashes and control characters escaped).
func jsonQuoted(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case _ where scalar.value < 0x20: out += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}

/// A field of /proc/PID/status in KiB (VmRSS:, VmHWM:), or nil.
func residentKiB(_ pid: Int32, field: String) -> Int? {
    guard let file = fopen("/proc/\(pid)/status", "r") else { return nil }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if text.hasPrefix(field) {
            return Int(text.dropFirst(field.count).split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first ?? "")
        }
    }
    return nil
}
