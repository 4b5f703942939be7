import Foundation
import RatecardKit
import Testing

/// The protected-environment gate fails closed: for every way the live-vs-next diff can fail to
/// be computed, publish and promote refuse without `--approve` (exit 1, live unchanged), and an
/// approval records that the change went unchecked.
@Suite struct ApprovalGateTests {
    /// The base content with `staging` (open) and `production` (protected), published once to both.
    struct Protected {
        let fixture: PublishFixture
        let staging: ServeRoot
        let production: ServeRoot

        /// Commits a copy of acme-bank/credit's table that takes effect on `day` with the lowest
        /// band's ceiling 4.5pp higher (9.8% to 14.3%): a risky move scheduled ahead.
        func commitScheduledMove(on day: String, message: String = "January") throws {
            let rates = fixture.repo + "/products/acme-bank/credit/rates/"
            let current = String(decoding: try FileSystem.readFile(rates + "2026-01-15.yaml"), as: UTF8.self)
            let scheduled = current.replacingOccurrences(of: "effective_from: 2026-01-15", with: "effective_from: \(day)")
                .replacingOccurrences(of: "apr_max_pct: 9.8", with: "apr_max_pct: 14.3")
            try FileSystem.writeFile(rates + "\(day).yaml", Array(scheduled.utf8))
            try Repository.open(at: fixture.repo).commitAll(message: message, author: Signature(name: "Kim Minji", email: "minji@example.com"))
        }

        /// Rewrites the live release's `"source_commit": "<id>"` in its version.json; the live id.
        @discardableResult
        func replaceLiveSourceCommit(with field: String) throws -> String {
            let live = try #require(try production.live())
            let path = production.folder(of: live) + "/version.json"
            let text = String(decoding: try FileSystem.readFile(path), as: UTF8.self)
            let commit = try #require(text.firstMatch(of: /"source_commit": ?"[0-9a-f]+"/)).output
            chmod(path, 0o644)
            try FileSystem.writeFile(path, Array(text.replacingOccurrences(of: String(commit), with: field).utf8))
            return live
        }

        /// Journals the seal of the live release's version.json as it is now, as someone who can
        /// write the serve root could: the record is then consistent again (what the seal cannot
        /// protect against).
        func resealLive() throws {
            let live = try #require(try production.live())
            let seal = try production.versionHash(of: live)
            try production.journal.append(["action": .string("publish"), "time": .string("2026-11-29T00:00:00Z"), "release": .string(live), "version_sha256": .string(seal)])
        }

        /// A rate move over the threshold (+3.5pp), committed.
        func commitBigMove(in repo: String) throws {
            let table = repo + "/products/acme-bank/credit/rates/2026-01-15.yaml"
            let text = String(decoding: try FileSystem.readFile(table), as: UTF8.self)
            try FileSystem.writeFile(table, Array(text.replacingOccurrences(of: "apr_max_pct: 9.8", with: "apr_max_pct: 13.3").utf8))
            try Repository.open(at: repo).commitAll(message: "Big move", author: Signature(name: "Kim Minji", email: "minji@example.com"))
        }

        /// `publishing`: the environments published to (production with an approval).
        init(in directory: String, publishing: [String] = ["staging", "production"]) throws {
            fixture = try PublishFixture(in: directory, commits: 1)
            try FileSystem.writeFile(
                fixture.repo + "/ratecard.yaml",
                Array(
                    """
                    service_name: 레이트카드
                    broker_registration_no: "제2021-0123호"
                    timezone: Asia/Seoul
                    rate_move_warn_pp: 3.0
                    environments:
                      staging:
                        root: ../staging
                      production:
                        root: ../production
                        protected: true

                    """.utf8))
            try Repository.open(at: fixture.repo).commitAll(message: "Environments", author: Signature(name: "Kim Minji", email: "minji@example.com"))
            staging = ServeRoot(path: directory + "/staging")
            production = ServeRoot(path: directory + "/production")
            for environment in publishing {
                // A first release to a protected environment needs an approval too.
                let approval = environment == "production" ? ["--approve", "First release"] : []
                let first = try ratecard(publish(environment) + ["-m", "first"] + approval, in: fixture.repo)
                try #require(first.status == 0, "\(first.out)\(first.err)")
            }
        }

