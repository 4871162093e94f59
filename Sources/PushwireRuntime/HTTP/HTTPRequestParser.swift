import CHTTPParser

/// Why the bytes of a connection cannot be read as HTTP/1.1 requests: each is answered with
/// its status and the connection is closed, since the stream can no longer be framed.
enum HTTPParseFailure: Error, Equatable {
    /// Not HTTP (http_parser's error name and description).
    case malformed(String)
    case targetTooLong(limit: Int)
    case headersTooLarge(limit: Int)
    case tooManyHeaders(limit: Int)
    case bodyTooLarge(limit: Int)

    var response: HTTPResponse {
        switch self {
        case .malformed(let reason): .text(400, "malformed HTTP request: \(reason)")
        case .targetTooLong(let limit): .text(414, "request target longer than \(limit) bytes")
        case .headersTooLarge(let limit): .text(431, "request line and header fields exceed \(limit) bytes")
        case .tooManyHeaders(let limit): .text(431, "more than \(limit) header fields")
        case .bodyTooLarge(let limit): .text(413, "request body larger than \(limit) bytes")
        }
    }
}

/// A request read off the connection, with what the connection needs to answer it.
struct ParsedRequest {
    var request: HTTPRequest
    /// Whether the connection may stay open after the answer (HTTP/1.1 without
    /// `Connection: close`, or HTTP/1.0 with `Connection: keep-alive`).
    var keepAlive: Bool
    var isHead: Bool
}

/// Node's http_parser (Debian's libhttp-parser) driven incrementally, with the door's limits
/// checked as the bytes arrive so that nothing over a limit is buffered.
///
/// One per connection, on its loop's thread. The parser's `data` points back to this object
/// (unretained: the object owns the parser, so it outlives every callback).
final class HTTPRequestParser {
    private let parser: UnsafeMutablePointer<http_parser>
    private let limits: HTTPConfiguration
    private let peer: SocketAddress

    // The request being read.
    private var url: [UInt8] = []
    private var headers: [(name: String, value: String)] = []
    private var field: [UInt8] = []
    private var value: [UInt8] = []
    private var readingValue = false
    private var headerBytes = 0
    private var body: [UInt8] = []
    /// Set when the first byte of a request has arrived and it is not complete yet.
    private(set) var inProgress = false
    /// Set when the request in progress sent `Expect: 100-continue` and its headers are complete:
    /// the client waits for `100 Continue` before the body (curl does so above 1 KiB).
    var awaitsContinue = false

    /// Requests completed by `feed`, in order, taken by the connection.
    var completed: [ParsedRequest] = []
    /// Set by a callback that found a limit exceeded (the callback then stops the parser).
    private var limitFailure: HTTPParseFailure?

    init(limits: HTTPConfiguration, peer: SocketAddress) {
        self.limits = limits
        self.peer = peer
        parser = UnsafeMutablePointer<http_parser>.allocate(capacity: 1)
        http_parser_init(parser, HTTP_REQUEST)
        parser.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        parser.deallocate()
    }

