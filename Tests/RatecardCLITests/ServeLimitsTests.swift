import Foundation
import Glibc
import RatecardKit
import Testing

/// `ratecard serve` at the edges: out of descriptors, more connections than it answers at once,
/// a client that sends its request a byte at a time, a file far larger than what it should hold
/// in memory. It keeps answering, and what it holds stays bounded.
@Suite struct ServeLimitsTests {
    /// A serve root with one release live.
    func publishedRoot(in directory: String) throws -> PublishFixture {
        let fixture = try PublishFixture(in: directory, commits: 1)
        _ = try fixture.publishEach()
        return fixture
    }

    /// A connection to `port` on which nothing is sent; its reads wait `seconds` at most.
    func idleConnection(_ port: Int, seconds: Int = 5) throws -> Int32 {
        let fd = try HTTP.connect(port: port)
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    /// Sends `GET target` on `fd` and reads until the server closes it or 5 s pass without a
    /// byte: what came back ("" for nothing).
    func ask(_ fd: Int32, port: Int, _ target: String = "/") -> String {
        var request = Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
        _ = request.withUnsafeMutableBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received += chunk[0..<count]
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Under `ulimit -n 64`, idle connections use up the descriptors and `accept` fails; once
    /// they close, the server answers again.
    @Test func runningOutOfDescriptorsDoesNotStopTheServer() throws {
        try withTemporaryDirectory { directory in
            let fixture = try publishedRoot(in: directory)
            let limit = 64
            let server = try ServeProcess(
                ["--root", fixture.root], in: fixture.repo, environment: ["RATECARD_REQUEST_DEADLINE_MS": "60000"],
                wrapper: ["/bin/sh", "-c", "ulimit -n \(limit) && exec \"$0\" \"$@\""])
            let limits = try String(contentsOfFile: "/proc/\(server.process.processIdentifier)/limits", encoding: .utf8)
            let openFiles = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
            try #require(openFiles.split(separator: " ").dropFirst(3).first == "\(limit)", "\(openFiles)")
            #expect(ask(try idleConnection(server.port), port: server.port).hasPrefix("HTTP/1.1 200 OK"))

            // More idle connections than descriptors (fewer than the cap and the listen queue
            // together): accept fails (EMFILE) while they are open.
            var idle: [Int32] = []
            for _ in 0..<(limit + 16) { idle.append(try idleConnection(server.port)) }
            let exhausted = try eventually(within: 5) { try server.openDescriptors() >= limit }
            let held = try server.openDescriptors()
            #expect(exhausted, "\(held) descriptors of \(limit)")
            for fd in idle { close(fd) }
            // Once they are closed, it answers.
            let answer = ask(try idleConnection(server.port), port: server.port)
            #expect(answer.hasPrefix("HTTP/1.1 200 OK"), "no answer after the descriptors came back: \(answer.prefix(200))")
            #expect(server.stop() == 0)
        }
    }

    /// Past the cap, a connection is answered 503 at once and closed; when one closes, its place
    /// is free.
    @Test func beyondTheCapAConnectionIsAnsweredBusy() throws {
        try withTemporaryDirectory { directory in
            let fixture = try publishedRoot(in: directory)
            let server = try ServeProcess(["--root", fixture.root], in: fixture.repo, environment: ["RATECARD_REQUEST_DEADLINE_MS": "60000"])
            let cap = PreviewServer.maxConnections
            // The cap's worth of connections that send nothing: each holds its place.
            var idle: [Int32] = []
            defer { for fd in idle { close(fd) } }
            for _ in 0..<cap { idle.append(try idleConnection(server.port)) }
            for _ in 0..<3 {
                let fd = try idleConnection(server.port)
                defer { close(fd) }
                let started = Date()
                let answer = ask(fd, port: server.port)
                #expect(answer.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"), "\(answer.prefix(200))")
                #expect(answer.contains("Retry-After: 1\r\n"))
                #expect(Date().timeIntervalSince(started) < 3, "the busy answer took \(Date().timeIntervalSince(started)) s")
            }
            // One idle connection goes: the next request is answered.
            close(idle.removeFirst())
            #expect(try eventually(within: 5) { ask(try idleConnection(server.port), port: server.port).hasPrefix("HTTP/1.1 200 OK") })
            #expect(server.stop() == 0)
        }
    }

    /// A client that sends its request head a byte at a time, each well within any idle
    /// timeout, is cut off when the whole head has not arrived within the deadline.
    @Test func aRequestHeadSentAByteAtATimeIsCutOffAtTheDeadline() throws {
        try withTemporaryDirectory { directory in
            let fixture = try publishedRoot(in: directory)
            let server = try ServeProcess(["--root", fixture.root], in: fixture.repo, environment: ["RATECARD_REQUEST_DEADLINE_MS": "1000"])
            // A request sent at once is answered.
            #expect(try HTTP.get(port: server.port, "/").status == 200)
            let fd = try idleConnection(server.port)
            defer { close(fd) }
            let head = Array("GET / HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nX-Drip: ".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 100)
            let started = Date()
            var sent = 0
            var cutOff: Double?
            while sent < head.count, Date().timeIntervalSince(started) < 8 {
                let count = head[sent...].prefix(1).withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                var closed = count < 0 && errno != EAGAIN
                if count > 0 { sent += count }
                var scratch = [UInt8](repeating: 0, count: 512)
                let read = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if read == 0 || (read < 0 && errno != EAGAIN && errno != EWOULDBLOCK) { closed = true }
                if closed {
                    cutOff = Date().timeIntervalSince(started)
                    break
                }
                usleep(100_000)
            }
            let seconds = try #require(cutOff, "the connection was still open after \(sent) bytes in \(Date().timeIntervalSince(started)) s")
            #expect(seconds >= 0.9 && seconds < 4, "cut off after \(seconds) s")
            #expect(sent < head.count)
            // The server still answers.
            #expect(try HTTP.get(port: server.port, "/").status == 200)
            #expect(server.stop() == 0)
        }
    }

    /// 64 MiB in 64 blocks of 1 MiB, each different (its number in its first byte), written to
    /// `folder`; its name (its sha256, `.bin`).
    static func writeLargeFile(in folder: String) throws -> (name: String, size: Int) {
        let block = 1 << 20
        let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom")).readData(ofLength: block).map { $0 }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 * block)
        for index in 0..<64 {
            var part = random
            part[0] = UInt8(index)
            bytes += part
        }
        let name = SHA256.hex(bytes) + ".bin"
        try FileSystem.writeFile(folder + "/" + name, bytes)
        return (name, bytes.count)
    }

    /// GETs `target` (a file written by `writeLargeFile`) from the process of `server` and checks
    /// its bytes, and that the process's peak resident memory (VmHWM, reset just before the
    /// request) grows by far less than the file's size.
    static func expectStreamed(_ target: String, size: Int, from server: LoopbackProcess, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let pid = server.process.processIdentifier
        func peakKilobytes() throws -> Int {
            let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
            let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
            return try #require(Int(line.split(separator: " ").dropFirst().first ?? ""))
        }
        // "5" resets the peak to what the process holds now (proc(5), clear_refs).
        try FileSystem.writeFile("/proc/\(pid)/clear_refs", Array("5".utf8))
        let before = try peakKilobytes()
        let raw = try HTTP.exchange(port: server.port, "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nConnection: close\r\n\r\n", limit: size + (1 << 20))
        let end = try #require(raw.firstRange(of: [13, 10, 13, 10]), sourceLocation: sourceLocation)
        let head = String(decoding: raw[..<end.lowerBound], as: UTF8.self)
        #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n") && head.contains("Content-Length: \(size)\r\n"), "\(head)", sourceLocation: sourceLocation)
        let body = Array(raw[end.upperBound...])
        #expect(body.count == size, sourceLocation: sourceLocation)
        #expect(SHA256.hex(body) + ".bin" == String(target.split(separator: "/").last ?? ""), "other bytes than the file's", sourceLocation: sourceLocation)
        let after = try peakKilobytes()
        print("Streamed \(size >> 20) MiB: peak resident memory \(before / 1024) MiB before, \(after / 1024) MiB after")
        #expect(after - before < 16 * 1024, "the peak resident memory grew by \((after - before) / 1024) MiB while sending \(size >> 20) MiB", sourceLocation: sourceLocation)
    }

    /// A 64 MiB object is sent whole and right, while the server's peak resident memory stays far
    /// below the file's size (it is sent a chunk at a time, never read whole).
    @Test func aLargeFileIsStreamedWithBoundedMemory() throws {
        try withTemporaryDirectory { directory in
            let fixture = try publishedRoot(in: directory)
            let (name, size) = try Self.writeLargeFile(in: fixture.root + "/objects")
            let server = try ServeProcess(["--root", fixture.root], in: fixture.repo)
            #expect(try HTTP.get(port: server.port, "/").status == 200)
            try Self.expectStreamed("/o/" + name, size: size, from: server)
            #expect(server.stop() == 0)
        }
    }
}
