import COpenSSL
import Glibc
import PushwireSystem
import PushwireWire

/// `pushwire-bench handshake`: new connections one after another, each a TCP connect, the full
/// TLS handshake (with `--tls`; no session is resumed), the preface, one Health/Check and its
/// answer, then close. Prints connections/s and the latency of one connection; compares with an
/// `openssl s_time -new` loop against `openssl s_server` (Scripts/bench).
func runHandshakes(_ options: Options, tls: BenchTLS?) -> Int32 {
    var request = WireProtocol.preface
    Frame.request(callID: 1, method: Methods.Health.check.path, message: []).encode(appendingTo: &request, lengthPrefixed: true)
    if options.httpGet { request = Array("GET / HTTP/1.0\r\n\r\n".utf8) }
    var buffer = [UInt8](repeating: 0, count: 16 * 1024)
    var latencies: [UInt64] = []
    var failures = 0
    let start = monotonicNanos()
    let measureStart = start + UInt64(options.warmup * 1e9)
    let end = measureStart + UInt64((options.duration ?? 10) * 1e9)
    while true {
        let began = monotonicNanos()
        if began >= end { break }
        let ok = oneConnection(options.target, tls: tls, request: request, httpGet: options.httpGet, buffer: &buffer)
        let finished = monotonicNanos()
        guard began >= measureStart else { continue }
        if ok { latencies.append(finished - began) } else { failures += 1 }
        if failures > 100, latencies.isEmpty { break }
    }
    let seconds = Double(monotonicNanos() - measureStart) / 1e9
    latencies.sort()
    func percentile(_ p: Double) -> Double {
        latencies.isEmpty ? 0 : Double(latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]) / 1000
    }
    let rate = Double(latencies.count) / max(seconds, 1e-9)
    if options.json {
        print("{\"scenario\":\"handshake\",\"tls\":\(tls != nil),\"httpGet\":\(options.httpGet),\"connections\":\(latencies.count),\"failures\":\(failures),"
              + "\"perSecond\":\(Int(rate)),\"p50Micros\":\(percentile(0.5)),\"p99Micros\":\(percentile(0.99))}")
    } else {
        print("handshake (\(tls == nil ? "clear text" : "TLS, full handshakes")): \(latencies.count) connections in "
              + "\(String(format: "%.1f", seconds)) s = \(Int(rate))/s, p50 \(String(format: "%.0f", percentile(0.5))) µs, "
              + "p99 \(String(format: "%.0f", percentile(0.99))) µs, \(failures) failed")
    }
    return failures == 0 && !latencies.isEmpty ? 0 : 1
}

/// One connection's life; false when any step failed.
private func oneConnection(_ target: String, tls: BenchTLS?, request: [UInt8], httpGet: Bool, buffer: inout [UInt8]) -> Bool {
    guard let fd = try? Syscall.connect(to: target, timeout: .seconds(10)) else { return false }
    defer { Syscall.close(fd) }
    var ssl: OpaquePointer?
    if let tls {
        guard let made = try? tls.handshake(fd: fd) else { return false }
        ssl = made
    }
    defer { if let ssl { SSL_free(ssl) } }
    let sent: Bool = request.withUnsafeBytes { bytes in
        if let ssl { return SSL_write(ssl, bytes.baseAddress, Int32(bytes.count)) == Int32(bytes.count) }
        return (try? Syscall.sendAll(fd, bytes)) != nil
    }
    guard sent else { return false }
    if httpGet {
        // An HTTP/1.0 answer ends with the connection: read to the end (close_notify, or the
        // peer's FIN), and check that it began as an HTTP answer.
        var first: [UInt8] = []
        while true {
            let n: Int = buffer.withUnsafeMutableBytes { raw in
                if let ssl { return Int(SSL_read(ssl, raw.baseAddress, Int32(raw.count))) }
                return Glibc.read(fd, raw.baseAddress, raw.count)
            }
            if n <= 0 { return first.starts(with: Array("HTTP/".utf8)) }
            if first.count < 5 { first += buffer[0..<min(n, 5 - first.count)] }
        }
    }
    // The preface, Settings, then the Response of call 1: three parts, read until all are in.
    var have = 0
    while true {
        if let complete = answeredCall(buffer[0..<have]) { return complete }
        if have == buffer.count { return false }
        let n: Int = buffer.withUnsafeMutableBytes { raw in
            let free = UnsafeMutableRawBufferPointer(rebasing: raw[have...])
            if let ssl { return Int(SSL_read(ssl, free.baseAddress, Int32(free.count))) }
            return Glibc.read(fd, free.baseAddress, free.count)
        }
        if n <= 0 { return false }
        have += n
    }
}

/// nil while incomplete; true once the preface and two frames (Settings, then the answer) are in.
private func answeredCall(_ bytes: ArraySlice<UInt8>) -> Bool? {
    let preface = WireProtocol.preface
    guard bytes.count >= preface.count else { return nil }
    guard Array(bytes.prefix(preface.count)) == preface else { return false }
    var offset = bytes.startIndex + preface.count
    for _ in 0..<2 {
        guard bytes.endIndex - offset >= 4 else { return nil }
        let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
        guard bytes.endIndex - offset - 4 >= length else { return nil }
        offset += 4 + length
    }
    return true
}
