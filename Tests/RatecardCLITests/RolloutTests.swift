import Foundation
import Glibc
import RatecardKit
import RatecardLoader
import Testing

/// Staged rollouts on a signed serve root: `publish --rollout`, `ratecard rollout`, what
/// `ratecard fetch --install-id` (the generated loader's code) loads for chosen installs, how
/// rollouts compose with status, releases and promote, and kills after every named step.
@Suite(.serialized) struct RolloutTests {
    static let digest = LibcryptoDigest()
    static let installs = (0..<1000).map { "phone-\($0)" }

    /// The loader fixture's signed `production` serve root, with commands run signed.
    struct Staged {
        let fixture: LoaderFixture
        let directory: String

        init(in directory: String) throws {
            self.directory = directory
            fixture = try LoaderFixture(in: directory)
        }

        /// Runs a command that changes the environment, with the signing key.
        func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Execution {
            try ratecard(arguments + ["--signing-key", fixture.key], in: fixture.publish.repo, environment: environment)
        }

        /// Runs a command that only reads.
        func read(_ arguments: [String]) throws -> Execution { try ratecard(arguments, in: fixture.publish.repo) }

        /// Publishes commit `index % 2` with a page saying `app <index>` (a release of its own),
        /// as a rollout to `percent` when given.
        func publish(_ index: Int, rollout percent: Int?) throws -> Execution {
            let page = "<!DOCTYPE html><title>app \(index)</title><script src=\"app/app.js\"></script>\n"
            unlink(fixture.publish.web + "/index.html")
            try FileSystem.writeFile(fixture.publish.web + "/index.html", Array(page.utf8))
            let rollout = percent.map { ["--rollout", String($0)] } ?? []
            return try run(
                ["publish", "--env", "production", "--rev", fixture.publish.commits[index % 2], "--web", fixture.publish.web, "--as-of", "2026-11-29", "-m", "app \(index)"]
                    + rollout)
        }

        var root: ServeRoot { ServeRoot(path: fixture.root) }

        /// The release ids, oldest first.
        func releases() throws -> [String] { try root.releaseIDs() }

        /// `verify` passes: the statement matches the pointer, the journal's rollout and the file lists.
        func verified() throws -> Execution { try read(["verify", "--env", "production"]) }
    }

    /// The first of `installs` that the rollout `id` at `percent` includes (or leaves out).
    static func install(in id: String, percent: Int, included: Bool) throws -> String {
        let rollout = LiveStatement.Rollout(id: id, release: "", files: "", share: percent * 100)
        return try #require(installs.first { rollout.includes(installID: $0, digest: digest) == included })
    }

