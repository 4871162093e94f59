import PushwireStore
import PushwireWire

extension StoreError {
    /// The status a caller sees for a store failure: the one place domain errors meet status codes.
    var rpcError: RPCError {
        switch self {
        case .notFound(let what): RPCError(.notFound, "\(what) not found", cause: self)
        case .wrongApplication(let what): RPCError(.permissionDenied, "\(what) belongs to another application", cause: self)
        case .conflict(let what): RPCError(.alreadyExists, what, cause: self)
        case .invalidChange(let what): RPCError(.failedPrecondition, what, cause: self)
        case .limitReached(let what): RPCError(.resourceExhausted, what, cause: self)
        case .leaseLost: RPCError(.aborted, "\(self)", cause: self)
        case .closed: RPCError(.unavailable, "the store is shutting down", cause: self)
        case .unavailable: RPCError(.unavailable, "\(self); try again later", cause: self)
        case .storageFull: RPCError(.resourceExhausted, "\(self); nothing was written", cause: self)
        case .dataLoss: RPCError(.dataLoss, "\(self)", cause: self)
        case .cannotOpen, .corrupt, .schemaTooNew, .internalError:
            RPCError(.internalError, "store failure: \(self)", cause: self)
        }
    }
}

/// Runs a store call, mapping its failure to the caller's status.
func storeCall<T>(_ body: () throws(StoreError) -> T) throws(RPCError) -> T {
    do { return try body() } catch { throw error.rpcError }
}

/// Runs an async store call, mapping its failure to the caller's status.
func storeCall<T>(_ body: () async throws(StoreError) -> T) async throws(RPCError) -> T {
    do { return try await body() } catch { throw error.rpcError }
}
