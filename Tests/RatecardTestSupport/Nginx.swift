import Foundation
import Glibc
import RatecardKit
import Testing

// MARK: - nginx

/// nginx in the foreground on a free loopback port, with every file it writes inside `prefix`.
public final class NginxServer {
    public static var executable: String? {
        ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    public let nginx: String
    public let prefix: String
    public let port: Int
    public let process: Process

    private init(nginx: String, prefix: String, port: Int, process: Process) {
        self.nginx = nginx
        self.prefix = prefix
        self.port = port
        self.process = process
    }

    public var configuration: String { prefix + "/nginx.conf" }
    public var errorLog: String { prefix + "/error.log" }
    public var controlArguments: [String] { ["-c", configuration, "-p", prefix + "/", "-e", errorLog] }

    /// Writes nginx.conf around `ratecard nginx-conf`, checks it with `nginx -t`, and starts nginx.
    public static func start(nginx: String, prefix: String, root: String, repo: String) throws -> NginxServer {
        try FileSystem.makeDirectories(prefix)
        var lastError = ""
        for _ in 0..<5 {
            let port = Int.random(in: 20_000..<32_000)
            guard StaticServer.isFree(port) else { continue }
            let block = try ratecard(["nginx-conf", "--root", root, "--listen", "127.0.0.1:\(port)"], in: repo)
            try #require(block.status == 0, "ratecard nginx-conf: \(block.out)\(block.err)")
            let conf = """
                worker_processes 2;
                pid \(prefix)/nginx.pid;
                error_log \(prefix)/error.log warn;
                events { worker_connections 256; }
                http {
                    include /etc/nginx/mime.types;
                    default_type application/octet-stream;
                    access_log off;
                    client_body_temp_path \(prefix)/client_body;
                    proxy_temp_path \(prefix)/proxy;
                    fastcgi_temp_path \(prefix)/fastcgi;
                    uwsgi_temp_path \(prefix)/uwsgi;
                    scgi_temp_path \(prefix)/scgi;
                \(block.out)
                }

                """
            try FileSystem.writeFile(prefix + "/nginx.conf", Array(conf.utf8))
            let (status, output) = try runTool(nginx, ["-t", "-c", prefix + "/nginx.conf", "-p", prefix + "/", "-e", prefix + "/error.log"])
            try #require(status == 0, "nginx -t rejects the configuration:\n\(output)\n\(conf)")

            let process = Process()
            process.executableURL = URL(fileURLWithPath: nginx)
            process.arguments = ["-c", prefix + "/nginx.conf", "-p", prefix + "/", "-e", prefix + "/error.log", "-g", "daemon off;"]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let server = NginxServer(nginx: nginx, prefix: prefix, port: port, process: process)
            for _ in 0..<200 where process.isRunning && StaticServer.isFree(port) { usleep(50_000) }
            if process.isRunning && !StaticServer.isFree(port) { return server }
            lastError = server.errorLogTail()
            server.stop()
            if !lastError.contains("Address already in use") { break }
        }
        throw OperationalError("nginx did not start: \(lastError)")
    }

    public func errorLogTail() -> String {
        String(String(decoding: (try? FileSystem.readFile(errorLog)) ?? [], as: UTF8.self).suffix(2000))
    }

    /// `nginx -s stop` (Foundation's children block SIGTERM, but nginx's master unblocks it); SIGKILL as a last resort.
    public func stop() {
        guard process.isRunning else { return }
        _ = try? runTool(nginx, ["-s", "stop"] + controlArguments, stderrToNull: true)
        for _ in 0..<200 where process.isRunning { usleep(50_000) }
        if process.isRunning {
            let master = process.processIdentifier
            for worker in NginxServer.children(of: master) { kill(worker, SIGKILL) }
            kill(master, SIGKILL)
        }
        process.waitUntilExit()
    }

    /// Processes whose parent is `parent`, from /proc.
    public static func children(of parent: Int32) -> [Int32] {
        let names = (try? FileSystem.listDirectory("/proc")) ?? []
        return names.compactMap { name -> Int32? in
            guard let pid = Int32(name), let stat = try? FileSystem.readFile("/proc/\(name)/stat") else { return nil }
            let text = String(decoding: stat, as: UTF8.self)
            guard let close = text.lastIndex(of: ")") else { return nil }
            let fields = text[text.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == parent ? pid : nil
        }
    }
}

// MARK: - HTTP client

/// A tiny HTTP/1.1 client over one keep-alive loopback socket (URLSession is unreliable on Linux).
public final class HTTPConnection {
    public struct Response {
        public var status: Int
        public var headers: [String: String]
        public var body: [UInt8]

        public func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    public let port: Int
    private var socketFD: Int32 = -1
    private var pending: [UInt8] = []
    /// Bytes received since the current request was sent.
    private var receivedForRequest = 0

    public init(port: Int) { self.port = port }

    deinit { disconnect() }

    public func disconnect() {
        if socketFD >= 0 { close(socketFD) }
        socketFD = -1
        pending = []
    }

    /// A request on a kept-alive connection that the server closed while it was idle (nginx's
    /// keepalive_timeout, reached while the test ran swaps) gets no byte back: like a browser,
    /// that one request is sent again on a new connection. Any other failure is the server's.
    public func get(_ path: String) throws -> Response {
        let reused = socketFD >= 0
        if !reused { try connectSocket() }
        do {
            return try exchange(path)
        } catch {
            disconnect()
            guard reused, receivedForRequest == 0 else { throw error }
            try connectSocket()
            do {
                return try exchange(path)
            } catch {
                disconnect()
                throw error
            }
        }
    }

    private func connectSocket() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)  // never inherited by ratecard or nginx
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw Failure(description: "connect: \(String(cString: strerror(code)))")
        }
        socketFD = fd
    }

