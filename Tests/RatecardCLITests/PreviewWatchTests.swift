import Foundation
import Glibc
import RatecardGenerate
import RatecardKit
import Testing

/// `ratecard preview --watch` as a person uses it: a repository made by `ratecard init` (the web
/// app inside it), served on 127.0.0.1, edited while it runs, stopped with Ctrl-C.
@Suite(.serialized) struct PreviewWatchTests {
    static let asOf = "2026-11-29"

    /// A repository made by `ratecard init`.
    func initRepository(in directory: String) throws -> String {
        let repo = directory + "/repo"
        let made = try ratecard(["init", repo], in: directory)
        try #require(made.status == 0, "\(made.out)\(made.err)")
        return repo
    }

    /// The newest rate table of the first product, relative to the repository.
    func someRateTable(in repo: String) throws -> String {
        let partner = try #require(try FileSystem.listDirectory(repo + "/products").first)
        let product = try #require(try FileSystem.listDirectory(repo + "/products/" + partner).first)
        let table = try #require(try FileSystem.listDirectory(repo + "/products/\(partner)/\(product)/rates").last)
        return "products/\(partner)/\(product)/rates/\(table)"
    }

    /// A cold `preview` of the work tree as it is now (no build cache): path -> bytes.
    func coldPreview(_ repo: String, into directory: String) throws -> [String: [UInt8]] {
        let out = directory + "/cold-\(UUID().uuidString)"
        let result = try ratecard(["preview", "--as-of", Self.asOf, "--out", out], in: repo, environment: ["RATECARD_CACHE": "off"])
        try #require(result.status == 0, "\(result.out)\(result.err)")
        defer { try? FileSystem.removeTree(out) }
        var files: [String: [UInt8]] = [:]
        for (path, kind) in try treeListing(out) where kind != "folder" { files[path] = try FileSystem.readFile(out + "/" + path) }
        return files
    }

    /// Every file of a cold preview is served with the same bytes (HTML pages with the reload script added).
    func expectServedAsCold(_ watch: WatchProcess, _ cold: [String: [UInt8]], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let version = try watch.version()
        var differing: [String] = []
        for (path, bytes) in cold.sorted(by: { $0.key < $1.key }) {
            let served = try HTTP.get(port: watch.port, "/" + path)
            let expected = path.hasSuffix(".html") ? PreviewServer.withLiveScript(bytes, version: version) : bytes
            if served.status != 200 || served.body != expected { differing.append(path) }
        }
        #expect(differing.isEmpty, "\(differing.count) of \(cold.count) files differ: \(differing.prefix(5))", sourceLocation: sourceLocation)
    }

