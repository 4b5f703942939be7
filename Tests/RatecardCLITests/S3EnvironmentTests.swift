import Foundation
import Glibc
import RatecardKit
import RatecardLoader
import Testing

/// A content repository whose ratecard.yaml names environments in object storage, served by a
/// real server on loopback (moto or SeaweedFS, started here, stopped after). moto runs without
/// signature checks unless asked: it canonicalises a listing's query with its escapes decoded
/// (`MotoServer`), and every command lists below a prefix; SeaweedFS always checks them.
final class S3Environments {
    let fixture: PublishFixture
    let server: any S3TestServer
    let engine: S3Engine
    /// What ratecard is run with: credentials from the environment, never from ratecard.yaml.
    let credentials: [String: String]

    init(
        in directory: String, engine: S3Engine = .moto, commits: Int = 2, signatures: Bool = false, oneRequestAtATime: Bool = false, publicRead: Bool = false,
        bridge: Bool = false
    ) throws {
        fixture = try PublishFixture(in: directory, commits: commits, bridge: bridge)
        self.engine = engine
        server = try engine.start(signatures: signatures, oneRequestAtATime: oneRequestAtATime, publicRead: publicRead)
        for bucket in ["rc-production", "rc-dr"] { try server.client(bucket: bucket).createBucket() }
        credentials = ["AWS_ACCESS_KEY_ID": server.credentials.accessKey, "AWS_SECRET_ACCESS_KEY": server.credentials.secretKey, "AWS_PROFILE": "", "AWS_SESSION_TOKEN": ""]
        try configure()
    }

    /// ratecard.yaml with the serve root `staging` and three places in object storage:
    /// `production` (bucket rc-production, prefix app/), `preview` (the same bucket, prefix
    /// preview/) and `dr` (another bucket, no prefix). `endpoint` puts a proxy in front of production.
    func configure(endpoint: String? = nil, production extra: String = "") throws {
        let text = """
            service_name: 레이트카드
            broker_registration_no: "제2021-0123호"
            timezone: Asia/Seoul
            rate_move_warn_pp: 3.0
            environments:
              staging:
                root: ../root
              production:
                s3:
                  endpoint: \(endpoint ?? server.endpoint)
                  bucket: rc-production
                  prefix: app/
            \(extra)
              preview:
                s3:
                  endpoint: \(server.endpoint)
                  bucket: rc-production
                  prefix: preview/
              dr:
                s3:
                  endpoint: \(server.endpoint)
                  bucket: rc-dr

            """
        try FileSystem.writeFile(fixture.repo + "/ratecard.yaml", Array(text.utf8))
    }

    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Execution {
        try ratecard(arguments, in: fixture.repo, environment: credentials.merging(environment) { $1 })
    }

    func start(_ arguments: [String], environment: [String: String] = [:]) throws -> Process {
        try fixture.start(arguments, environment: credentials.merging(environment) { $1 })
    }

    func publish(_ commit: String, to name: String = "production", web: String? = nil, _ extra: [String] = []) -> [String] {
        ["publish", "--env", name, "--rev", commit, "--web", web ?? fixture.web, "--as-of", "2026-11-29", "-m", "test"] + extra
    }

    func client(_ bucket: String = "rc-production", prefix: String = "app/") -> S3Client {
        server.client(bucket: bucket, prefix: prefix)
    }

    /// The live pointer names a release whose manifest, entry files and objects are all there
    /// and hash to what the manifest lists. Read with the client directly, not through
    /// ratecard's own checks. Returns the live id (nil before the first publish).
    func liveIsComplete(_ what: String, bucket: String = "rc-production", prefix: String = "app/", sourceLocation: SourceLocation = #_sourceLocation) throws -> String? {
        let s3 = client(bucket, prefix: prefix)
        guard let pointer = try s3.get("current") else { return nil }
        let id = String(decoding: pointer.bytes, as: UTF8.self)
        guard let manifest = try s3.get("releases/\(id).json") else {
            Issue.record("\(what): the pointer names \(id), whose manifest is missing", sourceLocation: sourceLocation)
            return id
        }
        var problems: [String] = []
        let json = try JSONReader.parse(manifest.bytes)
        let format = json["format"]?.intValue ?? 1
        for file in json["files"]?.arrayValue ?? [] {
            guard let path = file["path"]?.stringValue, let sha = file["sha256"]?.stringValue else { continue }
            let object = try s3.get("o/" + ObjectLayout.objectName(sha256: sha, path: path))
            if object.map({ SHA256.hex($0.bytes) }) != sha { problems.append("object of \(path)") }
            if ObjectLayout.inBucketEntryFolder(path, format: format), try s3.get("r/\(id)/\(path)").map({ SHA256.hex($0.bytes) }) != sha {
                problems.append("entry \(path)")
            }
        }
        #expect(problems.isEmpty, "\(what): live \(id) is not whole: \(problems.prefix(5))", sourceLocation: sourceLocation)
        return id
    }

