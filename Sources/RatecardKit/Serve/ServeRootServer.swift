import Foundation
import Glibc
import RatecardOutput
import RatecardSupport
import Synchronization

/// The HTTP server of `ratecard serve`: a serve root's live release, its kept releases under
/// `/r/<id>/` and its objects under `/o/`, answered as the `nginx-conf` block answers them
/// (`ServedRoute`: the same locations, Cache-Control and security headers, the same 404s), so
/// staff can look at an environment on their laptop without nginx.
///
/// It is read-only: it listens on 127.0.0.1 only, answers GET and HEAD only (405 otherwise),
/// answers only requests addressed to the loopback host (421 otherwise, so a page of another
/// site cannot read it by DNS rebinding), and reads files by descriptor (`ServedFiles`: no
/// symlink but a release's terms link is followed, `..` is refused). It sends no compression
/// and no validators (every answer is the whole file).
public final class ServeRootServer: Sendable {
    public let port: Int
    private let listener: Int32
    private let files: ServedFiles
    private let connections = Mutex<Set<Int32>>([])
    private let stopping = Atomic<Bool>(false)

    /// Listens on 127.0.0.1:`port` (0: any free port) for the serve root at `root`.
    public init(root: String, port: Int) throws {
        files = try ServedFiles(root: root)
        let (fd, bound) = try LoopbackListener.open(port: port)
        self.port = bound
        listener = fd
    }

    /// The release live now (read from `current`, as every request does).
    public var live: String? { files.live() }

    /// Starts accepting connections on a thread of its own.
    public func start() {
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "serve-accept"
        thread.start()
    }

    /// Stops listening and closes every connection.
    public func stop() {
        guard !stopping.exchange(true, ordering: .relaxed) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in connections.withLock({ $0 }) { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop() {
        while !stopping.load(ordering: .relaxed) {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            connections.withLock { _ = $0.insert(fd) }
            let thread = Thread { [self] in
                serve(fd)
                connections.withLock { _ = $0.remove(fd) }
                close(fd)
            }
            thread.name = "serve-connection"
            thread.start()
        }
    }

    // MARK: - HTTP

    /// One request head.
    typealias Request = LoopbackListener.Request

    /// One response, before it is written.
    struct Response {
        var status: String
        var headers: [(String, String)]
        var body: [UInt8]
    }

    /// Answers requests on one connection until the client closes it (HTTP/1.1 keep-alive).
    private func serve(_ fd: Int32) {
        var idle = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &idle, socklen_t(MemoryLayout<timeval>.size))
        var buffer: [UInt8] = []
        while !stopping.load(ordering: .relaxed) {
            guard let request = LoopbackListener.readRequest(fd, &buffer) else { return }
            let closing = request.headers["connection"]?.lowercased() == "close" || request.version == "HTTP/1.0"
            var response = answer(request)
            if closing { response.headers.append(("Connection", "close")) }
            guard Self.write(fd, response, head: request.method == "HEAD") else { return }
            if closing || response.status.hasPrefix("400") || response.status.hasPrefix("405") { return }
        }
    }

    /// The response to `request`.
    func answer(_ request: Request) -> Response {
        func plain(_ status: String, _ text: String, _ route: ServedRoute, extra: [(String, String)] = []) -> Response {
            var headers: [(String, String)] = [("Content-Type", "text/plain; charset=utf-8")]
            if route.cacheOnErrors, let cache = route.cacheControl { headers.append(("Cache-Control", cache)) }
            return Response(status: status, headers: headers + route.securityHeaders + extra, body: Array(text.utf8))
        }
        guard !request.method.isEmpty else { return plain("400 Bad Request", "Bad request.\n", .serverLevel) }
        guard request.method == "GET" || request.method == "HEAD" else {
            return plain("405 Method Not Allowed", "Read-only: GET and HEAD only.\n", .serverLevel, extra: [("Allow", "GET, HEAD")])
        }
        guard let host = request.headers["host"], ["127.0.0.1:\(port)", "localhost:\(port)"].contains(host.lowercased()) else {
            return plain("421 Misdirected Request", "This server answers http://127.0.0.1:\(port)/ only.\n", .serverLevel)
        }
        guard let route = ServedRoute.resolve(request.target) else { return plain("400 Bad Request", "Bad path.\n", .serverLevel) }
        if case .redirect(let location) = route.source {
            return plain("301 Moved Permanently", "Moved to \(location)\n", route, extra: [("Location", location)])
        }
        guard let (bytes, name) = files.read(route.source) else { return plain("404 Not Found", "Not found.\n", route) }
        var headers: [(String, String)] = [("Content-Type", MediaType.of(name))]
        if let cache = route.cacheControl { headers.append(("Cache-Control", cache)) }
        return Response(status: "200 OK", headers: headers + route.securityHeaders, body: bytes)
    }

    /// Writes `response` (its head only for HEAD); false when the connection is gone.
    static func write(_ fd: Int32, _ response: Response, head: Bool) -> Bool {
        var text = "HTTP/1.1 \(response.status)\r\nServer: ratecard\r\nContent-Length: \(response.body.count)\r\n"
        for (name, value) in response.headers { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        guard LoopbackListener.send(fd, Array(text.utf8)) else { return false }
        return head || LoopbackListener.send(fd, response.body)
    }
}
