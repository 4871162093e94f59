import Foundation
import PushwireClient
import PushwireWire

/// Why a command failed after its arguments were accepted; exits 1.
struct CommandFailure: Error {
    var error: RPCError
}

/// Runs the parsed commands against a server.
struct Commands {
    let options: GlobalOptions

    private var callOptions: CallOptions {
        var call = CallOptions(timeout: options.timeout)
        if let token = options.token { call.metadata.append(("authorization", "Bearer \(token)")) }
        return call
    }

    private func connect() async throws(CommandFailure) -> ClientConnection {
        do {
            return try await ClientConnection.connect(to: options.server, timeout: options.timeout, tls: options.tlsOptions)
        } catch let error as RPCError {
            throw CommandFailure(error: error)
        } catch {
            throw CommandFailure(error: RPCError(.unavailable, "\(error)"))
        }
    }

    /// Calls `method` with a JSON request; returns the JSON response.
    private func call(_ method: CatalogMethod, json: JSONValue, emitDefaults: Bool = false) async throws(CommandFailure) -> JSONValue {
        let request: [UInt8]
        do {
            request = try ProtoJSON.encode(json, as: method.requestDescriptor)
        } catch {
            throw CommandFailure(error: RPCError(.invalidArgument, error.message))
        }
        let connection = try await connect()
        defer { connection.close() }
        let reply: [UInt8]
        do {
            reply = try await connection.call(path: method.path, request: request, options: callOptions)
        } catch let error as RPCError {
            throw CommandFailure(error: error)
        } catch {
            throw CommandFailure(error: RPCError(.unknown, "\(error)"))
        }
        do {
            return try ProtoJSON.decode(reply, as: method.responseDescriptor, emitDefaults: emitDefaults)
        } catch {
            throw CommandFailure(error: RPCError(.internalError, "the response is not a valid \(method.responseType): \(error)"))
        }
    }

    private func known(_ path: String) throws(CommandFailure) -> CatalogMethod {
        guard let method = MethodCatalog.find(path) else {
            throw CommandFailure(error: RPCError(.internalError, "this client does not know \(path)"))
        }
        return method
    }

    /// `pushwire health`: prints the status; returns false unless SERVING.
    func health(service: String) async throws(CommandFailure) -> Bool {
        let method = try known("Health/Check")
        let response = try await call(method, json: .object(service.isEmpty ? [] : [("service", .string(service))]))
        var status = "SERVING_STATUS_UNSPECIFIED"
        if case .object(let members) = response, case .string(let s)? = members.first(where: { $0.key == "status" })?.value {
            status = s
        }
        let short = status.hasPrefix("SERVING_STATUS_") ? String(status.dropFirst("SERVING_STATUS_".count)) : status
        if options.json {
            print(ProtoJSON.serialize(.object([("service", .string(service)), ("status", .string(short))]), pretty: false))
        } else {
            print(service.isEmpty ? short : "\(service): \(short)")
        }
        return short == "SERVING"
    }

    /// `pushwire methods`.
    func methods(local: Bool) async throws(CommandFailure) {
        var rows: [(path: String, request: String, response: String)] = []
        if local {
            rows = MethodCatalog.all.map { ($0.path, $0.requestType, $0.responseType) }
        } else {
            let response = try await call(try known("Reflection/ListMethods"), json: .object([]))
            if case .object(let members) = response, case .array(let items)? = members.first(where: { $0.key == "methods" })?.value {
                for case .object(let fields) in items {
                    func field(_ name: String) -> String {
                        if case .string(let s)? = fields.first(where: { $0.key == name })?.value { return s }
                        return ""
                    }
                    rows.append((field("path"), field("requestType"), field("responseType")))
                }
            }
        }
        if options.json {
            let items = rows.map { JSONValue.object([("path", .string($0.path)), ("requestType", .string($0.request)), ("responseType", .string($0.response))]) }
            print(ProtoJSON.serialize(.object([("methods", .array(items))]), pretty: false))
        } else {
            let width = rows.map(\.path.count).max() ?? 0
            for row in rows {
                print(row.path.padding(toLength: width, withPad: " ", startingAt: 0) + "  (\(row.request)) → \(row.response)")
            }
        }
    }

    /// `pushwire call`.
    func call(method name: String, data: String, emitDefaults: Bool) async throws -> Void {
        guard let method = MethodCatalog.find(name) else {
            throw UsageError(message: "unknown method '\(name)'; 'pushwire methods --local' lists them", command: "call")
        }
        let text = try readData(data)
        let json: JSONValue
        do {
            json = try ProtoJSON.parse(text)
            _ = try ProtoJSON.encode(json, as: method.requestDescriptor) // usage errors before connecting
        } catch {
            throw UsageError(message: "--data: \(error.message)", command: "call")
        }
        let response = try await call(method, json: json, emitDefaults: emitDefaults)
        print(ProtoJSON.serialize(response, pretty: !options.json))
    }

    private func readData(_ data: String) throws(UsageError) -> String {
        if data == "-" {
            return String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        }
        if data.hasPrefix("@") {
            let path = String(data.dropFirst())
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw UsageError(message: "--data: cannot read '\(path)'", command: "call")
            }
            return String(decoding: contents, as: UTF8.self)
        }
        return data
    }

    /// `pushwire ping`.
    func ping(count: Int) async throws(CommandFailure) {
        let connection = try await connect()
        defer { connection.close() }
        var times: [Double] = []
        for _ in 0..<count {
            do {
                let rtt = try await connection.ping(timeout: options.timeout)
                let micros = Double(rtt.components.seconds) * 1e6 + Double(rtt.components.attoseconds) / 1e12
                times.append(micros)
                if !options.json { print("pong from \(options.server): time=\(String(format: "%.1f", micros)) µs") }
            } catch let error as RPCError {
                throw CommandFailure(error: error)
            } catch {
                throw CommandFailure(error: RPCError(.unknown, "\(error)"))
            }
        }
        if options.json {
            let items = times.map { JSONValue.number(String(format: "%.1f", $0)) }
            print(ProtoJSON.serialize(.object([("server", .string(options.server)), ("roundTripMicroseconds", .array(items))]), pretty: false))
        }
    }
}
