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

        init(in directory: String) throws {
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
            for environment in ["staging", "production"] {
                let first = try ratecard(publish(environment) + ["-m", "first"], in: fixture.repo)
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
            let again = try ratecard(["rollback", "--env", "production", "-m", "again"], in: setup.fixture.repo)
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
