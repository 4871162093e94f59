import PushwireJSONBridge
import PushwireRuntime
import PushwireWire

/// The Pushwoosh-compatible API at `POST /json/1.3/<method>`: Pushwoosh's envelope
/// (`{"request": {…}}` in, `{"status_code", "status_message", "response"}` out) translated to
/// Pushwire's own methods, which it calls through the server's method table — so every rule and
/// error of those methods applies unchanged. docs/PUSHWOOSH.md lists what is covered, field by
/// field, and what differs.
public enum PushwooshAPI {
    /// Where the API is served.
    public static let prefix = "/json/1.3/"

    /// Serves the API on `server`'s HTTP door. Call before `start()`.
    public static func register(on server: Server) {
        server.registerHTTPRoute(prefix: prefix) { request, exchange in
            handle(request, exchange)
        }
    }

    typealias Reply = @Sendable (Result<JSONValue, PushwooshFailure>) -> Void

    static func handle(_ request: HTTPRequest, _ exchange: HTTPExchange) {
        let reply: Reply = { result in exchange.respond(envelope(result)) }
        guard request.method == "POST" else {
            return reply(.failure(PushwooshFailure(statusCode: 405, message: "use POST")))
        }
        let name = String(request.path.dropFirst(prefix.count))
        let body: JSONValue
        do throws(ProtoJSONError) {
            body = try ProtoJSON.parse(String(decoding: request.body, as: UTF8.self))
        } catch {
            return reply(.failure(PushwooshFailure(statusCode: 400, message: "the body is not JSON: \(error.message)")))
        }
        guard let arguments = body["request"], case .object = arguments else {
            return reply(.failure(PushwooshFailure(statusCode: 400, message: "the body must be {\"request\": {…}}")))
        }
        let call = PushwooshCall(exchange: exchange, arguments: arguments, reply: reply)
        do throws(PushwooshFailure) {
            switch name {
            case "registerDevice": try PushwooshDevices.registerDevice(call)
            case "unregisterDevice": try PushwooshDevices.unregisterDevice(call)
            case "setTags": try PushwooshDevices.setTags(call)
            case "getTags": try PushwooshDevices.getTags(call)
            case "setBadge": try PushwooshDevices.setBadge(call)
            case "pushStat": try PushwooshDevices.pushStat(call)
            case "createMessage": try PushwooshMessages.createMessage(call)
            case "deleteMessage": try PushwooshMessages.deleteMessage(call)
            case "getMsgStats", "getMessageDetails": try PushwooshMessages.messageStatistics(call)
            default:
                throw PushwooshFailure(statusCode: 404, message: "\(name) is not a method of Pushwire's Pushwoosh API (see docs/PUSHWOOSH.md)")
            }
        } catch {
            reply(.failure(error))
        }
    }

    static func envelope(_ result: Result<JSONValue, PushwooshFailure>) -> HTTPResponse {
        let members: [(key: String, value: JSONValue)]
        let status: Int
        switch result {
        case .success(let response):
            members = [("status_code", .number("200")), ("status_message", .string("OK")), ("response", response)]
            status = 200
        case .failure(let failure):
            members = [("status_code", .number("\(failure.statusCode)")), ("status_message", .string(failure.message)), ("response", .null)]
            status = failure.httpStatus
        }
        return .json(status, ProtoJSON.serialize(.object(members), pretty: false))
    }
}

/// One API call in progress: its arguments, and how to call Pushwire's methods and answer.
struct PushwooshCall: Sendable {
    let exchange: HTTPExchange
    let arguments: JSONValue
    let reply: PushwooshAPI.Reply

    /// Calls `method` with `request` given in proto3 JSON (encoded by the shared JSON bridge);
    /// `then` gets the response in proto3 JSON with every field, or the failure is answered.
    /// With `application`, the call names that application in its metadata, and a token of
    /// another application (PERMISSION_DENIED) answers as an argument error (210), as Pushwoosh
    /// answers a wrong `application`.
    func invoke<Request, Response>(
        _ method: MethodDescriptor<Request, Response>, _ request: JSONValue, token: String? = nil,
        application: String? = nil, then: @escaping @Sendable (JSONValue) -> Void
    ) {
        let message: [UInt8]
        do throws(ProtoJSONError) {
            message = try ProtoJSON.encode(request, as: Request.descriptor)
        } catch {
            reply(.failure(.argument(error.message)))
            return
        }
        var metadata: [Metadata] = []
        if let token {
            var entry = Metadata()
            entry.key = "authorization"
            entry.value = "Bearer \(token)"
            metadata.append(entry)
        }
        if let application {
            var entry = Metadata()
            entry.key = "application"
            entry.value = application
            metadata.append(entry)
        }
        let reply = self.reply
        exchange.call(method.path, message: message, metadata: metadata) { result in
            switch result {
            case .failure(let error) where application != nil && error.code == .permissionDenied:
                reply(.failure(.argument(error.message)))
            case .failure(let error):
                reply(.failure(PushwooshFailure(error)))
            case .success(let bytes):
                do throws(ProtoJSONError) {
                    then(try ProtoJSON.decode(bytes, as: Response.descriptor, emitDefaults: true))
                } catch {
                    reply(.failure(PushwooshFailure(statusCode: 500, message: error.message)))
                }
            }
        }
    }

    /// Refuses the call when it has an argument outside `known`: an unknown field might change
    /// what is delivered, and must not be dropped silently.
    func refuseUnknown(_ known: Set<String>, in object: JSONValue? = nil, what: String = "") throws(PushwooshFailure) {
        for key in (object ?? arguments).keys where !known.contains(key) {
            throw .argument("\(what)\(key) is not supported by Pushwire (see docs/PUSHWOOSH.md)")
        }
    }
}