    private func exchange(_ path: String) throws -> Response {
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: ratecard-tests\r\n\r\n".utf8)
        receivedForRequest = 0
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { send(socketFD, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
            sent += count
        }
        var headEnd = 0
        while true {
            if let end = HTTPConnection.endOfHead(pending) {
                headEnd = end
                break
            }
            try fill()
        }
        let head = String(decoding: pending[0..<headEnd], as: UTF8.self)
        pending.removeFirst(headEnd + 4)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]) else {
            throw Failure(description: "bad status line: \(head.prefix(80))")
        }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        if headers["transfer-encoding"] != nil { throw Failure(description: "unexpected Transfer-Encoding for \(path)") }
        guard let length = status == 304 || status == 204 ? 0 : Int(headers["content-length"] ?? "") else {
            throw Failure(description: "no Content-Length for \(path)")
        }
        while pending.count < length { try fill() }
        let body = Array(pending[0..<length])
        pending.removeFirst(length)
        if headers["connection"]?.lowercased() == "close" { disconnect() }
        return Response(status: status, headers: headers, body: body)
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(socketFD, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { throw Failure(description: count == 0 ? "connection closed mid-response" : "recv: \(String(cString: strerror(errno)))") }
        receivedForRequest += count
        pending.append(contentsOf: chunk[0..<count])
    }

    private static func endOfHead(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }
}

// MARK: - Page-load checker

public struct LoadCounts: Sendable {
    public var clients = 0
    public var pageLoads = 0
    public var requests = 0
    /// Live pages (entry document, HTML) that did not answer 200.
    public var non200 = 0
    /// A shard named by the entry document just read was not served (404).
    public var missingData = 0
    /// A comparison shard did not hash to what the entry document read in the same page load names.
    public var hashMismatch = 0
    /// An entry document that did not parse or named no comparison shard (a torn read).
    public var badManifest = 0
    public var socketErrors = 0
    public var bundles: Set<String> = []
    /// ETag of /data/entry.json -> the bundles it was sent for.
    public var manifestETags: [String: Set<String>] = [:]
    public var samples: [String] = []

    public var mixed: Int { missingData + hashMismatch + badManifest }

    /// ETags nginx sent for entry documents of different bundles (same size, same mtime second: one ETag for two bundles).
    public var sharedManifestETags: Int { manifestETags.values.filter { $0.count > 1 }.count }

    public mutating func note(_ sample: String) {
        if samples.count < 10 { samples.append(sample) }
    }

    public mutating func merge(_ other: LoadCounts) {
        clients += 1
        pageLoads += other.pageLoads
        requests += other.requests
        non200 += other.non200
        missingData += other.missingData
        hashMismatch += other.hashMismatch
        badManifest += other.badManifest
        socketErrors += other.socketErrors
        bundles.formUnion(other.bundles)
        manifestETags.merge(other.manifestETags) { $0.union($1) }
        for sample in other.samples { note(sample) }
    }
}

