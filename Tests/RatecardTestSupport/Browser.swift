import Foundation
import Glibc
import RatecardKit

/// Headless Chromium (Debian's `chromium`), for tests that load real pages.
public enum Browser {
    public static var path: String? {
        ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The DOM after the page's scripts ran (`--dump-dom` with a virtual time budget).
    ///
    /// On a loaded 2-core machine Chromium now and then exits 0 having written nothing (its
    /// renderer did not start in time): an empty dump is retried, up to three runs.
    public static func dumpDOM(_ url: String, budgetMilliseconds: Int = 5000) throws -> String {
        var dom = ""
        for _ in 0..<3 {
            dom = try dumpOnce(url, budgetMilliseconds: budgetMilliseconds)
            if !dom.isEmpty { break }
        }
        return dom
    }

    private static func dumpOnce(_ url: String, budgetMilliseconds: Int) throws -> String {
        guard let path else { throw BrowserError("chromium is not installed (apt-get install -y chromium)") }
        let profile = NSTemporaryDirectory() + "ratecard-chromium-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: profile) }
        // Output goes to a file, not a pipe: Chromium's crash handler outlives it and would hold a pipe open.
        let outputPath = profile + ".dom"
        try FileSystem.writeFile(outputPath, [])
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--disable-breakpad", "--disable-crash-reporter", "--noerrdialogs",
            "--user-data-dir=\(profile)", "--virtual-time-budget=\(budgetMilliseconds)", "--dump-dom", url,
        ]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try output.close()
        guard process.terminationStatus == 0 else { throw BrowserError("chromium exited \(process.terminationStatus) for \(url)") }
        return String(decoding: FileManager.default.contents(atPath: outputPath) ?? Data(), as: UTF8.self)
    }
}

public struct BrowserError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// `python3 -m http.server` on a free loopback port, stopped when the value is released.
public final class StaticServer {
    public let process = Process()
    public let port: Int

    public init(root: String) throws {
        var chosen = 0
        for _ in 0..<20 {
            let candidate = Int.random(in: 20_000..<32_000)
            if StaticServer.isFree(candidate) {
                chosen = candidate
                break
            }
        }
        port = chosen
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", root]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<100 where StaticServer.isFree(port) { usleep(50_000) }
    }

    deinit {
        // SIGKILL: children started by Foundation inherit a mask that blocks SIGTERM.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    public var base: String { "http://127.0.0.1:\(port)/" }

    public static func isFree(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        // A port that is bound but not yet listening drops the SYN; do not wait out TCP's retries.
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return result != 0
    }
}

/// A loopback server of a site folder that records every request it answers: a published
/// release is served as nginx-conf serves it (the release's entry folder as the site, `/o/<name>`
/// from the object store). Stopped when the value is released.
public final class RecordingServer {
    public let process = Process()
    public let port: Int
    public let log: String

    /// Python's http.server with `/o/` mapped to `objects` (when given); each answered request
    /// is appended to `log` as "<status> <path>".
    public static let script = """
        import functools, http.server, os, sys
        root, objects, log, port = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
        class Handler(http.server.SimpleHTTPRequestHandler):
            def translate_path(self, path):
                path = path.split("?", 1)[0].split("#", 1)[0]
                name = path[3:]
                if objects and path.startswith("/o/") and "/" not in name and not name.startswith("."):
                    return os.path.join(objects, name)
                return super().translate_path(path)
            def log_request(self, code="-", size="-"):
                with open(log, "a") as out:
                    out.write("%s %s\\n" % (getattr(code, "value", code), self.path))
            def log_message(self, *args):
                pass
        http.server.ThreadingHTTPServer(("127.0.0.1", port), functools.partial(Handler, directory=root)).serve_forever()
        """

    public init(root: String, objects: String? = nil) throws {
        var chosen = 0
        for _ in 0..<20 {
            let candidate = Int.random(in: 20_000..<32_000)
            if StaticServer.isFree(candidate) {
                chosen = candidate
                break
            }
        }
        port = chosen
        log = NSTemporaryDirectory() + "ratecard-requests-\(UUID().uuidString)"
        try FileSystem.writeFile(log, [])
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", Self.script, root, objects ?? "", log, String(port)]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for _ in 0..<100 where StaticServer.isFree(port) { usleep(50_000) }
    }

    deinit {
        // SIGKILL: children started by Foundation inherit a mask that blocks SIGTERM.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: log)
    }

    public var base: String { "http://127.0.0.1:\(port)/" }

    /// The paths answered with 200 since the last call, and forgets them.
    public func takeRequests() throws -> [String] {
        let lines = String(decoding: FileManager.default.contents(atPath: log) ?? Data(), as: UTF8.self).split(separator: "\n")
        try FileSystem.writeFile(log, [])
        return lines.compactMap { line in line.hasPrefix("200 ") ? String(line.dropFirst(4)) : nil }
    }
}
