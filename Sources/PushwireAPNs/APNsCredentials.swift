/// Which APNs service an application talks to.
public enum APNsEnvironment: String, Sendable, Equatable, CaseIterable {
    /// `api.sandbox.push.apple.com`: development builds of the app.
    case sandbox
    /// `api.push.apple.com`: App Store and TestFlight builds.
    case production

    /// The service's base URL, without a trailing slash.
    public var baseURL: String {
        switch self {
        case .sandbox: return "https://api.sandbox.push.apple.com"
        case .production: return "https://api.push.apple.com"
        }
    }
}

/// What an application needs to authenticate to APNs with a provider token.
public struct APNsCredentials: Sendable, Equatable {
    /// The Apple developer team id: the JWT's `iss` claim.
    public var teamID: String
    /// The id of the .p8 key: the JWT's `kid` header.
    public var keyID: String
    /// The app's bundle id: the `apns-topic` header.
    public var topic: String
    /// The .p8 key file's text: a PEM `PRIVATE KEY` (PKCS#8) holding an EC P-256 key.
    public var p8PEM: String
    /// Sandbox or production.
    public var environment: APNsEnvironment

    /// Creates credentials after checking that the key parses and the ids fit in headers.
    ///
    /// - Throws: `APNsCredentialError` when the key is not a PKCS#8 EC P-256 private key, or an id
    ///   or the topic is empty or holds characters that cannot go in an HTTP header or a JWT.
    public init(teamID: String, keyID: String, topic: String, p8PEM: String, environment: APNsEnvironment) throws(APNsCredentialError) {
        for (field, value) in [("team id", teamID), ("key id", keyID), ("topic", topic)] {
            // These go verbatim into a header or a JSON string; refuse anything needing escapes.
            guard !value.isEmpty, value.utf8.count <= 200,
                  value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
            else { throw .invalidField(field) }
        }
        try Self.validate(p8: p8PEM)
        self.teamID = teamID
        self.keyID = keyID
        self.topic = topic
        self.p8PEM = p8PEM
        self.environment = environment
    }

    /// Checks that `p8` is a PEM PKCS#8 EC P-256 private key that can sign ES256.
    ///
    /// The service calls this when an application is created or updated, so a bad key is refused
    /// then rather than discovered at send time.
    /// - Throws: `APNsCredentialError.invalidKey` with what was wrong.
    public static func validate(p8: String) throws(APNsCredentialError) {
        do {
            _ = try JWTSigner(pem: p8, algorithm: .es256)
        } catch {
            throw .invalidKey(error.reason(for: .es256))
        }
    }
}

/// Why `APNsCredentials` were refused.
public enum APNsCredentialError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The .p8 key did not parse or is not an EC P-256 private key; the text says why.
    case invalidKey(String)
    /// The named field (team id, key id or topic) is empty, too long or holds unusable characters.
    case invalidField(String)

    /// A message fit for an operator.
    public var description: String {
        switch self {
        case .invalidKey(let why): return "invalid APNs .p8 key: \(why)"
        case .invalidField(let field): return "invalid APNs \(field)"
        }
    }
}
