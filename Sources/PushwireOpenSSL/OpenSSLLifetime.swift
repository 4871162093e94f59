import COpenSSL

/// Keeps OpenSSL's process-wide state until the process ends. By default OpenSSL frees it in an
/// `atexit` handler while other threads may still be inside OpenSSL — a client connection's
/// reader closing its session as the CLI exits, a gateway's HTTP/2 thread as pushwired does —
/// and what they then touch has been freed: the CLI crashed so (a heap corrupted, found in
/// `malloc_consolidate`) once in a CI run. The process's end frees the memory anyway.
///
/// Decided by OpenSSL's first initialization: each executable calls this first thing, and the
/// client before its first TLS context (a program using the client library gets it unless
/// something else used OpenSSL before). Calling it again does nothing.
public func keepOpenSSLUntilExit() {
    _ = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil)
}
