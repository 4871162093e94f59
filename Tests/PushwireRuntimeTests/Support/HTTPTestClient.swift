#if canImport(Glibc)
import Glibc
#endif
import Foundation
@testable import PushwireRuntime

/// A tiny blocking HTTP/1.1 client over a raw socket (or TLS over it), for tests: sends any bytes
/// (pipelined requests, broken ones, a slow drip) and reads responses framed by Content-Length.
final class HTTPTestClient {
    struct Response {
        var status: Int
        var headers: [(String, String)]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
    }

    let socket: TestClient
    private var buffer: [UInt8] = []
    private var closed = false

    /// Connects to `address`; with `tls`, does the TLS handshake first (by default offering ALPN
    /// `h2` and `http/1.1`, as curl does).
    init(_ address: SocketAddress, tls: TestTLS.Client? = nil) throws {
        socket = try TestClient(address, handshake: false, tls: tls)
    }

    /// A TLS client of the test CA offering what curl offers in ALPN.
    static var https: TestTLS.Client { TestTLS.Client(alpn: ["h2", "http/1.1"]) }

    func send(_ text: String) throws { try socket.sendRaw(Array(text.utf8)) }
    func send(_ bytes: [UInt8]) throws { try socket.sendRaw(bytes) }

    /// A request with `body` and `Content-Length`.
    static func request(_ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = []) -> [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: test\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        return Array((head + "\r\n").utf8) + body
    }

    /// POSTs JSON to `path` and reads the answer.
    func post(_ path: String, json: String, headers: [(String, String)] = []) throws -> Response {
        try send(Self.request("POST", path, headers: [("Content-Type", "application/json")] + headers, body: Array(json.utf8)))
        return try readResponse()
    }

    /// Reads more bytes, waiting up to `timeout` seconds; false at end of stream or timeout.
    private func fill(timeout: Double) -> Bool {
        if closed { return false }
        guard socket.waitReadable(milliseconds: Int32(timeout * 1000)) else { return false }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { socket.receive($0) }
        if count <= 0 {
            closed = true
            return false
        }
        buffer += chunk[0..<count]
        return true
    }

    /// Reads one response.
    func readResponse(timeout: Double = 5) throws -> Response {
        let separator: [UInt8] = [13, 10, 13, 10]
        while true {
            if let end = find(separator) {
                let head = String(decoding: buffer[0..<end], as: UTF8.self)
                var lines = head.components(separatedBy: "\r\n")
                let statusLine = lines.removeFirst().split(separator: " ")
                guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw TestClient.Failure(description: "bad status line in \(head)") }
                let headers = lines.compactMap { line -> (String, String)? in
                    guard let colon = line.firstIndex(of: ":") else { return nil }
                    return (String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
                }
                let length = Int(headers.first { $0.0.lowercased() == "content-length" }?.1 ?? "0") ?? 0
                while buffer.count < end + 4 + length {
                    guard fill(timeout: timeout) else { throw TestClient.Failure(description: "body incomplete") }
                }
                let body = Array(buffer[(end + 4)..<(end + 4 + length)])
                buffer.removeFirst(end + 4 + length)
                return Response(status: status, headers: headers, body: body)
            }
            guard fill(timeout: timeout) else { throw TestClient.Failure(description: closed ? "closed before a response" : "no response in time") }
        }
    }

    /// Whether the server closes the connection within `timeout` seconds (reading and dropping
    /// anything it still sends).
    func closesWithin(_ timeout: Double) -> Bool {
        let deadline = TestClient.now() + timeout
        while TestClient.now() < deadline {
            if !fill(timeout: max(0.01, deadline - TestClient.now())) && closed { return true }
            buffer.removeAll()
        }
        return closed
    }

    private func find(_ pattern: [UInt8]) -> Int? {
        guard buffer.count >= pattern.count else { return nil }
        for index in 0...(buffer.count - pattern.count) where buffer[index] == pattern[0] {
            if Array(buffer[index..<index + pattern.count]) == pattern { return index }
        }
        return nil
    }
}

/// Starts the test server with its HTTP door on 127.0.0.1:0.
func startHTTPTestServer(_ configure: (inout HTTPConfiguration) -> Void = { _ in }) throws -> (Server, SocketAddress) {
    var http = HTTPConfiguration(listen: try SocketAddress(parsing: "127.0.0.1:0"))
    configure(&http)
    let (server, _) = try startTestServer { $0.http = http }
    guard let address = server.httpAddress else { throw TestClient.Failure(description: "no HTTP address") }
    return (server, address)
}