    /// The journal's entries in order, read straight from the bucket.
    func journal(_ bucket: String = "rc-production", prefix: String = "app/") throws -> [[String: JSON]] {
        let s3 = client(bucket, prefix: prefix)
        return try s3.list(prefix: ".ratecard/journal/").sorted().map { key in
            guard case .object(let fields) = try JSONReader.parse(try #require(try s3.get(key)).bytes) else { return [:] }
            return fields
        }
    }

    /// The live release as ratecard sees it (to check what is served against it).
    func store(_ bucket: String = "rc-production", prefix: String = "app/", environment: String = "production") -> S3Root {
        let root = S3Root(location: S3Location(endpoint: server.endpoint, bucket: bucket, prefix: prefix), credentials: server.credentials)
        root.delivery = LiveDelivery(environment: environment, signing: nil)
        return root
    }

    /// The objects `releases` name (`o/<name>`): their files, and their public file lists.
    func referencedObjects(_ releases: [String]) throws -> Set<String> {
        try fileObjects(releases).union(fileListObjects(releases))
    }

    /// The objects of `releases`' files (`o/<name>`).
    func fileObjects(_ releases: [String]) throws -> Set<String> {
        let root = store()
        return Set(try releases.flatMap { try root.info(of: $0).objectNames.map { "o/" + $0 } })
    }

    /// The public file lists of `releases` (`o/<name>`).
    func fileListObjects(_ releases: [String]) throws -> Set<String> {
        let root = store()
        return Set(try releases.map { "o/" + (try LiveStatements.fileListObject(root: root, release: $0)) })
    }

    /// What is served beside the pointer follows it: `index.html` serves the live release, and
    /// `bridge-lines.json` says what the releases and bad marks say. After a kill it may not yet
    /// (`staleAllowed`), and then `status` must say so; after the next command it must.
    func servedStateIsConsistent(_ label: String, staleAllowed: Bool, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let root = store()
        guard let live = try root.pointer() else { return }
        var stale = try (BridgeLines.staleness(root: root) + LiveStatements.staleness(root: root)).map(\.english)
        if let index = try client().get("index.html").map({ String(decoding: $0.bytes, as: UTF8.self) }), !index.contains("<base href=\"r/\(live)/\">") {
            stale.append("stale: index.html does not serve")
        }
        guard !stale.isEmpty else { return }
        if staleAllowed {
            // As JSON: the text report names the first five problems only, and a kill between the
            // flip and index.html leaves six with two bridge lines.
            let status = try run(["status", "--env", "production", "--format", "json"])
            #expect(stale.allSatisfy { problem in status.out.contains(problem.prefix(24)) }, "\(label): status does not report \(stale): \(status.out)", sourceLocation: sourceLocation)
        } else {
            Issue.record("\(label): \(stale)", sourceLocation: sourceLocation)
        }
    }

    /// The entry folders that hold a key (`r/<id>/`): SeaweedFS keeps a folder's name listed
    /// after its last key is deleted, so folders are read from the keys, not the delimiter listing.
    func entryFolders(_ bucket: String = "rc-production", prefix: String = "app/") throws -> Set<String> {
        Set(try client(bucket, prefix: prefix).list(prefix: "r/").compactMap { key in key.split(separator: "/").dropFirst().first.map { "r/\($0)/" } })
    }

    func stop() { server.stop() }
}

/// Environments in S3-compatible object storage through the CLI, end to end against moto
/// (5.1.5 or later: conditional writes): every command, kill -9 at named steps and random
/// instants, racing publishers, a failing server, refused credentials, a missing bucket, a
/// skewed clock, an expired lock.
@Suite(.serialized, .timeLimit(.minutes(10))) struct S3EnvironmentTests {
    // MARK: Every command

    @Test(arguments: S3Engine.allCases) func publishRollbackPromoteStatusReleasesVerifyAndPruneWorkOnABucket(_ engine: S3Engine) throws {
        try withTemporaryDirectory { directory in
            let s3 = try S3Environments(in: directory, engine: engine, commits: 3)
            defer { s3.stop() }
            let first = try s3.run(s3.publish(s3.fixture.commits[0]) + ["--format", "json"])
            #expect(first.status == 0, "\(first.err)")
            let firstJSON = try JSONReader.parse(Array(first.out.utf8))
            let a = try #require(firstJSON["release"]?.stringValue)
            #expect(firstJSON["storage"]?["pointer_writes"]?.intValue == 1)
            #expect(try s3.liveIsComplete("first publish") == a)
            // Content-Type and Cache-Control as the nginx configuration sends them.
            let client = s3.client()
            let index = try #require(try client.fetch("r/\(a)/index.html"))
            #expect(index.headers["content-type"]?.hasPrefix("text/html") == true)
            #expect(index.headers["cache-control"] == "no-cache")
            #expect(try client.fetch("r/\(a)/data/entry.json") != nil)
            // The stable entry document serves the live release's page from its folder.
            let served = try #require(try client.fetch("index.html"))
            #expect(String(decoding: served.bytes, as: UTF8.self).contains("<base href=\"r/\(a)/\">"))
            #expect(served.headers["cache-control"] == "no-cache")
            let objects = try client.listObjects(prefix: "o/")
            let json = try #require(objects.first { $0.key.hasSuffix(".json") })
            let object = try #require(try client.fetch(json.key))
            #expect(object.headers["content-type"] == "application/json")
            #expect(object.headers["cache-control"] == "public, max-age=31536000, immutable")
            #expect(try client.fetch("current")?.headers["cache-control"] == "no-cache")
            // Nothing of the release is in the bucket twice or outside its layout.
            let keys = try client.list(prefix: "")
            #expect(
                keys.allSatisfy {
                    $0 == "current" || $0 == "index.html" || $0 == "live.json" || $0.hasPrefix("o/") || $0.hasPrefix("r/\(a)/") || $0 == "releases/\(a).json" || $0.hasPrefix(".ratecard/journal/")
                        || $0 == ".ratecard/journal-state.json" || $0.hasPrefix(".ratecard/numbers/")
                }, "\(keys)")

            // A second release sends only what changed.
            try s3.fixture.stampWeb()
            let second = try s3.run(s3.publish(s3.fixture.commits[1]) + ["--format", "json"])
            #expect(second.status == 0, "\(second.err)")
            let secondJSON = try JSONReader.parse(Array(second.out.utf8))
            let b = try #require(secondJSON["release"]?.stringValue)
            // Only new objects and the manifest travel (plus the lock, the pointer and a journal entry).
            let writtenFirst = try #require(firstJSON["bytes_written"]?.intValue)
            let writtenSecond = try #require(secondJSON["bytes_written"]?.intValue)
            let sentSecond = try #require(secondJSON["storage"]?["bytes_sent"]?.intValue)
            #expect(writtenSecond < writtenFirst, "the second publish wrote \(writtenSecond) bytes, the first \(writtenFirst)")
            // live.json and the new release's public file list travel too.
            let statement = try JSONDecoder().decode(SignedLiveStatement.self, from: Data(try #require(try client.get("live.json")).bytes))
            let list = try JSONDecoder().decode(LiveStatement.self, from: Data(try #require(statement.payloadBytes))).live.files
            let delivery = try #require(try client.get("live.json")).bytes.count + (try #require(try client.get("o/\(list).json")).bytes.count)
            #expect(sentSecond - writtenSecond - delivery < 4096, "the second publish sent \(sentSecond) bytes for \(writtenSecond) of new objects and manifest")
            #expect(try s3.liveIsComplete("second publish") == b)
            let again = try s3.run(s3.publish(s3.fixture.commits[1]))
            #expect(again.status == 0 && again.out.contains("Already live"), "\(again.out)\(again.err)")

            let status = try s3.run(["status", "--env", "production"])
            #expect(status.status == 0, "\(status.err)")
            #expect(status.out.contains("live:      \(b)") && status.out.contains("manifest:  version.json is as published"), "\(status.out)")
            let all = try s3.run(["status"])
            #expect(all.status == 0 && all.out.contains("== production ==") && all.out.contains("Nothing has been published to dr yet"), "\(all.out)\(all.err)")

            // Rollback: one pointer write, the left release marked bad; run under sudo, the journal names who ran it.
            let back = try s3.run(["rollback", "--env", "production", "-m", "wrong band", "--format", "json"], environment: ["SUDO_USER": "alice"])
            #expect(back.status == 0, "\(back.err)")
            let backJSON = try JSONReader.parse(Array(back.out.utf8))
            #expect(backJSON["to"]?.stringValue == a)
            #expect(backJSON["storage"]?["pointer_writes"]?.intValue == 1)
            #expect(try s3.liveIsComplete("rollback") == a)
            let releases = try s3.run(["releases", "--env", "production"])
            #expect(releases.out.contains("\(b)") && releases.out.contains("[bad]") && releases.out.contains("[live]"), "\(releases.out)")
            #expect(releases.out.contains(" by alice (via sudo as \(ProcessUser.effective)) (marked bad): wrong band\n"), "\(releases.out)")
            #expect(try s3.run(["rollback", "--env", "production", "--expect-live", b, "-m", "x"]).status == 3)

            // verify re-hashes every object: a changed or missing one is drift (exit 1).
            #expect(try s3.run(["verify", "--env", "production"]).status == 0)
            let named = try #require(try client.get("releases/\(a).json"))
            let files = try JSONReader.parse(named.bytes)["files"]?.arrayValue ?? []
            let data = try #require(files.first { $0["path"]?.stringValue?.hasSuffix("/partners.json") == true })
            let key = "o/" + ObjectLayout.objectName(sha256: try #require(data["sha256"]?.stringValue), path: try #require(data["path"]?.stringValue))
            let kept = try #require(try client.get(key)).bytes
            _ = try client.put(key, Array("{}\n".utf8), contentType: "application/json")
            let changed = try s3.run(["verify", "--env", "production"])
            #expect(changed.status == 1 && changed.out.contains("changed object: "), "\(changed.out)")
            try client.delete(key)
            let missing = try s3.run(["verify", "--env", "production"])
            #expect(missing.status == 1 && missing.out.contains("missing object: "), "\(missing.out)")
            _ = try client.put(key, kept, contentType: "application/json")
            #expect(try s3.run(["verify", "--env", "production", "--format", "json"]).status == 0)

            // Promote to another bucket, and to another prefix of the same bucket.
            for name in ["dr", "preview"] {
                let promoted = try s3.run(["promote", "--from", "production", "--to", name, "-m", "ship it"])
                #expect(promoted.status == 0, "\(promoted.err)")
                #expect(try s3.run(["verify", "--env", name]).status == 0)
            }
            #expect(try s3.liveIsComplete("promoted to another bucket", bucket: "rc-dr", prefix: "") == a)
            #expect(try s3.liveIsComplete("promoted to another prefix", prefix: "preview/") == a)
            // A serve root folder to a bucket and back: the same files. Staging's release 1 takes
            // production's next number (production has its own 1 and 2), its source recorded.
            try #require(try s3.run(s3.publish(s3.fixture.commits[2], to: "staging")).status == 0)
            let staged = try #require(try ServeRoot(path: s3.fixture.root).live())
            let up = try s3.run(["promote", "--from", "staging", "--to", "production", "-m", "checked on staging"])
            #expect(up.status == 0, "\(up.err)")
            let local = try #require(try s3.liveIsComplete("promoted from a folder"))
            #expect(local.hasPrefix("000003-") && staged.hasPrefix("000001-"), "\(local) from \(staged)")
            #expect(try JSONReader.parse(try #require(try client.get("releases/\(local).json")).bytes)["promoted_from"]?.stringValue == staged)
            let numbers = try client.list(prefix: "releases/").map { $0.dropFirst("releases/".count).prefix(6) }
            #expect(Set(numbers).count == numbers.count, "two releases of production share a number: \(numbers)")
            let down = try s3.run(["promote", "--from", "dr", "--to", directory + "/elsewhere", "-m", "a copy on disk"])
            #expect(down.status == 0, "\(down.err)")
            let copy = ServeRoot(path: directory + "/elsewhere")
            #expect(try copy.live() == a)
            #expect(try copy.drift(of: a) == [])
            let journal = try s3.journal()
            #expect(journal.map { $0["action"]?.stringValue ?? "" } == ["publish", "publish", "rollback-intent", "rollback", "promote"], "\(journal)")
            #expect(journal.last?["source_root"]?.stringValue == s3.fixture.root)
            #expect(journal.last?["source_release"]?.stringValue == staged && journal.last?["release"]?.stringValue == local)

            // Prune: releases beyond the newest one go (not the live one, nor the newest good
            // one before it), then every object no remaining release names, and their entry files.
            let pruned = try s3.run(["prune", "--env", "production", "--keep", "0", "--format", "json"])
            #expect(pruned.status == 0, "\(pruned.err)")
            let left = try client.list(prefix: "releases/")
            #expect(Set(left) == ["releases/\(a).json", "releases/\(local).json"], "\(left)")
            let referenced = try s3.referencedObjects([a, local])
            #expect(Set(try client.list(prefix: "o/")) == referenced)
            #expect(try s3.entryFolders() == ["r/\(a)/", "r/\(local)/"])
            #expect(try s3.liveIsComplete("pruned") == local)
            #expect(try s3.run(["rollback", "--env", "production", "-m", "back once more"]).status == 0)
            #expect(try s3.liveIsComplete("rolled back after prune") == a)
            // What only a folder has is refused with a usage error that says why.
            let nginx = try s3.run(["nginx-conf", "--env", "production"])
            #expect(nginx.status == 2 && nginx.err.contains("object storage"), "\(nginx.err)")
        }
    }

    /// The native bridge's lines are an object beside the pointer, and status reads them.
    @Test func bridgeLinesAreAnObjectBesideThePointer() throws {
        try withTemporaryDirectory { directory in
            let s3 = try S3Environments(in: directory)
            defer { s3.stop() }
            // A signed environment: live.json beside the pointer, no-cache, signed by the key given.
            #expect(try s3.run(["keys", "generate", "--out", directory + "/keys"]).status == 0)
            let publicKey = String(decoding: try FileSystem.readFile(directory + "/keys/ratecard-signing.pub"), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            try s3.configure(production: "    apps:\n      ios-9.9: 99\n    signing:\n      keys: [\"\(publicKey)\"]\n      expires_after_days: 7")
            let site = DurableFiles.parent(of: exampleContent) + "/site"
            let key = String(decoding: try FileSystem.readFile(directory + "/keys/ratecard-signing.key"), as: UTF8.self)
            let published = try s3.run(s3.publish(s3.fixture.commits[0], web: site), environment: ["RATECARD_SIGNING_KEY": key])
            #expect(published.status == 0, "\(published.err)")
            let live = try #require(try s3.liveIsComplete("with the app's web build"))
            let served = try #require(try s3.client().fetch("live.json"))
            #expect(served.headers["cache-control"] == "no-cache" && served.headers["content-type"] == "application/json", "\(served.headers)")
            let envelope = try JSONDecoder().decode(SignedLiveStatement.self, from: Data(served.bytes))
            let statement = try JSONDecoder().decode(LiveStatement.self, from: Data(try #require(envelope.payloadBytes)))
            #expect(statement.environment == "production" && statement.live.release == live && statement.line(forBridge: 99)?.release == live, "\(statement)")
            let signature = try #require(envelope.signatures.first)
            #expect(signature.key == publicKey)
            #expect(
                Ed25519.isValid(
                    signature: Array(try #require(Data(base64Encoded: signature.sig))), of: try #require(envelope.signedBytes), publicKey: try #require(TrustedKey(publicKey)).raw))
            let list = try #require(try s3.client().fetch("o/\(statement.live.files).json"))
            #expect(SHA256.hex(list.bytes) == statement.live.files && list.headers["cache-control"] == "public, max-age=31536000, immutable")
            let lines = try JSONReader.parse(try #require(try s3.client().get("bridge-lines.json")).bytes)
            let named =
                (lines["lines"].flatMap { value -> [String]? in
                    guard case .object(let fields) = value else { return nil }
                    return fields.values.compactMap(\.stringValue)
                }) ?? []
            #expect(!named.isEmpty && named.allSatisfy { $0 == live }, "\(lines)")
            #expect(try s3.client().fetch("bridge-lines.json")?.headers["cache-control"] == "no-cache")
            let status = try s3.run(["status", "--env", "production"])
            #expect(status.out.contains("apps:\n  ios-9.9 (bridge 99): release \(live)\n"), "\(status.out)\(status.err)")
        }
    }

    // MARK: Refused credentials, a missing bucket, a skewed clock

    @Test(arguments: S3Engine.allCases) func storageThatRefusesSaysWhatFailedExitsFourAndChangesNothing(_ engine: S3Engine) throws {
        try withTemporaryDirectory { directory in
            let s3 = try S3Environments(in: directory, engine: engine, signatures: true)
            defer { s3.stop() }
            let secret = "not-the-secret-\(UInt32.random(in: 0...UInt32.max))"
            let refused = try s3.run(s3.publish(s3.fixture.commits[0]), environment: ["AWS_SECRET_ACCESS_KEY": secret])
            #expect(refused.status == 4)
            #expect(refused.err.contains("object storage refused the credentials (SignatureDoesNotMatch"), "\(refused.err)")
            #expect(!refused.out.contains(secret) && !refused.err.contains(secret))
            let none = try s3.run(s3.publish(s3.fixture.commits[0]), environment: ["AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "HOME": directory, "AWS_SHARED_CREDENTIALS_FILE": ""])
            #expect(none.status == 4)
            #expect(none.err.contains("environment 'production' is in object storage") && none.err.contains("no credentials for object storage"), "\(none.err)")
            try s3.configure(
                production: """
                      nowhere:
                        s3:
                          endpoint: \(s3.server.endpoint)
                          bucket: rc-missing
                    """)
            let missing = try s3.run(s3.publish(s3.fixture.commits[0], to: "nowhere"))
            #expect(missing.status == 4)
            #expect(missing.err.contains("the bucket does not exist (NoSuchBucket)"), "\(missing.err)")
            // A clock too far from the storage's: S3 refuses every request (moto does not
            // check, so a proxy answers as S3 does).
            let skewed = try FaultyProxy(upstream: s3.server.port, mode: "skew", failures: 0)
            defer { skewed.stop() }
            try s3.configure(endpoint: skewed.endpoint)
            let skew = try s3.run(s3.publish(s3.fixture.commits[0]))
            #expect(skew.status == 4)
            #expect(skew.err.contains("this machine's clock is too far from the storage's (RequestTimeTooSkewed)"), "\(skew.err)")
            #expect(try s3.client().get("current") == nil, "nothing was made live")
            // (Read key by key: moto checks a listing's signature against the wrong query.)
            #expect(try s3.client().get(".ratecard/lock") == nil, "no lock was left")
            #expect(try s3.client().get(".ratecard/journal/0000000001.json") == nil, "nothing was journaled")

            // Credentials never go in ratecard.yaml: validate says so (without the value), and no
            // command uses an environment until they are gone.
            try s3.configure(production: "      aws_secret_access_key: \(secret)")
            let validate = try s3.run(["validate"])
            #expect(validate.status == 1)
            #expect(validate.out.contains("SCH-04") && validate.out.contains("credentials never go in ratecard.yaml") && !validate.out.contains(secret), "\(validate.out)")
            let publish = try s3.run(s3.publish(s3.fixture.commits[0]))
            #expect(publish.status == 4 && publish.err.contains("ratecard.yaml holds credentials") && !publish.err.contains(secret), "\(publish.err)")
        }
    }

    // MARK: The lock

    @Test(arguments: S3Engine.allCases) func aLockNamesItsHolderAndAnExpiredOneIsTakenOver(_ engine: S3Engine) throws {
        try withTemporaryDirectory { directory in
            let s3 = try S3Environments(in: directory, engine: engine)
            defer { s3.stop() }
            try s3.configure(production: "      lock_ttl_seconds: 2")
            // Killed while holding the lock: the lock names this process and the configured lifetime.
            let killed = try s3.start(s3.publish(s3.fixture.commits[0]), environment: ["RATECARD_CRASH_AT": "locked"])
            killed.waitUntilExit()
            let lock = try JSONReader.parse(try #require(try s3.client().get(".ratecard/lock")).bytes)
            #expect(lock["pid"]?.intValue == Int(killed.processIdentifier))
            #expect(lock["ttl_seconds"]?.intValue == 2)
            #expect(lock["command"]?.stringValue == "ratecard publish" && lock["host"]?.stringValue?.isEmpty == false && lock["since"]?.stringValue != nil)
            // Its process is gone: the next run takes the lock over at once.
            let next = try s3.run(s3.publish(s3.fixture.commits[0]))
            #expect(next.status == 0, "\(next.err)")
            #expect(next.err.contains("took over the lock") && next.err.contains("its process is gone"), "\(next.err)")
            #expect(try s3.client().get(".ratecard/lock") == nil, "the lock is released at the end")

            // A holder on another machine: waited for, refused with --no-wait, taken over once it
            // has not been renewed for its lifetime (by the storage's clock).
            let foreign = Array(
                #"{"user":"ops","host":"build-7","boot_id":"x","pid":4242,"pid_start":"1","command":"ratecard publish","since":"2026-11-29T00:00:00Z","ttl_seconds":10,"token":"f"}"#.utf8)
            _ = try s3.client().put(".ratecard/lock", foreign, contentType: "application/json", condition: .absent)
            try s3.fixture.stampWeb()
            let refused = try s3.run(s3.publish(s3.fixture.commits[1]) + ["--no-wait"])
            #expect(refused.status == 3)
            #expect(refused.err.contains("is locked by pid 4242 (ops@build-7, 'ratecard publish'"), "\(refused.err)")
            // Put again, so that its lifetime starts now (the refused run may have taken long).
            try s3.client().delete(".ratecard/lock")
            _ = try s3.client().put(".ratecard/lock", foreign, contentType: "application/json", condition: .absent)
            let started = Date()
            let waited = try s3.run(s3.publish(s3.fixture.commits[1]))
            #expect(waited.status == 0, "\(waited.err)")
            #expect(waited.err.contains("waiting for the lock") && waited.err.contains("took over the lock") && waited.err.contains("expires after 10 s"), "\(waited.err)")
            #expect(Date().timeIntervalSince(started) >= 1.5)
            _ = try s3.liveIsComplete("after a takeover")
        }
    }

    @Test(arguments: S3Engine.allCases) func eightRacingPublishersOneWinsAndOnlyItIsJournaled(_ engine: S3Engine) throws {
        try withTemporaryDirectory { directory in
            // Conditional writes decided atomically, as S3 decides them (see `MotoServer`).
            let s3 = try S3Environments(in: directory, engine: engine, oneRequestAtATime: true)
            defer { s3.stop() }
            try #require(try s3.run(s3.publish(s3.fixture.commits[0])).status == 0)
            let before = try #require(try s3.liveIsComplete("before the race"))
            let published = try s3.journal().filter { $0["action"]?.stringValue == "publish" }.count
            // An expired lock of a holder elsewhere: the racers also race to take it over.
            let foreign = Array(#"{"user":"ops","host":"build-7","boot_id":"x","pid":1,"pid_start":"1","command":"ratecard prune","since":"2026-11-29T00:00:00Z","ttl_seconds":1,"token":"f"}"#.utf8)
            _ = try s3.client().put(".ratecard/lock", foreign, contentType: "application/json", condition: .absent)
            sleep(2)
            // Eight different releases (each web build has a file of its own), all expecting the same live one.
            var racers: [(Process, Pipe, Pipe)] = []
            for index in 0..<8 {
                let web = directory + "/web-\(index)"
                try FileSystem.copyTree(from: s3.fixture.web, to: web)
                try FileSystem.writeFile(web + "/app/racer.js", Array("// racer \(index)\n".utf8))
                let process = Process()
                process.executableURL = Bundle.main.bundleURL.appendingPathComponent("ratecard")
                process.arguments = s3.publish(s3.fixture.commits[1], web: web, ["--expect-live", before, "--format", "json"])
                process.currentDirectoryURL = URL(fileURLWithPath: s3.fixture.repo)
                process.environment = ProcessInfo.processInfo.environment.merging(s3.credentials) { $1 }
                let (out, err) = (Pipe(), Pipe())
                process.standardOutput = out
                process.standardError = err
                process.standardInput = FileHandle.nullDevice
                racers.append((process, out, err))
            }
            for (process, _, _) in racers { try process.run() }
            var outcomes: [(status: Int32, out: String, err: String)] = []
            for (process, out, err) in racers {
                let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                outcomes.append((process.terminationStatus, output, errors))
            }
            let winners = outcomes.filter { $0.status == 0 }
            #expect(winners.count == 1, "\(outcomes.map { "\($0.status) \($0.err)" })")
            #expect(outcomes.filter { $0.status == 3 }.count == 7, "\(outcomes.map { "\($0.status) \($0.err)" })")
            #expect(outcomes.filter { $0.err.contains("took over the lock") }.count == 1, "exactly one racer takes the expired lock")
            let first = try #require(winners.first)
            let winner = try #require(try JSONReader.parse(Array(first.out.utf8))["release"]?.stringValue)
            #expect(try s3.liveIsComplete("after the race") == winner)
            let journal = try s3.journal()
            #expect(journal.filter { $0["action"]?.stringValue == "publish" }.count == published + 1)
            #expect(journal.last?["action"]?.stringValue == "publish" && journal.last?["release"]?.stringValue == winner)
            #expect(try s3.client().get(".ratecard/lock") == nil)
        }
    }

    // MARK: A failing server

    @Test(arguments: S3Engine.forCampaign("serverErrorsAndDroppedConnectionsLeaveThePointerOnACompleteRelease")) func serverErrorsAndDroppedConnectionsLeaveThePointerOnACompleteRelease(
        _ engine: S3Engine
    ) throws {
        try withTemporaryDirectory { directory in
            let s3 = try S3Environments(in: directory, engine: engine, commits: 2)
            defer { s3.stop() }
            try #require(try s3.run(s3.publish(s3.fixture.commits[0])).status == 0)
            var published = 1
            // Every third request answered 500, every fourth forwarded and its answer lost (a write
            // that landed without the client knowing): retried, read back, never done twice.
            for (mode, every) in [("500-every", 3), ("drop-every", 4), ("drop-every", 3)] {
                let proxy = try FaultyProxy(upstream: s3.server.port, mode: mode, failures: every)
                defer { proxy.stop() }
                try s3.configure(endpoint: proxy.endpoint)
                try s3.fixture.stampWeb()
                let result = try s3.run(s3.publish(s3.fixture.commits[published % 2]) + ["--format", "json"])
                #expect(result.status == 0, "\(mode) \(every): \(result.err)")
                if result.status == 0 { published += 1 }
                let live = try s3.liveIsComplete("\(mode) every \(every)")
                #expect(live == (try? JSONReader.parse(Array(result.out.utf8)))?["release"]?.stringValue)
                let back = try s3.run(["rollback", "--env", "production", "-m", "through \(mode)"])
                #expect(back.status == 0, "\(mode) \(every): \(back.err)")
                _ = try s3.liveIsComplete("rollback through \(mode) every \(every)")
                let forward = try s3.run(["rollback", "--env", "production", "--to", try #require(live), "--force", "-m", "forward"])
                #expect(forward.status == 0, "\(forward.err)")
            }
            let journal = try s3.journal()
            #expect(journal.filter { $0["action"]?.stringValue == "publish" }.count == published, "one entry per publish, none twice: \(journal.map { $0["action"]?.stringValue ?? "" })")
            // A server that keeps failing: exit 4, nothing changed.
            let before = try s3.client().get("current")?.bytes
            let down = try FaultyProxy(upstream: s3.server.port, mode: "500", failures: 100_000)
            defer { down.stop() }
            try s3.configure(endpoint: down.endpoint)
            try s3.fixture.stampWeb()
            let failed = try s3.run(s3.publish(s3.fixture.commits[0]))
            #expect(failed.status == 4)
            #expect(failed.err.contains("object storage answered HTTP 500 InternalError"), "\(failed.err)")
            #expect(try s3.client().get("current")?.bytes == before)
            _ = try s3.liveIsComplete("after a failed publish")
        }
    }

    // MARK: kill -9

    /// Runs a command killed after each of `steps` and at `randomKills` random instants; after
    /// every kill the live pointer names a complete release. Then the command runs to
    /// completion (`settle`).
    private func crashSafety(
        _ label: String, _ s3: S3Environments, steps: [String], randomKills: Int,
        prepare: @escaping (_ named: Bool) throws -> [String], settle: @escaping ([String]) throws -> Void, settleRepairs: Bool = true
    ) throws {
        try CrashCampaign(
            label: "\(label) on object storage", steps: steps, randomKills: randomKills, start: s3.start,
            check: { what in
                _ = try s3.liveIsComplete("\(label) \(what)")
                try s3.servedStateIsConsistent("\(label) \(what)", staleAllowed: true)
            }, prepare: prepare,
            settle: { arguments in
                try settle(arguments)
                // A settle that runs a command leaves what is served following the pointer.
                try s3.servedStateIsConsistent("\(label) settled", staleAllowed: !settleRepairs)
            }
        ).run()
    }

    /// After the campaigns: the journal names what is live, a prune leaves exactly the objects
    /// and entry folders the kept releases name (what killed runs left is collected).
    private func settled(_ s3: S3Environments, _ label: String) throws {
        let live = try #require(try s3.liveIsComplete("\(label) settled"))
        let activated = try s3.journal().last { ["publish", "promote", "recover", "rollback"].contains($0["action"]?.stringValue ?? "") }
        #expect((activated?["release"] ?? activated?["to"])?.stringValue == live)
        // What killed runs left is swept once it is older than a lock lifetime and a margin (a
        // live writer may own a younger folder): a short lifetime, and a wait past it.
        try s3.configure(production: "      lock_ttl_seconds: 1")
        let manifests = Set(try s3.client().list(prefix: "releases/").map { "r/" + $0.dropFirst("releases/".count).dropLast(".json".count) + "/" })
        if !(try s3.entryFolders().isSubset(of: manifests)) { sleep(3) }
        let pruned = try s3.run(["prune", "--env", "production", "--keep", "2"])
        #expect(pruned.status == 0, "\(pruned.err)")
        try s3.servedStateIsConsistent("\(label) settled and pruned", staleAllowed: false)
        let client = s3.client()
        let releases = try client.list(prefix: "releases/").map { String($0.dropFirst("releases/".count).dropLast(".json".count)) }
        // Every object a release names is there, and nothing else but the releases' public file
        // lists. A release's list is put when a statement first names it: a publish killed
        // after its version.json and before its flip leaves a release that has none yet (the
        // statement's lists are checked above, with what is served).
        let objects = Set(try client.list(prefix: "o/"))
        let files = try s3.fileObjects(releases)
        let lists = try s3.fileListObjects(releases)
        #expect(objects.subtracting(files.union(lists)).isEmpty, "\(label): objects no release names are left: \(objects.subtracting(files.union(lists)).sorted())")
        #expect(files.subtracting(objects).isEmpty, "\(label): objects a release names are missing: \(files.subtracting(objects).sorted())")
        #expect(try s3.entryFolders() == Set(releases.map { "r/\($0)/" }), "\(label): entry folders without a release are left")
        #expect(try client.get(".ratecard/lock") == nil)
    }

    @Test(arguments: S3Engine.forCampaign("aKilledPublishLeavesTheLivePointerOnACompleteRelease")) func aKilledPublishLeavesTheLivePointerOnACompleteRelease(_ engine: S3Engine) throws {
        try withTemporaryDirectory { directory in
            let s3 = try S3Environments(in: directory, engine: engine, commits: 2, bridge: true)
            defer { s3.stop() }
            var round = 0
            try crashSafety(
                "publish", s3, steps: CrashPoint.s3PublishSteps, randomKills: 30,
                prepare: { _ in
                    // A new web file each round, so the object steps are reached.
                    round += 1
                    try s3.fixture.stampWeb()
                    return s3.publish(s3.fixture.commits[round % 2])
                }, settle: { _ in }, settleRepairs: false)
            try settled(s3, "publish")
        }
    }

    @Test(arguments: S3Engine.forCampaign("aKilledRollbackLeavesTheLivePointerOnACompleteRelease")) func aKilledRollbackLeavesTheLivePointerOnACompleteRelease(_ engine: S3Engine) throws {
        try withTemporaryDirectory { directory in
            let s3 = try S3Environments(in: directory, engine: engine, commits: 2, bridge: true)
            defer { s3.stop() }
            for commit in s3.fixture.commits {
                // Releases that need bridge 1 and 2: rolling between them changes the lines.
                try s3.fixture.stampWeb()
                try FileSystem.writeFile(s3.fixture.web + "/app/calls.js", Array(PublishFixture.call(needsShare: commit == s3.fixture.commits[1]).utf8))
                try #require(try s3.run(s3.publish(commit)).status == 0)
            }
            let ids = try s3.client().list(prefix: "releases/").map { String($0.dropFirst("releases/".count).dropLast(".json".count)) }.sorted()
            try #require(ids.count >= 2)
            try crashSafety(
                "rollback", s3, steps: CrashPoint.s3RollbackSteps, randomKills: 30,
                prepare: { _ in
                    let live = try s3.liveIsComplete("before a rollback")
                    return ["rollback", "--env", "production", "--to", live == ids[0] ? ids[1] : ids[0], "--force", "-m", "crash test"]
                },
                settle: { arguments in
                    let result = try s3.run(arguments)
                    #expect(result.status == 0 || (result.status == 3 && result.err.contains("already live")), "\(result.err)")
                    #expect(try s3.liveIsComplete("rollback settled") == arguments[4])
                })
            try settled(s3, "rollback")
        }
    }

    @Test(arguments: S3Engine.forCampaign("aKilledPruneLeavesTheLivePointerOnACompleteRelease")) func aKilledPruneLeavesTheLivePointerOnACompleteRelease(_ engine: S3Engine) throws {
        try withTemporaryDirectory { directory in
            let s3 = try S3Environments(in: directory, engine: engine, commits: 2)
            defer { s3.stop() }
            var round = 0
            try crashSafety(
                "prune", s3, steps: CrashPoint.pruneSteps, randomKills: 24,
                prepare: { _ in
                    // A new release with an object of its own, so there is always something to prune.
                    while try s3.client().list(prefix: "releases/").count < 4 {
                        round += 1
                        try s3.fixture.stampWeb()
                        let published = try s3.run(s3.publish(s3.fixture.commits[round % 2]))
                        #expect(published.status == 0, "\(published.err)")
                    }
                    return ["prune", "--env", "production", "--keep", "2"]
                },
                settle: { arguments in
                    let result = try s3.run(arguments)
                    #expect(result.status == 0, "\(result.err)")
                })
            try settled(s3, "prune")
        }
    }
}
