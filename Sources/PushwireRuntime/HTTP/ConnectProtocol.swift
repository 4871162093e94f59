import PushwireJSONBridge
import PushwireWire

/// Connect's unary protocol over HTTP/1.1, the way connectrpc.com specifies it: `POST
/// /<service>/<method>`, the message as the body (`application/json` in the proto3 JSON
/// mapping, or `application/proto`), `Authorization` passed on as the call's metadata,
/// `Connect-Timeout-Ms` as its deadline; an error is a JSON object `{"code", "message"}` with the
/// HTTP status Connect assigns to the code.
enum ConnectProtocol {
    /// Connect's name of a status code (gRPC's, lower-case; CANCELLED is spelled `canceled`).
    static func codeName(_ code: StatusCode) -> String {
        code == .cancelled ? "canceled" : code.name.lowercased()
    }

    /// The HTTP status Connect maps each code to.
    static func httpStatus(_ code: StatusCode) -> Int {
        switch code {
        case .ok: 200
        case .cancelled: 499
        case .invalidArgument, .failedPrecondition, .outOfRange: 400
        case .deadlineExceeded: 504
        case .notFound: 404
        case .alreadyExists, .aborted: 409
        case .permissionDenied: 403
        case .resourceExhausted: 429
        case .unimplemented: 501
        case .unavailable: 503
        case .unauthenticated: 401
        default: 500  // unknown, internal, data_loss
        }
    }

    /// The error response for `code` and `message`.
    static func error(_ code: StatusCode, _ message: String) -> HTTPResponse {
        let body = ProtoJSON.serialize(.object([("code", .string(codeName(code))), ("message", .string(message))]), pretty: false)
        return .json(httpStatus(code), body)
    }

    /// The media type of a Content-Type value, lower-cased, without parameters or spaces
    /// (`application/json; charset=utf-8` → `application/json`).
    static func mediaType(_ value: String) -> String {
        if value == "application/json" || value == "application/proto" { return value }  // as sent, most often
        var type = value.split(separator: ";", maxSplits: 1).first.map(Substring.init) ?? ""
        while type.first == " " || type.first == "\t" { type = type.dropFirst() }
        while type.last == " " || type.last == "\t" { type = type.dropLast() }
        return type.lowercased()
    }

    private enum Codec {
        case json
        case proto
    }

    /// Answers `request` for method path `request.path`.
    static func handle(_ request: HTTPRequest, _ exchange: HTTPExchange, table: MethodTable) {
        guard request.method == "POST" else {
            var response = error(.unimplemented, "\(request.method) \(request.path): Connect unary calls are POST")
            response.status = 405
            response.headers.append(("Allow", "POST"))
            exchange.respond(response)
            return
        }
        guard let method = table.methods[request.path] else {
            var response = error(.unimplemented, "unknown method \(request.path)")
            response.status = 404
            exchange.respond(response)
            return
        }
        let mediaType = Self.mediaType(request.header("content-type") ?? "")
        let codec: Codec
        switch mediaType {
        case "application/json": codec = .json
        case "application/proto", "application/x-protobuf", "application/protobuf": codec = .proto
        default:
            var response = error(.invalidArgument, "Content-Type \"\(mediaType)\" is not supported: use application/json or application/proto")
            response.status = 415
            response.headers.append(("Accept-Post", "application/json, application/proto"))
            exchange.respond(response)
            return
        }
        let requestDescriptor = method.descriptor.requestType.descriptor
        let responseType = method.descriptor.responseType
        let message: [UInt8]
        switch codec {
        case .proto:
            message = request.body
        case .json:
            guard let text = String(validating: request.body, as: UTF8.self) else {
                exchange.respond(error(.invalidArgument, "the body is not UTF-8"))
                return
            }
            do throws(ProtoJSONError) {
                message = try ProtoJSON.encode(text.isEmpty ? "{}" : text, as: requestDescriptor)
            } catch {
                exchange.respond(ConnectProtocol.error(.invalidArgument, error.message))
                return
            }
        }
        if let timeout = request.header("connect-timeout-ms") {
            // Connect: at most 10 digits of milliseconds.
            guard timeout.utf8.count <= 10, let milliseconds = UInt64(timeout) else {
                exchange.respond(error(.invalidArgument, "Connect-Timeout-Ms \"\(timeout)\" is not a number of milliseconds (at most 10 digits)"))
                return
            }
            exchange.setDeadline(after: .milliseconds(Int64(milliseconds)),
                                 answer: ConnectProtocol.error(.deadlineExceeded, "deadline of \(milliseconds) ms exceeded"))
        }
        var metadata: [Metadata] = []
        for (name, value) in request.headers where name == "authorization" {
            var entry = Metadata()
            entry.key = name
            entry.value = value
            metadata.append(entry)
        }
        exchange.callRaw(request.path, message: message, metadata: metadata) { outcome in
            guard outcome.status == .ok else {
                exchange.respond(error(outcome.status, outcome.message))
                return
            }
            switch codec {
            case .proto:
                exchange.respond(HTTPResponse(status: 200, contentType: "application/proto", body: outcome.body))
            case .json:
                do throws(ProtoJSONError) {
                    let json = try ProtoJSON.decodeToString(outcome.body, as: responseType.descriptor, pretty: false)
                    exchange.respond(.json(200, json))
                } catch {
                    exchange.respond(ConnectProtocol.error(.internalError, "the response did not convert to JSON: \(error.message)"))
                }
            }
        }
    }
}