    @Test func itServesOnLoopbackOnlyAnswersGetOnlyStaysInsideItsFoldersAndNamesContentTypes() throws {
        try withTemporaryDirectory { directory in
            let repo = try initRepository(in: directory)
            let watch = try WatchProcess(in: repo, arguments: ["--as-of", Self.asOf])
            try expectServedAsCold(watch, try coldPreview(repo, into: directory))

            let index = try HTTP.get(port: watch.port, "/")
            #expect(index.status == 200)
            #expect(index.headers["content-type"] == "text/html; charset=utf-8")
            #expect(index.headers["cache-control"] == "no-store")
            #expect(index.text.contains("<script src=\"/__ratecard/live.js\" data-version=\"1\"></script>\n</head>"))
            let rates = try HTTP.get(port: watch.port, "/rates.html").text
            #expect(rates.contains("content=\"default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; script-src 'self'; connect-src 'self'\""))
            let manifest = try HTTP.get(port: watch.port, "/data/manifest.json")
            #expect(manifest.headers["content-type"] == "application/json")
            let logo = try #require(manifest.text.split(separator: "\"").first { $0.hasSuffix(".svg") })
            #expect(try HTTP.get(port: watch.port, "/" + logo).headers["content-type"] == "image/svg+xml")
            #expect(try HTTP.get(port: watch.port, "/app/app.js").headers["content-type"] == "text/javascript; charset=utf-8")
            #expect(try HTTP.get(port: watch.port, "/app/app.css").headers["content-type"] == "text/css; charset=utf-8")
            #expect(try HTTP.get(port: watch.port, "/__ratecard/live.js").text.contains("new EventSource(\"/__ratecard/events\")"))

            // GET and HEAD only.
            let post = try HTTP.get(port: watch.port, "/", method: "POST")
            #expect(post.status == 405 && post.headers["allow"] == "GET, HEAD")
            #expect(try HTTP.get(port: watch.port, "/rates.html", method: "DELETE").status == 405)
            let head = try HTTP.get(port: watch.port, "/rates.html", method: "HEAD")
            #expect(head.status == 200 && head.body.isEmpty && Int(head.headers["content-length"] ?? "") ?? 0 > 0)
            // Nothing outside the bundle and the web folder, however it is spelled.
            for target in [
                "/../ratecard.yaml", "/%2e%2e/ratecard.yaml", "/app/..%2f..%2fratecard.yaml", "/app/%2E%2E/%2E%2E/ratecard.yaml", "/.gitignore", "/app//app.js", "/a%00b", "/app\\..\\app.js",
            ] {
                let response = try HTTP.get(port: watch.port, target)
                #expect(response.status == 400, "\(target): \(response.status)")
            }
            #expect(try HTTP.get(port: watch.port, "/ratecard.yaml").status == 404)
            #expect(try HTTP.get(port: watch.port, "/partners/kb-kookmin-bank.yaml").status == 404)
            // The event stream starts with the version the pages were served at (before the
            // symlink below, which makes the preview rebuild). It is read up to its first event,
            // however many keep-alives come before it, and for 30 s at most.
            let fd = try HTTP.connect(port: watch.port)
            defer { close(fd) }
            var request = Array("GET /__ratecard/events HTTP/1.1\r\nHost: 127.0.0.1:\(watch.port)\r\n\r\n".utf8)
            _ = request.withUnsafeMutableBytes { send(fd, $0.baseAddress, $0.count, 0) }
            var received = ""
            var chunk = [UInt8](repeating: 0, count: 4096)
            let streamDeadline = Date(timeIntervalSinceNow: 30)
            while !received.contains("\ndata: ") || !received[received.range(of: "\ndata: ")!.upperBound...].contains("\n\n"), Date() < streamDeadline {
                let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { break }
                received += String(decoding: chunk[0..<count], as: UTF8.self)
            }
            #expect(received.contains("Content-Type: text/event-stream"))
            #expect(received.contains("\ndata: 1\n\n"), "\(received.prefix(300))")
            #expect(symlink(repo + "/ratecard.yaml", repo + "/site/app/leak.txt") == 0)
            #expect(try HTTP.get(port: watch.port, "/app/leak.txt").status == 404)
            // Only requests addressed to the loopback host (no DNS rebinding).
            #expect(try HTTP.get(port: watch.port, "/", host: "evil.example").status == 421)
            #expect(try HTTP.get(port: watch.port, "/", host: "localhost:\(watch.port)").status == 200)
            // Listening on 127.0.0.1 only. The kernel writes /proc/net/tcp a page at a time, and a
            // line can be left out of a read while other sockets come and go (a loaded machine):
            // so the addresses of every read, until one shows the port.
            var listening: Set<String> = []
            for _ in 0..<20 where listening.isEmpty {
                let table = String(decoding: try FileSystem.readFile("/proc/net/tcp"), as: UTF8.self)
                for line in table.split(separator: "\n") {
                    let fields = line.split(separator: " ")
                    guard fields.count > 3, fields[3] == "0A" else { continue }
                    let local = fields[1].split(separator: ":")
                    if Int(local[1], radix: 16) == watch.port { listening.insert(String(local[0])) }
                }
            }
            #expect(listening == ["0100007F"])
            #expect(watch.stop() == 0)
        }
    }

