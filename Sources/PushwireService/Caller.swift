/// Who is calling, from the call's metadata: the bearer token and, optionally, the application
/// the caller means to act on.
public struct Caller: Sendable, Equatable {
    /// The token of `authorization: Bearer <token>`; nil when absent or not a bearer token.
    public var bearerToken: String?
    /// The application code of the `application` metadata entry, when present. Category methods
    /// act on the token's application; naming another one there is PERMISSION_DENIED.
    public var applicationCode: String?

    /// Creates a caller directly.
    public init(bearerToken: String? = nil, applicationCode: String? = nil) {
        self.bearerToken = bearerToken
        self.applicationCode = applicationCode
    }

    /// Reads the caller from metadata entries (keys compared case-insensitively).
    public init(metadata: [(key: String, value: String)]) {
        for (key, value) in metadata {
            switch key.lowercased() {
            case "authorization":
                let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
                if parts.count == 2, parts[0].lowercased() == "bearer" {
                    let token = parts[1].trimmingCharacters(in: " ")
                    bearerToken = token.isEmpty ? nil : token
                }
            case "application":
                applicationCode = value
            default:
                break
            }
        }
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in character: Character) -> String {
        var slice = self[...]
        while slice.first == character { slice = slice.dropFirst() }
        while slice.last == character { slice = slice.dropLast() }
        return String(slice)
    }
}
