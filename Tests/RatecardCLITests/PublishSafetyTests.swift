import Foundation
import Glibc
import RatecardKit
import Testing

@Suite(.serialized) struct PublishSafetyTests {
    /// kill -9 right after every named step, then at instants spread over a publish: 200 in the
    /// full tier, a stratified sample otherwise (`TestTier`).
    @Test func aKilledPublishLeavesCurrentCompleteAndTheNextPublishCleansUp() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, bridge: true)
            let first = try ratecard(fixture.publishArguments(fixture.commits[0]), in: fixture.repo)
            #expect(first.status == 0, "\(first.err)")
            var target = 1

            func recoverAndCheck(_ label: String) throws {
                _ = try fixture.liveIsComplete()
                try fixture.linesAreConsistent("after \(label)", staleAllowed: true)
                try fixture.stampWeb()
                let next = try ratecard(fixture.publishArguments(fixture.commits[target]), in: fixture.repo)
                #expect(next.status == 0, "publish after \(label) failed: \(next.err)")
                #expect(try fixture.strays() == [], "strays after \(label)")
                #expect(try fixture.liveIsComplete() != nil)
                try fixture.linesAreConsistent("the publish after \(label)", staleAllowed: false)
                // Every release ever made live has its seal, a flip whose journal entry was lost
                // too, so a rollback to it checks its version.json, not every file.
                let root = ServeRoot(path: fixture.root)
                let (seals, kept) = (try root.journalLog.state().seals, Set(try root.releaseIDs()))
                for id in try root.activationHistory() where kept.contains(id) {
                    #expect(seals[id] == (try root.versionHash(of: id)), "after \(label): \(id) was live and has no seal")
                }
                target = 1 - target
            }

            for step in CrashPoint.publishSteps {
                try fixture.stampWeb()
                let before = try ServeRoot(path: fixture.root).live()
                let process = try fixture.start(fixture.publishArguments(fixture.commits[target]), environment: ["RATECARD_CRASH_AT": step])
                process.waitUntilExit()
                #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL, "no crash at \(step)")
                let after = try fixture.liveIsComplete()
                try fixture.everyReleaseIsComplete(step)
                let swapped = CrashPoint.publishSteps.firstIndex(of: step)! >= CrashPoint.publishSteps.firstIndex(of: "swapped")!
                #expect((after != before) == swapped, "at \(step): live \(before ?? "-") -> \(after ?? "-")")
                try recoverAndCheck(step)
            }

            // How long a whole publish takes, to spread kill instants over [0, 1.5 × that]: start to past the end.
            var cycle = 0.0
            let timedRuns = 3
            for _ in 0..<timedRuns {
                let start = Date()
                _ = try ratecard(fixture.publishArguments(fixture.commits[target]), in: fixture.repo)
                cycle += Date().timeIntervalSince(start) / Double(timedRuns)
                target = 1 - target
            }
            var landedBeforeSwap = 0
            var landedAfterSwap = 0
            let kills = TestTier.count(full: 200, sampled: CrashCampaign.sampledKills)
            func killAt(_ index: Int, after instant: Double) throws {
                try fixture.stampWeb()
                let before = try ServeRoot(path: fixture.root).live()
                let process = try fixture.start(fixture.publishArguments(fixture.commits[target]))
                usleep(useconds_t(instant * 1_000_000))
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                let after = try fixture.liveIsComplete()
                if after == before { landedBeforeSwap += 1 } else { landedAfterSwap += 1 }
                try recoverAndCheck("random kill \(index)")
            }
            for (index, instant) in TestTier.stratified(kills, over: 0...(1.5 * cycle)).enumerated() {
                try killAt(index, after: instant)
            }
            // Other tests share the cores, so the killed runs can be slower or faster than the timed
            // ones: kills are added late (up to 4×) until one lands after the swap, and early until
            // one lands before it.
            var extra = 0
            while landedAfterSwap == 0, extra < 10 {
                try killAt(kills + extra, after: TestTier.random(in: (1.5 * cycle)...(4 * cycle)))
                extra += 1
            }
            while landedBeforeSwap == 0, extra < 20 {
                try killAt(kills + extra, after: TestTier.random(in: 0...(0.3 * cycle)))
                extra += 1
            }
            print(
                "crash safety: \(CrashPoint.publishSteps.count) named steps; \(kills) random kills in [0, 1.5×] a \(Int(cycle * 1000)) ms publish: \(landedBeforeSwap) before the swap, \(landedAfterSwap) after"
            )
            #expect(landedBeforeSwap > 0)
            #expect(landedAfterSwap > 0)
            let journal = try ServeRoot(path: fixture.root).journal.entries()
            #expect(journal.last(where: { $0.activated != nil })?.activated == (try ServeRoot(path: fixture.root).live()))
        }
    }

    /// Eight publishers at once: serialized by the lock, journaled in order, current is the last.
    @Test func concurrentPublishersAreSerialized() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 8)
            let processes = try fixture.commits.map { try fixture.start(fixture.publishArguments($0)) }
            for process in processes { process.waitUntilExit() }
            #expect(processes.allSatisfy { $0.terminationStatus == 0 })
            let serve = ServeRoot(path: fixture.root)
            let published = try serve.journal.entries().filter { $0.action == .publish }
            #expect(published.count == 8)
            #expect(Set(published.compactMap { $0.commit?.hex }) == Set(fixture.commits))
            for (earlier, later) in zip(published, published.dropFirst()) {
                #expect(later.previous == earlier.release)
            }
            #expect(try serve.live() == published.last?.release)
            #expect(try fixture.strays() == [])
        }
    }

    @Test func withNoWaitALockedRootExitsThreeAndJournalsOnlyTheWinners() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 8)
            let processes = try fixture.commits.map { try fixture.start(fixture.publishArguments($0, ["--no-wait"])) }
            for process in processes { process.waitUntilExit() }
            let statuses = processes.map(\.terminationStatus)
            #expect(statuses.allSatisfy { $0 == 0 || $0 == 3 }, "\(statuses)")
            #expect(statuses.contains(0))
            let serve = ServeRoot(path: fixture.root)
            let published = try serve.journal.entries().filter { $0.action == .publish }
            #expect(published.count == statuses.filter { $0 == 0 }.count)
            #expect(try serve.live() == published.last?.release)
        }
    }

    @Test func aHeldLockNamesItsHolderAndADeadHolderIsNotWaitedOn() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory)
            #expect(try ratecard(fixture.publishArguments(fixture.commits[0]), in: fixture.repo).status == 0)
            do {
                let held = try ReleaseLock.acquire(root: fixture.root, command: "test holder", wait: false)
                let refused = try ratecard(fixture.publishArguments(fixture.commits[1], ["--no-wait"]), in: fixture.repo)
                #expect(refused.status == 3)
                #expect(refused.err.contains("is locked by pid \(getpid())"))
                #expect(refused.err.contains("'ratecard test holder'"))
                withExtendedLifetime(held) {}
            }
            // A holder killed with -9 leaves its text behind but not the lock.
            let victim = try fixture.start(fixture.publishArguments(fixture.commits[1]), environment: ["RATECARD_CRASH_AT": "locked"])
            victim.waitUntilExit()
            let after = try ratecard(fixture.publishArguments(fixture.commits[1], ["--no-wait"]), in: fixture.repo)
            #expect(after.status == 0, "\(after.err)")
        }
    }

    @Test func expectLiveMakesPublishAndRollbackCompareAndSwap() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory)
            #expect(try ratecard(fixture.publishArguments(fixture.commits[0], ["--expect-live", "none"]), in: fixture.repo).status == 0)
            let live = try #require(try ServeRoot(path: fixture.root).live())
            let wrong = try ratecard(fixture.publishArguments(fixture.commits[1], ["--expect-live", "000099-nope"]), in: fixture.repo)
            #expect(wrong.status == 3)
            #expect(wrong.err.contains("live is \(live), not 000099-nope"))
            #expect(try ServeRoot(path: fixture.root).live() == live)
            #expect(try ratecard(fixture.publishArguments(fixture.commits[1], ["--expect-live", live]), in: fixture.repo).status == 0)
            let second = try #require(try ServeRoot(path: fixture.root).live())
            let badRollback = try ratecard(["rollback", "--root", fixture.root, "--expect-live", live, "-m", "oops"], in: fixture.repo)
            #expect(badRollback.status == 3)
            let rollback = try ratecard(["rollback", "--root", fixture.root, "--expect-live", second, "-m", "rates wrong"], in: fixture.repo)
            #expect(rollback.status == 0, "\(rollback.err)")
            #expect(try ServeRoot(path: fixture.root).live() == live)
            // The release left is bad: a bare rollback never returns to it.
            let again = try ratecard(["rollback", "--root", fixture.root, "-m", "again"], in: fixture.repo)
            #expect(again.status == 3)
            #expect(again.err.contains("no earlier good release"))
            let missingReason = try ratecard(["rollback", "--root", fixture.root], in: fixture.repo)
            #expect(missingReason.status == 2)
        }
    }

    @Test func rollbackChecksTheSealAndVerifyReHashesEveryFile() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 3)
            for commit in fixture.commits {
                #expect(try ratecard(fixture.publishArguments(commit), in: fixture.repo).status == 0)
            }
            let root = ServeRoot(path: fixture.root)
            let releases = try root.releaseIDs()
            #expect(releases.count == 3)
            let (first, second, third) = (releases[0], releases[1], releases[2])
            // Every publish journals the hash of the version.json it staged and verified.
            for id in releases {
                #expect(try root.sealProblems(of: id) == [], "no seal for \(id)")
            }
            // A file changed behind the seal: the constant-time check cannot see it, --verify does.
            // (Releases share unchanged files as hard links: replace the link, not the bytes in it.)
            let page = root.folder(of: second) + "/index.html"
            let original = try FileSystem.readFile(page)
            unlink(page)
            try FileSystem.writeFile(page, Array("tampered\n".utf8))
            let verified = try ratecard(["rollback", "--root", fixture.root, "--to", second, "--verify", "-m", "check all"], in: fixture.repo)
            #expect(verified.status == 1)
            #expect(verified.err.contains("changed: index.html"))
            #expect(try root.live() == third)
            // An object the release names, changed in the store: --verify sees that too.
            let info = try ReleaseInfo.read(from: root.folder(of: second))
            let products = try #require(info.files.first { $0.path.hasSuffix("/compare/acme-bank.json") })
            let object = root.objectsFolder + "/" + ObjectLayout.objectName(products)
            let bytes = try FileSystem.readFile(object)
            unlink(object)
            try FileSystem.writeFile(object, Array("{}\n".utf8))
            let objectChanged = try ratecard(["rollback", "--root", fixture.root, "--to", second, "--verify", "-m", "check all"], in: fixture.repo)
            #expect(objectChanged.status == 1)
            #expect(objectChanged.err.contains("changed object: \(products.path)"), "\(objectChanged.err)")
            unlink(object)
            try FileSystem.writeFile(object, bytes)
            // version.json changed: refused without --verify, live unchanged.
            let version = root.folder(of: first) + "/" + ReleaseInfo.fileName
            let edited = try FileSystem.readFile(version) + Array(" ".utf8)
            unlink(version)
            try FileSystem.writeFile(version, edited)
            let refused = try ratecard(["rollback", "--root", fixture.root, "--to", first, "-m", "bad rates"], in: fixture.repo)
            #expect(refused.status == 1)
            #expect(refused.err.contains("no longer matches the version.json it was published with (changed: version.json)"))
            #expect(try root.live() == third)
            // The intact case takes the seal path and says so.
            try FileSystem.writeFile(page, original)
            let sealed = try ratecard(["rollback", "--root", fixture.root, "--to", second, "-m", "bad rates"], in: fixture.repo)
            #expect(sealed.status == 0, "\(sealed.err)")
            #expect(sealed.out.contains("matches the hash journaled at publish"))
            #expect(try root.live() == second)
        }
    }

    /// `--format json` on publish, verify, rollback, promote and build: one object a script can read.
    @Test func publishVerifyAndRollbackSummariesInJSON() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 2)
            func object(_ result: Execution) throws -> JSON {
                #expect(result.err.isEmpty, "\(result.err)")
                return try JSONReader.parse(Array(result.out.utf8))
            }
            let dry = try object(try ratecard(fixture.publishArguments(fixture.commits[0], ["--dry-run", "--format", "json"]), in: fixture.repo))
            #expect(dry["outcome"]?.stringValue == "dry_run")
            #expect(dry["live"] == .null)
            #expect(!FileSystem.exists(fixture.root + "/current"))
            let first = try object(try ratecard(fixture.publishArguments(fixture.commits[0], ["--format", "json"]), in: fixture.repo))
            let root = ServeRoot(path: fixture.root)
            #expect(first["outcome"]?.stringValue == "published")
            #expect(first["release"]?.stringValue == (try root.live()))
            #expect(first["previous"] == .null)
            #expect(first["commit"]?.stringValue == fixture.commits[0])
            #expect((first["changes"]?["added"]?.intValue ?? 0) > 0)
            let again = try object(try ratecard(fixture.publishArguments(fixture.commits[0], ["--format", "json"]), in: fixture.repo))
            #expect(again["outcome"]?.stringValue == "already_live")
            let second = try object(try ratecard(fixture.publishArguments(fixture.commits[1], ["--format", "json"]), in: fixture.repo))
            #expect(second["previous"]?.stringValue == first["release"]?.stringValue)
            let verified = try object(try ratecard(["verify", "--root", fixture.root, "--format", "json"], in: fixture.repo))
            #expect(verified["ok"] == .bool(true))
            #expect(verified["release"]?.stringValue == second["release"]?.stringValue)
            let back = try object(try ratecard(["rollback", "--root", fixture.root, "--format", "json", "-m", "json"], in: fixture.repo))
            #expect(back["to"]?.stringValue == first["release"]?.stringValue)
            #expect(back["verified"]?["check"]?.stringValue == "sealed")
            let production = directory + "/production"
            let promoted = try object(try ratecard(["promote", "--from", fixture.root, "--to", production, "--format", "json"], in: fixture.repo))
            #expect(promoted["outcome"]?.stringValue == "promoted")
            #expect(promoted["release"]?.stringValue == first["release"]?.stringValue)
            let built = try object(try ratecard(["build", "--rev", fixture.commits[1], "--out", directory + "/out", "--as-of", "2026-11-29", "--format", "json"], in: fixture.repo))
            #expect(built["bundle_id"]?.stringValue == second["bundle_id"]?.stringValue)
        }
    }

    @Test func publishingWhatIsLiveIsANoOpAndDryRunTouchesNothing() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory)
            #expect(try ratecard(fixture.publishArguments(fixture.commits[0]), in: fixture.repo).status == 0)
            let journal = try FileSystem.readFile(fixture.root + "/.ratecard/journal.jsonl")
            let again = try ratecard(fixture.publishArguments(fixture.commits[0]), in: fixture.repo)
            #expect(again.status == 0)
            #expect(again.out.hasPrefix("Already live on "))
            let dry = try ratecard(fixture.publishArguments(fixture.commits[1], ["--dry-run"]), in: fixture.repo)
            #expect(dry.status == 0)
            #expect(dry.out.contains("~ rates/acme-bank.html"))
            #expect(dry.out.contains("/compare/acme-bank.json"))
            #expect(dry.out.hasSuffix("Nothing was changed.\n"))
            #expect(try FileSystem.readFile(fixture.root + "/.ratecard/journal.jsonl") == journal)
            #expect(try ServeRoot(path: fixture.root).releaseIDs().count == 1)
        }
    }

    @Test func uncommittedContentIsRefused() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory)
            try FileSystem.writeFile(
                fixture.repo + "/partners/acme-bank.yaml", Array((String(decoding: try FileSystem.readFile(fixture.repo + "/partners/acme-bank.yaml"), as: UTF8.self) + "# edited\n").utf8))
            let result = try ratecard(["publish", "--root", fixture.root, "--web", fixture.web, "--as-of", "2026-11-29"], in: fixture.repo)
            #expect(result.status == 1)
            #expect(result.err.contains("uncommitted changes (partners/acme-bank.yaml)"))
            #expect(!FileSystem.exists(fixture.root + "/current"))
            // An untracked content file counts; a dot-file (never content) does not.
            let repository = try Repository.open(at: fixture.repo)
            let head = try #require(try repository.headCommit())
            let committed = try #require(try repository.treeEntries(commit: head, under: "")?.first { $0.path == "partners/acme-bank.yaml" }?.id)
            try FileSystem.writeFile(fixture.repo + "/partners/acme-bank.yaml", try repository.blob(committed))
            try FileSystem.writeFile(fixture.repo + "/partners/new-bank.yaml", Array("id: new-bank\n".utf8))
            try FileSystem.writeFile(fixture.repo + "/.DS_Store", [0])
            let untracked = try ratecard(["publish", "--root", fixture.root, "--web", fixture.web, "--as-of", "2026-11-29"], in: fixture.repo)
            #expect(untracked.status == 1)
            #expect(untracked.err.contains("uncommitted changes (partners/new-bank.yaml)"))
            unlink(fixture.repo + "/partners/new-bank.yaml")
            let clean = try ratecard(["publish", "--root", fixture.root, "--web", fixture.web, "--as-of", "2026-11-29"], in: fixture.repo)
            #expect(clean.status == 0, "\(clean.err)")
        }
    }

    @Test func promoteShipsTheSameBytesAndPruneKeepsWhatMatters() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 4)
            for commit in fixture.commits {
                #expect(try ratecard(fixture.publishArguments(commit), in: fixture.repo).status == 0)
            }
            let staging = ServeRoot(path: fixture.root)
            let live = try #require(try staging.live())
            let production = directory + "/production"
            let promoted = try ratecard(["promote", "--from", fixture.root, "--to", production, "-m", "checked"], in: fixture.repo)
            #expect(promoted.status == 0, "\(promoted.err)")
            // The same files under production's own next number, the source's id recorded.
            let copied = try #require(try ServeRoot(path: production).live())
            #expect(copied.hasPrefix("000001-") && live.hasPrefix("000004-"), "\(copied) from \(live)")
            let source = try ReleaseInfo.read(from: staging.folder(of: live))
            let copy = try ReleaseInfo.read(from: ServeRoot(path: production).folder(of: copied))
            #expect(copy.files == source.files && copy.bundleID == source.bundleID && copy.promotedFrom == live)
            #expect(try ratecard(["verify", "--root", production], in: fixture.repo).status == 0)
            let pruned = try ratecard(["prune", "--root", fixture.root, "--keep", "1"], in: fixture.repo)
            #expect(pruned.status == 0)
            let left = try staging.releaseIDs()
            #expect(left.count == 2)
            #expect(left.contains(live))
            // Pages of the kept releases keep working: every object they name is in the store; the
            // objects only pruned releases named are gone.
            for id in left { #expect(try staging.drift(of: id) == [], "\(id) lost an object") }
            let named = try Set(left.flatMap { try ReleaseInfo.read(from: staging.folder(of: $0)).objectNames })
                .union(left.map { try LiveStatements.fileListObject(root: staging, release: $0) })
            #expect(Set(try staging.list(.objects).map(\.name)) == named)
            // Drift is found.
            try FileSystem.writeFile(staging.folder(of: live) + "/index.html", Array("tampered\n".utf8))
            let drift = try ratecard(["verify", "--root", fixture.root], in: fixture.repo)
            #expect(drift.status == 1)
            #expect(drift.out.contains("changed: index.html"))
        }
    }
}
