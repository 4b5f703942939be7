internal import CXML2
import Glibc
import RatecardCore
import RatecardSupport

/// Where a serve root lives in S3-compatible object storage: `endpoint/bucket/prefix…`
/// (path-style addressing, which every S3-compatible server accepts).
public struct S3Location: Sendable, Equatable {
    public var endpoint: String
    public var bucket: String
    public var prefix: String
    public var region: String

    public init(endpoint: String, bucket: String, prefix: String = "", region: String = "us-east-1") {
        self.endpoint = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        self.bucket = bucket
        self.prefix = prefix
        self.region = region
    }
}

/// A problem the storage reported, in words a release manager can act on.
public struct S3Error: ErrorText, Sendable, Equatable, CustomStringConvertible {
    public var status: Int
    public var code: String
    public var message: String

    public var description: String { text.english }

    public var text: Message {
        // The storage's own sentence, without its final period (a sentence of ours follows).
        var message = message.trimmingCharacters(in: .whitespaces)
        while message.hasSuffix(".") { message.removeLast() }
        switch code {
        case "InvalidAccessKeyId", "SignatureDoesNotMatch", "InvalidToken", "ExpiredToken", "AccessDenied":
            return Message(
                "object storage refused the credentials (\(code), HTTP \(status)): \(message). Check AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) and the bucket's policy",
                ko: "오브젝트 스토리지가 자격 증명을 거부했습니다 (\(code), HTTP \(status)): \(message). AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY(또는 AWS_PROFILE)와 버킷 정책을 확인하세요")
        case "NoSuchBucket":
            return Message(
                "the bucket does not exist (\(code)): \(message). Create it, or fix 'bucket' in ratecard.yaml",
                ko: "버킷이 없습니다 (\(code)): \(message). 버킷을 만들거나 ratecard.yaml의 'bucket'을 고치세요")
        case "RequestTimeTooSkewed":
            return Message(
                "this machine's clock is too far from the storage's (\(code)): \(message). Set the clock right (NTP) and try again",
                ko: "이 컴퓨터의 시계가 스토리지의 시계와 너무 다릅니다 (\(code)): \(message). 시계를 맞추고(NTP) 다시 시도하세요")
        default:
            return Message("object storage answered HTTP \(status) \(code): \(message)", ko: "오브젝트 스토리지의 응답: HTTP \(status) \(code): \(message)")
        }
    }
}

/// The calls the release protocol needs from S3-compatible storage, with conditional writes
/// (`If-None-Match: *` for objects written once, `If-Match: <ETag>` for the compare-and-swap
/// of a pointer), retries with backoff on 5xx, 429 and dropped connections, and never a retry
/// that could turn a failed conditional write into a wrong answer: after an ambiguous failure
/// (the request may have been applied), a compare-and-swap reads the key back to learn what
/// happened instead of sending the write again.
///
/// One client is used by one thread at a time (it owns one libcurl handle and its connection);
/// parallel work takes one client per worker (`S3Pool`). That confinement is what makes it
/// `@unchecked Sendable`: a client moves to the worker that owns it and its mutable state (the
/// libcurl handle, the request counters) is touched by that one thread; a lock would only hide
/// a second user of the handle, which libcurl does not allow.
public final class S3Client: @unchecked Sendable {
    public enum Condition: Sendable, Equatable {
        case none
        /// Write only if the key does not exist (`If-None-Match: *`).
        case absent
        /// Write only if the key's ETag is this one (`If-Match`).
        case matches(String)
    }

    public enum PutOutcome: Sendable, Equatable {
        case written(etag: String)
        /// The condition did not hold: the key exists (`.absent`) or has another ETag or none (`.matches`).
        case preconditionFailed
    }

    public let location: S3Location
    private let signer: SigV4
    private let transport: HTTPTransport
    public let retries: Int
    /// Requests sent and body bytes sent, for the benchmark.
    public private(set) var requests = 0
    public private(set) var bytesSent = 0
    /// Counters shared with the other clients of one command (its workers), if any.
    let stats: S3Stats?

