import PushwireRuntime

/// The operator console at `GET /console/`: static HTML, CSS and JavaScript modules embedded in
/// the binary, which talk to the server only through the HTTP door's JSON API (docs/CONSOLE.md).
/// Every answer carries a strict Content-Security-Policy (scripts and styles from this origin
/// only, no inline script, no framing) and `X-Content-Type-Options: nosniff`.
public enum Console {
    /// Where the console is served.
    public static let prefix = "/console"

    /// The policy on every console answer: only this origin's files and API, nothing inline,
    /// not framed, forms posting nowhere else.
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    static let securityHeaders: [(name: String, value: String)] = [
        ("Content-Security-Policy", contentSecurityPolicy),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
        // Served from the binary: a new pushwired may serve new files, so revalidate each time.
        ("Cache-Control", "no-cache"),
    ]

    /// Serves the console on `server`'s HTTP door. Call before `start()`.
    public static func register(on server: Server) {
        let files = ConsoleFiles.all.mapValues { (contentType: $0.contentType, body: Array($0.text.utf8)) }
        server.registerHTTPRoute(prefix: prefix) { request, exchange in
            exchange.respond(answer(request, files: files))
        }
    }

    /// The answer to `request` (whose path starts with `/console`).
    static func answer(_ request: HTTPRequest, files: [String: (contentType: String, body: [UInt8])]) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            var response = secured(.text(405, "method not allowed; use GET"))
            response.headers.append(("Allow", "GET, HEAD"))
            return response
        }
        if request.path == prefix {
            // Relative links in index.html resolve against /console/, so send the browser there.
            return secured(HTTPResponse(status: 301, contentType: "text/plain; charset=utf-8",
                                        headers: [("Location", prefix + "/")], body: Array("see /console/\n".utf8)))
        }
        guard request.path.hasPrefix(prefix + "/") else {
            return secured(.text(404, "no such resource: \(request.path)"))
        }
        var name = String(request.path.dropFirst(prefix.count + 1))
        if name.isEmpty { name = "index.html" }
        // Names are looked up, never joined into a file path, so `..` or `%2F` cannot reach anything else.
        guard let file = files[name] else {
            return secured(.text(404, "no such console file: \(name)"))
        }
        return secured(HTTPResponse(status: 200, contentType: file.contentType, body: file.body))
    }

    private static func secured(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers.append(contentsOf: securityHeaders)
        return response
    }
}
