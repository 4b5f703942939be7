import Foundation
import Glibc
import RatecardOutput
import RatecardRelease
import RatecardSupport
import Synchronization

/// The HTTP server of `ratecard serve`: a serve root's live release, its kept releases under
/// `/r/<id>/` and its objects under `/o/`, answered as the `nginx-conf` block answers them
/// (`ServedRoute`: the same path normalization and locations, Cache-Control and security
/// headers, the same 301s, 403s and 404s), so staff can look at an environment on their laptop
/// without nginx.
///
/// It is read-only: it listens on 127.0.0.1 only, answers GET and HEAD only (405 otherwise),
/// answers only requests addressed to the loopback host (421 otherwise, so a page of another
/// site cannot read it by DNS rebinding), and reads files by descriptor (`ServedFiles`: no
/// symlink but a release's terms link is followed, `..` never leaves the root). A file is sent
/// a chunk at a time, never read whole. It sends no compression and no validators (every
/// answer is the whole file). Its connections are `LoopbackConnections`: accepting goes on when
/// descriptors run out, at most `LoopbackConnections.maxConnections` are answered at once (one
/// more gets a 503), and a request head must arrive within
/// `LoopbackListener.requestDeadline`.
public final class ServeRootServer: Sendable {
    public var port: Int { connections.port }
    private let connections: LoopbackConnections
    private let files: ServedFiles

    /// Listens on 127.0.0.1:`port` (0: any free port) for the serve root at `root`.
    public init(root: String, port: Int) throws {
        files = try ServedFiles(root: root)
        connections = try LoopbackConnections(port: port)
    }

    /// The release live now (read from `current`, as every request does).
    public var live: String? { files.live() }

    /// Starts accepting connections on a thread of its own.
    public func start() {
        let body = "Too many connections; try again.\n"
        let busy = Array(
            ("HTTP/1.1 503 Service Unavailable\r\nServer: ratecard\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\n"
                + "Retry-After: 1\r\nConnection: close\r\n"
                + ServedRoute.serverLevel.securityHeaders.map { "\($0.0): \($0.1)\r\n" }.joined() + "\r\n" + body).utf8)
        connections.start(name: "serve", busy: busy) { [self] fd in
            serve(fd)
            return false
        }
    }

    /// Stops listening and closes every connection.
    public func stop() {
        connections.stop()
    }

    // MARK: - HTTP

    /// One request head.
    typealias Request = LoopbackListener.Request

    /// One response, before it is written.
    struct Response {
        enum Body {
            case bytes([UInt8])
            /// An open file, sent a chunk at a time.
            case file(ServedFiles.File)

            var count: Int {
                switch self {
                case .bytes(let bytes): return bytes.count
                case .file(let file): return file.size
                }
            }
        }

        var status: String
        var headers: [(String, String)]
        var body: Body
    }

    /// Answers requests on one connection until the client closes it (HTTP/1.1 keep-alive) or
    /// sends no whole request head in time.
    private func serve(_ fd: Int32) {
        var buffer: [UInt8] = []
        while !connections.isStopping {
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
            return Response(status: status, headers: headers + route.securityHeaders + extra, body: .bytes(Array(text.utf8)))
        }
        guard !request.method.isEmpty else { return plain("400 Bad Request", "Bad request.\n", .serverLevel) }
        guard request.method == "GET" || request.method == "HEAD" else {
            return plain("405 Method Not Allowed", "Read-only: GET and HEAD only.\n", .serverLevel, extra: [("Allow", "GET, HEAD")])
        }
        guard let host = request.headers["host"], ["127.0.0.1:\(port)", "localhost:\(port)"].contains(host.lowercased()) else {
            return plain("421 Misdirected Request", "This server answers http://127.0.0.1:\(port)/ only.\n", .serverLevel)
        }
        guard let route = ServedRoute.resolve(request.target) else { return plain("400 Bad Request", "Bad path.\n", .serverLevel) }
        switch files.find(route.source) {
        case .missing: return plain("404 Not Found", "Not found.\n", route)
        case .forbidden: return plain("403 Forbidden", "Forbidden.\n", route)
        case .folder:
            let location = route.folderLocation
            return plain("301 Moved Permanently", "Moved to \(location)\n", route, extra: [("Location", location)])
        case .file(let file):
            var headers: [(String, String)] = [("Content-Type", MediaType.of(file.name))]
            if let cache = route.cacheControl { headers.append(("Cache-Control", cache)) }
            return Response(status: "200 OK", headers: headers + route.securityHeaders, body: .file(file))
        }
    }

    /// Writes `response` (its head only for HEAD); false when the connection is gone (or a file
    /// ended before its length: the connection must be closed).
    static func write(_ fd: Int32, _ response: Response, head: Bool) -> Bool {
        var text = "HTTP/1.1 \(response.status)\r\nServer: ratecard\r\nContent-Length: \(response.body.count)\r\n"
        for (name, value) in response.headers { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        guard LoopbackListener.send(fd, Array(text.utf8)) else { return false }
        if head { return true }
        switch response.body {
        case .bytes(let bytes): return LoopbackListener.send(fd, bytes)
        case .file(let file): return LoopbackListener.sendFile(fd, from: file.descriptor, count: file.size)
        }
    }
}
