import Foundation
import Glibc
import RatecardKit
import Testing

/// A command that lost the bucket's lock while it was paused changes nothing: publisher A is
/// held (a proxy between it and the store stops all its requests, its renewals too) from its
/// first listing of the entry folders; its lock expires; B takes the lock over and publishes
/// straight to the store; then A resumes. A must exit 3 and leave B's live release whole.
@Suite(.serialized, .timeLimit(.minutes(5))) struct S3FencingTests {
    /// The run of a command on a thread of its own.
    final class Background: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private var result: Result<Execution, any Error>?

        init(_ work: @escaping @Sendable () throws -> Execution) {
            Thread { [self] in
                result = Result { try work() }
                done.signal()
            }.start()
        }

        func wait() throws -> Execution {
            done.wait()
            return try #require(result).get()
        }
    }

    /// Runs `arguments` as A through a proxy that holds A from its first request that `trigger`
    /// matches (by default recover's listing of the entry folders and manifests, `prefix=app/r`
    /// at the end of the query) while B publishes; returns A's run and B's release.
    private func held(_ s3: S3Environments, _ arguments: [String], trigger: String = "prefix=app/r$") throws -> (a: Execution, b: String) {
        let folder = s3.fixture.repo + "/../hold-\(UInt32.random(in: 0...UInt32.max))"
        try FileSystem.makeDirectories(folder)
        let proxy = try FaultyProxy(upstream: s3.server.port, mode: "hold", failures: 0, hold: (trigger, folder))
        defer { proxy.stop() }
        let ttl = "      lock_ttl_seconds: 1"
        try s3.configure(endpoint: proxy.endpoint, production: ttl)
        let (repo, environment) = (s3.fixture.repo, s3.credentials)
        let a = Background { try ratecard(arguments, in: repo, environment: environment) }
        let started = Date()
        while !FileSystem.exists(folder + "/held") {
            try #require(Date().timeIntervalSince(started) < 60, "A never listed \(trigger)")
            usleep(20_000)
        }
        // B goes straight to the store; it waits for A's lock to expire and takes it over.
        try s3.configure(production: ttl)
        try s3.fixture.stampWeb()
        let b = try s3.run(s3.publish(s3.fixture.commits[1]) + ["--format", "json"])
        try FileSystem.writeFile(folder + "/go", [])
        let ran = try a.wait()
        try #require(b.status == 0, "B: \(b.err)")
        let id = try #require(try JSONReader.parse(Array(b.out.utf8))["release"]?.stringValue)
        return (ran, id)
    }

    /// After A and B: B's release is live and verifies, what is served follows the pointer, no
    /// two releases share a sequence number, and A exited 3 saying it lost the lock.
    private func check(_ s3: S3Environments, _ label: String, a: Execution, b: String) throws {
        #expect(a.status == 3, "\(label): A exited \(a.status): \(a.err)")
        #expect(a.err.contains("lock") && a.err.contains("nothing more was changed"), "\(label): \(a.err)")
        // It says what it had changed before it found out (here: nothing, or the folders it swept).
        #expect(a.err.contains("it had changed nothing in the bucket") || a.err.contains("before that it had"), "\(label): \(a.err)")
        #expect(try s3.liveIsComplete(label) == b)
        let verify = try s3.run(["verify", "--env", "production"])
        #expect(verify.status == 0, "\(label): verify: \(verify.out)\(verify.err)")
        try s3.servedStateIsConsistent(label, staleAllowed: false)
        let numbers = try s3.client().list(prefix: "releases/").map { $0.dropFirst("releases/".count).prefix { $0.isNumber } }
        #expect(Set(numbers).count == numbers.count, "\(label): two releases share a number: \(numbers)")
    }

    @Test(arguments: S3Engine.allCases) func aPublisherHeldPastItsLockDeletesNothingOfTheLiveRelease(_ engine: S3Engine) throws {
        try withTemporaryDirectory { directory in
            let s3 = try S3Environments(in: directory, engine: engine, commits: 2)
            defer { s3.stop() }
            try #require(try s3.run(s3.publish(s3.fixture.commits[0])).status == 0)
            try s3.fixture.stampWeb()
            let (a, b) = try held(s3, s3.publish(s3.fixture.commits[0]))
            try check(s3, "publish held", a: a, b: b)

            // A number another command claimed meanwhile (one that lost its lock between its
            // check and its manifest) is skipped: the next release takes the one after it.
            let highest = try #require(try s3.client().list(prefix: "releases/").compactMap { Int($0.dropFirst("releases/".count).prefix(6)) }.max())
            let claimed = String(format: "%06d", highest + 1)
            _ = try s3.client().put(".ratecard/numbers/\(claimed)", Array("\(claimed)-elsewhere\n".utf8), contentType: "text/plain", condition: .absent)
            try s3.fixture.stampWeb()
            let next = try s3.run(s3.publish(s3.fixture.commits[1]) + ["--format", "json"])
            #expect(next.status == 0, "\(next.err)")
            let id = try JSONReader.parse(Array(next.out.utf8))["release"]?.stringValue ?? ""
            #expect(id.hasPrefix(String(format: "%06d-", highest + 2)), "\(id) after a claim of \(claimed)")
            try check(s3, "after a claimed number", a: a, b: id)
        }
    }

    /// Rollback, prune and promote held the same way, one fixture: all three in the full tier,
    /// one of them (by the run's seed) in the sampled tier.
    @Test(arguments: S3Engine.forCampaign("aRollbackPrunePromoteHeldPastTheLockDeleteNothing")) func aRollbackPrunePromoteHeldPastTheLockDeleteNothing(_ engine: S3Engine) throws {
        try withTemporaryDirectory { directory in
            let s3 = try S3Environments(in: directory, engine: engine, commits: 2)
            defer { s3.stop() }
            try #require(try s3.run(s3.publish(s3.fixture.commits[0])).status == 0)
            try #require(try s3.run(s3.publish(s3.fixture.commits[0], to: "preview")).status == 0)
            let first = try #require(try s3.liveIsComplete("first"))
            // An entry folder without a manifest, as a killed publish leaves it, or as a live
            // writer has it before its manifest: a command right after leaves it alone (it is
            // younger than a lock lifetime and a margin); one after that sweeps it.
            let orphan = "r/000000-000000000000/index.html"
            _ = try s3.client().put(orphan, Array("x\n".utf8), contentType: "text/html")
            try s3.fixture.stampWeb()
            try #require(try s3.run(s3.publish(s3.fixture.commits[1])).status == 0)
            #expect(try s3.client().get(orphan) != nil, "a young entry folder was swept")

            let commands = [
                ("rollback", ["rollback", "--env", "production", "--to", first, "-m", "held"]), ("prune", ["prune", "--env", "production", "--keep", "1"]),
                ("promote", ["promote", "--from", "preview", "--to", "production", "-m", "held"]),
            ]
            for (index, (name, arguments)) in commands.enumerated() where TestTier.isFull || UInt64(index) == TestTier.seed % 3 {
                let (a, b) = try held(s3, arguments)
                try check(s3, "\(name) held", a: a, b: b)
            }
            // A command once it is older than the lifetime (1 s here) and the margin sweeps it.
            if try s3.client().get(orphan) != nil {
                sleep(3)
                #expect(try s3.run(["prune", "--env", "production", "--keep", "10"]).status == 0)
            }
            #expect(try s3.client().get(orphan) == nil, "an old entry folder without a manifest was left")
        }
    }
}

