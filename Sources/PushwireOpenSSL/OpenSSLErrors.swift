import COpenSSL

/// OpenSSL's thread-local error queue as one line, oldest first, joined with "; " (and the queue
/// emptied), or "no reason given by OpenSSL" when it is empty. The one reader of the queue for
/// every TLS user: the server's listeners, the Swift client, the APNs gateway, the bench and the
/// tests, so that a failure reads the same wherever it is reported.
public func openSSLErrors() -> String {
    var reasons: [String] = []
    while true {
        let code = ERR_get_error()
        if code == 0 { break }
        var text = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &text, text.count)
        reasons.append(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    return reasons.isEmpty ? noOpenSSLReason : reasons.joined(separator: "; ")
}

/// What `openSSLErrors()` answers when the queue is empty (a caller may then report errno).
public let noOpenSSLReason = "no reason given by OpenSSL"