    @Test("publish --rollout 10 reaches its installs only; --percent 50 keeps them; --halt sends all back; --complete flips for everyone")
    func rolloutEndToEnd() throws {
        try withTemporaryDirectory { directory in
            let env = try Staged(in: directory)
            #expect(try env.publish(0, rollout: nil).status == 0)
            let first = try #require(try env.root.live())

            // A rollout of nothing live has no release for the other installs.
            let started = try env.publish(1, rollout: 10)
            #expect(started.status == 0, "\(started.out)\(started.err)")
            let second = try #require(try env.releases().last)
            #expect(second != first)
            #expect(try env.root.live() == first, "a rollout leaves live where it was")
            #expect(started.out.contains("Published release \(second) to production as a rollout to 10% of installs"), "\(started.out)")
            let statement = try env.fixture.statement()
            let rollout = try #require(statement.live.rollout)
            #expect(rollout.release == second && rollout.share == 1000, "\(rollout)")
            #expect(statement.lines.values.allSatisfy { $0.rollout == rollout }, "\(statement.lines)")
            let firstCheck = try env.verified()
            #expect(firstCheck.status == 0, "\(firstCheck.out)\(firstCheck.err)")

            let server = try ServeProcess(["--root", env.fixture.root], in: env.fixture.publish.repo)
            let base = "http://127.0.0.1:\(server.port)"
            func fetch(_ install: String) throws -> Execution {
                try ratecard(
                    ["fetch", base, "--bridge", "1", "--trust", directory + "/keys/prod.pub", "--state", directory + "/state-" + install, "--install-id", install],
                    in: directory)
            }
            func expectLoads(_ release: String, _ install: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
                let result = try fetch(install)
                #expect(result.status == 0, "\(install): \(result.out)\(result.err)", sourceLocation: sourceLocation)
                #expect(result.out.contains("loads release \(release) of production"), "\(install): \(result.out)", sourceLocation: sourceLocation)
            }
            // The CLI agrees with the loader's function on installs inside and outside the share.
            let inside = try Self.install(in: rollout.id, percent: 10, included: true)
            let outside = try Self.install(in: rollout.id, percent: 50, included: false)
            let atHalf = LiveStatement.Rollout(id: rollout.id, release: "", files: "", share: 5000)
            let widened = try #require(Self.installs.first { atHalf.includes(installID: $0, digest: Self.digest) && !rollout.includes(installID: $0, digest: Self.digest) })
            try expectLoads(second, inside)
            #expect(try fetch(inside).out.contains("this install is in rollout \(rollout.id)"))
            try expectLoads(first, outside)
            try expectLoads(first, outside)

            // Widened: every install that had it keeps it.
            let wider = try env.run(["rollout", "--env", "production", "--percent", "50", "-m", "no complaints"])
            #expect(wider.status == 0 && wider.out.contains("Rollout of \(second) in "), "\(wider.out)\(wider.err)")
            #expect(wider.out.contains("10% -> 50% of installs"), "\(wider.out)")
            try expectLoads(second, inside)
            try expectLoads(second, widened)
            try expectLoads(first, outside)
            let status = try JSONReader.parse(Array(try env.read(["status", "--env", "production", "--format", "json"]).out.utf8))
            #expect(status["rollout"]?["release"]?.stringValue == second && status["rollout"]?["share_bp"]?.intValue == 5000, "\(status)")
            let listed = try env.read(["releases", "--env", "production"])
            #expect(listed.out.contains("rolling out to 50%") && listed.out.contains("rollout share set to 50%"), "\(listed.out)")
            // Promote refuses a release that is only rolled out.
            let promoted = try env.run(["promote", "--from", "production", "--to", "elsewhere", "--release", second, "-m", "x"])
            #expect(promoted.status == 3 && promoted.err.contains("only being rolled out"), "\(promoted.out)\(promoted.err)")
            #expect(try env.verified().status == 0)

            // Halted: every install is back on live; the release is marked bad.
            let halted = try env.run(["rollout", "--env", "production", "--halt", "-m", "wrong band"])
            #expect(halted.status == 0 && halted.out.contains("\(second) is marked bad"), "\(halted.out)\(halted.err)")
            try expectLoads(first, inside)
            try expectLoads(first, widened)
            #expect(try env.fixture.statement().live.rollout == nil)
            #expect(try env.run(["rollout", "--env", "production", "--percent", "20", "-m", "x"]).status == 3)
            // log tells the change's rollout history.
            let log = try env.read(["log", "--product", "acme-bank/credit", "--env", "production"])
            #expect(log.out.contains("rolled out to 10% of installs in release \(second)"), "\(log.out)\(log.err)")
            #expect(log.out.contains("rollout of release \(second) set to 50%") && log.out.contains("rollout of release \(second) halted"), "\(log.out)")

            // A second rollout picks its own installs; completed, it is live for everyone.
            #expect(try env.publish(2, rollout: 10).status == 0)
            let third = try #require(try env.releases().last)
            let again = try #require(try env.fixture.statement().live.rollout)
            #expect(again.release == third && again.id != rollout.id, "\(again)")
            let early = try env.run(["promote", "--from", "production", "--to", "elsewhere", "--release", third, "-m", "too early"])
            #expect(early.status == 3 && early.err.contains("only being rolled out"), "\(early.out)\(early.err)")
            // (Commit 0: commit 1's bundle is in the release marked bad, refused for that.)
            let another = try env.publish(4, rollout: 10)
            #expect(another.status == 3 && another.err.contains("is being rolled out"), "one rollout at a time: \(another.out)\(another.err)")
            let overtaking = try env.publish(4, rollout: nil)
            #expect(overtaking.status == 3 && overtaking.err.contains("is being rolled out"), "\(overtaking.out)\(overtaking.err)")
            let complete = try env.run(["rollout", "--env", "production", "--complete", "-m", "everyone"])
            #expect(complete.status == 0 && complete.out.contains("Completed the rollout of \(third)"), "\(complete.out)\(complete.err)")
            #expect(try env.root.live() == third)
            let completed = try env.fixture.statement()
            #expect(completed.live.release == third && completed.live.rollout == nil, "\(completed.live)")
            try expectLoads(third, inside)
            try expectLoads(third, outside)
            let journal = try env.root.journalLog.state()
            #expect(journal.rollout == nil && journal.lastActivated == third && journal.seals[third] != nil)
            #expect(try env.verified().status == 0)
            // Completed, the release promote refused is promoted like any live one.
            let promotedNow = try env.run(["promote", "--from", "production", "--to", "elsewhere", "--release", third, "-m", "ship"])
            #expect(promotedNow.status == 0, "\(promotedNow.out)\(promotedNow.err)")
            let elsewhere = ServeRoot(path: env.fixture.publish.directory + "/elsewhere")
            let promotedLive = try #require(try elsewhere.live())
            #expect(try elsewhere.info(of: promotedLive).bundleID == env.root.info(of: third).bundleID)

            // Usage errors.
            #expect(try env.run(["rollout", "--env", "production", "--percent", "100", "-m", "x"]).status == 2)
            #expect(try env.run(["rollout", "--env", "production", "--percent", "5", "--complete", "-m", "x"]).status == 2)
            #expect(try env.run(["rollout", "--env", "production", "--keep-good", "-m", "x"]).status == 2)
            #expect(try env.publish(4, rollout: 0).status == 2)
        }
    }