/// `ratecard repair` puts back in one step what follows the pointer and a release's entry files.
@Suite(.serialized, .timeLimit(.minutes(3))) struct S3RepairTests {
    @Test func repairRestoresMissingEntryFilesAndWhatFollowsThePointer() throws {
        try withTemporaryDirectory { directory in
            let s3 = try S3Environments(in: directory, engine: .moto, commits: 2)
            defer { s3.stop() }
            try #require(try s3.run(s3.publish(s3.fixture.commits[0])).status == 0)
            try s3.fixture.stampWeb()
            let published = try s3.run(s3.publish(s3.fixture.commits[1]) + ["--format", "json"])
            try #require(published.status == 0, "\(published.err)")
            let live = try #require(try s3.liveIsComplete("before the damage"))
            // The summary counts the entry files the bucket holds for the release.
            let linked = try JSONReader.parse(Array(published.out.utf8))["files_linked"]?.intValue
            #expect(linked == (try s3.client().list(prefix: "r/\(live)/").count), "files_linked \(linked ?? -1)")
            // Entry files of the live release and of the one before deleted, index.html stale.
            let client = s3.client()
            let entries = try client.list(prefix: "r/")
            for key in entries where key.hasSuffix("index.html") || key.hasSuffix("entry.json") { try client.delete(key) }
            _ = try client.put("index.html", Array("<html>an older release</html>\n".utf8), contentType: "text/html")
            let status = try s3.run(["status", "--env", "production"])
            #expect(status.out.contains("ratecard repair --env production"), "\(status.out)")
            #expect(try s3.run(["verify", "--env", "production"]).status == 1)

            let repaired = try s3.run(["repair", "--env", "production", "--format", "json"])
            #expect(repaired.status == 0, "\(repaired.err)")
            let json = try JSONReader.parse(Array(repaired.out.utf8))
            #expect(json["live"]?.stringValue == live)
            guard case .object(let restored)? = json["restored"] else { throw OperationalError("no restored: \(repaired.out)") }
            #expect(restored.count == 2, "\(repaired.out)")
            #expect(Set(try client.list(prefix: "r/")) == Set(entries))
            #expect(try s3.liveIsComplete("repaired") == live)
            #expect(try s3.run(["verify", "--env", "production"]).status == 0)
            try s3.servedStateIsConsistent("repaired", staleAllowed: false)
            #expect(try client.get("index.html") != nil)
            #expect(try s3.run(["repair", "--help"]).status == 0)

            // A missing index.html at the prefix is stale too: status names it and repair, and
            // repair puts it back.
            try client.delete("index.html")
            let missing = try s3.run(["status", "--env", "production"])
            #expect(missing.out.contains("index.html is missing") && missing.out.contains("ratecard repair --env production"), "\(missing.out)")
            let verifyMissing = try s3.run(["verify", "--env", "production"])
            #expect(verifyMissing.status == 1 && verifyMissing.out.components(separatedBy: "index.html is missing").count == 2, "\(verifyMissing.out)")
            #expect(try s3.run(["repair", "--env", "production"]).status == 0)
            #expect(try client.get("index.html") != nil)
            #expect(!(try s3.run(["status", "--env", "production"])).out.contains("index.html"))

            // Killed between the flip and its journal entry: status says so (not "published
            // before seals") and names repair.
            try s3.fixture.stampWeb()
            let killed = try s3.start(s3.publish(s3.fixture.commits[0]), environment: ["RATECARD_CRASH_AT": "swapped"])
            killed.waitUntilExit()
            let flipped = try #require(try s3.liveIsComplete("killed after the flip"))
            #expect(flipped != live)
            let unjournaled = try s3.run(["status", "--env", "production"])
            #expect(unjournaled.out.contains("is not in the journal") && unjournaled.out.contains("ratecard repair"), "\(unjournaled.out)")
            #expect(!unjournaled.out.contains("published before seals"), "\(unjournaled.out)")

            // A lock another live command holds is waited for as long as a person waits
            // (lock_wait_seconds, 120 s by default), then the command gives up: exit 3.
            let foreign = Array(
                #"{"user":"ops","host":"build-7","boot_id":"x","pid":4242,"pid_start":"1","command":"ratecard publish","since":"2026-11-29T00:00:00Z","ttl_seconds":3600,"token":"f"}"#.utf8)
            try s3.client().delete(".ratecard/lock")
            _ = try s3.client().put(".ratecard/lock", foreign, contentType: "application/json", condition: .absent)
            try s3.configure(production: "      lock_wait_seconds: 1")
            let started = Date()
            let gaveUp = try s3.run(["repair", "--env", "production"])
            #expect(gaveUp.status == 3 && gaveUp.err.contains("after waiting 1 s"), "\(gaveUp.err)")
            #expect(Date().timeIntervalSince(started) < 15)
        }
    }
}
