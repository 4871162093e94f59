import PushwireWire

/// The services every Pushwire server answers: Health/Check and Reflection/ListMethods.
enum BuiltinServices {
    /// `methods` plus the built-in ones (a registered method with the same path wins).
    static func adding(to methods: [String: RegisteredMethod], state: SharedReference) -> [String: RegisteredMethod] {
        var all = methods
        let health = RegisteredMethod.sync(Methods.Health.check) { _, request throws(RPCError) in
            var response = HealthCheckResponse()
            let shared = state.shared
            // Draining, or a health check (the store's: it cannot write) says it cannot serve.
            let draining = shared?.isDraining ?? true || !(state.isServing?() ?? true)
            if request.service.isEmpty {
                response.status = draining ? .notServing : .serving
            } else if let shared, shared.table.serviceNames.contains(request.service) {
                response.status = draining ? .notServing : .serving
            } else {
                response.status = .serviceUnknown
            }
            return response
        }
        let reflection = RegisteredMethod.sync(Methods.Reflection.listMethods) { _, _ throws(RPCError) in
            var response = ListMethodsResponse()
            let shared = state.shared
            response.methods = (shared?.table.sortedDescriptors ?? []).map { descriptor in
                var info = MethodInfo()
                info.path = descriptor.path
                info.requestType = descriptor.requestType.protoName
                info.responseType = descriptor.responseType.protoName
                return info
            }
            return response
        }
        for method in [health, reflection] where all[method.descriptor.path] == nil {
            all[method.descriptor.path] = method
        }
        return all
    }
}

/// The server's shared state for the built-in handlers, which are created before it exists.
///
/// `@unchecked Sendable`: `shared` and `isServing` are written once in `Server.start()` before
/// any loop thread is started (pthread_create orders that write before every read on the loops),
/// then only read.
final class SharedReference: @unchecked Sendable {
    var shared: ServerShared?
    /// Whether every `Server.addHealthCheck` check is serving (nil: none was added).
    var isServing: (@Sendable () -> Bool)?
}