    /// Parses `bytes`; completed requests land in `completed`.
    /// - Throws: `HTTPParseFailure` when the bytes are not HTTP or exceed a limit.
    func feed(_ bytes: UnsafeRawBufferPointer) throws(HTTPParseFailure) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        let parsed = http_parser_execute(parser, Self.settings.pointer, base.assumingMemoryBound(to: CChar.self), bytes.count)
        if let limitFailure { throw limitFailure }
        let errno = http_errno(parser.pointee.http_errno)
        if errno != HPE_OK {
            throw .malformed("\(String(cString: http_errno_name(errno))): \(String(cString: http_errno_description(errno)))")
        }
        if parser.pointee.upgrade != 0 || parsed != bytes.count {
            // An Upgrade (h2c, websocket) or CONNECT: not offered; the request was answered
            // as plain HTTP/1.1 and what follows it cannot be framed.
            throw .malformed("protocol upgrade is not supported")
        }
    }

    // MARK: Callbacks

    private static func owner(_ parser: UnsafeMutablePointer<http_parser>?) -> HTTPRequestParser? {
        guard let data = parser?.pointee.data else { return nil }
        return Unmanaged<HTTPRequestParser>.fromOpaque(data).takeUnretainedValue()
    }

    private static func bytes(_ at: UnsafePointer<CChar>?, _ length: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: at, count: at == nil ? 0 : length)
    }

    /// The callbacks, shared by every parser (http_parser only reads them).
    ///
    /// `@unchecked Sendable`: written once when first used, then only read, from any loop.
    private struct Settings: @unchecked Sendable {
        let pointer: UnsafeMutablePointer<http_parser_settings>
    }

    private static let settings: Settings = {
        var settings = http_parser_settings()
        settings.on_message_begin = { parser in
            owner(parser)?.begin() ?? 1
        }
        settings.on_url = { parser, at, length in
            owner(parser)?.appendURL(bytes(at, length)) ?? 1
        }
        settings.on_header_field = { parser, at, length in
            owner(parser)?.appendField(bytes(at, length)) ?? 1
        }
        settings.on_header_value = { parser, at, length in
            owner(parser)?.appendValue(bytes(at, length)) ?? 1
        }
        settings.on_headers_complete = { parser in
            owner(parser)?.headersComplete() ?? -1
        }
        settings.on_body = { parser, at, length in
            owner(parser)?.appendBody(bytes(at, length)) ?? 1
        }
        settings.on_message_complete = { parser in
            owner(parser)?.messageComplete() ?? 1
        }
        let pointer = UnsafeMutablePointer<http_parser_settings>.allocate(capacity: 1)
        pointer.initialize(to: settings)
        return Settings(pointer: pointer)
    }()

    private func begin() -> Int32 {
        inProgress = true
        url.removeAll(keepingCapacity: true)
        headers.removeAll(keepingCapacity: true)
        field.removeAll(keepingCapacity: true)
        value.removeAll(keepingCapacity: true)
        readingValue = false
        headerBytes = 0
        body = []
        return 0
    }

    private func countHeaderBytes(_ count: Int) -> Bool {
        headerBytes += count
        if headerBytes > limits.maxHeaderBytes {
            limitFailure = .headersTooLarge(limit: limits.maxHeaderBytes)
            return false
        }
        return true
    }

    private func appendURL(_ bytes: UnsafeRawBufferPointer) -> Int32 {
        url.append(contentsOf: bytes)
        if url.count > limits.maxHeaderBytes {
            limitFailure = .targetTooLong(limit: limits.maxHeaderBytes)
            return 1
        }
        return countHeaderBytes(bytes.count) ? 0 : 1
    }

    private func finishField() -> Bool {
        guard readingValue else { return true }
        // Lower-cased as bytes: String.lowercased() is Unicode-aware, and names are ASCII.
        for index in field.indices where field[index] >= 0x41 && field[index] <= 0x5A { field[index] |= 0x20 }
        headers.append((String(decoding: field, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        field.removeAll(keepingCapacity: true)
        value.removeAll(keepingCapacity: true)
        readingValue = false
        if headers.count > limits.maxHeaderCount {
            limitFailure = .tooManyHeaders(limit: limits.maxHeaderCount)
            return false
        }
        return true
    }

    private func appendField(_ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard finishField(), countHeaderBytes(bytes.count) else { return 1 }
        field.append(contentsOf: bytes)
        return 0
    }

    private func appendValue(_ bytes: UnsafeRawBufferPointer) -> Int32 {
        readingValue = true
        guard countHeaderBytes(bytes.count) else { return 1 }
        value.append(contentsOf: bytes)
        return 0
    }

    /// Returns -1 to stop: for this callback alone, 1 means "no body" and 2 "upgrade".
    private func headersComplete() -> Int32 {
        guard finishField() else { return -1 }
        // Refused from the announced length, before a byte of the body is read. (A chunked body
        // is counted as it arrives, in appendBody.)
        if parser.pointee.flags & UInt32(F_CONTENTLENGTH.rawValue) != 0,
           parser.pointee.content_length > UInt64(limits.maxBodyBytes) {
            limitFailure = .bodyTooLarge(limit: limits.maxBodyBytes)
            return -1
        }
        awaitsContinue = headers.contains { $0.name == "expect" && $0.value.lowercased() == "100-continue" }
        return 0
    }

    private func appendBody(_ bytes: UnsafeRawBufferPointer) -> Int32 {
        if body.count + bytes.count > limits.maxBodyBytes {
            limitFailure = .bodyTooLarge(limit: limits.maxBodyBytes)
            return 1
        }
        body.append(contentsOf: bytes)
        return 0
    }

    private func messageComplete() -> Int32 {
        inProgress = false
        awaitsContinue = false
        let method = String(cString: http_method_str(http_method(parser.pointee.method)))
        let path: String, query: String
        if let mark = url.firstIndex(of: UInt8(ascii: "?")) {
            path = String(decoding: url[..<mark], as: UTF8.self)
            query = String(decoding: url[(mark + 1)...], as: UTF8.self)
        } else {
            (path, query) = (String(decoding: url, as: UTF8.self), "")
        }
        let request = HTTPRequest(method: method, path: path, query: query, headers: headers, body: body, peer: peer)
        completed.append(ParsedRequest(request: request, keepAlive: http_should_keep_alive(parser) != 0, isHead: method == "HEAD"))
        body = []
        return 0
    }
}
