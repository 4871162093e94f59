import Foundation
import PushwireRuntime
import PushwireService
import PushwireWire

/// pushwired's services on the real RPC server in a fresh data directory, listening on
/// 127.0.0.1 with an ephemeral port; `stop()` shuts both down.
final class LiveServer {
    let services: PushwireServices
    let server: Server
    let port: UInt16
    private var stopped = false

    init(configuration: (inout ServerConfiguration) -> Void = { _ in }) async throws {
        let dir = NSTemporaryDirectory() + "pushwire-live-\(getpid())-\(UUID().uuidString.prefix(8))"
        services = try await makePushwireServices(dataDirectory: dir, adminToken: "root")
        var settings = ServerConfiguration(listen: try SocketAddress(parsing: "127.0.0.1:0"), threads: 1)
        configuration(&settings)
        server = Server(configuration: settings, logger: Logger(label: "test", level: .warning))
        services.register(on: server)
        do {
            port = UInt16(try server.start().port)
        } catch {
            services.close()
            throw error
        }
    }

    /// A new connection to the server.
    func connect() throws -> RawClient { try RawClient(port: port) }

    /// Creates an application over `client`; returns its code and access token.
    func createApplication(_ client: RawClient, name: String, callID: UInt32) throws -> (code: String, token: String) {
        var create = CreateApplicationRequest()
        create.name = name
        let created = try client.call(Methods.Admin.createApplication, create, token: "root", callID: callID)
        return (created.application?.code ?? "", created.accessToken)
    }

    func stop() {
        guard !stopped else { return }
        stopped = true
        server.shutdownNow()
        server.waitUntilStopped()
        services.close()
    }

    deinit { stop() }
}
