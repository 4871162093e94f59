/// An HTTP/1.1 request as the HTTP door parsed it: body complete, header names lower-cased.
public struct HTTPRequest: Sendable {
    /// `GET`, `POST`, …
    public var method: String
    /// The path of the request target, without the query, e.g. `/pushwire.v1.Health/Check`.
    public var path: String
    /// The query after `?`, without it; empty when there is none.
    public var query: String
    /// Header fields in arrival order, names lower-cased.
    public var headers: [(name: String, value: String)]
    /// The body (de-chunked).
    public var body: [UInt8]
    /// Who sent it.
    public var peer: SocketAddress

    /// The first value of header `name` (lower-case), if present.
    public func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    /// How many times header `name` (lower-case) appears.
    public func headerCount(_ name: String) -> Int {
        headers.reduce(0) { $0 + ($1.name == name ? 1 : 0) }
    }
}

/// An answer to an `HTTPRequest`.
public struct HTTPResponse: Sendable {
    /// The status code, e.g. 200.
    public var status: Int
    /// `Content-Type`; nil sends none (with an empty body).
    public var contentType: String?
    /// Further header fields (not Content-Length or Connection, which the door writes).
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: [UInt8]

    /// A response with `body` of `contentType`.
    public init(status: Int, contentType: String? = nil, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.contentType = contentType
        self.headers = headers
        self.body = body
    }

    /// A JSON response.
    public static func json(_ status: Int, _ text: String, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", headers: headers, body: Array(text.utf8))
    }

    /// A plain-text response (errors the door itself answers: 400, 408, 413, 431…).
    public static func text(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array((text + "\n").utf8))
    }

    /// Appends the status line, headers and body, with `Connection: close` when `close`.
    func serialize(into out: inout [UInt8], close: Bool, headOnly: Bool = false) {
        var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        if let contentType { head += "Content-Type: \(contentType)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\n"
        if close { head += "Connection: close\r\n" }
        head += "\r\n"
        out.append(contentsOf: head.utf8)
        if !headOnly { out.append(contentsOf: body) }
    }

    /// The reason phrase of the statuses the door sends.
    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 301: "Moved Permanently"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 415: "Unsupported Media Type"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 499: "Client Closed Request"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status"
        }
    }
}