    @Test func anEditIsServedAnInvalidEditShowsItsProblemOnEveryPageAndTheFixClearsIt() throws {
        try withTemporaryDirectory { directory in
            let repo = try initRepository(in: directory)
            let watch = try WatchProcess(in: repo, arguments: ["--as-of", Self.asOf])
            let table = try someRateTable(in: repo)
            let original = try String(contentsOfFile: repo + "/" + table, encoding: .utf8)
            let before = try HTTP.get(port: watch.port, "/data/manifest.json").text

            let flipped = LargeContentGenerator.nudgedRate(original)
            try FileSystem.writeFile(repo + "/" + table, Array((flipped).utf8))
            var version = try watch.waitForVersion(after: 1)
            #expect(try HTTP.get(port: watch.port, "/data/manifest.json").text != before)
            try expectServedAsCold(watch, try coldPreview(repo, into: directory))

            try FileSystem.writeFile(repo + "/" + table, Array(("effective_from: [\n" + flipped).utf8))
            version = try watch.waitForVersion(after: version)
            for page in ["/rates.html", "/", "/partners.html"] {
                let shown = try HTTP.get(port: watch.port, page)
                #expect(shown.text.contains("<main id=\"ratecard-problems\">"), "\(page)")
                #expect(shown.text.contains("<code>\(table):1:"), "\(page)")
                #expect(shown.text.contains("error YML-01"), "\(page)")
                #expect(shown.text.contains("data-version=\"\(version)\""), "\(page)")
            }
            #expect(watch.waitForOutput("\(table):1:").contains("\(table):1:"))
            // The data of the last good build stays reachable for a page that is open.
            #expect(try HTTP.get(port: watch.port, "/data/manifest.json").status == 200)

            try FileSystem.writeFile(repo + "/" + table, Array((original).utf8))
            version = try watch.waitForVersion(after: version)
            #expect(!(try HTTP.get(port: watch.port, "/rates.html").text.contains("ratecard-problems")))
            try expectServedAsCold(watch, try coldPreview(repo, into: directory))

            // The web app is served from its folder as it is now.
            let css = try String(contentsOfFile: repo + "/site/app/app.css", encoding: .utf8) + "\n/* edited while watching */\n"
            try FileSystem.writeFile(repo + "/site/app/app.css", Array((css).utf8))
            version = try watch.waitForVersion(after: version)
            #expect(try HTTP.get(port: watch.port, "/app/app.css").text == css)
            #expect(watch.stop() == 0)
        }
    }

