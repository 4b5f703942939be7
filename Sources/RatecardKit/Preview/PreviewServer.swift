import Foundation
import Glibc
import RatecardCore
import RatecardOutput
import RatecardRelease
import RatecardSupport
import Synchronization

/// The HTTP server of `preview --watch`: a small server over sockets, built in because what it
/// must do is specific and small (and a dependency, or a child process such as python's
/// http.server, would add a second thing to install and to stop): serve the bundle from memory
/// and the web build from its folder, change every HTML page it serves (the reload script, the
/// problems of the content instead of a stale page), and tell open pages when to reload.
///
/// It listens on 127.0.0.1 only, answers GET and HEAD only, serves nothing outside the bundle
/// and the web folder (no `..`, no dot-files, no symlink followed: each folder of a path is
/// opened below the one before without following a link, and the file read is the one
/// checked), answers only requests addressed to the loopback host (a page on another site
/// cannot read it through DNS rebinding), and sends `Cache-Control: no-store` with every
/// response. Open pages hold one Server-Sent Events connection (`/__ratecard/events`, served by
/// `EventHub`) and reload when the version it sends differs from the one they were served at.
///
/// Its connections are `LoopbackConnections`, as `ratecard serve`'s: it keeps answering when
/// descriptors run out (`accept` failing for want of descriptors or memory is retried after a
/// short pause), at most `maxConnections` connections are open at once, event streams
/// included (one more is answered 503 and closed), and a request head must arrive within
/// `LoopbackListener.requestDeadline`.
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

    /// How many connections are served at once (page requests and event streams together).
    public static let maxConnections = LoopbackConnections.maxConnections

    public var port: Int { connections.port }
    private let webFolder: String?
    private let published: Mutex<Published>
    private let events: EventHub
    /// The connections a thread of this server is answering (the hub holds the event streams,
    /// which count against the same cap).
    private let connections: LoopbackConnections

    /// Listens on 127.0.0.1:`port` (0: any free port).
    public init(port: Int, webFolder: String?, initial: Published) throws {
        let events = try EventHub(version: initial.version)
        self.events = events
        connections = try LoopbackConnections(port: port) { events.count }
        self.webFolder = webFolder.flatMap { try? FileSystem.realPath($0) }
        published = Mutex(initial)
    }

    /// Starts accepting connections on a thread of its own.
    public func start() {
        events.start()
        let body = "Too many connections to the preview; try again.\n"
        let busy = Array(
            ("HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\n"
                + "Retry-After: 1\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n" + body).utf8)
        connections.start(name: "preview", busy: busy) { [self] fd in serve(fd) }
    }

    /// Replaces what is served and tells open pages.
    public func publish(_ next: Published) {
        published.withLock { $0 = next }
        events.announce(next.version)
    }

    public var version: Int { published.withLock { $0.version } }

    /// Stops listening and closes every connection (their threads end).
    public func stop() {
        connections.stop()
        events.stop()
    }

    // MARK: - HTTP

    typealias Request = LoopbackListener.Request

    /// What to do with a connection after a response.
    enum Next {
        case keepOpen
        case close
        /// It was handed to the event hub, which closes it.
        case handedOver
    }

    /// Answers requests on one connection until the client closes it (HTTP/1.1 keep-alive);
    /// true when the connection became an event stream (the hub has it now).
    private func serve(_ fd: Int32) -> Bool {
        var buffer: [UInt8] = []
        while !connections.isStopping {
            guard let request = LoopbackListener.readRequest(fd, &buffer) else { return false }
            switch respond(to: request, on: fd) {
            case .handedOver: return true
            case .close: return false
            case .keepOpen: if request.headers["connection"]?.lowercased() == "close" { return false }
            }
        }
        return false
    }

    /// Writes the response; what becomes of the connection.
    private func respond(to request: Request, on fd: Int32) -> Next {
        guard request.method == "GET" || request.method == "HEAD" else {
            _ = send(fd, status: "405 Method Not Allowed", type: "text/plain; charset=utf-8", body: Array("Only GET and HEAD.\n".utf8), head: false, extra: ["Allow: GET, HEAD"])
            return .close
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
            return streamEvents(fd)
        default:
            break
        }
        let state = published.withLock { $0 }
        let type = MediaType.of(path)
        if type.hasPrefix("text/html"), let page = state.problemsPage {
            return send(fd, status: "200 OK", type: type, body: page, head: head)
        }
        let body: [UInt8]
        if let built = state.files[path] {
            body = built
        } else {
            switch readWebFile(path, whole: type.hasPrefix("text/html")) {
            case .found(let bytes):
                body = bytes
            case .open(let file):
                return send(fd, status: "200 OK", type: type, file: file, head: head)
            case .missing:
                return send(fd, status: "404 Not Found", type: "text/plain; charset=utf-8", body: Array("Not found: /\(path)\n".utf8), head: head)
            case .failed(let reason):
                return send(fd, status: "500 Internal Server Error", type: "text/plain; charset=utf-8", body: Array("Cannot read /\(path): \(reason)\n".utf8), head: head)
            }
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

    enum WebFile {
        case found([UInt8])
        /// Found and left open, to be sent a chunk at a time (a file that is not a page: its
        /// bytes are sent as they are, never held whole).
        case open(ServedFiles.File)
        /// Nothing to serve there: no such file, a folder, a symlink on the way, not a regular file.
        case missing
        /// It is there but could not be read (permissions, out of descriptors): the reason.
        case failed(String)
    }

    /// A file of the web build, read through the descriptors that were checked: the web
    /// folder, each folder of `path` opened below the one before with O_NOFOLLOW (a symlink
    /// anywhere is refused, so a folder swapped for a link to elsewhere between two requests,
    /// or during one, is never entered), the file opened the same way and read only if `fstat`
    /// on that descriptor says it is a regular file.
    /// `whole`: read it (a page, to add the reload script to); else it is handed back open.
    func readWebFile(_ path: String, whole: Bool) -> WebFile {
        guard let webFolder else { return .missing }
        let parts = path.split(separator: "/").map(String.init)
        var folder = open(webFolder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard folder >= 0 else { return Self.openFailure(errno) }
        defer { close(folder) }
        for part in parts.dropLast() {
            let inner = openat(folder, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard inner >= 0 else { return Self.openFailure(errno) }
            close(folder)
            folder = inner
        }
        guard let name = parts.last else { return .missing }
        // O_NONBLOCK: opening a FIFO does not wait for a writer (it is refused below).
        let fd = openat(folder, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return Self.openFailure(errno) }
        var handedOver = false
        defer { if !handedOver { close(fd) } }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failed(String(cString: strerror(errno))) }
        guard info.st_mode & S_IFMT == S_IFREG else { return .missing }
        guard whole else {
            handedOver = true
            return .open(ServedFiles.File(descriptor: fd, size: Int(info.st_size), name: name))
        }
        do {
            return .found(try FileSystem.readAll(fd, path: "/" + path))
        } catch {
            return .failed("\(error)")
        }
    }

    /// What an `open` failing with `code` means for a request: absent (no such name, not a
    /// folder, a symlink) or a failure to report.
    private static func openFailure(_ code: Int32) -> WebFile {
        switch code {
        case ENOENT, ENOTDIR, ELOOP, ENAMETOOLONG: return .missing
        default: return .failed(String(cString: strerror(code)))
        }
    }

    private func send(_ fd: Int32, status: String, type: String, body: [UInt8], head: Bool, extra: [String] = []) -> Next {
        guard sendHead(fd, status: status, type: type, length: body.count, extra: extra) else { return .close }
        return head || LoopbackListener.send(fd, body) ? .keepOpen : .close
    }

    /// Sends `file` a chunk at a time (a file that ends early closes the connection).
    private func send(_ fd: Int32, status: String, type: String, file: ServedFiles.File, head: Bool) -> Next {
        guard sendHead(fd, status: status, type: type, length: file.size, extra: []) else { return .close }
        return head || LoopbackListener.sendFile(fd, from: file.descriptor, count: file.size) ? .keepOpen : .close
    }

    private func sendHead(_ fd: Int32, status: String, type: String, length: Int, extra: [String]) -> Bool {
        var header = "HTTP/1.1 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(length)\r\n"
        header += "Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\n"
        for line in extra { header += line + "\r\n" }
        header += "\r\n"
        return LoopbackListener.send(fd, Array(header.utf8))
    }

    /// Server-Sent Events: the head and the version now, then the connection goes to the hub,
    /// which sends each new version until the page goes away.
    private func streamEvents(_ fd: Int32) -> Next {
        let now = version
        let header = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\r\nretry: 300\n\ndata: \(now)\n\n"
        guard LoopbackListener.send(fd, Array(header.utf8)) else { return .close }
        // Out of this server's set before the hub may close it (a descriptor is never in both).
        connections.handOver(fd) { events.add(fd, sent: now) }
        return .handedOver
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