    public init(location: S3Location, credentials: AWSCredentials, retries: Int = 4, timeoutMilliseconds: Int = 60_000, stats: S3Stats? = nil) {
        self.location = location
        signer = SigV4(credentials: credentials, region: location.region)
        self.retries = retries
        self.stats = stats
        transport = HTTPTransport(timeoutMilliseconds: timeoutMilliseconds)
    }

    /// What a GET returned: the bytes, the ETag, and the two clocks the lock judges age by
    /// (the key's `Last-Modified` and the server's `Date`, seconds since the epoch).
    public struct Fetched: Sendable {
        public var bytes: [UInt8]
        public var etag: String
        public var lastModified: Int?
        public var serverDate: Int?
        /// Every response header, names in lower case (Content-Type, Cache-Control, ...).
        public var headers: [String: String] = [:]
    }

    /// A key found by a listing, with its size, ETag and Last-Modified (seconds since the epoch).
    public struct Listed: Sendable, Equatable {
        public var key: String
        public var size: Int
        public var etag: String
        public var lastModified: Int? = nil
    }

    /// The storage's own clock (its `Date`) when it answered the last listing page: the age of a
    /// listed key is this less its Last-Modified, so no two machines' clocks are compared.
    public private(set) var listedAt: Int?

    /// Writes `bytes` at `key` (below the prefix) if `condition` holds.
    public func put(_ key: String, _ bytes: [UInt8], contentType: String, cacheControl: String? = nil, condition: Condition = .none) throws -> PutOutcome {
        var headers = [("Content-Type", contentType)]
        if let cacheControl { headers.append(("Cache-Control", cacheControl)) }
        switch condition {
        case .none: break
        case .absent: headers.append(("If-None-Match", "*"))
        case .matches(let etag): headers.append(("If-Match", etag))
        }
        let request = self.request("PUT", path: objectPath(key), headers: headers, body: bytes)
        guard case .matches(let expected) = condition else {
            let response = try exchange(request, idempotent: true)
            switch response.status {
            case 200, 201, 204: return .written(etag: response.headers["etag"] ?? "")
            // A create whose answer was lost is sent again (here, or by libcurl on a fresh
            // connection) and then fails its own condition: the caller reads the key back.
            case 412: return .preconditionFailed
            // 409 ConditionalRequestConflict: a concurrent conditional write; the caller re-reads.
            case 409 where condition != .none: return .preconditionFailed
            default: throw error(response)
            }
        }
        // A compare-and-swap is never resent blindly: after an ambiguous failure the key is read
        // back. It holds these bytes: the write landed. It still has the expected ETag: the
        // write did not land and the condition still holds, so it is sent again. Anything
        // else: someone else wrote it, and the condition failed.
        var attempt = 0
        while true {
            let response: HTTPTransport.Response
            do {
                response = try exchange(request, idempotent: false)
            } catch let failure as HTTPTransport.Failure where failure.maybeSent {
                guard let current = try get(key) else { return .preconditionFailed }
                if current.bytes == bytes { return .written(etag: current.etag) }
                guard Self.sameETag(current.etag, expected) else { return .preconditionFailed }
                guard attempt < retries else {
                    throw OperationalError(
                        "\(failure.message); the write to \(key) did not land (tried \(attempt + 1) times): nothing was changed",
                        ko: "\(failure.message); \(key)에 쓰지 못했습니다 (\(attempt + 1)번 시도): 아무것도 바꾸지 않았습니다")
                }
                attempt += 1
                Self.backOff(attempt)
                continue
            }
            switch response.status {
            case 200, 201, 204: return .written(etag: response.headers["etag"] ?? "")
            // 412; an If-Match on a missing key is 404 on some servers, 412 on others; 409 is a
            // concurrent conditional write. libcurl sends a request again by itself when a reused
            // connection dies before any answer, so a write that landed can come back as its
            // own failed condition: it landed if the key holds these bytes.
            case 412, 409:
                if let current = try get(key), current.bytes == bytes { return .written(etag: current.etag) }
                return .preconditionFailed
            case 404 where errorCode(response) == "NoSuchKey": return .preconditionFailed
            default: throw error(response)
            }
        }
    }