    /// `sed -i` writes a temporary `sedXXXXXX` beside the file and renames it over the file: the
    /// log names the file, never the temporary. In Korean, the log lines and the problems page are
    /// Korean too.
    @Test func anEditorsTemporaryFileIsNotAChangeAndTheLogSpeaksKorean() throws {
        try withTemporaryDirectory { directory in
            let repo = try initRepository(in: directory)
            let watch = try WatchProcess(in: repo, arguments: ["--as-of", Self.asOf, "--lang", "ko"])
            #expect(watch.output().contains("의 미리보기를 http://127.0.0.1:"), "\(watch.output())")
            let table = try someRateTable(in: repo)
            let original = try String(contentsOfFile: repo + "/" + table, encoding: .utf8)
            let before = original.split(separator: "\n", omittingEmptySubsequences: false)
            let after = LargeContentGenerator.nudgedRate(original).split(separator: "\n", omittingEmptySubsequences: false)
            let line = try #require(before.indices.first { before[$0] != after[$0] })
            let (status, output) = try runTool("/bin/sed", ["-i", "\(line + 1)s/.*/\(after[line])/", repo + "/" + table])
            #expect(status == 0, "\(output)")
            var version = try watch.waitForVersion(after: 1)
            let rebuilt = try #require(watch.waitForOutput("다시 빌드했습니다").split(separator: "\n").last { $0.contains("다시 빌드했습니다") }, "\(watch.output())")
            #expect(rebuilt.contains(" \(table): "), "\(rebuilt)")
            #expect(!rebuilt.contains("sed"), "\(rebuilt)")
            // Wait out a second event batch: the temporary never shows up as a change of its own.
            usleep(300_000)
            #expect(!watch.output().contains("/sed"), "\(watch.output())")

            let (broken, brokenOutput) = try runTool("/bin/sed", ["-i", "1s/^/effective_from: [/", repo + "/" + table])
            #expect(broken == 0, "\(brokenOutput)")
            version = try watch.waitForVersion(after: version)
            let page = try HTTP.get(port: watch.port, "/rates.html").text
            #expect(page.contains("<h1>콘텐츠에 오류 "), "\(page)")
            #expect(!page.contains("sed"), "\(page)")
            #expect(page.contains("<code>\(table):1:"), "\(page)")
            #expect(page.contains(": 오류 YML-01: YAML 문법 오류: "), "\(page)")
            #expect(watch.waitForOutput(": 오류 YML-01: ").contains("  \(table):1:"), "\(watch.output())")
            #expect(watch.output().contains(": 오류 YML-01: "), "\(watch.output())")
            #expect(EnglishProse.runs(in: watch.output()).isEmpty, "\(EnglishProse.runs(in: watch.output()))")
            #expect(watch.stop() == 0)
            #expect(watch.output().hasSuffix("멈췄습니다.\n"), "\(watch.output())")
            #expect(!watch.output().contains("sed"), "\(watch.output())")
        }
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalStopsItCleanlyAndLeavesNothingBehind(signal: Int32) throws {
        try withTemporaryDirectory { directory in
            let repo = try initRepository(in: directory)
            let scratch = directory + "/tmp"
            let cache = directory + "/cache"
            try FileSystem.makeDirectories(scratch)
            let before = try treeListing(repo)
            // In a zone far from Seoul, the log's clock is still Seoul's, as every other time printed.
            let watch = try WatchProcess(
                in: repo, arguments: ["--as-of", Self.asOf], environment: ["TMPDIR": scratch, "RATECARD_CACHE_DIR": cache, "TZ": "America/New_York"])
            let table = try someRateTable(in: repo)
            let edited = Timestamp.seoulClock(seconds: time(nil))
            try FileSystem.writeFile(repo + "/" + table, Array((try String(contentsOfFile: repo + "/" + table, encoding: .utf8) + "# edited\n").utf8))
            _ = try watch.waitForVersion(after: 1)
            // The line may follow the new version by a moment.
            let logged = watch.waitForOutput(": rebuilt in ")
            let rebuilt = Timestamp.seoulClock(seconds: time(nil))
            let stamp = logged.split(separator: "\n").first { $0.contains(": rebuilt in ") }.map { String($0.prefix(8)) }
            #expect(stamp.map { edited <= $0 && $0 <= rebuilt } == true || edited > rebuilt, "\(stamp ?? "none") is not between \(edited) and \(rebuilt)")
            let port = watch.port
            #expect(watch.stop(signal) == 0)
            #expect(watch.output().hasSuffix("Stopped.\n"))
            // The content folder holds what it held (and the one edit), nothing more.
            var after = try treeListing(repo)
            #expect(after.removeValue(forKey: table) != nil)
            var expected = before
            expected[table] = nil
            #expect(after == expected)
            #expect(try FileSystem.listDirectory(scratch).isEmpty)
            // The build cache holds whole packs only (no temporary file).
            #expect(try FileSystem.listDirectory(cache + "/v1/tmp").isEmpty)
            #expect(try FileSystem.listDirectory(cache + "/v1/packs").allSatisfy { $0.hasSuffix(".pack") })
            #expect(throws: OperationalError.self) { try HTTP.connect(port: port) }
        }
    }
}