        func publish(_ environment: String) -> [String] {
            ["publish", "--env", environment, "--web", fixture.web, "--as-of", "2026-11-29"]
        }

        /// A harmless edit (a 0.1pp move, under the threshold), committed.
        func commitSmallChange(in repo: String) throws {
            let table = repo + "/products/acme-bank/credit/rates/2026-01-15.yaml"
            let text = String(decoding: try FileSystem.readFile(table), as: UTF8.self)
            try FileSystem.writeFile(table, Array(text.replacingOccurrences(of: "apr_max_pct: 9.8", with: "apr_max_pct: 9.9").utf8))
            try Repository.open(at: repo).commitAll(message: "Small move", author: Signature(name: "Kim Minji", email: "minji@example.com"))
        }

        /// Publishing to production is refused with `reason` in the message, live unchanged; with
        /// --approve it goes through and the journal says the risks were not computed.
        func expectRefusedThenApproved(from repo: String, reason: String) throws {
            let live = try production.live()
            let refused = try ratecard(publish("production") + ["-m", "unchecked"], in: repo)
            #expect(refused.status == 1, "\(refused.out)\(refused.err)")
            #expect(refused.err.contains("production is protected and this change is risky:\n  - the change could not be checked for risks: "), "\(refused.err)")
            #expect(refused.err.contains(reason), "\(refused.err)")
            #expect(try production.live() == live)
            let approved = try ratecard(publish("production") + ["-m", "unchecked", "--approve", "Checked by hand"], in: repo)
            #expect(approved.status == 0, "\(approved.out)\(approved.err)")
            let entry = try #require(try production.journal.entries().last)
            #expect(entry.action == .publish)
            #expect(entry.approval?.reason == "Checked by hand")
            #expect(entry.approval?.risks?.first?.hasPrefix("the change could not be checked for risks") == true)
        }
    }

    /// Nothing live to compare with: a first release makes everything live at once, unreviewed
    /// against anything, so a protected environment asks for an approval, by publish or promote.
    @Test func aFirstReleaseToAProtectedEnvironmentNeedsAnApproval() throws {
        try withTemporaryDirectory { directory in
            let setup = try Protected(in: directory, publishing: ["staging"])
            let refused = try ratecard(setup.publish("production") + ["-m", "first"], in: setup.fixture.repo)
            #expect(refused.status == 1, "\(refused.out)\(refused.err)")
            #expect(refused.err.contains("production is protected and this change is risky:\n  - \(ApprovalGate.firstRelease.english)\n"), "\(refused.err)")
            #expect(try setup.production.live() == nil)
            let promote = ["promote", "--from", "staging", "--to", "production", "-m", "checked on staging"]
            let refusedPromote = try ratecard(promote, in: setup.fixture.repo)
            #expect(refusedPromote.status == 1, "\(refusedPromote.out)\(refusedPromote.err)")
            #expect(refusedPromote.err.contains(ApprovalGate.firstRelease.english), "\(refusedPromote.err)")
            #expect(try setup.production.live() == nil)
            let approved = try ratecard(promote + ["--approve", "Launch sign-off"], in: setup.fixture.repo)
            #expect(approved.status == 0, "\(approved.out)\(approved.err)")
            let entry = try #require(try setup.production.journal.entries().last)
            #expect(entry.action == .promote && entry.approval?.reason == "Launch sign-off" && entry.approval?.risks == [ApprovalGate.firstRelease.english])
            // status and releases say who promoted it and why (the -m of the promote, not the publish's).
            let status = try ratecard(["status", "--env", "production"], in: setup.fixture.repo)
            #expect(status.out.contains(" (promote by \(ProcessUser.name): checked on staging)\n"), "\(status.out)")
            #expect(status.out.contains("approved:  Launch sign-off"), "\(status.out)")
            let releases = try ratecard(["releases", "--env", "production"], in: setup.fixture.repo)
            #expect(releases.out.contains("\n    promoted "), "\(releases.out)")
            #expect(releases.out.hasSuffix(" by \(ProcessUser.name): checked on staging\n"), "\(releases.out)")
            // The next release is judged against what is live, as always.
            try setup.commitSmallChange(in: setup.fixture.repo)
            #expect(try ratecard(setup.publish("production") + ["-m", "small"], in: setup.fixture.repo).status == 0)
        }
    }

