import Foundation
import Glibc
import RatecardKit

/// A ratecard command that serves on loopback (`serve`, `preview --watch`), started with
/// `--port 0`: its output in a file (a pipe nobody reads would fill up and block it) and the
/// port it printed. `wrapper` is a command that sets something up and then execs ratecard in its
/// own process (`prlimit`, `setpriv`), so the process id is ratecard's.
class LoopbackProcess {
    let process = Process()
    let log: String
    private(set) var port = 0

    /// Starts ratecard with `arguments` and waits (up to `startup` seconds) until it has printed
    /// the address it serves at.
    init(_ arguments: [String], in directory: String, environment: [String: String] = [:], wrapper: [String] = [], startup: TimeInterval) throws {
        var template = Array((temporaryRoot + "/ratecard-log-XXXXXX").utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else { throw OperationalError("mkstemp failed") }
        close(fd)
        log = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let ratecard = Bundle.main.bundleURL.appendingPathComponent("ratecard")
        if let program = wrapper.first {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = wrapper.dropFirst() + [ratecard.path] + arguments
        } else {
            process.executableURL = ratecard
            process.arguments = arguments
        }
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        var env = testEnvironment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try handle.close()
        let deadline = Date(timeIntervalSinceNow: startup)
        while Date() < deadline {
            if let found = Self.port(in: output()) {
                self.port = found
                return
            }
            if !process.isRunning { break }
            usleep(20_000)
        }
        let text = output()
        stop(SIGKILL)
        throw OperationalError("ratecard \(arguments.prefix(2).joined(separator: " ")) did not start: \(text)")
    }

    deinit {
        if process.isRunning { stop(SIGKILL) }
        unlink(log)
    }

    /// The port of the address ratecard prints ("http://127.0.0.1:<port>/"), once the slash after
    /// it is printed too.
    static func port(in output: String) -> Int? {
        guard let range = output.range(of: "http://127.0.0.1:") else { return nil }
        let digits = output[range.upperBound...].prefix { $0.isNumber }
        return output[range.upperBound...].dropFirst(digits.count).hasPrefix("/") ? Int(digits) : nil
    }

    func output() -> String {
        String(decoding: (try? FileSystem.readFile(log)) ?? [], as: UTF8.self)
    }

    /// How many descriptors the process holds open.
    func openDescriptors() throws -> Int {
        try FileSystem.listDirectory("/proc/\(process.processIdentifier)/fd").count
    }

    /// Sends `signal` and waits (up to `seconds`) for the process to end; its exit status.
    @discardableResult
    func stop(_ signal: Int32 = SIGINT, seconds: TimeInterval = 15) -> Int32? {
        kill(process.processIdentifier, signal)
        let deadline = Date(timeIntervalSinceNow: seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            // Killed, it ends; but never wait for ever on the news of it.
            let killed = Date(timeIntervalSinceNow: 10)
            while process.isRunning && Date() < killed { usleep(20_000) }
            return nil
        }
        return process.terminationStatus
    }
}

/// `ratecard preview --watch` running in a folder.
final class WatchProcess: LoopbackProcess {
    init(in directory: String, arguments: [String] = [], environment: [String: String] = [:], wrapper: [String] = [], startup: TimeInterval = 240) throws {
        try super.init(["preview", "--watch", "--port", "0"] + arguments, in: directory, environment: environment, wrapper: wrapper, startup: startup)
    }

