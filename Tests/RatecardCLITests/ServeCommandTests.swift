import Foundation
import Glibc
import RatecardKit
import Testing

/// `ratecard serve` running on a serve root.
final class ServeProcess: LoopbackProcess {
    init(_ arguments: [String], in directory: String, environment: [String: String] = [:], wrapper: [String] = []) throws {
        try super.init(["serve", "--port", "0"] + arguments, in: directory, environment: environment, wrapper: wrapper, startup: 60)
    }

    func get(_ path: String, method: String = "GET", host: String? = nil) throws -> HTTP.Response {
        try HTTP.get(port: port, path, method: method, host: host)
    }
}

/// `ratecard serve`: what is live in a serve root on loopback, read-only, as nginx serves it.
@Suite struct ServeCommandTests {
    @Test func serveAnswersAsTheBlockDoesAndNeverLeavesTheRoot() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory)
            let ids = try fixture.publishEach()
            let serve = ServeRoot(path: fixture.root)
            let (first, second) = (ids[0], ids[1])
            let info = try serve.info(of: second)
            // A symlink in a release, to a file outside the root and to another release's folder:
            // never followed.
            let folder = serve.folder(of: second)
            chmod(folder, 0o755)
            symlink("/etc/hostname", folder + "/leak.txt")
            symlink("../" + first + "/app", folder + "/other-app")
            symlink("/etc", serve.objectsFolder + "/" + String(repeating: "ab", count: 32) + ".json")
            let before = try treeListing(fixture.root)

            let server = try ServeProcess(["--root", fixture.root], in: fixture.repo)
            #expect(server.output().hasPrefix("Serving \(fixture.root) (live: \(second)) read-only at http://127.0.0.1:\(server.port)/"), "\(server.output())")
            func expectHeaders(_ response: HTTP.Response, _ path: String, policy: String, cache: String?) {
                #expect(response.headers["x-content-type-options"] == "nosniff", "\(path)")
                #expect(response.headers["content-security-policy"] == policy, "\(path)")
                #expect(response.headers["referrer-policy"] == "no-referrer", "\(path)")
                #expect(response.headers["cache-control"] == cache, "\(path): \(response.headers)")
            }
            // The live release, its entry documents and its objects.
            let index = try server.get("/")
            #expect(try index.status == 200 && index.body == (try FileSystem.readFile(folder + "/index.html")))
            #expect(index.headers["content-type"] == "text/html; charset=utf-8")
            expectHeaders(index, "/", policy: NginxConfig.pagePolicy, cache: "no-cache")
            let entry = try server.get("/data/entry.json")
            #expect(try entry.status == 200 && entry.body == (try serve.readFile(BundleLayout.entry, of: second, info: info)))
            expectHeaders(entry, "/data/entry.json", policy: NginxConfig.dataPolicy, cache: "no-cache")
            let shard = try #require(info.files.first { $0.path.contains("/compare/") })
            let object = try server.get("/o/" + ObjectLayout.objectName(shard))
            #expect(object.status == 200 && SHA256.hex(object.body) == shard.sha256)
            #expect(object.headers["content-type"] == "application/json")
            expectHeaders(object, "/o/", policy: NginxConfig.dataPolicy, cache: "public, max-age=31536000, immutable")
            // live.json beside the pointer, never cached.
            let statement = try server.get("/live.json")
            #expect(try statement.status == 200 && statement.body == (try FileSystem.readFile(fixture.root + "/live.json")))
            #expect(statement.headers["content-type"] == "application/json")
            expectHeaders(statement, "/live.json", policy: NginxConfig.dataPolicy, cache: "no-cache")
            // Terms pages through the release's one link, of the live and of a kept release.
            let terms = try #require(info.files.first { $0.path.hasPrefix("terms/") })
            let page = try server.get("/" + terms.path)
            #expect(page.status == 200 && SHA256.hex(page.body) == terms.sha256, "\(terms.path)")
            expectHeaders(page, terms.path, policy: NginxConfig.pagePolicy, cache: "no-cache")
            #expect(try server.get("/r/\(first)/" + terms.path).status == 200)
            // A kept release, as an older app loads it.
            let kept = try server.get("/r/\(first)/index.html")
            #expect(try kept.status == 200 && kept.body == (try FileSystem.readFile(serve.folder(of: first) + "/index.html")))
            expectHeaders(kept, "/r/", policy: NginxConfig.pagePolicy, cache: "no-cache")
            #expect(try server.get("/r/\(first)/").body == kept.body)
            let bare = try server.get("/r/\(first)")
            #expect(bare.status == 301 && bare.headers["location"] == "/r/\(first)/")
            #expect(try server.get("/r/\(first)/o/" + ObjectLayout.objectName(shard)).body == object.body)
            // 404s, each with the location's security headers.
            for path in [
                "/version.json", "/r/\(first)/version.json", "/.ratecard/journal.jsonl", "/data/.hidden", "/no-such-page.html", "/app/missing.js",
                "/o/not-an-object", "/o/\(String(repeating: "cd", count: 32)).json", "/leak.txt", "/other-app/app.js", "/o/\(String(repeating: "ab", count: 32)).json",
                "/r/nope/index.html", "/app/../version.json", "/app/%2e%2e/version.json", "/version.json/", "/version.json%2F", "/r/\(first)/version.json/",
                "/index.html/", "/app/app.js/", "/data/entry.json/", "/o/\(ObjectLayout.objectName(shard))/", "/r/\(first)/index.html/",
            ] {
                let response = try server.get(path)
                #expect(response.status == 404, "\(path): \(response.status)")
                #expect(response.headers["x-content-type-options"] == "nosniff", "\(path)")
                #expect(response.headers["content-security-policy"]?.contains("frame-ancestors 'self'") == true, "\(path)")
            }
            // `.` and `..` are resolved as nginx resolves them, inside the site; above it is a bad request.
            #expect(try server.get("/r/\(second)/%2E%2E/\(first)/./index.html").body == kept.body)
            #expect(try server.get("/%2e%2e/etc/passwd").status == 400)
            #expect(try server.get("/app/../../version.json").status == 400)
            // A folder: its index.html, or 403; named without its `/`, a 301 to it.
            #expect(try server.get("/r/\(first)/app/").status == 403)
            #expect(try server.get("/r/").status == 403)
            let app = try server.get("/r/\(first)/app")
            #expect(app.status == 301 && app.headers["location"] == "/r/\(first)/app/")
            // A symlink below /r/: named, 403 (nginx's disable_symlinks); on the way, 404.
            #expect(try server.get("/r/\(second)/leak.txt").status == 403)
            #expect(try server.get("/r/\(second)/other-app/app.js").status == 404)
            // Read-only, loopback only.
            let post = try server.get("/index.html", method: "POST")
            #expect(post.status == 405 && post.headers["allow"] == "GET, HEAD")
            let head = try server.get("/index.html", method: "HEAD")
            #expect(head.status == 200 && head.body.isEmpty && head.headers["content-length"] == String(index.body.count))
            #expect(try server.get("/", host: "evil.example").status == 421)
            // A rollback shows on the next request.
            #expect(try ratecard(["rollback", "--root", fixture.root, "--to", first, "-m", "look"], in: fixture.repo).status == 0)
            let after = try server.get("/data/entry.json")
            #expect(after.body == (try serve.readFile(BundleLayout.entry, of: first, info: serve.info(of: first))))
            #expect(after.body != entry.body)
            #expect(server.stop() == 0)
            #expect(server.output().hasSuffix("Stopped.\n"), "\(server.output())")
            // Nothing was written (the rollback aside: its journal, the pointer, the lock and live.json).
            var now = try treeListing(fixture.root)
            var was = before
            for path in [".ratecard/journal.jsonl", ".ratecard/lock", "current", ".ratecard/verified", "live.json"] {
                now[path] = nil
                was[path] = nil
            }
            #expect(now == was)
        }
    }

    /// What staff do: the app of a published release opened in a browser, as a phone opens it.
    @Test func theAppServedShowsTheComparisonInABrowser() throws {
        guard Browser.path != nil else {
            Issue.record("chromium is not installed (apt-get install -y chromium)")
            return
        }
        try withTemporaryDirectory { directory in
            #expect(try ratecard(["init", "repo"], in: directory).status == 0)
            let repo = directory + "/repo"
            let root = directory + "/staging"
            let published = try ratecard(["publish", "--root", root, "--as-of", "2026-11-29", "-m", "first"], in: repo)
            try #require(published.status == 0, "\(published.out)\(published.err)")
            let server = try ServeProcess(["--root", root], in: repo)
            let dom = try Browser.dumpDOM("http://127.0.0.1:\(server.port)/index.html#/compare?score=950&amount=3000")
            let rows = try #require(BrowserComparisonTests.renderedRows(dom), "no results in: \(dom.prefix(2000))")
            #expect(rows.count == 20, "\(rows)")
            #expect(rows.first == BrowserComparisonTests.Row(key: "ibk/worker-credit", partner: "IBK기업은행", apr: "연 4.15% ~ 5.35%", over: false))
            #expect(!dom.contains("정보를 불러오지 못했습니다"))
        }
    }
}
