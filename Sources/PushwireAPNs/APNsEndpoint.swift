/// Where an HTTP/2 connection goes, parsed from the gateway's base URL (`https://host[:port]`).
struct APNsEndpoint: Equatable {
    /// The host name or IP literal, without IPv6 brackets: what is resolved and verified.
    var host: String
    /// The TCP port (443 when the URL has none).
    var port: UInt16
    /// The `:authority` pseudo-header: host and port as the URL spells them.
    var authority: String
    /// Whether `host` is an IP literal (verified against the certificate's IP SANs, no SNI).
    var isIPLiteral: Bool

    /// Parses `https://host`, `https://host:port`, `https://[v6]:port`; a path is ignored. Returns
    /// nil for anything else (only https: APNs is TLS-only, and verification is never off).
    init?(baseURL: String) {
        guard baseURL.hasPrefix("https://") else { return nil }
        var rest = baseURL.dropFirst("https://".count)
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        guard !rest.isEmpty else { return nil }
        authority = String(rest)
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            host = String(rest[rest.index(after: rest.startIndex)..<close])
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                portText = after.dropFirst()
            }
            isIPLiteral = true
        } else {
            if let colon = rest.lastIndex(of: ":") {
                host = String(rest[..<colon])
                portText = rest[rest.index(after: colon)...]
            } else {
                host = String(rest)
            }
            isIPLiteral = !host.isEmpty && host.utf8.allSatisfy { ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: ".") }
        }
        guard !host.isEmpty else { return nil }
        if let portText {
            guard let parsed = UInt16(portText), parsed > 0 else { return nil }
            port = parsed
        } else {
            port = 443
        }
    }
}