    @Test("a rollout whose web build needs bridge 2 rides only on the lines of apps that have it, and no line of bridge-lines.json names it")
    func rolloutKeepsToTheBridgeLines() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 2, bridge: true)
            func publish(_ index: Int, needsShare: Bool, _ extra: [String] = []) throws -> Execution {
                unlink(fixture.web + "/app/calls.js")
                try FileSystem.writeFile(fixture.web + "/app/calls.js", Array(PublishFixture.call(needsShare: needsShare).utf8))
                return try ratecard(
                    ["publish", "--root", fixture.root, "--rev", fixture.commits[index], "--web", fixture.web, "--as-of", "2026-11-29", "-m", "x"] + extra, in: fixture.repo)
            }
            #expect(try publish(0, needsShare: false).status == 0)
            let first = try #require(try ServeRoot(path: fixture.root).live())
            let started = try publish(1, needsShare: true, ["--rollout", "30"])
            #expect(started.status == 0, "\(started.out)\(started.err)")
            let second = try #require(try ServeRoot(path: fixture.root).releaseIDs().last)
            let envelope = try JSONDecoder().decode(SignedLiveStatement.self, from: Data(try FileSystem.readFile(fixture.root + "/live.json")))
            let statement = try JSONDecoder().decode(LiveStatement.self, from: Data(try #require(envelope.payloadBytes)))
            #expect(statement.live.release == first && statement.live.rollout == nil, "\(statement.live)")
            #expect(statement.lines["1"]?.release == first && statement.lines["1"]?.rollout == nil, "\(statement.lines)")
            #expect(statement.lines["2"]?.release == first && statement.lines["2"]?.rollout?.release == second, "\(statement.lines)")
            #expect(statement.lines["2"]?.rollout?.share == 3000)
            let lines = try BridgeLines.read(root: ServeRoot(path: fixture.root))
            #expect(!lines.isEmpty && !lines.values.contains(second), "bridge-lines.json gives apps the release being rolled out: \(lines)")
        }
    }

    @Test("a protected environment approves a risky rollout at publish time, journaled; completing it needs no second approval")
    func approvalAtPublishTime() throws {
        try withTemporaryDirectory { directory in
            let protected = try ApprovalGateTests.Protected(in: directory, publishing: ["production"])
            let repo = protected.fixture.repo
            let first = try #require(try protected.production.live())
            try protected.commitBigMove(in: repo)
            let refused = try ratecard(protected.publish("production") + ["-m", "big move", "--rollout", "10"], in: repo)
            #expect(refused.status == 1, "\(refused.out)\(refused.err)")
            #expect(try protected.production.journalLog.state().rollout == nil)
            let approved = try ratecard(protected.publish("production") + ["-m", "big move", "--rollout", "10", "--approve", "checked with compliance"], in: repo)
            #expect(approved.status == 0, "\(approved.out)\(approved.err)")
            let state = try protected.production.journalLog.state()
            let rollout = try #require(state.rollout)
            #expect(try protected.production.live() == first)
            #expect(state.publications[rollout.release]?.approval?.reason == "checked with compliance")
            let complete = try ratecard(["rollout", "--env", "production", "--complete", "-m", "everyone"], in: repo)
            #expect(complete.status == 0, "\(complete.out)\(complete.err)")
            #expect(try protected.production.live() == rollout.release)
        }
    }

    @Test("rollback during a rollout halts it first and says so; prune keeps the release being rolled out")
    func rollbackAndPruneCompose() throws {
        try withTemporaryDirectory { directory in
            let env = try Staged(in: directory)
            #expect(try env.publish(0, rollout: nil).status == 0)
            #expect(try env.publish(1, rollout: nil).status == 0)
            let (first, second) = (try env.releases()[0], try env.releases()[1])
            #expect(try env.publish(2, rollout: 25).status == 0)
            let third = try #require(try env.releases().last)
            let pruned = try env.run(["prune", "--env", "production", "--keep", "0"])
            #expect(pruned.status == 0, "\(pruned.out)\(pruned.err)")
            #expect(try env.releases().contains(third), "prune removed the release being rolled out")
            let back = try env.run(["rollback", "--env", "production", "-m", "bad rates"])
            #expect(back.status == 0, "\(back.out)\(back.err)")
            #expect(back.out.contains("Halted the rollout of \(third) first (not marked bad)"), "\(back.out)")
            #expect(try env.root.live() == first)
            let journal = try env.root.journalLog.state()
            #expect(journal.rollout == nil && journal.badReleases(live: first) == [second])
            #expect(try env.fixture.statement().live.rollout == nil)
            #expect(try env.verified().status == 0)
        }
    }

    @Test("a rollout killed after each named step leaves a statement consistent with the pointer, or the next command repairs it")
    func crashCampaign() throws {
        try withTemporaryDirectory { directory in
            let env = try Staged(in: directory)
            #expect(try env.publish(0, rollout: nil).status == 0)
            var published = 1
            let steps = CrashPoint.rolloutSteps
            var generator = SeededGenerator(seed: TestTier.seed)
            let chosen = TestTier.isFull ? steps : Array(steps.shuffled(using: &generator).prefix(2))
            print("rollout crash campaign: steps \(chosen.joined(separator: ", ")) (seed \(TestTier.seed))")
            for (round, step) in chosen.enumerated() {
                if try env.root.journalLog.state().rollout == nil {
                    #expect(try env.publish(published, rollout: 10).status == 0)
                    published += 1
                }
                // The flip's steps are reached by --complete, the others by --percent.
                let flip = ["swapped", "journaled", "lines-written"].contains(step) || (step == "live-written" && round % 2 == 1)
                let command = flip ? ["--complete"] : ["--percent", String(20 + round)]
                let killed = try env.run(["rollout", "--env", "production"] + command + ["-m", "round \(round)"], environment: ["RATECARD_CRASH_AT": step])
                #expect(killed.status == SIGKILL, "\(step): not killed: \(killed.status) \(killed.out)\(killed.err)")
                if try env.verified().status != 0 {
                    // The next command (here the daily re-sign) recovers and rewrites live.json.
                    let next = try env.run(["sign", "--env", "production"])
                    #expect(next.status == 0, "\(step): \(next.out)\(next.err)")
                }
                #expect(try env.verified().status == 0, "\(step): live.json stays stale after the next command")
                let statement = try env.fixture.statement()
                let journal = try env.root.journalLog.state()
                let live = try #require(try env.root.live())
                #expect(statement.live.release == live, "\(step)")
                let rolling = journal.rollout.flatMap { $0.release == live ? nil : $0 }
                #expect(statement.live.rollout?.release == rolling?.release && statement.live.rollout?.share == rolling?.share, "\(step): \(statement.live)")
            }
            // publish --rollout journals its start where a publish would flip, then writes live.json.
            let starts = TestTier.isFull ? ["rollout-journaled", "live-written"] : [["rollout-journaled", "live-written"].randomElement(using: &generator)!]
            for step in starts {
                if try env.root.journalLog.state().rollout != nil {
                    #expect(try env.run(["rollout", "--env", "production", "--halt", "--keep-good", "-m", "next round"]).status == 0)
                }
                let page = "<!DOCTYPE html><title>app \(published)</title><script src=\"app/app.js\"></script>\n"
                unlink(env.fixture.publish.web + "/index.html")
                try FileSystem.writeFile(env.fixture.publish.web + "/index.html", Array(page.utf8))
                published += 1
                let killed = try env.run(
                    ["publish", "--env", "production", "--rev", env.fixture.publish.commits[0], "--web", env.fixture.publish.web, "--as-of", "2026-11-29", "-m", "x", "--rollout", "10"],
                    environment: ["RATECARD_CRASH_AT": step])
                #expect(killed.status == SIGKILL, "publish at \(step): not killed: \(killed.status) \(killed.err)")
                if try env.verified().status != 0 { #expect(try env.run(["sign", "--env", "production"]).status == 0) }
                #expect(try env.verified().status == 0, "publish at \(step): live.json stays stale after the next command")
                let rolling = try #require(try env.root.journalLog.state().rollout, "publish at \(step): the start was journaled")
                #expect(try env.fixture.statement().live.rollout?.id == rolling.id, "publish at \(step)")
            }
        }
    }

    @Test(
        "a rollout on a bucket killed after each named step leaves the statement consistent, or the next command repairs it",
        .enabled(if: TestTier.isFull, "starts SeaweedFS and kills every step: in make test-full"))
    func crashCampaignOnABucket() throws {
        try withTemporaryDirectory { directory in
            let s3 = try S3Environments(in: directory, engine: .seaweedfs)
            defer { s3.stop() }
            try s3.fixture.stampWeb()
            #expect(try s3.run(s3.publish(s3.fixture.commits[0])).status == 0)
            for (round, step) in (CrashPoint.rolloutSteps + ["served"]).enumerated() {
                if try s3.store().journalLog.state().rollout == nil {
                    try s3.fixture.stampWeb()
                    #expect(try s3.run(s3.publish(s3.fixture.commits[round % 2], ["--rollout", "10"])).status == 0)
                }
                let flip = ["swapped", "served", "journaled", "lines-written"].contains(step)
                let command = flip ? ["--complete"] : ["--percent", String(20 + round)]
                let killed = try s3.run(["rollout", "--env", "production"] + command + ["-m", "round \(round)"], environment: ["RATECARD_CRASH_AT": step])
                #expect(killed.status == SIGKILL, "\(step): not killed: \(killed.status) \(killed.err)")
                try s3.servedStateIsConsistent("killed at \(step)", staleAllowed: true)
                #expect(try s3.run(["sign", "--env", "production"]).status == 0)
                try s3.servedStateIsConsistent("after the next command (\(step))", staleAllowed: false)
                let root = s3.store()
                let live = try #require(try root.pointer())
                let rolling = try root.journalLog.state().rollout.flatMap { $0.release == live ? nil : $0 }
                let statement = try #require(try LiveStatements.read(root: root)).statement
                #expect(statement.live.release == live && statement.live.rollout?.share == rolling?.share, "\(step): \(statement.live)")
            }
        }
    }

    @Test("a rollout on a bucket (SeaweedFS, read as a static host) reaches its share, then everyone once completed")
    func rolloutOnABucket() throws {
        try withTemporaryDirectory { directory in
            let s3 = try S3Environments(in: directory, engine: .seaweedfs, publicRead: true)
            defer { s3.stop() }
            try s3.fixture.stampWeb()
            #expect(try s3.run(s3.publish(s3.fixture.commits[0])).status == 0)
            let first = try #require(try s3.liveIsComplete("published"))
            try s3.fixture.stampWeb()
            let started = try s3.run(s3.publish(s3.fixture.commits[1], ["--rollout", "10"]))
            #expect(started.status == 0, "\(started.out)\(started.err)")
            #expect(try s3.liveIsComplete("rolled out") == first, "a rollout leaves the pointer where it was")
            let envelope = try JSONDecoder().decode(SignedLiveStatement.self, from: Data(try #require(try s3.client().get("live.json")).bytes))
            let statement = try JSONDecoder().decode(LiveStatement.self, from: Data(try #require(envelope.payloadBytes)))
            let rollout = try #require(statement.live.rollout)
            #expect(rollout.release != first && rollout.share == 1000)
            let base = "\(s3.server.endpoint)/rc-production/app"
            func loads(_ install: String) throws -> String {
                let result = try ratecard(["fetch", base, "--bridge", "1", "--state", directory + "/state-" + install, "--install-id", install], in: directory)
                #expect(result.status == 0, "\(install): \(result.out)\(result.err)")
                return result.out
            }
            let inside = try Self.install(in: rollout.id, percent: 10, included: true)
            let outside = try Self.install(in: rollout.id, percent: 10, included: false)
            #expect(try loads(inside).contains("loads release \(rollout.release) of production"))
            #expect(try loads(outside).contains("loads release \(first) of production"))
            let complete = try s3.run(["rollout", "--env", "production", "--complete", "-m", "everyone"])
            #expect(complete.status == 0, "\(complete.out)\(complete.err)")
            #expect(try s3.liveIsComplete("completed") == rollout.release)
            #expect(try loads(outside).contains("loads release \(rollout.release) of production"))
            try s3.servedStateIsConsistent("completed", staleAllowed: false)
            #expect(try s3.store().journalLog.state().rollout == nil)
        }
    }
}
