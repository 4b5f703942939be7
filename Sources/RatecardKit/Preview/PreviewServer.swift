import Foundation
import Glibc
import RatecardCore
import RatecardOutput
import RatecardSupport
import Synchronization

/// The HTTP server of `preview --watch`: a small server over sockets, built in because what it
/// must do is specific and small (and a dependency, or a child process such as python's
/// http.server, would add a second thing to install and to stop): serve the bundle from memory
/// and the web build from its folder, change every HTML page it serves (the reload script, the
/// problems of the content instead of a stale page), and tell open pages when to reload.
///
/// It listens on 127.0.0.1 only, answers GET and HEAD only, serves nothing outside the bundle
/// and the web folder (no `..`, no dot-files, symlinks resolved and kept inside the folder),
/// answers only requests addressed to the loopback host (a page on another site cannot read it
/// through DNS rebinding), and sends `Cache-Control: no-store` with every response. Open pages
/// hold one Server-Sent Events connection (`/__ratecard/events`) and reload when the version it
/// sends differs from the one they were served at.
public final class PreviewServer: Sendable {
    /// What is served: replaced as a whole after each rebuild.
    public struct Published: Sendable {
        public var version: Int
        /// The bundle's files by path (the last good build).
        public var files: [String: [UInt8]]
        /// The page every HTML request gets while the content has errors.
        public var problemsPage: [UInt8]?

        public init(version: Int, files: [String: [UInt8]], problemsPage: [UInt8]?) {
            self.version = version
            self.files = files
            self.problemsPage = problemsPage
        }
    }

    public let port: Int
    private let listener: Int32
    private let webFolder: String?
    private let published: Mutex<Published>
    private let changed = NSCondition()
    private let connections = Mutex<Set<Int32>>([])
    private let stopping = Atomic<Bool>(false)