    /// A listing's `LastModified` (`2026-12-04T15:20:01.000Z`) in seconds, on `HTTPDate`'s scale.
    static func isoSeconds(_ text: String) -> Int? {
        guard text.count >= 19, let day = Day(String(text.prefix(10))) else { return nil }
        let clock = text.dropFirst(11).prefix(8).split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3 else { return nil }
        return day.ordinal * 86400 + clock[0] * 3600 + clock[1] * 60 + clock[2]
    }

    /// ETags compare without their quotes (servers differ in sending them).
    static func sameETag(_ a: String, _ b: String) -> Bool {
        a.trimmingCharacters(in: "\"") == b.trimmingCharacters(in: "\"")
    }

    /// The bytes and ETag at `key`, or nil when there is none.
    public func get(_ key: String) throws -> (bytes: [UInt8], etag: String)? {
        try fetch(key).map { ($0.bytes, $0.etag) }
    }

    /// The bytes, ETag and clocks at `key`, or nil when there is none.
    public func fetch(_ key: String) throws -> Fetched? {
        let request = self.request("GET", path: objectPath(key))
        let response = try exchange(request, idempotent: true)
        switch response.status {
        case 200:
            return Fetched(
                bytes: response.body, etag: response.headers["etag"] ?? "",
                lastModified: response.headers["last-modified"].flatMap(HTTPDate.seconds), serverDate: response.headers["date"].flatMap(HTTPDate.seconds),
                headers: response.headers)
        case 404 where errorCode(response) != "NoSuchBucket": return nil
        default: throw error(response)
        }
    }

    /// Removes `key` (no error when it is already gone).
    public func delete(_ key: String) throws {
        let request = self.request("DELETE", path: objectPath(key))
        let response = try exchange(request, idempotent: true)
        guard [200, 204, 404].contains(response.status), errorCode(response) != "NoSuchBucket" else { throw error(response) }
    }

    /// Removes `key` only while its ETag is `etag` (S3's conditional delete); false when the key
    /// holds something else now. A server without conditional deletes removes it regardless.
    public func delete(_ key: String, ifMatch etag: String) throws -> Bool {
        let request = self.request("DELETE", path: objectPath(key), headers: [("If-Match", etag)])
        let response = try exchange(request, idempotent: true)
        if response.status == 412 { return false }
        guard [200, 204, 404].contains(response.status), errorCode(response) != "NoSuchBucket" else { throw error(response) }
        return true
    }

    /// Copies `source` to `key` inside the bucket (no bytes travel), with its own Content-Type
    /// and Cache-Control. S3 can fail a copy after answering 200: the answer must name the copy.
    public func copy(from source: String, to key: String, contentType: String, cacheControl: String) throws {
        let headers = [
            ("x-amz-copy-source", "/\(location.bucket)/\(Self.encode(location.prefix + source, keepSlash: true))"),
            ("x-amz-metadata-directive", "REPLACE"), ("Content-Type", contentType), ("Cache-Control", cacheControl),
        ]
        let request = self.request("PUT", path: objectPath(key), headers: headers)
        var attempt = 0
        while true {
            let response = try exchange(request, idempotent: true)
            guard response.status == 200 else { throw error(response) }
            if S3XML.texts(response.body, named: "CopyObjectResult").count == 1 || S3XML.texts(response.body, named: "ETag").count == 1 { return }
            // An error inside a 200 is transient (InternalError); the copy is idempotent.
            guard attempt < retries else { throw error(response) }
            attempt += 1
            Self.backOff(attempt)
        }
    }

    /// Every key below `prefix` (relative to the location's prefix), page by page; with
    /// `startAfter` (a key, relative too), only the keys after it in listing order.
    public func list(prefix: String, startAfter: String? = nil, pageSize: Int = 1000) throws -> [String] {
        try listObjects(prefix: prefix, startAfter: startAfter, pageSize: pageSize).map(\.key)
    }

