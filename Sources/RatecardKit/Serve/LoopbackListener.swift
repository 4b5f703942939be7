import Foundation
import Glibc
import RatecardSupport
import Synchronization

/// A listening TCP socket on 127.0.0.1, for the two local servers (`preview --watch` and
/// `serve`): never reachable from another machine.
enum LoopbackListener {
    /// Listens on 127.0.0.1:`port` (0: any free port); returns the descriptor and the port bound.
    static func open(port: Int) throws -> (descriptor: Int32, port: Int) {
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
            if code == EADDRINUSE {
                throw OperationalError("port \(port) on 127.0.0.1 is in use; choose another with --port", ko: "127.0.0.1의 \(port) 포트는 이미 쓰이고 있습니다; --port로 다른 포트를 고르세요")
            }
            throw FileSystem.failure("bind", "127.0.0.1:\(port)", code: code)
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: actual.sin_port)))
    }

    /// Sends all of `bytes` on a connection (no SIGPIPE); false when the connection is gone or
    /// the client stopped reading for longer than the send timeout.
    static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { send(fd, $0) }
    }

    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = Glibc.send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if sent < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += sent
        }
        return true
    }

    /// Sends `count` bytes of the open file `file` from its start, a chunk at a time (the file
    /// is never held in memory whole); false when the connection is gone or the file ended
    /// early (the connection must then be closed: the client was promised `count` bytes).
    static func sendFile(_ fd: Int32, from file: Int32, count: Int) -> Bool {
        let chunk = 256 << 10
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: min(chunk, max(count, 1)), alignment: 16)
        defer { buffer.deallocate() }
        var offset = 0
        while offset < count {
            let read = pread(file, buffer.baseAddress, min(buffer.count, count - offset), off_t(offset))
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else { return false }
            guard send(fd, UnsafeRawBufferPointer(rebasing: buffer[0..<read])) else { return false }
            offset += read
        }
        return true
    }

    /// One request head: a GET or HEAD has no body; anything else is answered and closed.
    struct Request {
        var method: String
        var target: String
        var version: String
        var headers: [String: String]
    }

    /// How long a connection has to send a whole request head, from when the server starts
    /// waiting for it (the connection accepted, or the previous response sent):
    /// `RATECARD_REQUEST_DEADLINE_MS` milliseconds, 10 s unless set. A client that sends a
    /// byte now and then cannot hold a connection past it.
    static let requestDeadline: Duration = {
        guard let text = getenv("RATECARD_REQUEST_DEADLINE_MS").map({ String(cString: $0) }), let value = Int(text), value > 0 else { return .seconds(10) }
        return .milliseconds(value)
    }()

    /// Reads one request head from `fd` into `buffer` (what follows it stays there); nil when
    /// the connection ends, the head passes 32 KB, or it is not all there within
    /// `requestDeadline`; a request line that is not HTTP/1.x gives a request with an empty
    /// method (answered as not allowed).
    static func readRequest(_ fd: Int32, _ buffer: inout [UInt8]) -> Request? {
        let deadline = ContinuousClock.now.advanced(by: requestDeadline)
        let terminator: [UInt8] = [13, 10, 13, 10]
        var chunk = [UInt8](repeating: 0, count: 8192)
        while true {
            if let end = buffer.firstRange(of: terminator) {
                let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                buffer.removeSubrange(..<end.upperBound)
                var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
                let requestLine = lines.removeFirst().split(separator: " ").map(String.init)
                guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else { return Request(method: "", target: "", version: "", headers: [:]) }
                var headers: [String: String] = [:]
                for line in lines {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                return Request(method: requestLine[0], target: requestLine[1], version: requestLine[2], headers: headers)
            }
            guard buffer.count < 32 * 1024 else { return nil }
            let left = ContinuousClock.now.duration(to: deadline).components
            let milliseconds = left.seconds * 1000 + left.attoseconds / 1_000_000_000_000_000
            guard milliseconds > 0 else { return nil }
            var waiting = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&waiting, 1, Int32(min(milliseconds, Int64(Int32.max))))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return nil }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }
}

