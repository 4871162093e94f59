import FoundationEssentials

/// A Firebase service account's key file, as the Firebase console downloads it (JSON): what the
/// FCM gateway needs to get OAuth2 access tokens and to address its project.
public struct FCMServiceAccount: Sendable, Equatable {
    /// The Firebase project: requests go to `/v1/projects/<projectID>/messages:send`.
    public var projectID: String
    /// The service account's e-mail: the JWT's `iss`.
    public var clientEmail: String
    /// The id of the key (the JWT's `kid`), when the file has one.
    public var privateKeyID: String
    /// The RSA private key, PEM (`-----BEGIN PRIVATE KEY-----`, PKCS#8).
    public var privateKeyPEM: String
    /// Where access tokens are granted (`https://oauth2.googleapis.com/token`): the JWT's `aud`.
    public var tokenURI: String

    private struct File: Decodable {
        var type: String?
        var project_id: String?
        var private_key_id: String?
        var private_key: String?
        var client_email: String?
        var token_uri: String?
    }

    /// Parses and checks a key file: the fields are present and usable, the key is an RSA key
    /// libcrypto can sign RS256 with, the token URI is `https://`.
    /// - Throws: `FCMCredentialError` saying what is wrong (never quoting the key).
    public init(json: String) throws(FCMCredentialError) {
        guard let file = try? JSONDecoder().decode(File.self, from: Data(json.utf8)) else {
            throw .invalid("the service account is not a JSON object of a Firebase key file")
        }
        if let type = file.type, type != "service_account" { throw .invalid("\"type\" is \"\(type)\", expected \"service_account\"") }
        guard let project = file.project_id, !project.isEmpty, project.utf8.count <= 64,
              project.utf8.allSatisfy({ Self.isProjectIDByte($0) }) else {
            throw .invalid("\"project_id\" is missing or not a Firebase project id (lower-case letters, digits, '-')")
        }
        guard let email = file.client_email, !email.isEmpty, email.utf8.count <= 256, email.contains("@"),
              email.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) else {
            throw .invalid("\"client_email\" is missing or not an e-mail address")
        }
        let keyID = file.private_key_id ?? ""
        guard keyID.utf8.count <= 128, keyID.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) else {
            throw .invalid("\"private_key_id\" holds characters a JWT header cannot carry")
        }
        guard let uri = file.token_uri, uri.hasPrefix("https://"), uri.utf8.count <= 512,
              uri.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) else {
            throw .invalid("\"token_uri\" is missing or not an https:// URL")
        }
        guard let pem = file.private_key, !pem.isEmpty else { throw .invalid("\"private_key\" is missing") }
        do {
            _ = try JWTSigner(pem: pem, algorithm: .rs256)
        } catch {
            throw .invalid(error.reason(for: .rs256))
        }
        projectID = project
        clientEmail = email
        privateKeyID = keyID
        privateKeyPEM = pem
        tokenURI = uri
    }

    private static func isProjectIDByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: "-")
    }
}

/// Why a service account was refused.
public enum FCMCredentialError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The key file or its key is unusable; the text says why.
    case invalid(String)

    /// A message fit for an operator.
    public var description: String {
        switch self {
        case .invalid(let why): return "invalid FCM service account: \(why)"
        }
    }
}
