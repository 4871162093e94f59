/// A method of the Pushwire protocol, with its request and response types.
/// The generated `Methods` enum holds one per method of `Protos/`.
public struct MethodDescriptor<Request: WireMessage, Response: WireMessage>: Sendable {
    /// The fully qualified service name, e.g. `pushwire.v1.Devices`.
    public let service: String
    /// The method name, e.g. `RegisterDevice`.
    public let method: String
    /// The path used on the wire: `/pushwire.v1.Devices/RegisterDevice`.
    public var path: String { "/\(service)/\(method)" }

    /// Creates a descriptor.
    public init(service: String, method: String) {
        self.service = service
        self.method = method
    }

    /// The same method with its types erased, for tables and reflection.
    public var erased: AnyMethodDescriptor {
        AnyMethodDescriptor(service: service, method: method, requestType: Request.self, responseType: Response.self)
    }
}

/// A method with its types erased: what the server's method table and Reflection list.
public struct AnyMethodDescriptor: Sendable {
    /// The fully qualified service name.
    public let service: String
    /// The method name.
    public let method: String
    /// The request message type.
    public let requestType: any WireMessage.Type
    /// The response message type.
    public let responseType: any WireMessage.Type
    /// `/<service>/<method>`.
    public var path: String { "/\(service)/\(method)" }
}
