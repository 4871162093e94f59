/// The outcome of a call: one of the 17 gRPC status codes, with gRPC's meanings.
///
/// A small struct over a closed enum (as in grpc-swift), so that new codes never break a `switch`
/// and a code read from the wire can always be represented: values above 16 read as `.unknown`.
public struct StatusCode: Hashable, Sendable, CustomStringConvertible {
    enum Wrapped: UInt32, CaseIterable, Sendable {
        case ok = 0, cancelled, unknown, invalidArgument, deadlineExceeded, notFound, alreadyExists
        case permissionDenied, resourceExhausted, failedPrecondition, aborted, outOfRange
        case unimplemented, internalError, unavailable, dataLoss, unauthenticated
    }

    let wrapped: Wrapped

    init(_ wrapped: Wrapped) { self.wrapped = wrapped }

    /// The code's number on the wire (`Status.code`).
    public var rawValue: UInt32 { wrapped.rawValue }

    /// The code for a wire value; `nil` for values that are not one of the 17 codes.
    public init?(rawValue: UInt32) {
        guard let wrapped = Wrapped(rawValue: rawValue) else { return nil }
        self.wrapped = wrapped
    }

    /// The code for a wire value, reading values that are not one of the 17 codes as `.unknown`.
    public init(wireValue: UInt32) {
        self.wrapped = Wrapped(rawValue: wireValue) ?? .unknown
    }

    /// Every code, in numeric order.
    public static let allCases: [StatusCode] = Wrapped.allCases.map(StatusCode.init)

    /// 0: not an error; the call succeeded.
    public static let ok = StatusCode(.ok)
    /// 1: the call was cancelled, typically by the caller.
    public static let cancelled = StatusCode(.cancelled)
    /// 2: an error with no better code, e.g. one raised by a library that has no status.
    public static let unknown = StatusCode(.unknown)
    /// 3: the caller sent an invalid argument, whatever the state of the system.
    public static let invalidArgument = StatusCode(.invalidArgument)
    /// 4: the deadline passed before the call completed.
    public static let deadlineExceeded = StatusCode(.deadlineExceeded)
    /// 5: a requested entity (application, device, category, message) was not found.
    public static let notFound = StatusCode(.notFound)
    /// 6: the entity the caller tried to create already exists.
    public static let alreadyExists = StatusCode(.alreadyExists)
    /// 7: the caller is authenticated but may not do this (e.g. another application's token).
    public static let permissionDenied = StatusCode(.permissionDenied)
    /// 8: a limit was reached (concurrent calls, frame size, quota).
    public static let resourceExhausted = StatusCode(.resourceExhausted)
    /// 9: the system is not in the state the call needs (e.g. deleting a message already sent).
    public static let failedPrecondition = StatusCode(.failedPrecondition)
    /// 10: the call was aborted, typically by a concurrency conflict; retry at a higher level.
    public static let aborted = StatusCode(.aborted)
    /// 11: a value was past the valid range (e.g. a page beyond the end).
    public static let outOfRange = StatusCode(.outOfRange)
    /// 12: the method is not implemented or not supported by this server.
    public static let unimplemented = StatusCode(.unimplemented)
    /// 13: an invariant the server relies on is broken; a bug.
    public static let internalError = StatusCode(.internalError)
    /// 14: the service is unavailable for now (shutting down, store offline); retrying may work.
    public static let unavailable = StatusCode(.unavailable)
    /// 15: unrecoverable data loss or corruption.
    public static let dataLoss = StatusCode(.dataLoss)
    /// 16: the call carries no valid credentials.
    public static let unauthenticated = StatusCode(.unauthenticated)

    /// The gRPC name, e.g. `INVALID_ARGUMENT`.
    public var name: String {
        switch wrapped {
        case .ok: "OK"
        case .cancelled: "CANCELLED"
        case .unknown: "UNKNOWN"
        case .invalidArgument: "INVALID_ARGUMENT"
        case .deadlineExceeded: "DEADLINE_EXCEEDED"
        case .notFound: "NOT_FOUND"
        case .alreadyExists: "ALREADY_EXISTS"
        case .permissionDenied: "PERMISSION_DENIED"
        case .resourceExhausted: "RESOURCE_EXHAUSTED"
        case .failedPrecondition: "FAILED_PRECONDITION"
        case .aborted: "ABORTED"
        case .outOfRange: "OUT_OF_RANGE"
        case .unimplemented: "UNIMPLEMENTED"
        case .internalError: "INTERNAL"
        case .unavailable: "UNAVAILABLE"
        case .dataLoss: "DATA_LOSS"
        case .unauthenticated: "UNAUTHENTICATED"
        }
    }

    /// The code for a gRPC name such as `NOT_FOUND`; `nil` when the name is not one of the 17.
    public init?(name: String) {
        guard let code = StatusCode.allCases.first(where: { $0.name == name }) else { return nil }
        self = code
    }

    /// `NAME (number)`, e.g. `INVALID_ARGUMENT (3)`.
    public var description: String { "\(name) (\(rawValue))" }
}
