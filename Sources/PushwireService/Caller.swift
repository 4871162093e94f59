/// Who is calling, from the call's metadata: the bearer token and, optionally, the application
/// the caller means to act on.
public struct Caller: Sendable, Equatable {
    /// The token of `authorization: Bearer <token>`; nil when absent or not a bearer token.
    public var bearerToken: String?
    /// The application code of the `application` metadata entry, when present. Category methods
    /// act on the token's application; naming another one there is PERMISSION_DENIED.
    public var applicationCode: String?

    /// Why the metadata names no caller unambiguously, when it does not: more than one
    /// `authorization` (or `application`) entry. Every authorization check answers UNAUTHENTICATED
    /// with this message before looking at a token, so that no entry's order decides who calls.
    public var ambiguity: String?

    /// Creates a caller directly.
    public init(bearerToken: String? = nil, applicationCode: String? = nil) {
        self.bearerToken = bearerToken
        self.applicationCode = applicationCode
    }

    /// Reads the caller from metadata entries: the one rule of docs/PROTOCOL.md ("Metadata and
    /// authentication"). Keys are compared exactly (`Authorization` is an unknown key, ignored like
    /// any other); each of `authorization` and `application` may appear at most once, since with
    /// two a proxy and the server could each read a different one.
    public init(metadata: [(key: String, value: String)]) {
        var authorizations = 0, applications = 0
        for (key, value) in metadata {
            if key == "authorization" {
                authorizations += 1
                if let token = Self.bearerToken(in: value) { bearerToken = token.isEmpty ? nil : token }
            } else if key == "application" {
                applications += 1
                applicationCode = value
            }
        }
        if authorizations > 1 || applications > 1 {
            bearerToken = nil
            applicationCode = nil
            let (count, key) = authorizations > 1 ? (authorizations, "authorization") : (applications, "application")
            ambiguity = "the request carries \(count) \(key) metadata entries; send exactly one"
        }
    }

    /// The token of `Bearer <token>` (scheme in any case, spaces around either part), empty when
    /// nothing follows the scheme; nil for another scheme. Read over the UTF-8 bytes: this runs on
    /// every authorized call, where splitting and trimming `Character`s showed in profiles
    /// (docs/journal/2026-12-01-figures-from-code-comments.md).
    static func bearerToken(in value: String) -> String? {
        var value = value
        return value.withUTF8 { bytes -> String? in
            let space = UInt8(ascii: " ")
            var start = 0
            while start < bytes.count, bytes[start] == space { start += 1 }
            var schemeEnd = start
            while schemeEnd < bytes.count, bytes[schemeEnd] != space { schemeEnd += 1 }
            guard schemeEnd < bytes.count, isName(UnsafeBufferPointer(rebasing: bytes[start ..< schemeEnd]), "bearer") else {
                return nil
            }
            var tokenStart = schemeEnd
            var tokenEnd = bytes.count
            while tokenStart < tokenEnd, bytes[tokenStart] == space { tokenStart += 1 }
            while tokenEnd > tokenStart, bytes[tokenEnd - 1] == space { tokenEnd -= 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[tokenStart ..< tokenEnd]), as: UTF8.self)
        }
    }

    /// Whether `bytes` spell `name` (lower-case ASCII letters) in any case: for the auth scheme,
    /// which HTTP compares case-insensitively (metadata keys are compared exactly).
    private static func isName(_ bytes: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        guard bytes.count == name.utf8CodeUnitCount else { return false }
        let letters = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        // Setting bit 5 lower-cases an ASCII letter; only letters map onto the letters of `name`.
        for (byte, letter) in zip(bytes, letters) where byte | 0x20 != letter { return false }
        return true
    }
}