    @Test func aLiveCommitMissingFromTheCloneIsRefusedNotWavedThrough() throws {
        try withTemporaryDirectory { directory in
            let setup = try Protected(in: directory)
            // The history squashed into a new repository: the live release's commit is not in it.
            let squashed = directory + "/squashed"
            try FileSystem.copyTree(from: setup.fixture.repo, to: squashed)
            let repository = try Repository.create(at: squashed)
            try repository.commitAll(message: "Squashed", author: Signature(name: "Kim Minji", email: "minji@example.com"))
            try setup.commitSmallChange(in: squashed)
            try setup.expectRefusedThenApproved(from: squashed, reason: "cannot be read from this clone")
        }
    }

    @Test func aLiveReleaseWithoutACommitIsRefused() throws {
        try withTemporaryDirectory { directory in
            let setup = try Protected(in: directory)
            try setup.replaceLiveSourceCommit(with: #""source_commit":null"#)
            try setup.resealLive()
            try setup.commitSmallChange(in: setup.fixture.repo)
            try setup.expectRefusedThenApproved(from: setup.fixture.repo, reason: "names no source commit")
        }
    }

    /// A release names its commit by id: a branch name there would be read as whatever the
    /// branch is now (HEAD's own content, so "no risk"), so it makes the release unreadable: refused, and nothing changes.
    @Test func aLiveReleaseNamingABranchInsteadOfACommitIsRefused() throws {
        try withTemporaryDirectory { directory in
            let setup = try Protected(in: directory)
            let live = try setup.replaceLiveSourceCommit(with: #""source_commit":"HEAD""#)
            try setup.commitSmallChange(in: setup.fixture.repo)
            let refused = try ratecard(setup.publish("production") + ["-m", "unchecked"], in: setup.fixture.repo)
            #expect(refused.status == 1, "\(refused.out)\(refused.err)")
            #expect(refused.err.contains("the change could not be checked for risks: the live release cannot be read"), "\(refused.err)")
            #expect(refused.err.contains("source_commit 'HEAD' is not a commit id"), "\(refused.err)")
            #expect(try setup.production.live() == live)
        }
    }

    /// The live record names the commit the gate diffs against: edited to name HEAD, a risky
    /// change would look like no change. It is used only while it matches the seal journaled
    /// when it was published; else the change is unchecked: refused, or approved and journaled so.
    @Test func anEditedLiveRecordIsNotTrustedByTheGate() throws {
        try withTemporaryDirectory { directory in
            let setup = try Protected(in: directory)
            try setup.commitBigMove(in: setup.fixture.repo)
            let head = try Repository.open(at: setup.fixture.repo).resolveCommit("HEAD")
            let live = try setup.replaceLiveSourceCommit(with: #""source_commit": "\#(head.hex)""#)
            let reason = "the live release \(live)'s version.json does not match the seal journaled when it was published (it was changed since), so the commit it names is not trusted"
            try setup.expectRefusedThenApproved(from: setup.fixture.repo, reason: reason)
            let entry = try #require(try setup.production.journal.entries().last)
            #expect(entry.approval?.risks?.first == "the change could not be checked for risks: \(reason)")
        }
    }

    /// `--if-stale` rebuilds the commit the live record names: not when the record was changed.
    @Test func ifStaleRefusesAnEditedLiveRecord() throws {
        try withTemporaryDirectory { directory in
            let setup = try Protected(in: directory)
            try setup.commitSmallChange(in: setup.fixture.repo)
            let head = try Repository.open(at: setup.fixture.repo).resolveCommit("HEAD")
            let live = try setup.replaceLiveSourceCommit(with: #""source_commit": "\#(head.hex)""#)
            let refused = try ratecard(["publish", "--env", "staging", "--if-stale", "--web", setup.fixture.web, "--as-of", "2026-11-30", "-m", "timer"], in: setup.fixture.repo)
            #expect(refused.status == 0, "staging is untouched: \(refused.err)")
            let timer = try ratecard(["publish", "--env", "production", "--if-stale", "--web", setup.fixture.web, "--as-of", "2026-11-30", "-m", "timer"], in: setup.fixture.repo)
            #expect(timer.status == 1, "\(timer.out)\(timer.err)")
            #expect(timer.err.contains("the live release \(live)'s version.json does not match the seal journaled when it was published"), "\(timer.err)")
            #expect(try setup.production.live() == live)
            let korean = try ratecard(["publish", "--env", "production", "--if-stale", "--web", setup.fixture.web, "--as-of", "2026-11-30", "-m", "timer", "--lang", "ko"], in: setup.fixture.repo)
            #expect(korean.status == 1)
            #expect(
                korean.err.contains("라이브 릴리스 \(live)의 version.json이 게시할 때 저널에 기록된 봉인과 맞지 않습니다 (그 뒤에 바뀌었습니다). --if-stale은 그 파일이 가리키는 커밋을 다시 빌드하므로"),
                "\(korean.err)")
        }
    }

    /// A rate table scheduled ahead with a +4.5pp move: the gate judges what the release shows on
    /// the table's day too, asks for the approval when it is published, journals it with the
    /// change and its day, and `publish --if-stale` on that day finds it instead of refusing.
    @Test func aScheduledRiskIsApprovedAtPublishAndHonouredByIfStale() throws {
        try withTemporaryDirectory { directory in
            let setup = try Protected(in: directory)
            let repo = setup.fixture.repo
            try setup.commitScheduledMove(on: "2027-01-04", message: "January: raise the lowest band's ceiling")
            let before = try setup.production.live()

            let publish = ["publish", "--env", "production", "--web", setup.fixture.web, "-m", "January rates"]
            let refused = try ratecard(publish + ["--as-of", "2026-11-29"], in: repo)
            #expect(refused.status == 1, "\(refused.out)\(refused.err)")
            #expect(
                refused.err.contains("  - scheduled from 2027-01-04: acme-bank/credit scores 0-800: APR moves 4.5pp, over the 3.0pp threshold\n"), "\(refused.err)")
            #expect(try setup.production.live() == before)

            let approved = try ratecard(publish + ["--as-of", "2026-11-29", "--approve", "Board memo 12"], in: repo)
            #expect(approved.status == 0, "\(approved.out)\(approved.err)")
            let first = try #require(try setup.production.live())
            let approval = try #require(try setup.production.journal.entries().last?.approval)
            #expect(approval.reason == "Board memo 12")
            #expect(approval.scheduled?.map(\.from) == ["2027-01-04"])
            #expect(approval.scheduled?.first?.change.contains("apr_max_pct 9.8 to 14.3") == true, "\(approval)")

            // An unrelated change published before the day keeps the scheduled change as it was
            // approved: no second approval, and the journal says where it was given.
            let card = repo + "/products/coral-card/card-loan/rates/2026-03-02.yaml"
            let text = String(decoding: try FileSystem.readFile(card), as: UTF8.self)
            try FileSystem.writeFile(card, Array(text.replacingOccurrences(of: "apr_max_pct: 9.9", with: "apr_max_pct: 10.0").utf8))
            try Repository.open(at: repo).commitAll(message: "Card loan: top band ceiling", author: Signature(name: "Kim Minji", email: "minji@example.com"))
            let small = try ratecard(publish + ["--as-of", "2026-12-01"], in: repo)
            #expect(small.status == 0, "\(small.out)\(small.err)")
            #expect(small.err.contains("Approved risky change for production: Board memo 12 (approved with release \(first))"), "\(small.err)")
            let second = try #require(try setup.production.live())
            #expect(second != first)
            #expect(try setup.production.journal.entries().last?.approval?.approvedIn == [first])

            // The timer on the day: the approval is found, the scheduled rate goes live.
            let timer = ["publish", "--env", "production", "--if-stale", "--web", setup.fixture.web, "-m", "scheduled content"]
            let early = try ratecard(timer + ["--as-of", "2027-01-03"], in: repo)
            #expect(early.status == 0, "\(early.err)")
            #expect(try setup.production.live() == second)
            let due = try ratecard(timer + ["--as-of", "2027-01-04"], in: repo)
            #expect(due.status == 0, "\(due.out)\(due.err)")
            let third = try #require(try setup.production.live())
            #expect(third != second)
            #expect(try ReleaseInfo.read(from: setup.production.folder(of: third)).asOf == "2027-01-04")
            let carried = try #require(try setup.production.journal.entries().last?.approval)
            #expect(carried.reason == "Board memo 12")
            #expect(carried.approvedIn?.contains(second) == true || carried.approvedIn?.contains(first) == true, "\(carried)")
            #expect(carried.risks == ["acme-bank/credit scores 0-800: APR moves 4.5pp, over the 3.0pp threshold"])
        }
    }

    /// The same through staging: promote to the protected environment asks for the approval of
    /// the scheduled move, and the timer on production finds it on the day.
    @Test func aScheduledRiskPromotedWithAnApprovalIsHonouredByIfStale() throws {
        try withTemporaryDirectory { directory in
            let setup = try Protected(in: directory)
            let repo = setup.fixture.repo
            try setup.commitScheduledMove(on: "2099-01-04", message: "January")
            let staged = try ratecard(setup.publish("staging") + ["-m", "January rates"], in: repo)
            try #require(staged.status == 0, "\(staged.out)\(staged.err)")
            let promote = ["promote", "--from", "staging", "--to", "production", "-m", "checked on staging"]
            let refused = try ratecard(promote, in: repo)
            #expect(refused.status == 1, "\(refused.out)\(refused.err)")
            #expect(refused.err.contains("  - scheduled from 2099-01-04: acme-bank/credit scores 0-800: APR moves 4.5pp"), "\(refused.err)")
            let approved = try ratecard(promote + ["--approve", "Board memo 12"], in: repo)
            #expect(approved.status == 0, "\(approved.out)\(approved.err)")
            let promoted = try #require(try setup.production.live())
            #expect(try setup.production.journal.entries().last?.approval?.scheduled?.first?.from == "2099-01-04")
            let due = try ratecard(
                ["publish", "--env", "production", "--if-stale", "--web", setup.fixture.web, "--as-of", "2099-01-04", "-m", "scheduled content"], in: repo)
            #expect(due.status == 0, "\(due.out)\(due.err)")
            #expect(try setup.production.live() != promoted)
            #expect(try setup.production.journal.entries().last?.approval?.approvedIn == [promoted])
        }
    }

    /// On its day, a scheduled move is honoured only for the exact change approved (product,
    /// band, every value): a journaled approval of another value (a journal edited, or a release
    /// published before the gate judged scheduled changes) covers nothing, and the timer refuses.
    @Test func aScheduledMoveIsHonouredOnlyForTheValuesApproved() throws {
        try withTemporaryDirectory { directory in
            let setup = try Protected(in: directory)
            let repo = setup.fixture.repo
            try setup.commitScheduledMove(on: "2027-01-04", message: "January")
            let publish = ["publish", "--env", "production", "--web", setup.fixture.web, "-m", "January rates"]
            #expect(try ratecard(publish + ["--as-of", "2026-11-29", "--approve", "Board memo 12"], in: repo).status == 0)
            let live = try setup.production.live()
            let path = setup.production.journal.path
            let journal = String(decoding: try FileSystem.readFile(path), as: UTF8.self)
            #expect(journal.contains("apr_max_pct 9.8 to 14.3"))
            try FileSystem.writeFile(path, Array(journal.replacingOccurrences(of: "apr_max_pct 9.8 to 14.3", with: "apr_max_pct 9.8 to 14.2").utf8))
            let due = try ratecard(["publish", "--env", "production", "--if-stale", "--web", setup.fixture.web, "--as-of", "2027-01-04", "-m", "timer"], in: repo)
            #expect(due.status == 1, "\(due.out)\(due.err)")
            #expect(due.err.contains("  - acme-bank/credit scores 0-800: APR moves 4.5pp, over the 3.0pp threshold\n"), "\(due.err)")
            #expect(try setup.production.live() == live)
        }
    }

    @Test func anUnreadableLiveReleaseIsRefused() throws {
        try withTemporaryDirectory { directory in
            let setup = try Protected(in: directory)
            let live = try #require(try setup.production.live())
            let path = setup.production.folder(of: live) + "/version.json"
            chmod(path, 0o644)
            try FileSystem.writeFile(path, Array("{ torn".utf8))
            try setup.commitSmallChange(in: setup.fixture.repo)
            let refused = try ratecard(setup.publish("production") + ["-m", "unchecked"], in: setup.fixture.repo)
            #expect(refused.status == 1, "\(refused.out)\(refused.err)")
            #expect(refused.err.contains("the change could not be checked for risks: the live release cannot be read"), "\(refused.err)")
            #expect(try setup.production.live() == live)
        }
    }

    @Test func promoteWithoutARepositoryToReadIsRefused() throws {
        try withTemporaryDirectory { directory in
            let setup = try Protected(in: directory)
            try setup.commitSmallChange(in: setup.fixture.repo)
            let staged = try ratecard(setup.publish("staging") + ["-m", "next"], in: setup.fixture.repo)
            try #require(staged.status == 0, "\(staged.err)")
            // The same ratecard.yaml in a folder that is no git repository (a copy without .git).
            let copy = directory + "/copy"
            try FileSystem.copyTree(from: setup.fixture.repo, to: copy)
            let live = try setup.production.live()
            let promote = ["promote", "--from", "staging", "--to", "production", "-m", "ship"]
            let refused = try ratecard(promote, in: copy)
            #expect(refused.status == 1, "\(refused.out)\(refused.err)")
            #expect(refused.err.contains("the change could not be checked for risks: "), "\(refused.err)")
            #expect(try setup.production.live() == live)
            let approved = try ratecard(promote + ["--approve", "Checked on staging"], in: copy)
            #expect(approved.status == 0, "\(approved.out)\(approved.err)")
            #expect(try setup.production.live() == setup.staging.live())
            // From the repository the same promotion is checked: a small move needs no approval.
            // (Back with --to, which marks nothing bad: a release marked bad is not promoted again.)
            let again = try ratecard(["rollback", "--env", "production", "--to", try #require(live), "-m", "again"], in: setup.fixture.repo)
            try #require(again.status == 0, "\(again.err)")
            let checked = try ratecard(promote, in: setup.fixture.repo)
            #expect(checked.status == 0, "\(checked.out)\(checked.err)")
        }
    }

    @Test func aProtectedEnvironmentNamedByItsFolderIsStillGated() throws {
        try withTemporaryDirectory { directory in
            let setup = try Protected(in: directory)
            let table = setup.fixture.repo + "/products/acme-bank/credit/rates/2026-01-15.yaml"
            let text = String(decoding: try FileSystem.readFile(table), as: UTF8.self)
            try FileSystem.writeFile(table, Array(text.replacingOccurrences(of: "apr_max_pct: 9.8", with: "apr_max_pct: 13.3").utf8))
            try Repository.open(at: setup.fixture.repo).commitAll(message: "Big move", author: Signature(name: "Kim Minji", email: "minji@example.com"))
            let live = try setup.production.live()
            for folder in [directory + "/production", directory + "/repo/../production"] {
                let refused = try ratecard(["publish", "--root", folder, "--web", setup.fixture.web, "--as-of", "2026-11-29", "-m", "by path"], in: setup.fixture.repo)
                #expect(refused.status == 1, "\(folder): \(refused.out)\(refused.err)")
                #expect(refused.err.contains("production is protected and this change is risky"), "\(refused.err)")
                #expect(try setup.production.live() == live)
            }
            let staged = try ratecard(setup.publish("staging") + ["-m", "big move"], in: setup.fixture.repo)
            try #require(staged.status == 0, "\(staged.err)")
            let promoted = try ratecard(["promote", "--from", "staging", "--to", directory + "/production", "-m", "by path"], in: setup.fixture.repo)
            #expect(promoted.status == 1, "\(promoted.out)\(promoted.err)")
            #expect(try setup.production.live() == live)
        }
    }
}
