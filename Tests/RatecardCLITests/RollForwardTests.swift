import Foundation
import Glibc
import RatecardKit
import Testing

/// What the history says after rollbacks in both directions: only a bare rollback (or
/// `--mark-bad`) marks the release it leaves bad, `status` and `releases` say who made each
/// release live and why, and `log` says whether a change is live now.
@Suite struct RollForwardTests {
    /// A release journaled before seals is re-hashed whole by the first rollback to it, which
    /// journals its seal: the next rollback to it checks only its version.json.
    @Test func aRollbackToAReleaseWithoutASealJournalsItsSeal() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory)
            let ids = try fixture.publishEach()
            let serve = ServeRoot(path: fixture.root)
            // The journal as a ratecard before seals wrote it.
            let path = fixture.root + "/.ratecard/journal.jsonl"
            let journal = String(decoding: try FileSystem.readFile(path), as: UTF8.self)
            let unsealed = journal.replacingOccurrences(of: #","\#(JournalFields.seal)":"[0-9a-f]{64}""#, with: "", options: .regularExpression)
            try #require(unsealed != journal)
            try FileSystem.writeFile(path, Array(unsealed.utf8))
            try #require(try serve.journalLog.state().seals.isEmpty)
            func check(_ to: String) throws -> String? {
                let done = try ratecard(["rollback", "--root", fixture.root, "--to", to, "-m", "check", "--format", "json"], in: fixture.repo)
                #expect(done.status == 0, "\(done.err)")
                return try JSONReader.parse(Array(done.out.utf8))["verified"]?["check"]?.stringValue
            }
            #expect(try check(ids[0]) == "rehashed")
            #expect(try check(ids[1]) == "rehashed")
            #expect(try check(ids[0]) == "sealed")
            #expect(try check(ids[1]) == "sealed")
            #expect(try serve.journalLog.state().seals == Dictionary(uniqueKeysWithValues: try ids.map { ($0, try serve.versionHash(of: $0)) }))
        }
    }

    @Test func rollingForwardIsNoVerdictOnTheReleaseLeft() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory)
            try fixture.publishEach()
            let serve = ServeRoot(path: fixture.root)
            let ids = try serve.releaseIDs()
            try #require(ids.count == 2)
            let user = ProcessUser.name

            // A bare rollback marks the release it leaves bad.
            let back = try ratecard(["rollback", "--root", fixture.root, "-m", "wrong band"], in: fixture.repo)
            #expect(back.status == 0, "\(back.err)")
            #expect(back.out.hasPrefix("Rolled back \(fixture.root) from \(ids[1]) to \(ids[0]) ("), "\(back.out)")
            #expect(back.out.hasSuffix("; \(ids[1]) is marked bad.\n"), "\(back.out)")
            #expect(try serve.badReleases() == [ids[1]])

            // Rolling forward again (--to a newer release, --force for its mark) leaves the first good.
            let dry = try ratecard(["rollback", "--root", fixture.root, "--to", "2", "--force", "--dry-run"], in: fixture.repo)
            #expect(dry.out.hasPrefix("Would roll forward \(fixture.root) from \(ids[0]) to \(ids[1]) ("), "\(dry.out)")
            #expect(dry.out.hasSuffix("; \(ids[0]) would not be marked bad (--to without --mark-bad). Nothing was changed.\n"), "\(dry.out)")
            let forward = try ratecard(["rollback", "--root", fixture.root, "--to", "2", "--force", "-m", "it was fine", "--format", "json"], in: fixture.repo)
            #expect(forward.status == 0, "\(forward.err)")
            let done = try JSONReader.parse(Array(forward.out.utf8))
            #expect(done["direction"] == .string("forward") && done["marked_bad"] == .bool(false) && done["target_was_bad"] == .bool(true), "\(forward.out)")
            #expect(try serve.live() == ids[1])
            #expect(try serve.badReleases().isEmpty, "rolling forward marked the release it left bad")
            #expect(try serve.journal.entries().last?.fields["marks_bad"] == .bool(false))

            // So the next bare rollback finds it.
            let again = try ratecard(["rollback", "--root", fixture.root, "-m", "wrong band after all"], in: fixture.repo)
            #expect(again.status == 0, "\(again.out)\(again.err)")
            #expect(try serve.live() == ids[0])
            #expect(try serve.badReleases() == [ids[1]])

            // status says who made the live release live, and why.
            let status = try ratecard(["status", "--root", fixture.root], in: fixture.repo)
            #expect(status.out.contains(" (rollback by \(user) from \(ids[1]): wrong band after all)\n"), "\(status.out)")
            let statusJSON = try JSONReader.parse(Array(try ratecard(["status", "--root", fixture.root, "--format", "json"], in: fixture.repo).out.utf8))
            #expect(statusJSON["activated_by"] == .string("rollback") && statusJSON["activated_by_user"] == .string(user), "\(statusJSON)")
            #expect(statusJSON["activation_message"] == .string("wrong band after all") && statusJSON["activated_from"] == .string(ids[1]))

            // releases says it for every release: each rollback to it and from it, in order.
            let releases = try ratecard(["releases", "--root", fixture.root], in: fixture.repo)
            #expect(releases.status == 0, "\(releases.err)")
            let lines = releases.out.split(separator: "\n").map(String.init)
            let expected = [
                "\(ids[1])", "    rolled back to \(ids[0]) * by \(user) (marked bad): wrong band", "    made live by a roll forward from \(ids[0]) * by \(user): it was fine",
                "    rolled back to \(ids[0]) * by \(user) (marked bad): wrong band after all",
                "\(ids[0])", "    made live by a rollback from \(ids[1]) * by \(user): wrong band", "    rolled forward to \(ids[1]) * by \(user): it was fine",
                "    made live by a rollback from \(ids[1]) * by \(user): wrong band after all",
            ]
            #expect(lines.count == expected.count, "\(releases.out)")
            for (line, pattern) in zip(lines, expected) {
                let parts = pattern.components(separatedBy: " * ")
                #expect(line.hasPrefix(parts[0]) && (parts.count == 1 || line.hasSuffix(parts[1])), "\(line) is not \(pattern)")
            }
            #expect(lines[0].hasSuffix("[bad]") && lines[4].hasSuffix("[live]"), "\(releases.out)")
            let json = try JSONReader.parse(Array(try ratecard(["releases", "--root", fixture.root, "--format", "json"], in: fixture.repo).out.utf8))
            let first = try #require(json["releases"]?.arrayValue?.last)
            let history = try #require(first["history"]?.arrayValue)
            #expect(history.map { $0["event"]?.stringValue } == ["made_live", "rolled_forward_from", "made_live"])
            #expect(history.map { $0["direction"]?.stringValue } == ["back", "forward", "back"])
            #expect(history[1]["to"] == .string(ids[1]) && history[1]["marks_bad"] == .bool(false) && history[1]["message"] == .string("it was fine"))
            #expect(history[2]["user"] == .string(user) && history[2]["from"] == .string(ids[1]))

            // --limit shows the newest releases and says how many more there are.
            let newest = try ratecard(["releases", "--root", fixture.root, "--limit", "1"], in: fixture.repo)
            #expect(newest.status == 0, "\(newest.err)")
            #expect(newest.out.hasPrefix("\(ids[1])") && !newest.out.contains("\n\(ids[0])") && newest.out.hasSuffix("... 1 older (--limit 2 shows all)\n"), "\(newest.out)")
            let page = try JSONReader.parse(Array(try ratecard(["releases", "--root", fixture.root, "--limit", "1", "--format", "json"], in: fixture.repo).out.utf8))
            #expect(page["releases"]?.arrayValue?.count == 1 && page["total"] == .int(2), "\(page)")
            let bad = try ratecard(["releases", "--root", fixture.root, "--limit", "-1"], in: fixture.repo)
            #expect(bad.status == 2 && bad.err.contains("'--limit' is how many of the newest releases to show"), "\(bad.err)")
        }
    }

    /// The history says what happened and who did it: a roll forward is named one, a cleared
    /// bad mark shows who cleared it, when and why, a command run under sudo names the person
    /// who ran it, and `status` names what it checked (the seal, not the files).
    @Test func theHistoryNamesWhatHappenedAndWho() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory)
            try fixture.publishEach()
            let serve = ServeRoot(path: fixture.root)
            let ids = try serve.releaseIDs()
            let (user, alice) = (ProcessUser.name, "alice (via sudo as \(ProcessUser.effective))")
            let sudo = ["SUDO_USER": "alice"]
            #expect(try ratecard(["rollback", "--root", fixture.root, "-m", "wrong band"], in: fixture.repo, environment: sudo).status == 0)
            let clear = try ratecard(["releases", "--root", fixture.root, "--clear-bad", "2", "-m", "the band was right"], in: fixture.repo)
            #expect(clear.status == 0, "\(clear.err)")
            #expect(try ratecard(["rollback", "--root", fixture.root, "--to", "2", "-m", "forward again"], in: fixture.repo, environment: sudo).status == 0)
            let entries = try serve.journal.entries()
            #expect(entries.filter { $0.action == .rollback }.map(\.user) == [alice, alice], "\(entries.map(\.user))")
            #expect(entries.filter { $0.action == .rollback }.map { $0.fields["direction"] } == [.string("back"), .string("forward")])

            let lines = try ratecard(["releases", "--root", fixture.root], in: fixture.repo).out.split(separator: "\n").map(String.init)
            let expected = [
                "\(ids[1])", "    rolled back to \(ids[0]) * by \(alice) (marked bad): wrong band", "    bad mark cleared * by \(user): the band was right",
                "    made live by a roll forward from \(ids[0]) * by \(alice): forward again",
                "\(ids[0])", "    made live by a rollback from \(ids[1]) * by \(alice): wrong band", "    rolled forward to \(ids[1]) * by \(alice): forward again",
            ]
            #expect(lines.count == expected.count, "\(lines)")
            for (line, pattern) in zip(lines, expected) {
                let parts = pattern.components(separatedBy: " * ")
                #expect(line.hasPrefix(parts[0]) && (parts.count == 1 || line.hasSuffix(parts[1])), "\(line) is not \(pattern)")
            }
            let korean = try ratecard(["releases", "--root", fixture.root, "--lang", "ko"], in: fixture.repo).out
            for phrase in ["불량 표시 지움 ", "\(ids[0])에서 앞으로 되돌려 라이브가 됨 ", "로 앞으로 되돌림 "] {
                #expect(korean.contains(phrase), "\(phrase) is not in \(korean)")
            }
            // One rollback, one roll forward: "롤백됨" names only the first.
            #expect(korean.components(separatedBy: "롤백됨").count == 2, "\(korean)")
            // Who and the mark follow the time, never a parenthesis in a parenthesis.
            #expect(korean.contains(", 실행한 사람: \(alice), 불량 표시: wrong band\n"), "\(korean)")
            for line in korean.split(separator: "\n") {
                var depth = 0
                for character in line {
                    depth += character == "(" ? 1 : character == ")" ? -1 : 0
                    #expect(depth <= 1, "a parenthesis in a parenthesis: \(line)")
                }
            }
            let json = try JSONReader.parse(Array(try ratecard(["releases", "--root", fixture.root, "--format", "json"], in: fixture.repo).out.utf8))
            let history = try #require(json["releases"]?.arrayValue?.first?["history"]?.arrayValue)
            #expect(history.map { $0["event"]?.stringValue } == ["rolled_back_from", "bad_mark_cleared", "made_live"], "\(history)")
            #expect(history[1]["user"] == .string(user) && history[1]["message"] == .string("the band was right") && history[1]["time"]?.stringValue?.hasSuffix("Z") == true)

            let status = try ratecard(["status", "--root", fixture.root], in: fixture.repo).out
            #expect(status.contains(" (roll forward by \(alice) from \(ids[0]): forward again)\n"), "\(status)")
            let statusKo = try ratecard(["status", "--root", fixture.root, "--lang", "ko"], in: fixture.repo).out
            #expect(statusKo.contains(" (\(ids[0])에서 앞으로 되돌림, 실행한 사람: \(alice): forward again)\n"), "\(statusKo)")

            // A file changed behind ratecard's back: verify finds it, and status does not say the
            // release verified (it checked the seal of version.json, not the files).
            // (an object of the live release: the store also holds other releases' public file lists)
            let liveRoot = ServeRoot(path: fixture.root)
            let named = try ReleaseInfo.read(from: liveRoot.folder(of: try #require(try liveRoot.live()))).objectNames
            let objects = try FileSystem.listDirectory(fixture.root + "/objects").filter { !$0.hasPrefix(".") && named.contains($0) }.sorted()
            let object = fixture.root + "/objects/" + (try #require(objects.first))
            chmod(object, 0o644)
            let fd = open(object, O_WRONLY | O_TRUNC)
            try #require(fd >= 0)
            _ = write(fd, "changed", 7)
            close(fd)
            #expect(try ratecard(["verify", "--root", fixture.root], in: fixture.repo).status == 1)
            let after = try ratecard(["status", "--root", fixture.root], in: fixture.repo).out
            #expect(!after.contains("verified") && !after.contains(": yes"), "\(after)")
            #expect(after.contains("manifest:  version.json is as published (its seal); the files themselves were not checked here: 'ratecard verify' checks every file\n"), "\(after)")
            let afterJSON = try JSONReader.parse(Array(try ratecard(["status", "--root", fixture.root, "--format", "json"], in: fixture.repo).out.utf8))
            #expect(afterJSON["verified"] == nil && afterJSON["checked"] == .string("version.json seal") && afterJSON["seal_ok"] == .bool(true), "\(afterJSON)")
        }
    }

    @Test func markBadMarksTheReleaseLeftByANamedRollback() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 3)
            try fixture.publishEach()
            let serve = ServeRoot(path: fixture.root)
            let ids = try serve.releaseIDs()
            // Back past a release: not a verdict on the release left either.
            let skip = try ratecard(["rollback", "--root", fixture.root, "--to", "1", "-m", "back to the start"], in: fixture.repo)
            #expect(skip.status == 0, "\(skip.err)")
            #expect(skip.out.hasSuffix("; \(ids[2]) is not marked bad (--to without --mark-bad).\n"), "\(skip.out)")
            #expect(try serve.badReleases().isEmpty)
            let marked = try ratecard(["rollback", "--root", fixture.root, "--to", "2", "--mark-bad", "-m", "the first is wrong"], in: fixture.repo)
            #expect(marked.status == 0, "\(marked.err)")
            #expect(marked.out.hasSuffix("; \(ids[0]) is marked bad.\n"), "\(marked.out)")
            #expect(try serve.badReleases() == [ids[0]])
            // --mark-bad names a release left by --to: a bare rollback marks it anyway.
            let alone = try ratecard(["rollback", "--root", fixture.root, "--mark-bad", "-m", "x"], in: fixture.repo)
            #expect(alone.status == 2)
            #expect(alone.err.hasPrefix("Error: '--mark-bad' goes with '--to <id>'"), "\(alone.err)")
        }
    }

    /// A rollback killed after its swap is recorded by the next run's recovery as the rollback
    /// it was (who, why, whether it marked the release it left).
    @Test func aRecoveredRollbackKeepsItsReasonAndItsMark() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory)
            try fixture.publishEach()
            let serve = ServeRoot(path: fixture.root)
            let ids = try serve.releaseIDs()
            let process = try fixture.start(["rollback", "--root", fixture.root, "--to", "1", "-m", "forward later"], environment: ["RATECARD_CRASH_AT": "swapped"])
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)
            #expect(try serve.live() == ids[0])
            #expect(try serve.badReleases().isEmpty)
            // The next command that takes the lock journals the swap.
            #expect(try ratecard(["prune", "--root", fixture.root, "--keep", "10"], in: fixture.repo).status == 0)
            #expect(try serve.journal.entries().contains { $0.action == .recover })
            #expect(try serve.badReleases().isEmpty)
            let status = try ratecard(["status", "--root", fixture.root], in: fixture.repo)
            #expect(status.out.contains(" (rollback by \(ProcessUser.name) from \(ids[1]): forward later)\n"), "\(status.out)")
        }
    }

    @Test func logSaysWhetherAChangeIsLiveNow() throws {
        try withTemporaryDirectory { directory in
            let history = try ScriptedHistory(in: directory)
            let fixture = history.fixture
            #expect(try ratecard(fixture.publishArguments(history.commits[0]), in: fixture.repo).status == 0)
            #expect(try ratecard(fixture.publishArguments(history.commits[1]), in: fixture.repo).status == 0)
            let second = try #require(try ServeRoot(path: fixture.root).live())
            #expect(try ratecard(["rollback", "--root", fixture.root, "-m", "coral paused by mistake"], in: fixture.repo).status == 0)
            let first = try #require(try ServeRoot(path: fixture.root).live())
            let log = ["log", "--partner", "coral-card", "--root", fixture.root, "--as-of", "2026-11-29"]
            let rolledBack = try ratecard(log, in: fixture.repo)
            // The newest commit first: the pause, which is not live now.
            let pause = rolledBack.out.split(separator: "\n").prefix(5).map(String.init)
            #expect(pause.first?.hasSuffix("Pause Coral Card") == true && pause.last == "    not live now (live: \(first))", "\(rolledBack.out)")

            // Rolled forward: the pause is live again, and the log ends so.
            #expect(try ratecard(["rollback", "--root", fixture.root, "--to", second, "--force", "-m", "the pause was right"], in: fixture.repo).status == 0)
            let forward = try ratecard(log, in: fixture.repo)
            #expect(forward.status == 0, "\(forward.err)")
            let lines = forward.out.split(separator: "\n").map(String.init)
            #expect(lines.count >= 7 && !lines[6].hasPrefix(" "), "\(forward.out)")
            try #require(lines.count >= 7, "\(forward.out)")
            #expect(lines[2].hasPrefix("    live in release \(second) since ") && lines[2].hasSuffix(" (publish)"), "\(lines[2])")
            #expect(lines[3].hasPrefix("    rolled back from \(second) at ") && lines[3].hasSuffix(": coral paused by mistake"), "\(lines[3])")
            #expect(lines[4].hasPrefix("    live again in release \(second) since "), "\(lines[4])")
            #expect(lines[4].hasSuffix(" (roll forward by \(ProcessUser.name): the pause was right)"), "\(lines[4])")
            let korean = try ratecard(log + ["--lang", "ko"], in: fixture.repo).out.split(separator: "\n").map(String.init)
            #expect(korean.count >= 5 && korean[4].hasSuffix(" (앞으로 되돌림, 실행한 사람: \(ProcessUser.name): the pause was right)"), "\(korean)")
            #expect(lines[5] == "    live now (release \(second))")
            let json = try JSONReader.parse(Array(try ratecard(log + ["--format", "json"], in: fixture.repo).out.utf8))
            let event = try #require(json["events"]?.arrayValue?.first)
            #expect(event["live_now"] == .bool(true))
            #expect(event["releases"]?.arrayValue?.map { $0["action"]?.stringValue } == ["publish", "rollback", "rollback"])
        }
    }
}