    /// Every key below `prefix` with its size and ETag, page by page.
    public func listObjects(prefix: String, startAfter: String? = nil, pageSize: Int = 1000) throws -> [Listed] {
        var found: [Listed] = []
        try listPages(prefix: prefix, delimiter: nil, startAfter: startAfter, pageSize: pageSize) { body in
            for fields in S3XML.records(body, named: "Contents") {
                guard let key = fields["Key"], key.hasPrefix(location.prefix) else { continue }
                found.append(
                    Listed(
                        key: String(key.dropFirst(location.prefix.count)), size: Int(fields["Size"] ?? "") ?? -1, etag: fields["ETag"] ?? "",
                        lastModified: fields["LastModified"].flatMap(Self.isoSeconds)))
            }
        }
        return found
    }

    /// The "folders" right below `prefix` (keys grouped at the next `/`), e.g. `r/<id>/`.
    public func listFolders(prefix: String) throws -> [String] {
        var found: [String] = []
        try listPages(prefix: prefix, delimiter: "/", pageSize: 1000) { body in
            for fields in S3XML.records(body, named: "CommonPrefixes") {
                guard let folder = fields["Prefix"], folder.hasPrefix(location.prefix) else { continue }
                found.append(String(folder.dropFirst(location.prefix.count)))
            }
        }
        return found
    }

    private func listPages(prefix: String, delimiter: String?, startAfter: String? = nil, pageSize: Int, _ page: ([UInt8]) -> Void) throws {
        var token: String?
        repeat {
            var query = [("list-type", "2"), ("max-keys", String(pageSize)), ("prefix", location.prefix + prefix)]
            if let delimiter { query.append(("delimiter", delimiter)) }
            if let startAfter, token == nil { query.append(("start-after", location.prefix + startAfter)) }
            if let token { query.append(("continuation-token", token)) }
            let request = self.request("GET", path: "/\(location.bucket)", query: query)
            let response = try exchange(request, idempotent: true)
            guard response.status == 200 else { throw error(response) }
            listedAt = response.headers["date"].flatMap(HTTPDate.seconds)
            page(response.body)
            token = S3XML.texts(response.body, named: "IsTruncated").first == "true" ? S3XML.texts(response.body, named: "NextContinuationToken").first : nil
        } while token != nil
    }

    /// Creates the bucket (tests and first-time setup).
    public func createBucket() throws {
        var body: [UInt8] = []
        if location.region != "us-east-1" {
            body = Array("<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><LocationConstraint>\(location.region)</LocationConstraint></CreateBucketConfiguration>".utf8)
        }
        let request = self.request("PUT", path: "/\(location.bucket)", body: body)
        let response = try exchange(request, idempotent: true)
        guard response.status == 200 || errorCode(response) == "BucketAlreadyOwnedByYou" else { throw error(response) }
    }

    // MARK: - Requests

    private func objectPath(_ key: String) -> String {
        "/\(location.bucket)/\(Self.encode(location.prefix + key, keepSlash: true))"
    }

    /// A signed request: the body's sha256 as the payload hash, the query sorted and encoded
    /// the way the signature canonicalises it.
    private func request(_ method: String, path: String, query: [(String, String)] = [], headers: [(String, String)] = [], body: [UInt8]? = nil) -> HTTPTransport.Request {
        let hostStart = location.endpoint.range(of: "://").map(\.upperBound) ?? location.endpoint.startIndex
        let host = String(location.endpoint[hostStart...])
        let signed = signer.sign(
            method: method, host: host, path: path, query: query, headers: headers,
            payloadHash: SHA256.hex(body ?? []), time: time(nil))
        let url = location.endpoint + path + (signed.query.isEmpty ? "" : "?" + signed.query)
        return HTTPTransport.Request(method: method, url: url, headers: signed.headers, body: body)
    }

