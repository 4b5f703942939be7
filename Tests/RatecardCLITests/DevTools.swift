import Foundation
import Glibc
import RatecardKit

/// Headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`:
/// the browser reads commands on fd 3 and writes replies and events on fd 4, each message
/// ending in a NUL), for tests that watch one page across reloads.
final class DevToolsBrowser {
    private var pid: pid_t = 0
    private let commands: Int32
    private let replies: Int32
    private let profile: String
    private var nextID = 1
    private var buffer: [UInt8] = []
    private var queued: [[String: Any]] = []
    private(set) var session = ""

    init() throws {
        guard let path = Browser.path else { throw BrowserError("chromium is not installed (apt-get install -y chromium)") }
        profile = NSTemporaryDirectory() + "ratecard-devtools-\(UUID().uuidString)"
        var toBrowser: [Int32] = [0, 0]
        var fromBrowser: [Int32] = [0, 0]
        guard pipe(&toBrowser) == 0, pipe(&fromBrowser) == 0 else { throw BrowserError("pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toBrowser[0], 3)
        posix_spawn_file_actions_adddup2(&actions, fromBrowser[1], 4)
        for fd in toBrowser + fromBrowser { posix_spawn_file_actions_addclose(&actions, fd) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let arguments = [
            path, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--disable-breakpad", "--disable-crash-reporter", "--noerrdialogs", "--disable-background-networking",
            "--remote-debugging-pipe", "--user-data-dir=\(profile)", "about:blank",
        ]
        var argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let spawned = posix_spawn(&pid, path, &actions, nil, &argv, environ)
        close(toBrowser[0])
        close(fromBrowser[1])
        commands = toBrowser[1]
        replies = fromBrowser[0]
        guard spawned == 0 else { throw BrowserError("chromium did not start: \(String(cString: strerror(spawned)))") }
        let target = try call("Target.createTarget", ["url": "about:blank"])
        let targetID = try require(target["targetId"] as? String, "target id")
        let attached = try call("Target.attachToTarget", ["targetId": targetID, "flatten": true])
        session = try require(attached["sessionId"] as? String, "session id")
        _ = try call("Page.enable", session: session)
        _ = try call("Runtime.enable", session: session)
    }

    deinit {
        _ = try? call("Browser.close", timeout: 5)
        close(commands)
        close(replies)
        var status: Int32 = 0
        for _ in 0..<100 {
            if waitpid(pid, &status, WNOHANG) == pid { break }
            usleep(50_000)
        }
        if waitpid(pid, &status, WNOHANG) == 0 {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
        }
        try? FileManager.default.removeItem(atPath: profile)
    }

    /// Sends a command and waits for its reply; events that arrive meanwhile are kept.
    @discardableResult
    func call(_ method: String, _ params: [String: Any] = [:], session: String? = nil, timeout: TimeInterval = 60) throws -> [String: Any] {
        let id = nextID
        nextID += 1
        var message: [String: Any] = ["id": id, "method": method, "params": params]
        if let session { message["sessionId"] = session }
        var bytes = [UInt8](try JSONSerialization.data(withJSONObject: message))
        bytes.append(0)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(commands, $0.baseAddress, $0.count) }
            guard written > 0 else { throw BrowserError("writing to chromium failed") }
            offset += written
        }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            let reply = try next(until: deadline)
            if reply["id"] as? Int == id {
                if let error = reply["error"] { throw BrowserError("\(method): \(error)") }
                return reply["result"] as? [String: Any] ?? [:]
            }
            queued.append(reply)
        }
    }

    /// Forgets the events received so far.
    func discardEvents() {
        queued.removeAll()
        while let event = try? next(until: Date()) { _ = event }
    }

    /// The next event named `method` of this page (kept events first).
    func waitFor(_ method: String, timeout: TimeInterval = 60) throws -> [String: Any] {
        if let index = queued.firstIndex(where: { $0["method"] as? String == method && $0["sessionId"] as? String == session }) {
            return queued.remove(at: index)
        }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            let event = try next(until: deadline)
            if event["method"] as? String == method && event["sessionId"] as? String == session { return event }
        }
    }

    /// Loads `url` and waits for its load event.
    func open(_ url: String) throws {
        discardEvents()
        _ = try call("Page.navigate", ["url": url], session: session)
        _ = try waitFor("Page.loadEventFired")
    }

    /// The value of a JavaScript expression in the page.
    func evaluate(_ expression: String) throws -> Any? {
        let result = try call("Runtime.evaluate", ["expression": expression, "returnByValue": true], session: session)
        return (result["result"] as? [String: Any])?["value"]
    }

    private func next(until deadline: Date) throws -> [String: Any] {
        while true {
            if let end = buffer.firstIndex(of: 0) {
                let message = Array(buffer[..<end])
                buffer.removeSubrange(...end)
                if let object = try JSONSerialization.jsonObject(with: Data(message)) as? [String: Any] { return object }
                continue
            }
            let remaining = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
            var descriptor = pollfd(fd: replies, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, remaining) > 0 else { throw BrowserError("no message from chromium in time") }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let count = chunk.withUnsafeMutableBytes { read(replies, $0.baseAddress, $0.count) }
            guard count > 0 else { throw BrowserError("chromium closed its pipe") }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }
}

private func require<T>(_ value: T?, _ what: String = "value") throws -> T {
    guard let value else { throw BrowserError("chromium sent no \(what)") }
    return value
}
