import Foundation
import Glibc
import RatecardSupport
import Synchronization

/// The open pages' Server-Sent Events connections (`/__ratecard/events`), all served by one
/// thread that polls every one of them and a wake-up pipe: a new version is sent to each page
/// as soon as it is announced, and a page that goes away (the browser closed the connection,
/// or it was reset) is seen at once and its descriptor closed, instead of being found out by
/// the next write. A connection holds no thread of its own while it waits.
final class EventHub: Sendable {
    private struct Queue {
        /// Connections handed over since the thread last looked, with the version each was sent.
        var added: [(fd: Int32, sent: Int)] = []
        var stopping = false
    }

    /// The pipe that wakes the thread: read end polled, write end written (both non-blocking).
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let queue = Mutex(Queue())
    private let current = Atomic<Int>(0)
    private let held = Atomic<Int>(0)
    /// A comment sent after this long without an event, so a page that is gone without closing
    /// (a connection dropped on the way) is found by the write failing.
    static let heartbeat: Int32 = 15_000

    init(version: Int) throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw FileSystem.failure("pipe", "the preview's event stream") }
        for fd in ends {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        wakeRead = ends[0]
        wakeWrite = ends[1]
        current.store(version, ordering: .relaxed)
    }

    deinit {
        close(wakeRead)
        close(wakeWrite)
    }

    /// How many connections the hub holds (they count against the server's cap).
    var count: Int { held.load(ordering: .relaxed) }

    /// Starts the thread that serves the connections.
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "preview-events"
        thread.start()
    }

    /// Takes over `fd`, a connection whose response head and `data: sent` were written: the hub
    /// closes it.
    func add(_ fd: Int32, sent: Int) {
        let taken = queue.withLock { queue -> Bool in
            guard !queue.stopping else { return false }
            queue.added.append((fd, sent))
            return true
        }
        guard taken else {
            close(fd)
            return
        }
        held.add(1, ordering: .relaxed)
        wake()
    }

    /// Sends `version` to every page.
    func announce(_ version: Int) {
        current.store(version, ordering: .relaxed)
        wake()
    }

    /// Closes every connection and ends the thread.
    func stop() {
        queue.withLock { $0.stopping = true }
        wake()
    }

    private func wake() {
        var byte: UInt8 = 1
        // A full pipe already wakes the thread.
        _ = Glibc.write(wakeWrite, &byte, 1)
    }

    private func run() {
        var clients: [Int32: Int] = [:]
        var scratch = [UInt8](repeating: 0, count: 4096)
        func drop(_ fd: Int32) {
            clients[fd] = nil
            close(fd)
            held.subtract(1, ordering: .relaxed)
        }
        while true {
            var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            for fd in clients.keys { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), Self.heartbeat)
            if fds[0].revents != 0 { while read(wakeRead, &scratch, scratch.count) > 0 {} }
            let (added, stopping) = queue.withLock { queue in
                defer { queue.added = [] }
                return (queue.added, queue.stopping)
            }
            for client in added { clients[client.fd] = client.sent }
            if stopping {
                for fd in clients.keys { drop(fd) }
                return
            }
            // A page sends nothing after its request: readable means closed (a read of 0), reset
            // or in error. Anything it does send is read and dropped.
            for entry in fds.dropFirst() where entry.revents != 0 {
                if entry.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 {
                    drop(entry.fd)
                    continue
                }
                let count = recv(entry.fd, &scratch, scratch.count, Int32(MSG_DONTWAIT))
                if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) { drop(entry.fd) }
            }
            let version = current.load(ordering: .relaxed)
            let quiet = ready == 0
            for (fd, sent) in clients where sent != version || quiet {
                // Never blocks: a page that does not read its few bytes is closed (it connects again).
                if Self.sendNow(fd, sent != version ? "data: \(version)\n\n" : ": keep-alive\n\n") {
                    clients[fd] = version
                } else {
                    drop(fd)
                }
            }
        }
    }

    /// Sends `text` whole without waiting; false when it could not.
    private static func sendNow(_ fd: Int32, _ text: String) -> Bool {
        var bytes = Array(text.utf8)
        let sent = bytes.withUnsafeMutableBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
        return sent == bytes.count
    }
}
