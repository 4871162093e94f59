import CCurl

/// One blocking HTTPS POST with libcurl's easy interface: the OAuth2 token request, made about
/// once an hour per service account, so simplicity beats the multiplexed transports here.
/// Verifies the server's certificate (against `caFile` when given, else the system's store);
/// never turned off. HTTP/2 when the server offers it, else HTTP/1.1.
enum HTTPSPost {
    /// What came back.
    struct Response {
        var status: Int
        var body: [UInt8]
    }

    /// The most response bytes kept (a token response is well under 2 KiB).
    static let maxBodyBytes = 64 * 1024

    /// Posts `body` to `url` with the content type; returns the answer, or the failure's text.
    static func post(url: String, contentType: String, body: [UInt8], caFile: String?, timeoutMS: Int) -> Result<Response, TransportFailure> {
        guard url.hasPrefix("https://") else { return .failure(TransportFailure(reason: "not an https:// URL")) }
        guard let easy = curl_easy_init() else { return .failure(TransportFailure(reason: "libcurl: cannot create a handle")) }
        defer { curl_easy_cleanup(easy) }
        let collected = Collected()
        let context = Unmanaged.passUnretained(collected).toOpaque()
        var headers: UnsafeMutablePointer<curl_slist>?
        headers = curl_slist_append(headers, "content-type: \(contentType)")
        defer { curl_slist_free_all(headers) }
        var failure: CURLcode = CURLE_OK
        func set(_ code: CURLcode) { if failure == CURLE_OK { failure = code } }
        set(ccurl_easy_setopt_string(easy, CURLOPT_URL, url))
        set(ccurl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "https"))
        set(ccurl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
        set(ccurl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, timeoutMS))
        set(ccurl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, 1))
        set(ccurl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, 2))
        set(ccurl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, ccurl_http_version_2tls()))
        if let caFile { set(ccurl_easy_setopt_string(easy, CURLOPT_CAINFO, caFile)) }
        set(ccurl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headers))
        set(ccurl_easy_setopt_callback(easy, CURLOPT_WRITEFUNCTION, Self.write))
        set(ccurl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context))
        if failure != CURLE_OK { return .failure(TransportFailure(reason: "libcurl: \(String(cString: curl_easy_strerror(failure)))")) }
        let performed: CURLcode = body.withUnsafeBufferPointer { bytes in
            var code = ccurl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count))
            if code == CURLE_OK {
                code = ccurl_easy_setopt_pointer(easy, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
            }
            return code == CURLE_OK ? curl_easy_perform(easy) : code
        }
        guard performed == CURLE_OK else {
            return .failure(TransportFailure(reason: String(cString: curl_easy_strerror(performed))))
        }
        var status = 0
        _ = ccurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        return .success(Response(status: status, body: collected.body))
    }

    /// Why no answer came.
    struct TransportFailure: Error {
        var reason: String
    }

    private final class Collected {
        var body: [UInt8] = []
    }

    private static let write: ccurl_data_callback = { data, size, count, context in
        let length = size * count
        guard let data, let context else { return length }
        let collected = Unmanaged<Collected>.fromOpaque(context).takeUnretainedValue()
        let room = max(0, maxBodyBytes - collected.body.count)
        collected.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: min(length, room)))
        return length
    }
}
