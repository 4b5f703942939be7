import Foundation
import Glibc
import RatecardSupport

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

    /// Sends all of `bytes` on a connection (no SIGPIPE); false when the connection is gone.
    static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
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

    /// One request head: a GET or HEAD has no body; anything else is answered and closed.
    struct Request {
        var method: String
        var target: String
        var version: String
        var headers: [String: String]
    }

    /// Reads one request head from `fd` into `buffer` (what follows it stays there); nil when
    /// the connection ends or the head passes 32 KB; a request line that is not HTTP/1.x gives a
    /// request with an empty method (answered as not allowed).
    static func readRequest(_ fd: Int32, _ buffer: inout [UInt8]) -> Request? {
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
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }
}