    /// Sends with retries: on 5xx and 429, and on a connection that failed before anything was
    /// sent; on one that failed after sending only when `idempotent` (a plain write of the same
    /// bytes, a conditional create of content-addressed bytes, a read or a delete).
    private func exchange(_ request: HTTPTransport.Request, idempotent: Bool) throws -> HTTPTransport.Response {
        var attempt = 0
        while true {
            requests += 1
            bytesSent += request.body?.count ?? 0
            stats?.count(request)
            let timeout = try stats?.timeLeft(upTo: transport.timeoutMilliseconds)
            do throws(HTTPTransport.Failure) {
                let response: HTTPTransport.Response
                do {
                    response = try transport.send(request, timeoutMilliseconds: timeout)
                } catch {
                    Trace.note("s3: \(request.method) \(request.url): \(error.message)")
                    throw error
                }
                Trace.note("s3: \(request.method) \(request.url): \(response.status)")
                let transient = response.status >= 500 || response.status == 429
                // A 5xx to a compare-and-swap is as ambiguous as a dropped connection.
                if transient && !idempotent {
                    throw HTTPTransport.Failure(code: response.status, message: "\(request.method) \(request.url): HTTP \(response.status)", maybeSent: true)
                }
                if transient && attempt < retries {
                    attempt += 1
                    Self.backOff(attempt)
                    continue
                }
                return response
            } catch let failure {
                guard attempt < retries, idempotent || !failure.maybeSent else { throw failure }
                attempt += 1
                Self.backOff(attempt)
            }
        }
    }

    static func backOff(_ attempt: Int) {
        // 50 ms, 100 ms, 200 ms, 400 ms, ... with up to a quarter of jitter.
        let base = 50_000 << min(attempt - 1, 6)
        usleep(UInt32(base + Int.random(in: 0...(base / 4))))
    }

    private func errorCode(_ response: HTTPTransport.Response) -> String? {
        S3XML.texts(response.body, named: "Code").first
    }

    private func error(_ response: HTTPTransport.Response) -> S3Error {
        S3Error(
            status: response.status, code: errorCode(response) ?? "HTTP\(response.status)",
            message: S3XML.texts(response.body, named: "Message").first ?? String(decoding: response.body.prefix(200), as: UTF8.self))
    }

    /// SigV4's URI encoding: unreserved characters as they are, every other byte as %XX.
    static func encode(_ text: String, keepSlash: Bool = false) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepSlash:
                out += "/"
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }
}

/// The few values ratecard reads from S3's XML answers, through libxml2.
enum S3XML {
    /// For every element named `name`, the texts of its child elements by name (a listing's
    /// `Contents`: Key, Size, ETag; its `CommonPrefixes`: Prefix).
    static func records(_ bytes: [UInt8], named name: String) -> [[String: String]] {
        var result: [[String: String]] = []
        walk(bytes) { node, children in
            guard String(cString: node.pointee.name) == name else { return }
            var fields: [String: String] = [:]
            for child in children where child.pointee.type == XML_ELEMENT_NODE {
                fields[String(cString: child.pointee.name)] = text(of: child)
            }
            result.append(fields)
        }
        return result
    }

    private static func text(of node: UnsafeMutablePointer<xmlNode>) -> String {
        var parts: [String] = []
        var child = node.pointee.children
        while let current = child {
            if current.pointee.type == XML_TEXT_NODE, let content = current.pointee.content { parts.append(String(cString: content)) }
            child = current.pointee.next
        }
        return parts.joined()
    }

    /// Calls `visit` with every element of the document and its children, in document order.
    private static func walk(_ bytes: [UInt8], _ visit: (UnsafeMutablePointer<xmlNode>, [UnsafeMutablePointer<xmlNode>]) -> Void) {
        guard !bytes.isEmpty else { return }
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        let document = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { xmlReadMemory($0.baseAddress, Int32($0.count), "s3.xml", "UTF-8", options) }
        }
        guard let document else { return }
        defer { xmlFreeDoc(document) }
        var stack: [UnsafeMutablePointer<xmlNode>] = xmlDocGetRootElement(document).map { [$0] } ?? []
        while let node = stack.popLast() {
            var children: [UnsafeMutablePointer<xmlNode>] = []
            var child = node.pointee.children
            while let current = child {
                children.append(current)
                child = current.pointee.next
            }
            if node.pointee.type == XML_ELEMENT_NODE, node.pointee.name != nil { visit(node, children) }
            stack.append(contentsOf: children.reversed().filter { $0.pointee.type == XML_ELEMENT_NODE })
        }
    }

    /// The text of every element named `name` (any namespace), in document order.
    static func texts(_ bytes: [UInt8], named name: String) -> [String] {
        var found: [String] = []
        walk(bytes) { node, _ in
            if String(cString: node.pointee.name) == name { found.append(text(of: node)) }
        }
        return found
    }
}
