import COpenSSL

extension APNsConfiguration {
    /// Checks that `path` holds CA certificates OpenSSL can load, as the gateway will when it
    /// connects. A server refuses to start on a CA file that fails here: otherwise every
    /// application with APNs settings would find out one message at a time.
    /// - Throws: `APNsGatewayError.transport` with OpenSSL's reason.
    public static func checkCAFile(_ path: String) throws(APNsGatewayError) {
        do {
            SSL_CTX_free(try TLSSocket.makeContext(caFile: path))
        } catch {
            throw .transport(error.reason)
        }
    }
}
