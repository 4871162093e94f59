import CCurl

/// One HTTP/2 request in flight: the job, its header list and what the response has brought so far.
///
/// Created, used and freed on the HTTP/2 thread only; libcurl's callbacks reach it through an
/// unretained pointer, valid because `HTTP2Client` keeps the transfer in its table until libcurl
/// reports the transfer done.
final class CurlTransfer {
    /// The response body is only APNs' small JSON error; anything larger is cut here.
    static let maxBodyBytes = 16 * 1024

    let job: APNsJob
    let easy: UnsafeMutableRawPointer
    /// The provider token this attempt carried, to tell whether a 403 concerns the current one.
    let token: String
    private(set) var headers: UnsafeMutablePointer<curl_slist>?
    var body: [UInt8] = []
    var retryAfter: Duration?

    init(job: APNsJob, easy: UnsafeMutableRawPointer, token: String, headerLines: [String]) {
        self.job = job
        self.easy = easy
        self.token = token
        for line in headerLines {
            // curl_slist_append returns NULL on allocation failure and leaves the list intact.
            if let appended = curl_slist_append(headers, line) { headers = appended }
        }
    }

    deinit { curl_slist_free_all(headers) }

    /// CURLOPT_WRITEFUNCTION: collects the (small, JSON) response body.
    static let writeCallback: ccurl_data_callback = { data, size, count, context in
        let length = size * count
        guard let data, let context else { return length }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
        let room = max(0, maxBodyBytes - transfer.body.count)
        transfer.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: min(length, room)))
        return length
    }

    /// CURLOPT_HEADERFUNCTION: picks out `retry-after`; APNs echoes our `apns-id`, so it is not read.
    static let headerCallback: ccurl_data_callback = { data, size, count, context in
        let length = size * count
        guard let data, let context else { return length }
        let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
        if line.count > 12, line.prefix(12).lowercased() == "retry-after:" {
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
            transfer.retryAfter = APNsResponse.retryAfter(line.dropFirst(12))
        }
        return length
    }
}