/// One simulated page: read the entry document once, fetch the data it names, then the pages.
public struct PageChecker {
    public let connection: HTTPConnection
    public var counts = LoadCounts()

    public init(connection: HTTPConnection) { self.connection = connection }

    public mutating func loadPage(pages: [String] = ["/index.html", "/rates.html"]) {
        counts.pageLoads += 1
        if let entry = fetchLive("/data/entry.json") {
            checkData(entry: entry.body, etag: entry.header("etag"))
        }
        for page in pages { _ = fetchLive(page) }
    }

    /// Fetches the comparison shards `entry` names (as the web app does) and checks each against
    /// the hash named there.
    public mutating func checkData(entry: [UInt8], etag: String?) {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(entry))) as? [String: Any],
            let bundle = object["bundle_id"] as? String,
            let shards = object["compare"] as? [[String: Any]], !shards.isEmpty
        else {
            counts.badManifest += 1
            counts.note("unreadable entry document: \(String(decoding: entry.prefix(80), as: UTF8.self))")
            return
        }
        counts.bundles.insert(bundle)
        if let etag { counts.manifestETags[etag, default: []].insert(bundle) }
        for shard in shards {
            guard let listed = shard["sha256"] as? String, let logical = shard["path"] as? String else {
                counts.badManifest += 1
                counts.note("entry document of \(bundle) names a shard without a path or hash")
                return
            }
            // The URL the web app fetches: the object when the entry document says where objects are.
            let relative = (object["objects"] as? String).map { $0 + listed + ".json" } ?? "data/\(bundle)/" + logical
            // Resolved against the page at the root, as a browser resolves it (`..` stops at the root).
            let path = String((URL(string: relative, relativeTo: URL(string: "http://served/index.html"))?.absoluteURL.path ?? "/" + relative).dropFirst())
            guard let response = request("/" + path) else { return }
            switch response.status {
            case 200:
                if SHA256.hex(response.body) != listed {
                    counts.hashMismatch += 1
                    counts.note("/\(path) does not hash to \(listed.prefix(12))…")
                }
            case 404:
                counts.missingData += 1
                counts.note("/\(path): 404 after its entry document was read")
            default:
                counts.non200 += 1
                counts.note("/\(path): \(response.status)")
            }
        }
    }

    private mutating func fetchLive(_ path: String) -> HTTPConnection.Response? {
        guard let response = request(path) else { return nil }
        guard response.status == 200 else {
            counts.non200 += 1
            counts.note("\(path): \(response.status)")
            return nil
        }
        return response
    }

    private mutating func request(_ path: String) -> HTTPConnection.Response? {
        counts.requests += 1
        do {
            return try connection.get(path)
        } catch {
            counts.socketErrors += 1
            counts.note("\(path): \(error)")
            return nil
        }
    }
}

/// Client threads loading pages until stopped, bounded by a page-load count and a time limit.
public final class LoadRun: @unchecked Sendable {
    private let lock = NSLock()
    private let finished = DispatchGroup()
    private var stopped = false
    private var progress = 0
    private var total = LoadCounts()

    public init(port: Int, clients: Int, maxLoadsPerClient: Int, maxSeconds: Double) {
        for _ in 0..<clients {
            finished.enter()
            Thread.detachNewThread { [self] in
                var checker = PageChecker(connection: HTTPConnection(port: port))
                let deadline = Date().addingTimeInterval(maxSeconds)
                while checker.counts.pageLoads < maxLoadsPerClient, Date() < deadline, tick() {
                    checker.loadPage()
                }
                checker.connection.disconnect()
                let counts = checker.counts
                lock.withLock { total.merge(counts) }
                finished.leave()
            }
        }
    }

    /// Counts one page load; false once stopped.
    private func tick() -> Bool {
        lock.withLock {
            progress += 1
            return !stopped
        }
    }

    /// Waits (at most 30 s) until the clients have started loading pages.
    public func waitUntil(pageLoads: Int) {
        for _ in 0..<3000 where lock.withLock({ progress }) < pageLoads { usleep(10_000) }
    }

    public func stop() -> LoadCounts {
        lock.withLock { stopped = true }
        finished.wait()
        return lock.withLock { total }
    }
}
