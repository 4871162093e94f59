import Foundation
import PushwireClient
import PushwireWire

/// One connection to the server for a group command, with typed calls whose failures become
/// `CommandFailure` (exit 1, `CODE: message`).
struct Session {
    let options: GlobalOptions
    let connection: ClientConnection

    /// Connects to `options.server`.
    static func open(_ options: GlobalOptions) async throws(CommandFailure) -> Session {
        do {
            return Session(options: options, connection: try await ClientConnection.connect(to: options.server, timeout: options.timeout, tls: options.tlsOptions))
        } catch let error as RPCError {
            throw CommandFailure(error: error)
        } catch {
            throw CommandFailure(error: RPCError(.unavailable, "\(error)"))
        }
    }

    /// Closes the connection.
    func close() {
        connection.close()
    }

    /// Calls `method`, authorized by `token` when given.
    func call<Request, Response>(_ method: MethodDescriptor<Request, Response>, _ request: Request, token: String?) async throws(CommandFailure) -> Response {
        var call = CallOptions(timeout: options.timeout)
        if let token { call.metadata.append(("authorization", "Bearer \(token)")) }
        do {
            return try await connection.call(method, request, options: call)
        } catch let error as RPCError {
            if error.code == .unimplemented {
                // A server that does not offer this service yet (or an older server): say which.
                let detail = error.message.isEmpty ? "" : "\(error.message); "
                throw CommandFailure(error: RPCError(.unimplemented, "\(detail)this server does not offer \(method.path)"))
            }
            throw CommandFailure(error: error)
        } catch {
            throw CommandFailure(error: RPCError(.unknown, "\(error)"))
        }
    }

    /// `message` as proto3 JSON with every field, zeros included: a script reading `.opened`
    /// should find 0 rather than nothing.
    static func json<M: WireMessage>(_ message: M) -> JSONValue {
        (try? ProtoJSON.decode(message.encode(), as: M.descriptor, emitDefaults: true)) ?? .null
    }

    /// Prints `message` as one line of proto3 JSON (the `--json` output), zeros included.
    /// - Parameter renaming: top-level keys printed under another name, so that one thing has one
    ///   name in every command's output although the wire's messages name it differently.
    static func printJSON<M: WireMessage>(_ message: M, renaming: [String: String] = [:]) {
        do {
            var json = try ProtoJSON.decode(message.encode(), as: M.descriptor, emitDefaults: true)
            if case .object(let members) = json, !renaming.isEmpty {
                json = .object(members.map { (key: renaming[$0.key] ?? $0.key, value: $0.value) })
            }
            print(ProtoJSON.serialize(json, pretty: false))
        } catch {
            // Only reachable if the generated descriptor and wrapper disagree.
            print(#"{"error":{"message":"cannot render the response as JSON"}}"#)
        }
    }

    /// The admin token: `--admin-token`, `$PUSHWIRE_ADMIN_TOKEN`, or `<data-dir>/admin-token`
    /// (`--data-dir`, `$PUSHWIRE_DATA_DIR`, default `./data`: where `pushwired` keeps it).
    static func adminToken(_ options: GlobalOptions, command: String) throws(UsageError) -> String {
        if let token = options.adminToken, !token.isEmpty { return token }
        let path = options.dataDirectory + "/admin-token"
        if let data = FileManager.default.contents(atPath: path) {
            let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if !token.isEmpty { return token }
        }
        throw UsageError(message: "needs the admin token: --admin-token, $PUSHWIRE_ADMIN_TOKEN, or --data-dir/$PUSHWIRE_DATA_DIR "
                             + "naming pushwired's data directory (no readable \(path))", command: command)
    }
}

/// Human-readable renderings shared by several commands.
enum Render {
    /// `Yes (id 0, foreground), No (id 1, destructive)`.
    static func buttons(_ buttons: [Button]) -> String {
        buttons.map { button in
            var traits: [String] = ["id \(button.id)"]
            if button.startApplication { traits.append("foreground") }
            if button.destructive { traits.append("destructive") }
            if button.authenticationRequired && !button.startApplication { traits.append("auth") }
            if button.behavior == .textInput { traits.append("text input") }
            for label in button.localizedLabels { traits.append("\(label.language)=\(label.text)") }
            return "\(button.label) (\(traits.joined(separator: ", ")))"
        }.joined(separator: ", ")
    }

    /// One line per category: `  65  YesNo: Yes (…), No (…)`.
    static func categories(_ categories: [Category]) -> String {
        categories.map { "  \($0.categoryID)  \($0.name): \(buttons($0.buttons))" }.joined(separator: "\n")
    }

    /// A tag value in the syntax `--set` takes.
    static func tagValue(_ value: TagValue?) -> String {
        switch value?.kind {
        case .stringValue(let text)?: return text.contains(":") ? "string:\(text)" : text
        case .intValue(let number)?: return "int:\(number)"
        case .boolValue(let flag)?: return "bool:\(flag)"
        case .listValue(let list)?: return "list:\(list.values.joined(separator: ","))"
        case .dateValue(let seconds)?:
            let formatter = ISO8601DateFormatter()
            return "date:\(formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds))))"
        case nil: return ""
        }
    }

    /// `name = value` lines.
    static func tags(_ tags: [Tag]) -> String {
        tags.isEmpty ? "  (no tags)" : tags.map { "  \($0.name) = \(tagValue($0.value))" }.joined(separator: "\n")
    }
}
