/// The application a call acts for, for the debug call log (`Server.describeCalls`): the
/// application of a bearer token (`admin` for the admin token), else the `application` code of a
/// Devices request. Only codes come out: a token is hashed and looked up, never returned.
extension Registry {
    /// The application code (or `admin`) of a call, or nil when it names none.
    public func describeCall(method: String, metadata: [(key: String, value: String)], message: [UInt8]) -> String? {
        let caller = Caller(metadata: metadata)
        // Refused as UNAUTHENTICATED before any token is looked at: name no application either.
        if caller.ambiguity != nil { return "ambiguous-metadata" }
        if let token = caller.bearerToken {
            let hash = tokenDigests.digest(of: token)
            if let application = directory.application(tokenHash: hash) { return application.code }
            return isAdminToken(hash: hash) ? "admin" : "unknown-token"
        }
        guard method.hasPrefix("/pushwire.v1.Devices/") else { return nil }
        return Self.firstStringField(message)
    }

    /// Field 1 of a protobuf message when it is length-delimited: every Devices request has the
    /// application code there. Nil for anything malformed (the call itself reports that).
    static func firstStringField(_ bytes: [UInt8]) -> String? {
        var index = 0
        func varint() -> UInt64? {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while index < bytes.count, shift < 64 {
                let byte = bytes[index]
                index += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
            return nil
        }
        while index < bytes.count {
            guard let tag = varint() else { return nil }
            let field = tag >> 3
            switch tag & 7 {
            case 0: guard varint() != nil else { return nil }
            case 1: index += 8
            case 5: index += 4
            case 2:
                guard let length = varint(), length <= UInt64(bytes.count - min(index, bytes.count)) else { return nil }
                let start = index
                index += Int(length)
                if field == 1 { return String(decoding: bytes[start..<index], as: UTF8.self) }
            default: return nil
            }
        }
        return nil
    }
}