    /// Listens on 127.0.0.1:`port` (0: any free port).
    public init(port: Int, webFolder: String?, initial: Published) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw FileSystem.failure("socket", "127.0.0.1") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            let code = errno
            close(fd)
            if code == EADDRINUSE { throw OperationalError("port \(port) on 127.0.0.1 is in use; choose another with --port", ko: "127.0.0.1의 포트 \(port)은(는) 이미 쓰이고 있습니다; --port로 다른 포트를 고르세요") }
            throw FileSystem.failure("bind", "127.0.0.1:\(port)", code: code)
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.port = Int(UInt16(bigEndian: actual.sin_port))
        listener = fd
        self.webFolder = webFolder.flatMap { try? FileSystem.realPath($0) }
        published = Mutex(initial)
    }

    /// Starts accepting connections on a thread of its own.
    public func start() {
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "preview-accept"
        thread.start()
    }

    /// Replaces what is served and tells open pages.
    public func publish(_ next: Published) {
        published.withLock { $0 = next }
        changed.lock()
        changed.broadcast()
        changed.unlock()
    }

    public var version: Int { published.withLock { $0.version } }

    /// Stops listening and closes every connection (their threads end).
    public func stop() {
        guard !stopping.exchange(true, ordering: .relaxed) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in connections.withLock({ $0 }) { shutdown(fd, Int32(SHUT_RDWR)) }
        changed.lock()
        changed.broadcast()
        changed.unlock()
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
            thread.name = "preview-connection"
            thread.start()
        }
    }

    // MARK: - HTTP

    struct Request {
        var method: String
        var target: String
        var headers: [String: String]
    }

    /// Answers requests on one connection until the client closes it (HTTP/1.1 keep-alive).
    private func serve(_ fd: Int32) {
        var idle = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &idle, socklen_t(MemoryLayout<timeval>.size))
        var buffer: [UInt8] = []
        while !stopping.load(ordering: .relaxed) {
            guard let request = Self.readRequest(fd, &buffer) else { return }
            guard respond(to: request, on: fd) else { return }
            if request.headers["connection"]?.lowercased() == "close" { return }
        }
    }

    /// Reads one request head (the body of a GET is empty; anything else is refused unread).
    static func readRequest(_ fd: Int32, _ buffer: inout [UInt8]) -> Request? {
        let terminator: [UInt8] = [13, 10, 13, 10]
        var chunk = [UInt8](repeating: 0, count: 8192)
        while true {
            if let end = buffer.firstRange(of: terminator) {
                let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                buffer.removeSubrange(..<end.upperBound)
                var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
                let requestLine = lines.removeFirst().split(separator: " ").map(String.init)
                guard requestLine.count == 3 else { return Request(method: "", target: "", headers: [:]) }
                var headers: [String: String] = [:]
                for line in lines {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                return Request(method: requestLine[0], target: requestLine[1], headers: headers)
            }
            guard buffer.count < 32 * 1024 else { return nil }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    /// Writes the response; false when the connection should close.
    private func respond(to request: Request, on fd: Int32) -> Bool {
        guard request.method == "GET" || request.method == "HEAD" else {
            return send(fd, status: "405 Method Not Allowed", type: "text/plain; charset=utf-8", body: Array("Only GET and HEAD.\n".utf8), head: false, extra: ["Allow: GET, HEAD"]) && false
        }
        let head = request.method == "HEAD"
        guard let host = request.headers["host"], ["127.0.0.1:\(port)", "localhost:\(port)"].contains(host.lowercased()) else {
            return send(fd, status: "421 Misdirected Request", type: "text/plain; charset=utf-8", body: Array("This preview answers http://127.0.0.1:\(port)/ only.\n".utf8), head: head)
        }
        guard let path = Self.path(of: request.target) else {
            return send(fd, status: "400 Bad Request", type: "text/plain; charset=utf-8", body: Array("Bad path.\n".utf8), head: head)
        }
        switch path {
        case "__ratecard/live.js":
            return send(fd, status: "200 OK", type: "text/javascript; charset=utf-8", body: Array(Self.liveScript.utf8), head: head)
        case "__ratecard/version":
            return send(fd, status: "200 OK", type: "text/plain; charset=utf-8", body: Array("\(version)\n".utf8), head: head)
        case "__ratecard/events":
            if head { return send(fd, status: "200 OK", type: "text/event-stream", body: [], head: true) }
            streamEvents(fd)
            return false
        default:
            break
        }
        let state = published.withLock { $0 }
        let type = MediaType.of(path)
        if type.hasPrefix("text/html"), let page = state.problemsPage {
            return send(fd, status: "200 OK", type: type, body: page, head: head)
        }
        guard let body = state.files[path] ?? readWebFile(path) else {
            return send(fd, status: "404 Not Found", type: "text/plain; charset=utf-8", body: Array("Not found: /\(path)\n".utf8), head: head)
        }
        if type.hasPrefix("text/html") {
            return send(fd, status: "200 OK", type: type, body: Self.withLiveScript(body, version: state.version), head: head)
        }
        return send(fd, status: "200 OK", type: type, body: body, head: head)
    }

    /// The request target as a relative path: percent-decoded, query and fragment dropped, `/`
    /// as `index.html`; nil for anything that could leave the served folders (`..`, `.`, empty
    /// parts mid-path, dot-files, NUL, backslashes).
    static func path(of target: String) -> String? {
        guard target.hasPrefix("/") else { return nil }
        var raw = Substring(target.dropFirst())
        if let cut = raw.firstIndex(where: { $0 == "?" || $0 == "#" }) { raw = raw[..<cut] }
        guard let decoded = String(raw).removingPercentEncoding, !decoded.contains("\0"), !decoded.contains("\\") else { return nil }
        if decoded.isEmpty { return "index.html" }
        var parts = decoded.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if parts.last == "" { parts[parts.count - 1] = "index.html" }
        guard !parts.contains(where: { $0.isEmpty || $0.hasPrefix(".") }) else { return nil }
        return parts.joined(separator: "/")
    }

    /// A file of the web build, if `path` names one inside it (symlinks resolved, and the
    /// result still inside the folder).
    private func readWebFile(_ path: String) -> [UInt8]? {
        guard let webFolder, let real = try? FileSystem.realPath(webFolder + "/" + path),
            real.hasPrefix(webFolder + "/"), !FileSystem.isDirectory(real)
        else { return nil }
        return try? FileSystem.readFile(real)
    }

    private func send(_ fd: Int32, status: String, type: String, body: [UInt8], head: Bool, extra: [String] = []) -> Bool {
        var header = "HTTP/1.1 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\n"
        header += "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n"
        for line in extra { header += line + "\r\n" }
        header += "\r\n"
        guard Self.write(fd, Array(header.utf8)) else { return false }
        return head || Self.write(fd, body)
    }

    static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += sent
        }
        return true
    }

    /// Server-Sent Events: the version now, then each new one, until the page goes away.
    private func streamEvents(_ fd: Int32) {
        let header = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\r\nretry: 300\n\n"
        guard Self.write(fd, Array(header.utf8)) else { return }
        var sent = -1
        while !stopping.load(ordering: .relaxed) {
            let now = version
            if now != sent {
                guard Self.write(fd, Array("data: \(now)\n\n".utf8)) else { return }
                sent = now
            }
            changed.lock()
            if version == sent && !stopping.load(ordering: .relaxed) {
                // A comment now and then finds a page that went away without closing.
                if !changed.wait(until: Date(timeIntervalSinceNow: 15)) {
                    changed.unlock()
                    guard Self.write(fd, Array(": keep-alive\n\n".utf8)) else { return }
                    continue
                }
            }
            changed.unlock()
        }
    }

    /// The reload script. When the server's version is not the one the page was served at
    /// (checked right after connecting too, so a rebuild finished while the page loaded is not
    /// missed), the page shows the new build:
    /// - a page that runs scripts of its own (the web app) is reloaded;
    /// - a static page (terms, rates, partners, the problems page) is fetched again and its
    ///   title, styles and body are swapped in place, which keeps the reader's scroll position
    ///   and skips a navigation; if the new page runs scripts, or the fetch fails, it is
    ///   reloaded instead. Versions that arrive during a fetch are caught up with after it.
    static let liveScript = """
        (function () {
          "use strict";
          var script = document.currentScript;
          var served = script ? Number(script.getAttribute("data-version")) : 0;
          var latest = served;
          var fetching = false;
          var own = "script:not([src='/__ratecard/live.js'])";
          var events = new EventSource("/__ratecard/events");
          function reload() {
            events.close();
            location.reload();
          }
          function update() {
            if (fetching || latest <= served) return;
            if (document.querySelector(own)) return reload();
            fetching = true;
            fetch(location.href, { cache: "no-store" }).then(function (response) {
              if (!response.ok) throw new Error("HTTP " + response.status);
              return response.text();
            }).then(function (text) {
              var next = new DOMParser().parseFromString(text, "text/html");
              var live = next.querySelector("script[src='/__ratecard/live.js']");
              if (next.querySelector(own) || !live || !next.body) return reload();
              document.title = next.title;
              var styles = document.head.querySelectorAll("style");
              var nextStyles = next.head.querySelectorAll("style");
              if (styles.length === nextStyles.length) {
                for (var i = 0; i < styles.length; i++) {
                  if (styles[i].textContent !== nextStyles[i].textContent) styles[i].textContent = nextStyles[i].textContent;
                }
              } else {
                return reload();
              }
              document.body.replaceWith(document.adoptNode(next.body));
              served = Number(live.getAttribute("data-version"));
              fetching = false;
              update();
            }).catch(reload);
          }
          events.onmessage = function (event) {
            var version = Number(event.data);
            // A smaller version: the preview was started again, and its pages may differ in any way.
            if (version < latest) return reload();
            latest = version;
            update();
          };
        })();

        """

    /// An HTML page with the reload script added, and its Content-Security-Policy (if it has
    /// one in a meta element) allowing that script and its connection: nothing else changes.
    public static func withLiveScript(_ page: [UInt8], version: Int) -> [UInt8] {
        let tag = Array("<script src=\"/__ratecard/live.js\" data-version=\"\(version)\"></script>\n".utf8)
        var page = page
        let marker = Array("http-equiv=\"Content-Security-Policy\" content=\"".utf8)
        if let start = page.firstRange(of: marker), let end = page[start.upperBound...].firstIndex(of: UInt8(ascii: "\"")) {
            let policy = String(decoding: page[start.upperBound..<end], as: UTF8.self)
            page.replaceSubrange(start.upperBound..<end, with: Array(allowingLiveScript(policy).utf8))
        }
        if let close = page.firstRange(of: Array("</head>".utf8)) {
            page.insert(contentsOf: tag, at: close.lowerBound)
        } else {
            page.insert(contentsOf: tag, at: 0)
        }
        return page
    }

    /// `policy` with 'self' allowed for scripts and connections.
    static func allowingLiveScript(_ policy: String) -> String {
        var directives = policy.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        for name in ["script-src", "connect-src"] {
            if let index = directives.firstIndex(where: { $0 == name || $0.hasPrefix(name + " ") }) {
                if !directives[index].split(separator: " ").contains("'self'") {
                    directives[index] = directives[index].replacingOccurrences(of: " 'none'", with: "") + " 'self'"
                }
            } else {
                directives.append("\(name) 'self'")
            }
        }
        return directives.joined(separator: "; ")
    }
}
