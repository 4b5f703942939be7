import Foundation
import Glibc
import RatecardKit
import Testing

/// A bucket as the app's home: read as a phone reads a plain static host, a frozen store that
/// ends a command within its deadline, a lock renewed while its holder runs.
@Suite struct S3ServingTests {
    /// GET `url` (http://127.0.0.1:port/...) without credentials, as a phone or a CDN would.
    static func fetch(_ url: URL, sourceLocation: SourceLocation = #_sourceLocation) throws -> HTTP.Response {
        let port = try #require(url.port, sourceLocation: sourceLocation)
        let response = try HTTP.get(port: port, url.path + (url.query.map { "?" + $0 } ?? ""))
        #expect(response.status == 200, "GET \(url.absoluteString): \(response.status) \(response.text.prefix(300))", sourceLocation: sourceLocation)
        return response
    }

    /// What a phone opening the app reads, following only what each answer names: the stable
    /// entry document, its release's entry document, the comparison shards, a product's
    /// document, a logo and a terms page. Returns the release the stable URL served.
    static func loadAsAPhone(_ home: URL, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let index = try fetch(home.appendingPathComponent("index.html"), sourceLocation: sourceLocation)
        let base = try #require(try Regex(#"<base href="(r/([0-9a-z-]+)/)">"#).firstMatch(in: index.text), "no base in \(index.text.prefix(400))", sourceLocation: sourceLocation)
        let release = String(base.output[2].substring ?? "")
        let href = String(base.output[1].substring ?? "")
        let folder = try #require(URL(string: href, relativeTo: home.appendingPathComponent("index.html")), sourceLocation: sourceLocation).absoluteURL
        // Every script the page names loads from the release's own folder.
        for match in index.text.matches(of: try Regex(#"src="([^"]+)""#)) {
            let script = String(match.output[1].substring ?? "")
            _ = try fetch(try #require(URL(string: script, relativeTo: folder)).absoluteURL, sourceLocation: sourceLocation)
        }
        let entryURL = try #require(URL(string: "data/entry.json", relativeTo: folder)).absoluteURL
        let entry = try JSONReader.parse(try fetch(entryURL, sourceLocation: sourceLocation).body)
        let prefix = try #require(entry["objects"]?.stringValue, sourceLocation: sourceLocation)
        let objects = try #require(URL(string: prefix, relativeTo: folder), sourceLocation: sourceLocation).absoluteURL
        func object(_ path: String?, _ sha: String?) throws -> HTTP.Response {
            let path = try #require(path, sourceLocation: sourceLocation)
            let sha = try #require(sha, sourceLocation: sourceLocation)
            let ext = path.split(separator: ".").last.map { "." + $0 } ?? ""
            let response = try fetch(objects.appendingPathComponent(sha + ext), sourceLocation: sourceLocation)
            #expect(SHA256.hex(response.body) == sha, "\(path) is not the bytes its entry names", sourceLocation: sourceLocation)
            return response
        }
        // The comparison: every shard; a logo a shard names.
        var logo: (String, String)?
        for shard in entry["compare"]?.arrayValue ?? [] {
            let bytes = try object(shard["path"]?.stringValue, shard["sha256"]?.stringValue).body
            let partners = try JSONReader.parse(bytes)["partners"]
            for (path, sha) in zip(partners?["logo"]?.arrayValue ?? [], partners?["logo_sha256"]?.arrayValue ?? []) where sha.stringValue?.isEmpty == false {
                logo = (path.stringValue ?? "", sha.stringValue ?? "")
            }
        }
        let shards = entry["compare"]?.arrayValue ?? []
        #expect(!shards.isEmpty, sourceLocation: sourceLocation)
        if let logo { _ = try object(logo.0, logo.1) }
        // A product's screen: its document through the list of its shard.
        let index2 = try JSONReader.parse(try object(entry["documents"]?["documents"]?["path"]?.stringValue, entry["documents"]?["documents"]?["sha256"]?.stringValue).body)
        let list = try #require(index2["lists"]?.arrayValue?.first, sourceLocation: sourceLocation)
        let products = try JSONReader.parse(try object(list["path"]?.stringValue, list["sha256"]?.stringValue).body)
        guard case .object(let byKey)? = products["products"], let first = byKey.values.first else {
            Issue.record("no product document listed", sourceLocation: sourceLocation)
            return release
        }
        _ = try object(first["path"]?.stringValue, first["sha256"]?.stringValue)
        // A terms page, by the hash the terms index gives it.
        let terms = try JSONReader.parse(try object(entry["documents"]?["terms"]?["path"]?.stringValue, entry["documents"]?["terms"]?["sha256"]?.stringValue).body)
        let version = try #require(terms["documents"]?.arrayValue?.first?["versions"]?.arrayValue?.first, sourceLocation: sourceLocation)
        let page = try object(version["url"]?.stringValue, version["sha256"]?.stringValue)
        #expect(page.text.contains("<article>"), sourceLocation: sourceLocation)
        return release
    }

    @Test func aPhoneLoadsTheLiveReleaseFromAPlainBucketBeforeAndAfterARollback() throws {
        try withTemporaryDirectory { directory in
            let s3 = try S3Environments(in: directory, engine: .seaweedfs, publicRead: true)
            defer { s3.stop() }
            let home = try #require(URL(string: "\(s3.server.endpoint)/rc-production/app/"))
            var published: [String] = []
            for commit in s3.fixture.commits {
                let result = try s3.run(s3.publish(commit, web: projectSite))
                try #require(result.status == 0, "\(result.err)")
                published.append(try #require(try s3.liveIsComplete("published")))
            }
            #expect(try Self.loadAsAPhone(home) == published[1])
            // A release's folder holds its web build and entry document only: pages are objects.
            let keys = try s3.client().list(prefix: "r/\(published[1])/")
            #expect(keys.contains("r/\(published[1])/data/entry.json") && keys.contains("r/\(published[1])/index.html"), "\(keys)")
            #expect(!keys.contains { $0.contains("/terms/") || $0.hasSuffix("rates.html") || $0.contains("/data/manifest.json") }, "\(keys)")
            let back = try s3.run(["rollback", "--env", "production", "-m", "as a phone sees it"])
            #expect(back.status == 0, "\(back.err)")
            #expect(try Self.loadAsAPhone(home) == published[0])
            // A page opened on the later release keeps reading its own files.
            _ = try Self.fetch(try #require(URL(string: "r/\(published[1])/data/entry.json", relativeTo: home)).absoluteURL)
        }
    }

    @Test func aFrozenStoreEndsAPublishWithinItsDeadlineAndLiveIsUnchanged() throws {
        try withTemporaryDirectory { directory in
            let s3 = try S3Environments(in: directory, engine: .seaweedfs)
            defer { s3.stop() }
            try s3.configure(production: "      deadline_seconds: 6")
            try #require(try s3.run(s3.publish(s3.fixture.commits[0])).status == 0)
            let live = try s3.liveIsComplete("before the freeze")
            let server = try #require(s3.server as? SeaweedServer)
            try s3.fixture.stampWeb()
            kill(server.pid, SIGSTOP)
            let started = Date()
            let frozen = try s3.run(s3.publish(s3.fixture.commits[1]))
            let took = Date().timeIntervalSince(started)
            kill(server.pid, SIGCONT)
            #expect(frozen.status == 4, "\(frozen.err)")
            #expect(frozen.err.contains("deadline"), "\(frozen.err)")
            #expect(took < 30, "the publish took \(Int(took)) s against a deadline of 6 s")
            #expect(try s3.liveIsComplete("after the freeze") == live)
        }
    }

    @Test func aLockIsRenewedWhileItsHolderRuns() throws {
        try withTemporaryDirectory { directory in
            let s3 = try S3Environments(in: directory)
            defer { s3.stop() }
            try #require(try s3.run(s3.publish(s3.fixture.commits[0])).status == 0)
            // Every request of production 0.3 s late: a publish holds the lock for several of its
            // 2 s lifetimes.
            let slow = try FaultyProxy(upstream: s3.server.port, mode: "delay", failures: 300)
            defer { slow.stop() }
            try s3.configure(endpoint: slow.endpoint, production: "      lock_ttl_seconds: 2")
            try s3.fixture.stampWeb()
            let holder = try s3.start(s3.publish(s3.fixture.commits[1]))
            // Once it holds the lock, and after more than its lifetime: still held, so refused.
            var held = false
            for _ in 0..<200 where holder.isRunning {
                if try s3.client().get(".ratecard/lock") != nil {
                    held = true
                    break
                }
                usleep(50_000)
            }
            try #require(held, "the publish never took the lock")
            sleep(3)
            if holder.isRunning {
                let second = try s3.run(["prune", "--env", "production", "--keep", "5", "--no-wait"])
                #expect(second.status == 3, "the lock of a running holder was not kept: \(second.err)")
            }
            holder.waitUntilExit()
            #expect(holder.terminationStatus == 0)
        }
    }
}
