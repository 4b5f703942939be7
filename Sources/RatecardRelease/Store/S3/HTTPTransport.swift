internal import CCurl
import RatecardSupport

/// One HTTP exchange through libcurl (the caller signs: see `SigV4`). TLS peers are verified
/// (libcurl's default, never turned off); connect and total timeouts are set.
final class HTTPTransport {
    struct Request {
        var method: String
        var url: String
        var headers: [(String, String)] = []
        var body: [UInt8]? = nil
    }

    struct Response {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
    }

    /// A failure to exchange at all (connect, send, receive, timeout), with whether the request
    /// may have reached the server (then a write may have happened).
    struct Failure: ErrorText, CustomStringConvertible {
        var code: Int
        var message: String
        var maybeSent: Bool
        var description: String { message }
        /// libcurl's words kept as they are, after what failed.
        var text: Message { Message("\(message)", ko: "오브젝트 스토리지와 통신하지 못했습니다: \(message)") }
    }

    /// Nil when libcurl could not be loaded (`loadFailure` says why): every send then fails.
    private let handle: UnsafeMutableRawPointer?
    let connectTimeoutMilliseconds: Int
    let timeoutMilliseconds: Int

    init(connectTimeoutMilliseconds: Int = 5_000, timeoutMilliseconds: Int = 60_000) {
        handle = Self.loadFailure == nil ? ccurl_easy_init() : nil
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    deinit { if let handle { ccurl_easy_cleanup(handle) } }

    /// Sends `request` and returns the response of whatever status, or throws `Failure`.
    func send(_ request: Request, timeoutMilliseconds timeout: Int? = nil) throws(Failure) -> Response {
        let timeoutMilliseconds = timeout ?? self.timeoutMilliseconds
        guard let handle else {
            throw Failure(code: -1, message: "\(request.method) \(request.url): \(Self.loadFailure ?? "libcurl could not start a request")", maybeSent: false)
        }
        ccurl_easy_reset(handle)
        let sink = Sink()
        let box = Unmanaged.passRetained(sink)
        defer { box.release() }
        var headerList: UnsafeMutablePointer<curl_slist>?
        for (name, value) in request.headers { headerList = ccurl_slist_append(headerList, "\(name): \(value)") }
        defer { ccurl_slist_free_all(headerList) }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code: CURLcode = request.url.withCString { url in
            request.method.withCString { method in
                errorBuffer.withUnsafeMutableBufferPointer { errors in
                    _ = ccurl_setopt_string(handle, CURLOPT_URL, url)
                    _ = ccurl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, method)
                    _ = ccurl_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList)
                    _ = ccurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
                    _ = ccurl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, min(connectTimeoutMilliseconds, timeoutMilliseconds))
                    _ = ccurl_setopt_long(handle, CURLOPT_TIMEOUT_MS, timeoutMilliseconds)
                    _ = ccurl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errors.baseAddress)
                    _ = ccurl_setopt_callback(handle, CURLOPT_WRITEFUNCTION, Sink.body)
                    _ = ccurl_setopt_pointer(handle, CURLOPT_WRITEDATA, box.toOpaque())
                    _ = ccurl_setopt_callback(handle, CURLOPT_HEADERFUNCTION, Sink.header)
                    _ = ccurl_setopt_pointer(handle, CURLOPT_HEADERDATA, box.toOpaque())
                    if request.method == "HEAD" { _ = ccurl_setopt_long(handle, CURLOPT_NOBODY, 1) }
                    do {
                        if let body = request.body {
                            // The body is sent as given (an empty one as an empty C string), and
                            // libcurl's form Content-Type is replaced by the caller's.
                            _ = ccurl_setopt_long(handle, CURLOPT_POSTFIELDSIZE, body.count)
                            if body.isEmpty {
                                return "".withCString { empty in
                                    _ = ccurl_setopt_pointer(handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: empty))
                                    return ccurl_easy_perform(handle)
                                }
                            }
                            return body.withUnsafeBufferPointer { bytes in
                                _ = ccurl_setopt_pointer(handle, CURLOPT_POSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress!))
                                return ccurl_easy_perform(handle)
                            }
                        }
                        return ccurl_easy_perform(handle)
                    }
                }
            }
        }
        guard code == CURLE_OK else {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let message = detail.isEmpty ? String(cString: ccurl_easy_strerror(code)) : detail
            // Before a connection there was nothing sent; after, a write may have landed.
            let unsent = code == CURLE_COULDNT_CONNECT || code == CURLE_COULDNT_RESOLVE_HOST || code == CURLE_COULDNT_RESOLVE_PROXY
            throw Failure(code: Int(code.rawValue), message: "\(request.method) \(request.url): \(message)", maybeSent: !unsent)
        }
        var status = 0
        _ = ccurl_response_code(handle, &status)
        return Response(status: status, headers: sink.headers, body: sink.body)
    }

    /// libcurl loaded (and `curl_global_init` run) once, at the first transport: nil when it is
    /// ready, else why it is not (the library missing or too old).
    private static let loadFailure: String? = ccurl_load().map { String(cString: $0) }

    /// Collects a response's body and headers from libcurl's callbacks.
    private final class Sink {
        var body: [UInt8] = []
        var headers: [String: String] = [:]

        static let body: ccurl_data_callback = { data, size, count, context in
            let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
            let length = size * count
            if let data, length > 0 {
                data.withMemoryRebound(to: UInt8.self, capacity: length) { sink.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: length)) }
            }
            return length
        }

        static let header: ccurl_data_callback = { data, size, count, context in
            let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
            let length = size * count
            guard let data, length > 0 else { return length }
            let line = data.withMemoryRebound(to: UInt8.self, capacity: length) { String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self) }
            if line.hasPrefix("HTTP/") { sink.headers = [:] }
            if let colon = line.firstIndex(of: ":") {
                let name = line[..<colon].lowercased()
                let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: " \r\n\t")
                sink.headers[name] = value
            }
            return length
        }
    }
}
