import PushwireJSONBridge
import PushwireWire

/// A named check `GET /healthz` reports, e.g. the store's state.
public struct HealthReport: Sendable {
    /// Whether this part can serve.
    public var serving: Bool
    /// A short state, e.g. `open` or `read-only: disk full`.
    public var state: String

    /// Creates a report.
    public init(serving: Bool, state: String) {
        self.serving = serving
        self.state = state
    }
}

/// Where each request goes: `/healthz`, `/metrics`, the Connect path of every method in the
/// table (`/pushwire.v1.<Service>/<Method>`), and the routes added by prefix (the Pushwoosh
/// API's `/json/1.3/`).
final class HTTPRouter: Sendable {
    private let table: MethodTable
    private let routes: [(prefix: String, handler: HTTPRouteHandler)]
    private let healthChecks: [(name: String, check: @Sendable () -> HealthReport)]
    private let isDraining: @Sendable () -> Bool
    private let metrics: MetricsRegistry

    init(
        table: MethodTable, routes: [(prefix: String, handler: HTTPRouteHandler)],
        healthChecks: [(name: String, check: @Sendable () -> HealthReport)], isDraining: @escaping @Sendable () -> Bool,
        metrics: MetricsRegistry
    ) {
        self.table = table
        // Longest prefix first, so a more specific route wins.
        self.routes = routes.sorted { $0.prefix.count > $1.prefix.count }
        self.healthChecks = healthChecks
        self.isDraining = isDraining
        self.metrics = metrics
    }

    func route(_ request: HTTPRequest, _ exchange: HTTPExchange) {
        switch request.path {
        case "/healthz":
            guard request.method == "GET" || request.method == "HEAD" else { return exchange.respond(Self.methodNotAllowed("GET")) }
            exchange.respond(health())
        case "/metrics":
            guard request.method == "GET" || request.method == "HEAD" else { return exchange.respond(Self.methodNotAllowed("GET")) }
            exchange.respond(HTTPResponse(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: metrics.renderBytes()))
        default:
            if table.methods[request.path] != nil {
                ConnectProtocol.handle(request, exchange, table: table)
                return
            }
            for route in routes where request.path.hasPrefix(route.prefix) {
                route.handler(request, exchange)
                return
            }
            if request.path.hasPrefix("/pushwire.") {
                ConnectProtocol.handle(request, exchange, table: table)  // answers Connect's 404
                return
            }
            exchange.respond(.text(404, "no such resource: \(request.path)"))
        }
    }

    private static func methodNotAllowed(_ allowed: String) -> HTTPResponse {
        var response = HTTPResponse.text(405, "method not allowed; use \(allowed)")
        response.headers.append(("Allow", allowed))
        return response
    }

    /// `{"status":"serving","checks":{"store":{"serving":true,"state":"open"}}}`; 503 when draining
    /// or any check is not serving.
    private func health() -> HTTPResponse {
        var serving = !isDraining()
        var checks: [(key: String, value: JSONValue)] = []
        for (name, check) in healthChecks {
            let report = check()
            serving = serving && report.serving
            checks.append((name, .object([("serving", .bool(report.serving)), ("state", .string(report.state))])))
        }
        let status = isDraining() ? "draining" : (serving ? "serving" : "not_serving")
        let body = ProtoJSON.serialize(.object([("status", .string(status)), ("checks", .object(checks))]), pretty: false)
        return .json(serving ? 200 : 503, body)
    }
}
