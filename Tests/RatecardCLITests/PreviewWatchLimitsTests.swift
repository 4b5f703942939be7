import CShims
import Foundation
import Glibc
import RatecardGenerate
import RatecardKit
import Synchronization
import Testing

/// `preview --watch` at the edges: out of descriptors, too many connections, pages that go
/// away, a web build changed under a request, files that cannot be read for a while. The
/// server keeps answering, serves nothing outside its folders, and never shows a state the disk
/// no longer has.
@Suite(.serialized) struct PreviewWatchLimitsTests {
    let watchTests = PreviewWatchTests()

    /// A connection that asked for `/__ratecard/events` (reads on it wait 5 s at most).
    func openEvents(port: Int) throws -> Int32 {
        let fd = try HTTP.connect(port: port)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var request = Array("GET /__ratecard/events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8)
        _ = request.withUnsafeMutableBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return fd
    }

    /// Reads from `fd` until `enough` says so, the peer closes, or the 5 s timeout passes.
    func receive(_ fd: Int32, until enough: (String) -> Bool) -> String {
        var received = ""
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !enough(received) {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received += String(decoding: chunk[0..<count], as: UTF8.self)
        }
        return received
    }

    /// GET `target` with a 5 s limit on the answer: nil when none came.
    func answer(port: Int, _ target: String) throws -> String? {
        let fd = try HTTP.connect(port: port)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var request = Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
        _ = request.withUnsafeMutableBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        let text = receive(fd) { _ in false }
        return text.isEmpty ? nil : text
    }

    /// The local port of a connection (the server sees it as the peer's).
    static func localPort(_ fd: Int32) -> Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test func aClosedPageIsFreedAtOnceAndRunningOutOfDescriptorsDoesNotStopTheServer() throws {
        try withTemporaryDirectory { directory in
            let repo = try watchTests.initRepository(in: directory)
            // 48 descriptors: fewer than the connections below need, so accept runs out.
            let limit = 48
            // Without the build cache, whose packs each keep a descriptor open: the limit is the server's.
            let watch = try WatchProcess(
                in: repo, arguments: ["--as-of", PreviewWatchTests.asOf], environment: ["RATECARD_CACHE": "off"], wrapper: ["/usr/bin/prlimit", "--nofile=\(limit):\(limit)"])
            let port = watch.port

            // A page that goes away is seen at once: its connection is closed in well under the
            // 15 s to the next heartbeat (a second or less, unless the machine is very busy).
            let page = try openEvents(port: port)
            let pagePort = Self.localPort(page)
            #expect(receive(page) { $0.contains("data: 1\n\n") }.contains("data: 1\n\n"))
            #expect(try eventually(within: 5) { try watch.peerPorts().contains(pagePort) })
            close(page)
            let closedSeen = try eventually(within: 5) { try watch.peerPorts().contains(pagePort) == false }
            #expect(closedSeen, "the server still holds the page's connection")

            // More pages than descriptors: accept fails (EMFILE) while they are open, the rest
            // wait in the listen queue. Once they close, the server answers again.
            var pages: [Int32] = []
            for _ in 0..<60 { pages.append(try openEvents(port: port)) }
            var pagePorts: Set<Int> = []
            for fd in pages { pagePorts.insert(Self.localPort(fd)) }
            let exhausted = try eventually(within: 5) { try watch.openDescriptors() >= limit - 1 }
            let descriptors = try watch.openDescriptors()
            #expect(exhausted, "\(descriptors) descriptors of \(limit)")
            for fd in pages { close(fd) }
            let version = try answer(port: port, "/__ratecard/version")
            #expect(version?.hasPrefix("HTTP/1.1 200 OK") == true && version?.hasSuffix("\r\n\r\n1\n") == true, "\(version ?? "no answer")")
            // And every one of them is let go.
            let released = try eventually(within: 10) { try watch.peerPorts().isDisjoint(with: pagePorts) }
            let held = try watch.peerPorts().intersection(pagePorts).count
            #expect(released, "the server still holds \(held) of the closed pages' connections")
            #expect(watch.stop() == 0)
        }
    }

    @Test func beyondTheCapAConnectionIsAnsweredBusyAndOneThatCloses() throws {
        try withTemporaryDirectory { directory in
            let repo = try watchTests.initRepository(in: directory)
            let watch = try WatchProcess(in: repo, arguments: ["--as-of", PreviewWatchTests.asOf])
            let port = watch.port
            var pages: [Int32] = []
            defer { for fd in pages { close(fd) } }
            var statuses: [String: Int] = [:]
            for _ in 0..<(PreviewServer.maxConnections + 4) {
                let page = try openEvents(port: port)
                pages.append(page)
                let head = receive(page) { $0.contains("\r\n\r\n") }
                statuses[String(head.prefix(12)), default: 0] += 1
                if head.hasPrefix("HTTP/1.1 503") { #expect(head.contains("Retry-After: 1\r\n")) }
            }
            // At most the cap is served (fewer if something else holds a connection meanwhile).
            #expect(statuses.values.reduce(0, +) == PreviewServer.maxConnections + 4)
            #expect(statuses["HTTP/1.1 200", default: 0] <= PreviewServer.maxConnections, "\(statuses)")
            #expect(statuses["HTTP/1.1 503", default: 0] >= 4, "\(statuses)")
            // One page closes: its place is free for the next request.
            close(pages.removeFirst())
            #expect(try eventually(within: 5) { try answer(port: port, "/")?.hasPrefix("HTTP/1.1 200") == true })
            #expect(watch.stop() == 0)
        }
    }

    /// A large file of the web build (not a page) is sent a chunk at a time, as `serve` sends one.
    @Test func aLargeWebFileIsStreamedWithBoundedMemory() throws {
        try withTemporaryDirectory { directory in
            let repo = try watchTests.initRepository(in: directory)
            let web = directory + "/web"
            try FileSystem.copyTree(from: repo + "/site", to: web)
            let (name, size) = try ServeLimitsTests.writeLargeFile(in: web)
            let watch = try WatchProcess(in: repo, arguments: ["--as-of", PreviewWatchTests.asOf, "--web", web])
            try ServeLimitsTests.expectStreamed("/" + name, size: size, from: watch)
            #expect(watch.stop() == 0)
        }
    }

    @Test func aFolderSwappedForASymlinkDuringRequestsNeverServesTheOutsideFile() throws {
        try withTemporaryDirectory { directory in
            let repo = try watchTests.initRepository(in: directory)
            try FileSystem.makeDirectories(repo + "/site/race")
            try FileSystem.writeFile(repo + "/site/race/page.txt", Array("inside\n".utf8))
            try FileSystem.makeDirectories(directory + "/outside")
            try FileSystem.writeFile(directory + "/outside/page.txt", Array("OUTSIDE SECRET\n".utf8))
            #expect(symlink(directory + "/outside", repo + "/site/decoy") == 0)
            let watch = try WatchProcess(in: repo, arguments: ["--as-of", PreviewWatchTests.asOf])
            #expect(try HTTP.get(port: watch.port, "/race/page.txt").text == "inside\n")
            #expect(try HTTP.get(port: watch.port, "/decoy/page.txt").status == 404)

            // The folder and the link trade places (renameat2 RENAME_EXCHANGE) as fast as they can
            // while the pages are requested.
            let running = Atomic<Bool>(true)
            let swapper = Thread {
                while running.load(ordering: .relaxed) { _ = cshims_exchange_paths(repo + "/site/race", repo + "/site/decoy") }
            }
            swapper.start()
            var inside = 0
            var leaked = 0
            var requests = 0
            let deadline = Date(timeIntervalSinceNow: TestTier.isFull ? 10 : 2)
            while Date() < deadline {
                let response = try HTTP.get(port: watch.port, "/race/page.txt")
                requests += 1
                if response.text.contains("OUTSIDE") { leaked += 1 }
                if response.status == 200 && response.text == "inside\n" { inside += 1 }
            }
            running.store(false, ordering: .relaxed)
            while !swapper.isFinished { usleep(1_000) }
            #expect(leaked == 0, "the outside file was served \(leaked) times in \(requests) requests")
            #expect(inside > 0, "no request of \(requests) found the folder in place")
            #expect(watch.stop() == 0)
        }
    }

    /// A file that cannot be read. Permission denied: as root, the preview runs without the
    /// capabilities that let root read any file (setpriv drops CAP_DAC_OVERRIDE and
    /// CAP_DAC_READ_SEARCH), so mode 000 means permission denied to it as to anyone else;
    /// otherwise it runs as it is. Out of descriptors: its soft RLIMIT_NOFILE is lowered below
    /// what it holds (prlimit --pid), then put back.
    @Test func aFileThatCannotBeReadIsShownAsSuchAndReadAgainUntilThePageFollowsTheDisk() throws {
        try withTemporaryDirectory { directory in
            let repo = try watchTests.initRepository(in: directory)
            let drop = "-dac_override,-dac_read_search"
            let wrapper = geteuid() == 0 ? ["/usr/bin/setpriv", "--inh-caps=\(drop)", "--bounding-set=\(drop)"] : []
            let watch = try WatchProcess(in: repo, arguments: ["--as-of", PreviewWatchTests.asOf], wrapper: wrapper)
            let table = try watchTests.someRateTable(in: repo)
            // A table of another product.
            let partner = try #require(try FileSystem.listDirectory(repo + "/products").last)
            let product = try #require(try FileSystem.listDirectory(repo + "/products/" + partner).first)
            let other = "products/\(partner)/\(product)/rates/" + (try #require(try FileSystem.listDirectory(repo + "/products/\(partner)/\(product)/rates").first))
            #expect(!table.hasPrefix("products/\(partner)/"))
            let original = try String(contentsOfFile: repo + "/" + table, encoding: .utf8)

            func expectUnreadable(_ version: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
                for page in ["/", "/rates.html"] {
                    let shown = try HTTP.get(port: watch.port, page).text
                    #expect(shown.contains("<main id=\"ratecard-problems\">"), "\(page)", sourceLocation: sourceLocation)
                    #expect(shown.contains("<code>\(table)</code>: error: open \(repo)/\(table): Permission denied"), "\(page): \(shown)", sourceLocation: sourceLocation)
                    #expect(shown.contains("data-version=\"\(version)\""), "\(page)", sourceLocation: sourceLocation)
                }
            }

            // chmod alone is an event: the page says the file cannot be read, as validate does.
            #expect(chmod(repo + "/" + table, 0) == 0)
            var version = try watch.waitForVersion(after: 1, seconds: 20)
            try expectUnreadable(version)
            #expect(watch.waitForOutput("  \(table): error: open \(repo)/\(table): Permission denied\n").contains("  \(table): error: open \(repo)/\(table): Permission denied\n"))

            // Edited while unreadable, with another table in the same save: the other edit is
            // taken, the unreadable one is still shown as such.
            let edited = LargeContentGenerator.nudgedRate(original)
            try FileSystem.writeFile(repo + "/" + table, Array(edited.utf8))
            try FileSystem.writeFile(repo + "/" + other, Array(LargeContentGenerator.nudgedRate(try String(contentsOfFile: repo + "/" + other, encoding: .utf8)).utf8))
            version = try watch.waitForVersion(after: version, seconds: 20)
            try expectUnreadable(version)

            // Readable again: the pages are the disk's, both edits in.
            #expect(chmod(repo + "/" + table, 0o644) == 0)
            version = try watch.waitForVersion(after: version, seconds: 20)
            #expect(!(try HTTP.get(port: watch.port, "/rates.html").text.contains("ratecard-problems")))
            try watchTests.expectServedAsCold(watch, try watchTests.coldPreview(repo, into: directory))

            // Unreadable and restored to its first bytes, readable again: the first bytes are served.
            #expect(chmod(repo + "/" + table, 0) == 0)
            version = try watch.waitForVersion(after: version, seconds: 20)
            try FileSystem.writeFile(repo + "/" + table, Array(original.utf8))
            #expect(chmod(repo + "/" + table, 0o644) == 0)
            version = try watch.waitForVersion(after: version, seconds: 20)
            #expect(try eventually(within: 10) { !(try HTTP.get(port: watch.port, "/rates.html").text.contains("ratecard-problems")) })
            try watchTests.expectServedAsCold(watch, try watchTests.coldPreview(repo, into: directory))

            // Out of descriptors while an edit is read (the open fails with EMFILE): once there
            // are descriptors again, the file is read again without any event for it.
            let pid = watch.process.processIdentifier
            let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
            let openFiles = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
            let soft = try #require(openFiles.split(separator: " ").dropFirst(3).first)
            #expect(try runTool("/usr/bin/prlimit", ["--pid", "\(pid)", "--nofile=3:"]).0 == 0)
            try FileSystem.writeFile(repo + "/" + table, Array(edited.utf8))
            let failedRead = "  \(table): error: open \(repo)/\(table): Too many open files\n"
            #expect(eventually(within: 20) { watch.output().contains(failedRead) }, "\(watch.output().suffix(1000))")
            #expect(try runTool("/usr/bin/prlimit", ["--pid", "\(pid)", "--nofile=\(soft):"]).0 == 0)
            // The failure was published (version + 1), then the edit once read (+ 2).
            version = try watch.waitForVersion(after: version + 1, seconds: 20)
            #expect(!(try HTTP.get(port: watch.port, "/rates.html").text.contains("ratecard-problems")))
            try watchTests.expectServedAsCold(watch, try watchTests.coldPreview(repo, into: directory))
            #expect(watch.stop() == 0)
        }
    }
}