/// The connections of a loopback server (`preview --watch` and `serve` share it): the accept
/// loop, the cap on connections open at once, and stopping.
///
/// The loop never ends but by `stop`: a failed `accept` for want of descriptors (EMFILE,
/// ENFILE) or memory (ENOBUFS, ENOMEM), or a network error Linux passes on from the new
/// connection, waits 10 ms, doubling up to 100 ms while it keeps failing, and tries again (the
/// connections wait in the listen queue meanwhile). At most `maxConnections` are open at once,
/// those held elsewhere (`heldElsewhere`: the preview's event streams) counted: one more is
/// answered with the server's `busy` response (a 503) and closed at once, without a thread.
final class LoopbackConnections: Sendable {
    /// How many connections each server answers at once.
    static let maxConnections = 64

    let port: Int
    private let listener: Int32
    private let open = Mutex<Set<Int32>>([])
    private let stopping = Atomic<Bool>(false)
    private let heldElsewhere: @Sendable () -> Int

    /// Listens on 127.0.0.1:`port` (0: any free port).
    init(port: Int, heldElsewhere: @escaping @Sendable () -> Int = { 0 }) throws {
        let (fd, bound) = try LoopbackListener.open(port: port)
        listener = fd
        self.port = bound
        self.heldElsewhere = heldElsewhere
    }

    var isStopping: Bool { stopping.load(ordering: .relaxed) }

    /// Starts accepting on a thread named `name`; each connection admitted is answered by
    /// `serve` on a thread of its own, then closed, unless `serve` returns true (it handed the
    /// connection over with `handOver`). `busy` is the whole response a connection over the
    /// cap gets.
    func start(name: String, busy: [UInt8], serve: @escaping @Sendable (Int32) -> Bool) {
        let thread = Thread { [self] in acceptLoop(name: name, busy: busy, serve: serve) }
        thread.name = name + "-accept"
        thread.start()
    }

    /// Takes `fd` out of the connections counted here and runs `take` (which makes it counted
    /// elsewhere) in the same step, so the cap never counts it twice or not at all.
    func handOver(_ fd: Int32, _ take: () -> Void) {
        open.withLock { open in
            open.remove(fd)
            take()
        }
    }

    /// Stops listening and shuts every connection down (their threads then end).
    func stop() {
        guard !stopping.exchange(true, ordering: .relaxed) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        // Under the lock: a connection leaves the set before its descriptor is closed.
        open.withLock { open in
            for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    private func acceptLoop(name: String, busy: [UInt8], serve: @escaping @Sendable (Int32) -> Bool) {
        var pause: UInt32 = 10_000
        while !isStopping {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                let code = errno
                if isStopping { return }
                if code == EINTR || code == ECONNABORTED { continue }
                usleep(pause)
                pause = min(pause * 2, 100_000)
                continue
            }
            pause = 10_000
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            let admitted = open.withLock { open -> Bool in
                guard open.count + heldElsewhere() < Self.maxConnections else { return false }
                open.insert(fd)
                return true
            }
            guard admitted else {
                Self.refuse(fd, busy)
                continue
            }
            // A client that stops reading is cut off after 30 s without progress.
            var stalled = timeval(tv_sec: 30, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &stalled, socklen_t(MemoryLayout<timeval>.size))
            let thread = Thread { [self] in
                let handedOver = serve(fd)
                guard !handedOver else { return }
                open.withLock { _ = $0.remove(fd) }
                close(fd)
            }
            thread.name = name + "-connection"
            thread.start()
        }
    }

    /// Answers a connection over the cap with `busy` and closes it, without waiting on it: what
    /// the request has sent is read first, so the close does not reset the answer away.
    private static func refuse(_ fd: Int32, _ busy: [UInt8]) {
        var scratch = [UInt8](repeating: 0, count: 8192)
        _ = recv(fd, &scratch, scratch.count, Int32(MSG_DONTWAIT))
        _ = busy.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
        shutdown(fd, Int32(SHUT_WR))
        close(fd)
    }
}
