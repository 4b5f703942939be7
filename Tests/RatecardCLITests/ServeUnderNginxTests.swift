import Foundation
import Glibc
import RatecardKit
import Testing

/// End to end with the real server and real mounts (operations.md: serving with nginx, what every command guarantees): a
/// publish/rollback storm under nginx never serves an error or a page mixing two releases, and a
/// full disk or a read-only `releases/` fails with exit 4 and leaves the live release as it was.
///
/// The mount tests need root (CI runs as root). They fail, never skip, when `mount` is refused.
@Suite struct ServeUnderNginxTests {
    // MARK: Zero downtime

    @Test func aHundredSwapsUnderLoadServeNoErrorAndNoMixedPage() throws {
        let nginx = try #require(NginxServer.executable, "nginx is not installed (apt-get install -y nginx)")
        try withTemporaryDirectory { directory in
            // nginx's workers run as nobody: they must be able to reach the serve root.
            chmod(directory, 0o755)
            let content = try TwoCommitContent(in: directory)
            let root = directory + "/root"
            let serve = ServeRoot(path: root)

            // r1 = A, r2 = B, r3 = A: every release names its data as objects of the one store, so
            // any swap among them keeps every page's data reachable.
            for (revision, expected) in [(content.commitA, 1), (content.commitB, 2), (content.commitA, 3)] {
                let result = try content.publish(root: root, revision: revision, message: "setup \(expected)")
                try #require(result.status == 0, "setup publish \(expected): \(result.out)\(result.err)")
            }
            let ids = try serve.releaseIDs()
            try #require(ids.count == 3)
            let bundleA = try ReleaseInfo.read(from: serve.folder(of: ids[0])).bundleID
            let bundleB = try ReleaseInfo.read(from: serve.folder(of: ids[1])).bundleID
            try #require(bundleA != bundleB, "the two commits must build different bundles")
            for id in ids {
                let info = try ReleaseInfo.read(from: serve.folder(of: id))
                #expect(info.format == ObjectLayout.format)
                #expect(!FileSystem.exists(serve.folder(of: id) + "/data/\(info.bundleID)/partners.json"), "\(id): data documents are objects only")
                #expect(FileSystem.exists(serve.folder(of: id) + "/" + BundleLayout.entry), "\(id): the entry document is in the entry folder")
            }

            let server = try NginxServer.start(nginx: nginx, prefix: directory + "/nginx", root: root, repo: content.repo)
            defer { server.stop() }
            let probe = HTTPConnection(port: server.port)
            let index = try probe.get("/index.html")
            try #require(index.status == 200, "nginx does not serve the root: \(server.errorLogTail())")

            // Clients load pages while 100 swaps (a sample of 24 outside the full tier) alternate
            // rollback --to and publish [--rev].
            let swapCount = TestTier.count(full: 100, sampled: 24)
            let load = LoadRun(port: server.port, clients: 2, maxLoadsPerClient: 1_000_000, maxSeconds: 300)
            load.waitUntil(pageLoads: 20)
            var latestA = ids[2]
            var latestB = ids[1]
            var live = ids[2]
            var swaps = 0
            var swapFailures: [String] = []
            let swapsStarted = Date()
            for step in 0..<swapCount {
                let expectedBundle = step % 2 == 0 ? bundleB : bundleA
                let result: Execution
                switch step % 4 {
                case 0:
                    result = try ratecard(["rollback", "--root", root, "--to", latestB, "--force", "--expect-live", live, "-m", "swap \(step)"], in: content.repo)
                case 1:
                    result = try ratecard(["rollback", "--root", root, "--to", latestA, "--force", "--expect-live", live, "-m", "swap \(step)"], in: content.repo)
                case 2:
                    result = try content.publish(root: root, revision: nil, message: "swap \(step)", extra: ["--expect-live", live])
                default:
                    result = try content.publish(root: root, revision: content.commitA, message: "swap \(step)", extra: ["--expect-live", live])
                }
                let now = try serve.live() ?? "none"
                let nowBundle = (try? ReleaseInfo.read(from: serve.folder(of: now)).bundleID) ?? "?"
                guard result.status == 0, now != live, nowBundle == expectedBundle else {
                    swapFailures.append("swap \(step): exit \(result.status), live \(now) (bundle \(nowBundle)); \(result.out)\(result.err)")
                    continue
                }
                swaps += 1
                live = now
                if step % 4 == 2 { latestB = now }
                if step % 4 == 3 { latestA = now }
            }
            let swapSeconds = Date().timeIntervalSince(swapsStarted)
            let counts = load.stop()
            print(
                """
                ServeUnderNginx: \(swaps)/\(swapCount) swaps in \(String(format: "%.1f", swapSeconds)) s under \(counts.clients) clients: \
                \(counts.pageLoads) page loads, \(counts.requests) requests, \(counts.non200) non-200, \
                \(counts.mixed) mixed (\(counts.missingData) data folder 404, \(counts.hashMismatch) hash mismatch, \
                \(counts.badManifest) unreadable entry document), \(counts.socketErrors) socket errors; \
                bundles seen \(counts.bundles.sorted()); entry document ETags naming two bundles: \(counts.sharedManifestETags)
                """)
            #expect(swapFailures.isEmpty, "\(swapFailures.prefix(5).joined(separator: "\n"))")
            #expect(swaps == swapCount)
            #expect(counts.pageLoads >= 5 * swapCount)
            #expect(counts.non200 == 0, "\(counts.samples)")
            #expect(counts.mixed == 0, "\(counts.samples)")
            #expect(counts.socketErrors == 0, "\(counts.samples)")
            #expect(counts.bundles == [bundleA, bundleB], "the clients did not see both releases: the swaps were not exercised")
            let verify = try ratecard(["verify", "--root", root], in: content.repo)
            #expect(verify.status == 0, "\(verify.out)\(verify.err)")

            // Cache headers (operations.md, "Serving a serve root with nginx").
            let liveBundle = try ReleaseInfo.read(from: serve.folder(of: #require(try serve.live()))).bundleID
            for path in ["/", "/index.html", "/rates.html", "/data/manifest.json", "/data/entry.json"] {
                let response = try probe.get(path)
                #expect(response.status == 200, "\(path)")
                #expect(response.header("cache-control") == "no-cache", "\(path): \(response.header("cache-control") ?? "no Cache-Control")")
            }
            // version.json names who published and why: it is not served.
            #expect(try probe.get("/version.json").status == 404)
            let liveInfo = try ReleaseInfo.read(from: serve.folder(of: #require(try serve.live())))
            let shard = try #require(liveInfo.files.first { $0.path.hasPrefix("data/\(liveBundle)/compare/") })
            let data = try probe.get("/o/" + ObjectLayout.objectName(shard))
            #expect(data.status == 200)
            #expect(data.header("cache-control")?.contains("immutable") == true, "\(data.header("cache-control") ?? "no Cache-Control")")
            #expect(data.header("content-type")?.hasPrefix("application/json") == true)
            let script = try probe.get("/app/app.js")
            #expect(script.status == 200)
            #expect(script.header("content-type")?.contains("javascript") == true, "mime.types not in effect: \(script.header("content-type") ?? "none")")

            // Negative controls: the checker counts what it must count.
            var control = PageChecker(connection: probe)
            control.loadPage(pages: ["/index.html", "/no-such-page.html"])
            #expect(control.counts.non200 == 1, "a missing page must count as non-200")
            #expect(control.counts.mixed == 0)
            let randomBundle = String((0..<16).map { _ in "0123456789abcdef".randomElement()! })
            let randomHash = String((0..<64).map { _ in "0123456789abcdef".randomElement()! })
            control.checkData(entry: Array(#"{"bundle_id":"\#(randomBundle)","objects":"o/","compare":[{"path":"compare/a.json","sha256":"\#(randomHash)"}]}"#.utf8), etag: nil)
            #expect(control.counts.missingData == 1, "an entry document naming an object that is not served must count as mixed")
            // An object whose bytes are not what its name says (planted by hand).
            let zeros = String(repeating: "0", count: 64)
            try FileSystem.writeFile(root + "/objects/\(zeros).json", Array("{}\n".utf8))
            control.checkData(entry: Array(#"{"bundle_id":"\#(liveBundle)","objects":"o/","compare":[{"path":"compare/a.json","sha256":"\#(zeros)"}]}"#.utf8), etag: nil)
            unlink(root + "/objects/\(zeros).json")
            #expect(control.counts.hashMismatch == 1, "a shard not matching its entry document must count as mixed")

            // A missing data file is a real 404, never the app page, and never cached for a year.
            let missing = try probe.get("/o/\(randomHash).json")
            #expect(missing.status == 404)
            #expect(!String(decoding: missing.body, as: UTF8.self).contains("<!doctype html>"), "the 404 is the SPA page")
            #expect(missing.header("cache-control")?.contains("immutable") != true, "a 404 must not be cached as immutable")
            #expect(try probe.get("/app/missing.js").status == 404)
            // Dot-files are never served, even when one exists inside the live release.
            let planted = serve.folder(of: try #require(try serve.live())) + "/.secret"
            try FileSystem.writeFile(planted, Array("secret\n".utf8))
            try FileSystem.makeDirectories(root + "/objects/.incoming-1")
            try FileSystem.writeFile(root + "/objects/.incoming-1/" + randomHash + ".json", Array("{}\n".utf8))
            for path in ["/.secret", "/.ratecard/journal.jsonl", "/.ratecard/lock", "/data/.secret", "/o/.incoming-1/\(randomHash).json", "/o/", "/o/../version.json"] {
                #expect(try probe.get(path).status == 404, "\(path) must be 404")
            }
            unlink(planted)
            try FileSystem.removeTree(root + "/objects/.incoming-1")

            // Negative control for the whole harness: a non-atomic swap (unlink, then symlink)
            // under the same load must be seen, or the harness could not see a torn swap at all.
            let target = try #require(try serve.live())
            let broken = LoadRun(port: server.port, clients: 2, maxLoadsPerClient: 1_000_000, maxSeconds: 60)
            broken.waitUntil(pageLoads: 20)
            for _ in 0..<40 {
                unlink(root + "/current")
                usleep(10_000)
                symlink("releases/" + target, root + "/current")
                usleep(10_000)
            }
            let brokenCounts = broken.stop()
            print("ServeUnderNginx negative control: non-atomic swaps gave \(brokenCounts.non200) non-200 and \(brokenCounts.mixed) mixed in \(brokenCounts.pageLoads) page loads")
            #expect(brokenCounts.non200 + brokenCounts.mixed > 0, "the harness did not notice a site that disappeared 40 times")
            #expect(try serve.live() == target)
        }
    }

    // MARK: Older apps

    /// An app whose bridge version the live web build outruns is pointed, through
    /// bridge-lines.json, at a kept release it can run: nginx serves both.
    @Test func bridgeLinesAndKeptReleasesAreServedForOlderApps() throws {
        let nginx = try #require(NginxServer.executable, "nginx is not installed (apt-get install -y nginx)")
        try withTemporaryDirectory { directory in
            chmod(directory, 0o755)
            let content = try TwoCommitContent(in: directory)
            let root = directory + "/root"
            let serve = ServeRoot(path: root)
            try #require(try content.publish(root: root, revision: content.commitA, message: "A").status == 0)
            let old = try #require(try serve.live())
            try #require(try content.publish(root: root, revision: content.commitB, message: "B").status == 0)
            let oldBundle = try ReleaseInfo.read(from: serve.folder(of: old)).bundleID
            try FileSystem.writeFile(root + "/" + BridgeLines.fileName, Array(#"{"lines": {"1": "\#(old)"}}"#.utf8))
            let server = try NginxServer.start(nginx: nginx, prefix: directory + "/nginx", root: root, repo: content.repo)
            defer { server.stop() }
            let probe = HTTPConnection(port: server.port)
            let lines = try probe.get("/" + BridgeLines.fileName)
            #expect(lines.status == 200)
            #expect(lines.header("cache-control") == "no-cache")
            #expect(String(decoding: lines.body, as: UTF8.self).contains(old))
            // live.json beside the pointer, never cached; the file list it names, an immutable object.
            let statement = try probe.get("/live.json")
            #expect(try statement.status == 200 && statement.body == (try FileSystem.readFile(root + "/live.json")))
            #expect(statement.header("cache-control") == "no-cache" && statement.header("content-type") == "application/json")
            let live = try #require(try LiveStatements.read(root: serve)).statement.live
            let list = try probe.get("/o/\(live.files).json")
            #expect(list.status == 200 && SHA256.hex(list.body) == live.files && list.header("cache-control")?.contains("immutable") == true)
            let page = try probe.get("/r/\(old)/index.html")
            #expect(page.status == 200)
            #expect(page.header("cache-control") == "no-cache")
            #expect(page.header("content-security-policy")?.contains("frame-ancestors 'self'") == true)
            let entry = try probe.get("/r/\(old)/data/entry.json")
            #expect(entry.status == 200)
            #expect(entry.header("cache-control") == "no-cache")
            #expect(String(decoding: entry.body, as: UTF8.self).contains(oldBundle), "the old release's page reads its own data")
            // Its data comes from the object store, named relative to the page (o/<sha256>.json).
            let shard = try #require(try JSONReader.parse(entry.body)["compare"]?.arrayValue?.first)
            let sha256 = try #require(shard["sha256"]?.stringValue)
            let object = try probe.get("/r/\(old)/o/\(sha256).json")
            #expect(object.status == 200)
            #expect(SHA256.hex(object.body) == sha256)
            #expect(object.header("cache-control")?.contains("immutable") == true)
            #expect(try probe.get("/r/\(old)/version.json").status == 404)
            // Its terms pages, through its link to their page set.
            let oldInfo = try ReleaseInfo.read(from: serve.folder(of: old))
            let terms = try #require(oldInfo.files.first { $0.path.hasPrefix("terms/") })
            let termsPage = try probe.get("/r/\(old)/" + terms.path)
            #expect(termsPage.status == 200)
            #expect(SHA256.hex(termsPage.body) == terms.sha256)
            #expect(try probe.get("/r/.partial-x/index.html").status == 404)
            #expect(try probe.get("/r/\(old)/../../.ratecard/journal.jsonl").status != 200)
        }
    }

    // MARK: Security headers

    /// Every response carries nosniff and a Content-Security-Policy with frame-ancestors; data
    /// and assets are sandboxed, so a logo with script opened directly runs nothing (a planted
    /// one, as validation refuses such a logo); version.json is not served.
    @Test func securityHeadersSandboxAssetsAndKeepVersionJSONPrivate() throws {
        let nginx = try #require(NginxServer.executable, "nginx is not installed (apt-get install -y nginx)")
        try withTemporaryDirectory { directory in
            chmod(directory, 0o755)
            let content = try TwoCommitContent(in: directory)
            let root = directory + "/root"
            let serve = ServeRoot(path: root)
            let published = try content.publish(root: root, revision: content.commitA, message: "A")
            try #require(published.status == 0, "\(published.out)\(published.err)")
            let live = try #require(try serve.live())
            let info = try ReleaseInfo.read(from: serve.folder(of: live))
            let terms = try #require(info.files.first { $0.path.hasPrefix("terms/") }).path
            let logo = try #require(info.files.first { $0.path.hasSuffix(".svg") }).path
            let server = try NginxServer.start(nginx: nginx, prefix: directory + "/nginx", root: root, repo: content.repo)
            defer { server.stop() }
            let probe = HTTPConnection(port: server.port)
            let shard = try #require(info.files.first { $0.path.hasPrefix("data/\(info.bundleID)/compare/") })
            for path in ["/index.html", "/rates.html", "/" + terms, "/app/app.js", "/data/manifest.json", "/data/entry.json", "/" + logo, "/o/" + ObjectLayout.objectName(shard)] {
                let response = try probe.get(path)
                #expect(response.status == 200, "\(path)")
                #expect(response.header("x-content-type-options") == "nosniff", "\(path)")
                let policy = response.header("content-security-policy") ?? ""
                #expect(policy.contains("frame-ancestors 'self'"), "\(path): \(policy)")
                #expect(policy.contains("sandbox") == (path.hasPrefix("/data/") || path.hasPrefix("/o/")), "\(path): \(policy)")
            }
            #expect(try probe.get("/version.json").status == 404)
            // Every 404 too: each `return 404` location (dot-files, version.json, a name under /o/
            // that is no object) and each miss of a location that serves files.
            let absent = String(repeating: "ab", count: 32)
            for path in [
                "/.ratecard/journal.jsonl", "/data/.hidden", "/version.json", "/r/\(live)/version.json", "/o/not-an-object", "/o/", "/o/\(absent).json",
                "/r/\(live)/o/\(absent).json", "/app/missing.js", "/no-such-page.html", "/data/missing.json", "/terms/missing.html",
            ] {
                let response = try probe.get(path)
                #expect(response.status == 404, "\(path)")
                #expect(response.header("x-content-type-options") == "nosniff", "\(path): \(response.headers)")
                let policy = response.header("content-security-policy") ?? ""
                #expect(policy.contains("frame-ancestors 'self'"), "\(path): \(policy)")
            }
            // A data object and the app's script come gzipped to a client that accepts it (what
            // make bench counts), with the same headers, and plain to one that does not.
            for (path, file) in [
                ("/o/" + ObjectLayout.objectName(shard), serve.objectsFolder + "/" + ObjectLayout.objectName(shard)),
                ("/app/app.js", serve.folder(of: live) + "/app/app.js"),
            ] {
                let bytes = try FileSystem.readFile(file)
                let gzipped = try HTTP.get(port: server.port, path, headers: ["Accept-Encoding: gzip"])
                #expect(gzipped.status == 200, "\(path)")
                #expect(gzipped.headers["content-encoding"] == "gzip", "\(path): \(gzipped.headers)")
                #expect(gzipped.headers["vary"] == "Accept-Encoding", "\(path): \(gzipped.headers)")
                #expect(gzipped.headers["x-content-type-options"] == "nosniff", "\(path)")
                #expect(gzipped.headers["content-security-policy"] == (path.hasPrefix("/o/") ? NginxConfig.dataPolicy : NginxConfig.pagePolicy), "\(path)")
                let body = try Self.gunzip(Self.unchunked(gzipped.body))
                #expect(body == bytes, "\(path): the gzipped body is not the file")
                #expect(try Self.unchunked(gzipped.body).count < bytes.count / 2, "\(path): hardly compressed")
                let plain = try probe.get(path)
                #expect(plain.header("content-encoding") == nil, "\(path)")
                #expect(plain.body == bytes, "\(path)")
            }
            // A terms page says whether its version is in force yet: revalidated, never immutable.
            #expect(try probe.get("/" + terms).header("cache-control") == "no-cache")
            // Terms pages are reached through the release's one link to their page set; no other
            // link is followed, in the set or beside it, for the live release or a kept one.
            let set = try #require(PageSets.set(linkedFrom: serve.folder(of: live)))
            let outside = directory + "/outside.html"
            try FileSystem.writeFile(outside, Array("<p>outside</p>\n".utf8))
            chmod(outside, 0o644)
            let links = [serve.pagesFolder + "/" + set + "/terms/planted.html", serve.folder(of: live) + "/planted.html"]
            for link in links { #expect(symlink(outside, link) == 0) }
            for path in ["/terms/planted.html", "/planted.html", "/r/\(live)/terms/planted.html", "/r/\(live)/planted.html"] {
                #expect(try probe.get(path).status != 200, "\(path) follows a planted link")
            }
            for link in links { unlink(link) }
            #expect(try probe.get("/r/\(live)/" + terms).status == 200)

            // A logo with script planted in the live release: served sandboxed, it runs nothing.
            let planted = "data/\(info.bundleID)/assets/planted.svg"
            let payload =
                #"<svg xmlns="http://www.w3.org/2000/svg" onload="document.documentElement.setAttribute('data-pwned','1')"><script>document.documentElement.setAttribute('data-ran','1')</script><rect width="10" height="10"/></svg>"#
            try FileSystem.writeFile(serve.folder(of: live) + "/" + planted, Array(payload.utf8))
            let sandboxed = try Browser.dumpDOM("http://127.0.0.1:\(server.port)/\(planted)", budgetMilliseconds: 2000)
            #expect(sandboxed.contains("<rect"), "the SVG did not load: \(sandboxed.prefix(300))")
            // The attributes as set (the source only holds them quoted inside the script text).
            #expect(!sandboxed.contains(#"data-pwned="1""#) && !sandboxed.contains(#"data-ran="1""#), "script ran in a served SVG: \(sandboxed.prefix(300))")
            // Negative control: the same file from a server without the headers runs its script.
            let plain = try StaticServer(root: serve.folder(of: live))
            let unprotected = try Browser.dumpDOM(plain.base + planted, budgetMilliseconds: 2000)
            #expect(unprotected.contains(#"data-ran="1""#) || unprotected.contains(#"data-pwned="1""#), "the control page ran no script, so the check above proves nothing: \(unprotected.prefix(300))")
        }
    }

    /// `ratecard serve` answers every path as the nginx block does: the same status, the same
    /// Cache-Control and security headers, the same bytes, on the same serve root.
    @Test func serveAnswersAsTheNginxBlockDoes() throws {
        let nginx = try #require(NginxServer.executable, "nginx is not installed (apt-get install -y nginx)")
        try withTemporaryDirectory { directory in
            chmod(directory, 0o755)
            let content = try TwoCommitContent(in: directory)
            let root = directory + "/root"
            let serve = ServeRoot(path: root)
            for (revision, message) in [(content.commitA, "A"), (content.commitB, "B")] {
                let published = try content.publish(root: root, revision: revision, message: message)
                try #require(published.status == 0, "\(published.out)\(published.err)")
            }
            let (kept, live) = (try serve.releaseIDs()[0], try #require(try serve.live()))
            let info = try ReleaseInfo.read(from: serve.folder(of: live))
            let terms = try #require(info.files.first { $0.path.hasPrefix("terms/") }).path
            let logo = try #require(info.files.first { $0.path.hasSuffix(".svg") }).path
            let shard = ObjectLayout.objectName(try #require(info.files.first { $0.path.hasPrefix("data/\(info.bundleID)/compare/") }))
            let absent = String(repeating: "ab", count: 32)
            var paths = [
                "/", "/index.html", "/rates.html", "/partners.html", "/" + terms, "/app/app.js", "/data/manifest.json", "/data/entry.json", "/" + logo, "/o/" + shard,
                "/r/\(kept)/index.html", "/r/\(kept)/", "/r/\(kept)/o/\(shard)", "/r/\(kept)/" + terms, "/r/\(kept)/data/entry.json", "/bridge-lines.json",
                "/.ratecard/journal.jsonl", "/data/.hidden", "/version.json", "/r/\(kept)/version.json", "/o/not-an-object", "/o/", "/o/\(absent).json",
                "/r/\(kept)/o/\(absent).json", "/app/missing.js", "/no-such-page.html", "/data/missing.json", "/terms/missing.html", "/r/nope/index.html", "/app/",
            ]
            let document = String(terms[..<terms.lastIndex(of: "/")!])
            // A path ending in `/` names a folder (its index.html, nothing else); `%2F` is a `/`.
            let trailingSlashes = [
                "/version.json/", "/version.json%2f", "/version.json%2F", "/r/\(kept)/version.json/", "/r/\(kept)/version.json%2F", "/app/app.js/", "/index.html/",
                "/rates.html/", "/data/entry.json/", "/data/manifest.json/", "/bridge-lines.json/", "/o/\(shard)/", "/r/\(kept)/o/\(shard)/", "/\(terms)/",
                "/r/\(kept)/\(terms)/", "/r/\(kept)/index.html/", "/\(logo)/", "/\(logo)%2F", "/r%2F\(kept)%2Fversion.json", "/app%2Fapp.js", "/%2fversion.json",
            ]
            // `.` and `..`, plain and encoded, resolved inside the site; above its root a bad request.
            let dotSegments = [
                "/app/../version.json", "/app/%2e%2e/version.json", "/app/%2E./index.html", "/app/./app.js", "/./version.json", "/app/..", "/app/.", "/%2e",
                "/r/\(kept)/../\(live)/index.html", "/r/\(live)/%2e%2e/\(kept)/index.html", "/r/\(kept)/app/../version.json", "/r/\(kept)/./version.json",
                "/r/..", "/r/.", "/r/\(kept)/.", "/r/\(kept)/..", "/data/..%2f..%2fversion.json", "/..", "/../", "/%2e%2e/etc/passwd", "/%2E%2E", "/app/../../index.html",
                "/app/...", "/r/\(kept)/\(document)/../../version.json",
            ]
            // Repeated slashes are one.
            let doubleSlashes = ["//index.html", "//version.json", "/app//app.js", "/r/\(kept)//version.json", "/r//\(kept)/index.html", "//r/\(kept)/version.json", "/r/\(kept)//"]
            // Folders: nginx's index.html or 403 (autoindex off) below /r/, 404 where try_files
            // answers; a folder named without its `/` is a 301 below /r/.
            let folders = [
                "/r/", "/r/\(kept)/app/", "/r/\(kept)/app", "/r/\(kept)/data/", "/r/\(kept)/data", "/r/\(kept)/rates/", "/rates/", "/rates", "/r/nope", "/r/nope/", "/r/\(kept)/terms",
                "/r/\(kept)/terms/", "/r/\(kept)/\(document)/", "/r/\(kept)/\(document)", "/\(document)/", "/\(document)", "/data/", "/data", "/o", "/r",
            ]
            // Escapes that decode to no UTF-8, a NUL, or are malformed.
            let escapes = ["/%ff", "/app/%ff.js", "/a%00b", "/index.html%00", "/a%zz", "/index.html%3F", "/index%2ehtml"]
            paths += trailingSlashes + dotSegments + doubleSlashes + folders + escapes
            let server = try NginxServer.start(nginx: nginx, prefix: directory + "/nginx", root: root, repo: content.repo)
            defer { server.stop() }
            let ours = try ServeProcess(["--root", root], in: content.repo)
            for path in paths {
                let expected = try HTTP.get(port: server.port, path)
                let answered = try ours.get(path)
                #expect(answered.status == expected.status, "\(path): \(answered.status), nginx \(expected.status)")
                for header in ["cache-control", "content-security-policy", "x-content-type-options", "referrer-policy"] {
                    #expect(answered.headers[header] == expected.headers[header], "\(path) \(header): \(answered.headers[header] ?? "-"), nginx \(expected.headers[header] ?? "-")")
                }
                guard expected.status == 200 else { continue }
                #expect(answered.body == expected.body, "\(path): other bytes than nginx's")
                // nginx labels JavaScript application/javascript; ratecard text/javascript (RFC 9239).
                let type = expected.headers["content-type"]?.replacingOccurrences(of: "application/javascript", with: "text/javascript")
                #expect(answered.headers["content-type"] == type, "\(path): \(answered.headers["content-type"] ?? "-"), nginx \(type ?? "-")")
            }
            // A kept release named without its slash: both send the browser to the folder.
            let redirect = try ours.get("/r/\(kept)")
            #expect(try redirect.status == 301 && (try HTTP.get(port: server.port, "/r/\(kept)")).status == 301)
        }
    }

    /// A chunked HTTP/1.1 body's bytes.
    static func unchunked(_ body: [UInt8]) throws -> [UInt8] {
        var result: [UInt8] = []
        var index = 0
        while let end = body[index...].firstRange(of: [13, 10]) {
            let sizeLine = String(decoding: body[index..<end.lowerBound], as: UTF8.self)
            let size = try #require(Int(sizeLine.split(separator: ";")[0], radix: 16), "chunk size \(sizeLine)")
            if size == 0 { return result }
            try #require(end.upperBound + size <= body.count, "a chunk runs past the body")
            result += body[end.upperBound..<(end.upperBound + size)]
            index = end.upperBound + size + 2
        }
        throw BrowserError("no last chunk")
    }

    /// `bytes` gunzipped (by Python's gzip module, a decoder independent of nginx).
    static func gunzip(_ bytes: [UInt8]) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import gzip, sys; sys.stdout.buffer.write(gzip.decompress(sys.stdin.buffer.read()))"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(bytes))
        try input.fileHandleForWriting.close()
        let result = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "not gzip")
        return Array(result)
    }

    /// Skew safety through the real server: pages opened on release A, B and C stay whole while
    /// the root publishes B and C, rolls back to A and then to C. Every data request of every
    /// open page (each document its entry document leads to, fetched as the object URL the web
    /// app uses) answers 200 with the bytes named for it, after every step; the web app itself
    /// renders the comparison from the object layout in Chromium.
    @Test func pagesOpenOnAnyKeptReleaseKeepEveryFileThroughPublishesAndRollbacks() throws {
        let nginx = try #require(NginxServer.executable, "nginx is not installed (apt-get install -y nginx)")
        try withTemporaryDirectory { directory in
            chmod(directory, 0o755)
            let content = try TwoCommitContent(in: directory)
            let root = directory + "/root"
            let serve = ServeRoot(path: root)
            try #require(try content.publish(root: root, revision: content.commitA, message: "A").status == 0)
            let a = try #require(try serve.live())
            let server = try NginxServer.start(nginx: nginx, prefix: directory + "/nginx", root: root, repo: content.repo)
            defer { server.stop() }
            let probe = HTTPConnection(port: server.port)

            /// A page as the web app opens it: the entry document once, then the data it names.
            struct OpenPage {
                let release: String
                let bundle: String
                /// Object URL -> the sha256 the document naming it lists.
                let requests: [(url: String, sha256: String)]
            }
            /// Every data request the web app can make on a page: the documents the entry document
            /// names, the shards' document lists and product documents that documents.json leads
            /// to, and the logos partners.json names; each checked against the release's manifest,
            /// which must have no data document the page cannot reach.
            func open(_ release: String) throws -> OpenPage {
                let response = try probe.get("/data/entry.json")
                #expect(response.status == 200)
                let entry = try JSONReader.parse(response.body)
                #expect(entry["objects"]?.stringValue == ObjectLayout.urlPrefix, "the release's entry document does not say where objects are")
                guard let bundle = entry["bundle_id"]?.stringValue else { throw OperationalError("no bundle id in the entry document") }
                var requests: [(url: String, sha256: String)] = []
                func fetch(_ reference: JSON?) throws -> JSON {
                    guard let sha256 = reference?["sha256"]?.stringValue, let path = reference?["path"]?.stringValue else {
                        throw OperationalError("a reference without a path or hash in the documents of \(release)")
                    }
                    let url = "/o/" + ObjectLayout.objectName(sha256: sha256, path: path)
                    requests.append((url, sha256))
                    let body = try probe.get(url)
                    try #require(body.status == 200, "\(url) of \(release)")
                    return try JSONReader.parse(body.body)
                }
                for shard in entry["compare"]?.arrayValue ?? [] { _ = try fetch(shard) }
                guard case .object(let named)? = entry["documents"] else { throw OperationalError("no documents in the entry document") }
                for (name, reference) in named.sorted(by: { $0.key < $1.key }) {
                    let document = try fetch(reference)
                    if name == "documents" {
                        for list in document["lists"]?.arrayValue ?? [] {
                            guard case .object(let products)? = try fetch(list)["products"] else { continue }
                            for (_, product) in products.sorted(by: { $0.key < $1.key }) { _ = try fetch(product) }
                        }
                    }
                    if name == "partners" {
                        for partner in document["partners"]?.arrayValue ?? [] {
                            guard let logo = partner["logo"]?.stringValue, let sha256 = partner["logo_sha256"]?.stringValue else { continue }
                            requests.append(("/o/" + ObjectLayout.objectName(sha256: sha256, path: logo), sha256))
                        }
                    }
                }
                let manifest = try BundleManifest.parse(try probe.get("/data/manifest.json").body)
                #expect(manifest.bundleID == bundle)
                let folder = BundleLayout.dataFolder(bundle)
                let reachable = Set(requests.map(\.url))
                let documents = manifest.files.filter { $0.path.hasPrefix(folder) && $0.path.hasSuffix(".json") }
                #expect(documents.count > 50)
                for file in documents {
                    #expect(reachable.contains("/o/" + ObjectLayout.objectName(file)), "\(file.path) of \(release) is not reachable from its entry document")
                }
                #expect(requests.contains { $0.url.hasSuffix(".svg") }, "no logo named")
                let page = OpenPage(release: release, bundle: bundle, requests: requests)
                try check([page], "opening \(release)")
                return page
            }
            func check(_ pages: [OpenPage], _ step: String) throws {
                let failures = try failedRequests(pages)
                #expect(failures.isEmpty, "after \(step): \(failures.count) failed requests, e.g. \(failures.prefix(3))")
            }
            func failedRequests(_ pages: [OpenPage]) throws -> [String] {
                var failures: [String] = []
                for page in pages {
                    for request in page.requests {
                        let response = try probe.get(request.url)
                        if response.status != 200 {
                            failures.append("page of \(page.release): \(request.url) -> \(response.status)")
                        } else if SHA256.hex(response.body) != request.sha256 {
                            failures.append("page of \(page.release): \(request.url) is not the bytes named for it")
                        } else if response.header("cache-control")?.contains("immutable") != true {
                            failures.append("page of \(page.release): \(request.url) is not cached as immutable")
                        }
                    }
                }
                return failures
            }
            func renders(_ release: String) throws {
                let dom = try Browser.dumpDOM("http://127.0.0.1:\(server.port)/index.html#/compare?score=800", budgetMilliseconds: 4000)
                #expect(dom.contains("신용점수 800점 · "), "the web app did not render the comparison from release \(release): \(dom.prefix(400))")
            }

            var pages = [try open(a)]
            try renders(a)
            try #require(try content.publish(root: root, revision: content.commitB, message: "B").status == 0)
            let b = try #require(try serve.live())
            try check(pages, "publishing B")
            pages.append(try open(b))
            try #require(try content.publish(root: root, revision: content.commitA, message: "C", asOf: "2026-11-30").status == 0)
            let c = try #require(try serve.live())
            try check(pages, "publishing C")
            pages.append(try open(c))
            try renders(c)
            #expect(Set(pages.map(\.bundle)).count == 3, "A, B and C must be three bundles")
            let toA = try ratecard(["rollback", "--root", root, "--to", a, "--force", "-m", "back to A"], in: content.repo)
            try #require(toA.status == 0, "\(toA.out)\(toA.err)")
            try check(pages, "rolling back to A")
            pages.append(try open(a))
            try renders(a)
            let toC = try ratecard(["rollback", "--root", root, "--to", c, "--force", "-m", "forward to C"], in: content.repo)
            try #require(toC.status == 0, "\(toC.out)\(toC.err)")
            try check(pages, "rolling back to C")
            // Prune keeps these three (the newest 3): every open page still finds everything.
            let pruned = try ratecard(["prune", "--root", root, "--keep", "3"], in: content.repo)
            #expect(pruned.status == 0, "\(pruned.err)")
            try check(pages, "prune --keep 3")
            // Negative control: the checker sees a missing object.
            let victim = try #require(pages[1].requests.first { $0.url.hasSuffix(".json") })
            let stored = serve.objectsFolder + "/" + String(victim.url.dropFirst(3))
            let saved = try FileSystem.readFile(stored)
            unlink(stored)
            #expect(try failedRequests([pages[1]]) == ["page of \(pages[1].release): \(victim.url) -> 404"], "the checker must see an object removed by hand")
            try FileSystem.writeFile(stored, saved)
            #expect(try ratecard(["verify", "--root", root], in: content.repo).status == 0)
        }
    }

    // MARK: Disk full

    @Test func aFullDiskFailsWithExit4AndLeavesLiveAsItWas() throws {
        try withTemporaryDirectory { directory in
            let content = try TwoCommitContent(in: directory)
            let small = directory + "/small"
            try FileSystem.makeDirectories(small)
            try mountOrFail(["-t", "tmpfs", "-o", "size=1600k", "tmpfs", small])
            defer { unmount(small) }
            let root = small + "/root"
            let serve = ServeRoot(path: root)

            let first = try content.publish(root: root, revision: content.commitA, message: "fits")
            try #require(first.status == 0, "the first release must fit in the tmpfs: \(first.out)\(first.err)")
            let live = try #require(try serve.live())

            // (a) Refused up front: a filler leaves less than the 64 KiB the space check keeps spare
            // (a rate update writes only a few small objects).
            let filler = small + "/filler"
            try FileSystem.writeFile(filler, [UInt8](repeating: 0x78, count: max(0, try freeBytes(small) - 40_000)))
            let refused = try content.publish(root: root, revision: content.commitB, message: "does not fit")
            #expect(refused.status == 4, "\(refused.out)\(refused.err)")
            #expect(refused.err.contains("not enough space"), "\(refused.err)")
            try expectUnchanged(serve, live: live, repo: content.repo)
            unlink(filler)

            // (b) The space check passes but the write fails: many tiny files take a page each on
            // tmpfs while the check counts their bytes, so ENOSPC comes mid-stage, deterministically.
            let web = directory + "/tiny-web"
            try FileSystem.copyTree(from: content.web, to: web)
            try FileSystem.makeDirectories(web + "/tiny")
            let free = try freeBytes(small)
            let pageSize = sysconf(Int32(_SC_PAGESIZE))
            let files = free / pageSize + 64
            for number in 0..<files { try FileSystem.writeFile(web + "/tiny/\(number).txt", Array("\(number)\n".utf8)) }
            let usedBefore = try usedBytes(small)
            let failed = try content.publish(root: root, revision: content.commitA, message: "fills the disk", web: web)
            #expect(failed.status == 4, "\(failed.out)\(failed.err)")
            #expect(failed.err.contains("No space left on device"), "\(failed.err)")
            #expect(!failed.err.contains("not enough space"), "the up-front check refused it; this case must fail while writing")
            try expectUnchanged(serve, live: live, repo: content.repo)
            let grown = try usedBytes(small) - usedBefore
            #expect(grown <= 2 * pageSize, "the failed stage was not cleaned up: \(grown) bytes more in use")
            let journal = try serve.journal.entries()
            #expect(journal.suffix(2).map(\.action) == [.failure, .failure], "each failure is journaled")

            // With the space back, the next publish succeeds.
            let next = try content.publish(root: root, revision: content.commitB, message: "fits again")
            #expect(next.status == 0, "\(next.out)\(next.err)")
            #expect(try serve.live() != live)
            let verify = try ratecard(["verify", "--root", root], in: content.repo)
            #expect(verify.status == 0, "\(verify.out)\(verify.err)")
        }
    }

    // MARK: Read-only releases/

    @Test func aReadOnlyReleasesFolderFailsWithExit4AndLeavesLiveAsItWas() throws {
        try withTemporaryDirectory { directory in
            let content = try TwoCommitContent(in: directory)
            let root = directory + "/root"
            let serve = ServeRoot(path: root)
            try #require(try content.publish(root: root, revision: content.commitA, message: "A").status == 0)
            let live = try #require(try serve.live())
            let releases = root + "/releases"
            do {
                try mountOrFail(["--bind", releases, releases])
                defer { unmount(releases) }
                try mountOrFail(["-o", "remount,bind,ro", releases])
                let refused = try content.publish(root: root, revision: content.commitB, message: "B")
                #expect(refused.status == 4, "\(refused.out)\(refused.err)")
                #expect(refused.err.contains("Read-only file system"), "\(refused.err)")
                #expect(refused.err.contains(releases), "the message names the folder: \(refused.err)")
                try expectUnchanged(serve, live: live, repo: content.repo)
            }
            let next = try content.publish(root: root, revision: content.commitB, message: "B again")
            #expect(next.status == 0, "\(next.out)\(next.err)")
            #expect(try serve.live() != live)
        }
    }
}

// MARK: - Fixtures

/// `ratecard init` content with a second commit that changes one APR, so A and B build different bundles.
private struct TwoCommitContent {
    let repo: String
    let commitA: String
    let commitB: String
    /// This source tree's web build (`site/`).
    let web: String

    init(in directory: String) throws {
        repo = directory + "/repo"
        let made = try ratecard(["init", repo], in: directory)
        try #require(made.status == 0, "ratecard init: \(made.out)\(made.err)")
        commitA = try git(repo, ["rev-parse", "HEAD"])
        let table = repo + "/products/8percent/credit/rates/2026-05-01.yaml"
        var text = String(decoding: try FileSystem.readFile(table), as: UTF8.self)
        let line = try #require(text.range(of: "apr_max_pct: 9.4\n"), "the example content changed: \(table) has no 'apr_max_pct: 9.4'")
        text.replaceSubrange(line, with: "apr_max_pct: 9.5\n")
        try FileSystem.writeFile(table, Array(text.utf8))
        _ = try git(repo, ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "Raise one APR"])
        commitB = try git(repo, ["rev-parse", "HEAD"])
        web = String(exampleContent.dropLast("/content".count)) + "/site"
    }

    /// `ratecard publish` of `revision` (HEAD when nil) to `root`.
    func publish(root: String, revision: String?, message: String, web: String? = nil, extra: [String] = [], asOf: String = "2026-11-29") throws -> Execution {
        var arguments = ["publish", "--root", root, "--as-of", asOf, "--web", web ?? self.web, "-m", message]
        if let revision { arguments += ["--rev", revision] }
        return try ratecard(arguments + extra, in: repo)
    }
}

private func git(_ repo: String, _ arguments: [String]) throws -> String {
    let (status, output) = try runTool("/usr/bin/env", ["git", "-C", repo] + arguments, stderrToNull: true)
    try #require(status == 0, "git \(arguments.joined(separator: " ")) exited \(status)")
    return output.trimmingCharacters(in: .whitespacesAndNewlines)
}

/// The live release is still `live`, it verifies, and nothing half-made is left behind.
private func expectUnchanged(_ serve: ServeRoot, live: String, repo: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    #expect(try serve.live() == live, "current moved", sourceLocation: sourceLocation)
    let verify = try ratecard(["verify", "--root", serve.path], in: repo)
    #expect(verify.status == 0, "\(verify.out)\(verify.err)", sourceLocation: sourceLocation)
    let strays =
        try FileSystem.listDirectory(serve.releasesFolder).filter { $0.hasPrefix(".") }
        + FileSystem.listDirectory(serve.path).filter { $0.hasPrefix(".current.tmp-") }
    #expect(strays.isEmpty, "left behind: \(strays)", sourceLocation: sourceLocation)
}

private func mountOrFail(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
    let (status, output) = try runTool("/usr/bin/env", ["mount"] + arguments)
    try #require(
        status == 0,
        "mount \(arguments.joined(separator: " ")) failed (\(output.trimmingCharacters(in: .whitespacesAndNewlines))): this test needs root and permission to mount; it fails rather than skips",
        sourceLocation: sourceLocation)
}

private func unmount(_ path: String) {
    if (try? runTool("/usr/bin/env", ["umount", path]))?.0 == 0 { return }
    let lazy = try? runTool("/usr/bin/env", ["umount", "-l", path])
    if lazy?.0 != 0 { Issue.record("could not unmount \(path): \(lazy?.1 ?? "")") }
}

private func freeBytes(_ path: String) throws -> Int {
    var info = statvfs()
    guard statvfs(path, &info) == 0 else { throw FileSystem.failure("statvfs", path) }
    return Int(info.f_bavail) * Int(info.f_frsize)
}

private func usedBytes(_ path: String) throws -> Int {
    var info = statvfs()
    guard statvfs(path, &info) == 0 else { throw FileSystem.failure("statvfs", path) }
    return (Int(info.f_blocks) - Int(info.f_bfree)) * Int(info.f_frsize)
}