    /// The version the server is at.
    func version() throws -> Int {
        Int(try HTTP.get(port: port, "/__ratecard/version").text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// The ports at the other end of the process's TCP connections (from the sockets in its
    /// descriptor table, looked up by inode in /proc/net/tcp): which of a test's own
    /// connections it still holds, whatever else connects to it meanwhile.
    func peerPorts() throws -> Set<Int> {
        let folder = "/proc/\(process.processIdentifier)/fd"
        var inodes: Set<Substring> = []
        for name in try FileSystem.listDirectory(folder) {
            var target = [UInt8](repeating: 0, count: 256)
            let length = target.withUnsafeMutableBytes { readlink(folder + "/" + name, $0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count) }
            let text = String(decoding: target[..<max(length, 0)], as: UTF8.self)
            if text.hasPrefix("socket:[") { inodes.insert(text.dropFirst(8).dropLast()) }
        }
        var ports: Set<Int> = []
        let table = String(decoding: try FileSystem.readFile("/proc/\(process.processIdentifier)/net/tcp"), as: UTF8.self)
        for line in table.split(separator: "\n").dropFirst() {
            // sl local_address rem_address st queues timer retransmits uid timeout inode
            let fields = line.split(separator: " ")
            guard fields.count > 9, inodes.contains(fields[9]), let port = fields[2].split(separator: ":").last.flatMap({ Int($0, radix: 16) }), port != 0 else { continue }
            ports.insert(port)
        }
        return ports
    }

    /// Waits until the server's version passes `version`; the new one.
    func waitForVersion(after version: Int, seconds: TimeInterval = 120) throws -> Int {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while Date() < deadline {
            let now = try self.version()
            if now > version { return now }
            usleep(10_000)
        }
        throw OperationalError("no rebuild within \(seconds) s after version \(version): \(output().suffix(2000))")
    }

    /// The log once it holds `text` (a rebuild is served before its log line is written), or as
    /// it is after `seconds`.
    @discardableResult
    func waitForOutput(_ text: String, seconds: TimeInterval = 10) -> String {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while Date() < deadline {
            let now = output()
            if now.contains(text) { return now }
            usleep(10_000)
        }
        return output()
    }
}

/// HTTP/1.1 over a socket, as a browser would send it (Connection: close).
enum HTTP {
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    static func get(port: Int, _ target: String, method: String = "GET", host: String? = nil, headers: [String] = []) throws -> Response {
        let raw = try exchange(port: port, "\(method) \(target) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\n\(headers.map { $0 + "\r\n" }.joined())Connection: close\r\n\r\n")
        guard let end = raw.firstRange(of: [13, 10, 13, 10]) else { throw OperationalError("no response head: \(String(decoding: raw, as: UTF8.self))") }
        let head = String(decoding: raw[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(head[0].split(separator: " ")[1]) ?? 0
        var fields: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Response(status: status, headers: fields, body: Array(raw[end.upperBound...]))
    }

    /// Sends `request` and reads until the server closes the connection (or `limit` bytes).
    static func exchange(port: Int, _ request: String, limit: Int = 64 << 20) throws -> [UInt8] {
        let fd = try connect(port: port)
        defer { close(fd) }
        var bytes = Array(request.utf8)
        _ = bytes.withUnsafeMutableBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while result.count < limit {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                throw OperationalError("no answer from 127.0.0.1:\(port) within 30 s after \(result.count) bytes")
            }
            guard count > 0 else { break }
            result.append(contentsOf: chunk[0..<count])
        }
        return result
    }

    static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        // Every wait on the socket ends: a receive, a send and (on Linux, through the send
        // timeout) the connect itself fail after 30 s instead of waiting for ever.
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw OperationalError("cannot connect to 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
        }
        return fd
    }
}

/// Every file and folder below `root` (dot-files included), with its size and modification time.
func treeListing(_ root: String) throws -> [String: String] {
    var result: [String: String] = [:]
    func walk(_ relative: String) throws {
        let folder = relative.isEmpty ? root : root + "/" + relative
        for name in try FileSystem.listDirectory(folder) {
            let path = relative.isEmpty ? name : relative + "/" + name
            var info = stat()
            guard lstat(root + "/" + path, &info) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFDIR {
                result[path + "/"] = "folder"
                if name != ".git" { try walk(path) }
            } else {
                result[path] = "\(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
            }
        }
    }
    try walk("")
    return result
}

/// Polls `condition` every 20 ms for up to `seconds`; true as soon as it holds.
func eventually(within seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date(timeIntervalSinceNow: seconds)
    repeat {
        if try condition() { return true }
        usleep(20_000)
    } while Date() < deadline
    return try condition()
}
