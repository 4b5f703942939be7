import Foundation
import Glibc
import RatecardKit
import Testing

/// What release managers do between publishes: promote, prune, look at what is live.
@Suite struct ReleaseManagementTests {
    @Test func promotedReleasesShareNoInodeWithTheirSource() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory)
            try #require(try ratecard(fixture.publishArguments(fixture.commits[0]), in: fixture.repo).status == 0)
            let production = directory + "/production"
            let promoted = try ratecard(["promote", "--from", fixture.root, "--to", production, "-m", "ship"], in: fixture.repo)
            try #require(promoted.status == 0, "\(promoted.err)")
            let id = try #require(try ServeRoot(path: fixture.root).live())
            let staging = ServeRoot(path: fixture.root).folder(of: id)
            let shipped = ServeRoot(path: production).folder(of: id)
            for path in try ReleaseFiles.list(release: staging) {
                var a = stat()
                var b = stat()
                try #require(stat(staging + "/" + path, &a) == 0 && stat(shipped + "/" + path, &b) == 0)
                #expect(a.st_ino != b.st_ino, "\(path) is one inode in both environments")
            }
            // A file changed in staging's copy leaves production's as it was.
            let page = staging + "/index.html"
            chmod(page, 0o644)
            try FileSystem.writeFile(page, Array("changed on staging\n".utf8))
            let verify = try ratecard(["verify", "--root", production], in: fixture.repo)
            #expect(verify.status == 0, "\(verify.out)\(verify.err)")
        }
    }

    /// A bundle a rollback marked bad is not shipped again unnoticed: publish and promote
    /// refuse it (exit 3) naming the mark and its reason, unless --force, which is journaled.
    @Test func aBundleMarkedBadIsRefusedUnlessForced() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 2)
            let ids = try fixture.publishEach()
            let back = try ratecard(["rollback", "--root", fixture.root, "-m", "wrong band"], in: fixture.repo)
            try #require(back.status == 0, "\(back.err)")
            // The same commit again builds the same bundle as the release marked bad.
            let again = try ratecard(fixture.publishArguments(fixture.commits[1]), in: fixture.repo)
            #expect(again.status == 3, "\(again.out)\(again.err)")
            #expect(again.err.contains("release \(ids[1])") && again.err.contains("marked bad") && again.err.contains("'wrong band'"), "\(again.err)")
            #expect(again.err.contains("--force"), "\(again.err)")
            #expect(try ServeRoot(path: fixture.root).live() == ids[0])
            #expect(try ServeRoot(path: fixture.root).releaseIDs().count == 2)
            // Promoting the bad release itself elsewhere is refused the same way.
            let production = directory + "/production"
            let promote = try ratecard(["promote", "--from", fixture.root, "--to", production, "--release", ids[1], "-m", "ship"], in: fixture.repo)
            #expect(promote.status == 3, "\(promote.out)\(promote.err)")
            #expect(promote.err.contains("release \(ids[1])") && promote.err.contains("'wrong band'"), "\(promote.err)")
            #expect(try ServeRoot(path: production).live() == nil)
            // A good release still promotes.
            let good = try ratecard(["promote", "--from", fixture.root, "--to", production, "--release", ids[0], "-m", "ship"], in: fixture.repo)
            #expect(good.status == 0, "\(good.err)")
            // --force ships it, and the journal says over which mark.
            let forced = try ratecard(fixture.publishArguments(fixture.commits[1], ["--force"]), in: fixture.repo)
            #expect(forced.status == 0, "\(forced.out)\(forced.err)")
            let journal = String(decoding: try FileSystem.readFile(fixture.root + "/.ratecard/journal.jsonl"), as: UTF8.self)
            let last = try #require(journal.split(separator: "\n").last)
            #expect(last.contains("\"forced_over_bad\":\"\(ids[1])\""), "\(last)")
            // Once it is live, publishing it again is the no-op it always was, not a refusal.
            let same = try ratecard(fixture.publishArguments(fixture.commits[1]), in: fixture.repo)
            #expect(same.status == 0, "\(same.out)\(same.err)")
            #expect(try ServeRoot(path: fixture.root).releaseIDs().count == 3)
            // Marked bad in the target only: promote is refused too.
            let cleared = try ratecard(["releases", "--root", fixture.root, "--clear-bad", ids[1], "-m", "fixed upstream"], in: fixture.repo)
            try #require(cleared.status == 0, "\(cleared.err)")
            try #require(try ratecard(["promote", "--from", fixture.root, "--to", production, "--release", ids[1], "-m", "ship"], in: fixture.repo).status == 0)
            try #require(try ratecard(["rollback", "--root", production, "-m", "bad in production"], in: fixture.repo).status == 0)
            let target = try ratecard(["promote", "--from", fixture.root, "--to", production, "--release", ids[1], "-m", "ship"], in: fixture.repo)
            #expect(target.status == 3, "\(target.out)\(target.err)")
            #expect(target.err.contains("'bad in production'"), "\(target.err)")
        }
    }

    @Test func pruneDryRunListsWhatWouldGoAndRemovesNothing() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 4)
            try fixture.publishEach()
            let serve = ServeRoot(path: fixture.root)
            let ids = try serve.releaseIDs()
            let dry = try ratecard(["prune", "--root", fixture.root, "--keep", "1", "--dry-run"], in: fixture.repo)
            #expect(dry.status == 0, "\(dry.err)")
            #expect(dry.out.hasPrefix("Would remove 2 releases: \(ids[0]), \(ids[1]). Would delete "), "\(dry.out)")
            #expect(dry.out.hasSuffix(" objects no kept release names (\(try unreferencedBytes(serve, keeping: [ids[2], ids[3]])) bytes). Nothing was changed.\n"), "\(dry.out)")
            let objectsBefore = try FileSystem.listDirectory(serve.objectsFolder).sorted()
            #expect(try serve.releaseIDs() == ids)
            let json = try ratecard(["prune", "--root", fixture.root, "--keep", "1", "--format", "json"], in: fixture.repo)
            #expect(json.status == 0, "\(json.err)")
            let object = try JSONReader.parse(Array(json.out.utf8))
            #expect(object["removed"]?.arrayValue?.compactMap(\.stringValue) == [ids[0], ids[1]])
            #expect(object["kept"]?.arrayValue?.compactMap(\.stringValue) == [ids[2], ids[3]])
            #expect(object["dry_run"] == .bool(false))
            #expect(try serve.releaseIDs() == [ids[2], ids[3]])
            // Objects: exactly those no kept release names went; every kept release still verifies.
            // (and the public file lists of the kept releases, which live.json names)
            let kept = try Set([ids[2], ids[3]].flatMap { try ReleaseInfo.read(from: serve.folder(of: $0)).objectNames })
                .union([ids[2], ids[3]].map { try LiveStatements.fileListObject(root: serve, release: $0) })
            let objectsAfter = try FileSystem.listDirectory(serve.objectsFolder).sorted()
            #expect(Set(objectsAfter) == kept)
            #expect(objectsAfter.count < objectsBefore.count)
            #expect(object["objects"]?.intValue == objectsBefore.count - objectsAfter.count)
            for id in [ids[2], ids[3]] { #expect(try serve.drift(of: id) == [], "\(id)") }
        }
    }

    /// The bytes of the objects that none of `keeping` names.
    func unreferencedBytes(_ serve: ServeRoot, keeping: [String]) throws -> Int {
        let named = try Set(keeping.flatMap { try ReleaseInfo.read(from: serve.folder(of: $0)).objectNames })
            .union(keeping.map { try LiveStatements.fileListObject(root: serve, release: $0) })
        return try FileSystem.listDirectory(serve.objectsFolder).filter { !named.contains($0) }
            .reduce(0) { $0 + (try FileSystem.readFile(serve.objectsFolder + "/" + $1)).count }
    }

    /// A rate table scheduled for 2027-01-04 with a lower ceiling, committed after the base.
    func scheduleTable(_ fixture: PublishFixture) throws {
        let table = fixture.repo + "/products/acme-bank/credit/rates/"
        let text = String(decoding: try FileSystem.readFile(table + "2026-01-15.yaml"), as: UTF8.self)
            .replacingOccurrences(of: "effective_from: 2026-01-15", with: "effective_from: 2027-01-04")
            .replacingOccurrences(of: "apr_max_pct: 9.8", with: "apr_max_pct: 9.5")
        try FileSystem.writeFile(table + "2027-01-04.yaml", Array(text.utf8))
        try Repository.open(at: fixture.repo).commitAll(message: "Schedule the January table", author: Signature(name: "T", email: "t@example.com"))
    }

    @Test func scheduledContentIsRepublishedOnTheDayItTakesEffect() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 1)
            try scheduleTable(fixture)
            let publish = ["publish", "--root", fixture.root, "--web", fixture.web, "-m", "scheduled"]
            try #require(try ratecard(publish + ["--as-of", "2026-11-29"], in: fixture.repo).status == 0)
            let serve = ServeRoot(path: fixture.root)
            let first = try #require(try serve.live())
            #expect(try ReleaseInfo.read(from: serve.folder(of: first)).staleFrom == "2027-01-04")
            // status names the root as it was given in the command it suggests.
            let status = try ratecard(["status", "--root", fixture.root], in: fixture.repo)
            #expect(status.out.contains("current:   until 2027-01-03 (something scheduled takes effect on 2027-01-04; 'ratecard publish --root \(fixture.root) --if-stale' that day)"), "\(status.out)")
            // Before the day: nothing to do, live unchanged.
            let early = try ratecard(publish + ["--if-stale", "--as-of", "2027-01-03"], in: fixture.repo)
            #expect(early.status == 0, "\(early.err)")
            #expect(early.out.contains("is current until 2027-01-03 (something scheduled takes effect on 2027-01-04); nothing to do."), "\(early.out)")
            #expect(try serve.live() == first)
            // A commit made since is not what a timer ships: --if-stale rebuilds the live commit.
            let table = fixture.repo + "/products/acme-bank/credit/rates/2026-01-15.yaml"
            let text = String(decoding: try FileSystem.readFile(table), as: UTF8.self)
            try FileSystem.writeFile(table, Array(text.replacingOccurrences(of: "apr_min_pct: 4.1", with: "apr_min_pct: 4.3").utf8))
            try Repository.open(at: fixture.repo).commitAll(message: "Unreviewed", author: Signature(name: "T", email: "t@example.com"))
            let due = try ratecard(publish + ["--if-stale", "--as-of", "2027-01-04"], in: fixture.repo)
            #expect(due.status == 0, "\(due.err)")
            let second = try #require(try serve.live())
            #expect(second != first)
            let info = try ReleaseInfo.read(from: serve.folder(of: second))
            #expect(info.sourceCommit == (try ReleaseInfo.read(from: serve.folder(of: first)).sourceCommit))
            #expect(info.asOf == "2027-01-04")
            // What is scheduled next: the day after the fixture's compliance reviews end.
            #expect(info.staleFrom == "2100-01-01")
            let again = try ratecard(publish + ["--if-stale", "--as-of", "2027-01-05"], in: fixture.repo)
            #expect(again.out.contains("is current until 2099-12-31 (something scheduled takes effect on 2100-01-01); nothing to do."), "\(again.out)")
        }
    }

    /// A lender committed ahead of its launch (go_live), with its product and the consent that
    /// names it already in force: not in a release until its day, which is what makes the
    /// release stale, and in the release `--if-stale` makes that day.
    @Test func aPartnerGoesLiveOnItsDay() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 1)
            func write(_ path: String, _ text: String) throws { try FileSystem.writeFile(fixture.repo + "/" + path, Array(text.utf8)) }
            let goodCase = String(decoding: try FileSystem.readFile(Fixtures.root + "/good/dsc16-ref02-new-lender-committed-ahead-of-go-live.case"), as: UTF8.self)
            // The should-pass case's files, with the go-live day the only day still to come.
            for section in goodCase.components(separatedBy: "--- write ").dropFirst() {
                let path = String(section.prefix { $0 != "\n" })
                var text = String(section.dropFirst(path.count + 1))
                text = text.replacingOccurrences(of: "go_live: 2027-01-03", with: "go_live: 2026-12-15")
                    .replacingOccurrences(of: "effective_from: 2027-01-03", with: "effective_from: 2026-11-29")
                    .replacingOccurrences(of: "review_valid_from: 2026-12-15", with: "review_valid_from: 2026-11-01")
                try FileSystem.makeDirectories(DurableFiles.parent(of: fixture.repo + "/" + path))
                try write(path.replacingOccurrences(of: "2027-01-03.yaml", with: "2026-11-29.yaml"), text)
            }
            try Repository.open(at: fixture.repo).commitAll(message: "델타캐피탈 from 2026-12-15", author: Signature(name: "T", email: "t@example.com"))
            let publish = ["publish", "--root", fixture.root, "--web", fixture.web, "-m", "go-live"]
            let first = try ratecard(publish + ["--as-of", "2026-11-29"], in: fixture.repo)
            try #require(first.status == 0, "\(first.out)\(first.err)")
            let serve = ServeRoot(path: fixture.root)
            func shown(_ release: String) throws -> (partners: String, paths: [String], rates: String) {
                let info = try ReleaseInfo.read(from: serve.folder(of: release))
                let partners = try #require(info.files.first { $0.path.hasSuffix("/partners.json") })
                return (
                    String(decoding: try #require(try serve.readFile(partners.path, of: release)), as: UTF8.self), info.files.map(\.path),
                    String(decoding: try #require(try serve.readFile("rates.html", of: release)), as: UTF8.self)
                )
            }
            let before = try #require(try serve.live())
            #expect(try ReleaseInfo.read(from: serve.folder(of: before)).staleFrom == "2026-12-15")
            let hidden = try shown(before)
            #expect(!hidden.partners.contains("delta-capital") && hidden.partners.contains("acme-bank"))
            #expect(!hidden.paths.contains { $0.contains("delta-capital") }, "\(hidden.paths.filter { $0.contains("delta") })")
            #expect(!hidden.rates.contains("델타캐피탈"))
            // A rate update to its table alone (the kind of change a publish builds onto the live
            // bundle, which lacks the partner) leaves it out too.
            let table = fixture.repo + "/products/delta-capital/worker-credit/rates/2026-11-29.yaml"
            let rates = String(decoding: try FileSystem.readFile(table), as: UTF8.self)
            try FileSystem.writeFile(table, Array(rates.replacingOccurrences(of: "apr_max_pct: 7.2", with: "apr_max_pct: 7.3").utf8))
            try Repository.open(at: fixture.repo).commitAll(message: "델타 rates", author: Signature(name: "T", email: "t@example.com"))
            let update = try ratecard(publish + ["--as-of", "2026-11-29"], in: fixture.repo)
            #expect(update.status == 0, "\(update.out)\(update.err)")
            let updated = try #require(try serve.live())
            #expect(updated != before)
            #expect(!(try shown(updated)).paths.contains { $0.contains("delta-capital") })
            let early = try ratecard(publish + ["--if-stale", "--as-of", "2026-12-14"], in: fixture.repo)
            #expect(early.status == 0 && early.out.contains("nothing to do"), "\(early.out)")
            let due = try ratecard(publish + ["--if-stale", "--as-of", "2026-12-15"], in: fixture.repo)
            #expect(due.status == 0, "\(due.out)\(due.err)")
            let after = try #require(try serve.live())
            #expect(after != updated)
            let live = try shown(after)
            #expect(live.partners.contains("delta-capital"))
            #expect(live.paths.contains { $0.hasSuffix("products/delta-capital/worker-credit.json") })
            #expect(live.paths.contains { $0.hasSuffix("assets/partners/delta-capital.svg") })
            #expect(live.rates.contains("델타캐피탈"))
            #expect(try ReleaseInfo.read(from: serve.folder(of: after)).staleFrom == "2100-01-01")
        }
    }

    @Test func diffAgainstAnEnvironmentAgreesWithThePublishDryRun() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 1)
            try scheduleTable(fixture)
            try #require(try ratecard(["publish", "--root", fixture.root, "--web", fixture.web, "--as-of", "2026-11-29", "-m", "x"], in: fixture.repo).status == 0)
            // HEAD is what is live; as of 2027-01-05 the scheduled table is what users would see.
            let diff = try ratecard(["diff", "--root", fixture.root, "--as-of", "2027-01-05"], in: fixture.repo)
            #expect(diff.status == 0, "\(diff.err)")
            let line = try #require(diff.out.split(separator: "\n").first { $0.contains("0-800") }, "no band change in: \(diff.out)")
            #expect(line.contains("9.80% -> 9.50%"), "\(line)")
            let dry = try ratecard(["publish", "--root", fixture.root, "--web", fixture.web, "--as-of", "2027-01-05", "--dry-run"], in: fixture.repo)
            #expect(dry.status == 0, "\(dry.err)")
            #expect(dry.out.contains(String(line)), "publish --dry-run says otherwise:\n\(dry.out)")
        }
    }

    @Test func aPublishWithoutItsWebBuildIsRefusedUnlessAskedFor() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 1)
            // The base content names no web folder: the default ../site is not there.
            let refused = try ratecard(["publish", "--root", fixture.root, "--as-of", "2026-11-29", "-m", "x"], in: fixture.repo)
            #expect(refused.status == 4, "\(refused.out)\(refused.err)")
            #expect(refused.err.contains("the default web build folder ../site is not there (\(directory)/site)"), "\(refused.err)")
            #expect(!FileSystem.exists(fixture.root + "/current"))
            let missing = try ratecard(["publish", "--root", fixture.root, "--web", directory + "/nowhere", "-m", "x"], in: fixture.repo)
            #expect(missing.status == 4)
            #expect(missing.err.contains("--web \(directory)/nowhere is not a folder"), "\(missing.err)")
            let bare = try ratecard(["publish", "--root", fixture.root, "--as-of", "2026-11-29", "--no-web", "-m", "data only"], in: fixture.repo)
            #expect(bare.status == 0, "\(bare.err)")
            #expect(!FileSystem.exists(fixture.root + "/current/index.html"))
        }
    }

    @Test func aNewRepositoryPreviewsAndPublishesAsItIs() throws {
        try withTemporaryDirectory { directory in
            let made = try ratecard(["init", "repo"], in: directory)
            try #require(made.status == 0, "\(made.err)")
            let repo = directory + "/repo"
            #expect(try FileSystem.readFile(repo + "/.gitignore") == Array(".preview/\n".utf8))
            let preview = try ratecard(["preview", "--as-of", "2026-11-29"], in: repo)
            #expect(preview.status == 0, "\(preview.out)\(preview.err)")
            #expect(FileSystem.exists(repo + "/.preview/index.html") && FileSystem.exists(repo + "/.preview/app/app.js"))
            // The preview is ignored and the web build is not content: still committed, still valid.
            #expect(try Repository.open(at: repo).uncommittedPaths(under: "") == [])
            let validate = try ratecard(["validate", "--as-of", "2026-11-29"], in: repo)
            #expect(validate.status == 0, "\(validate.out)")
            let publish = try ratecard(["publish", "--root", directory + "/root", "--as-of", "2026-11-29", "-m", "first"], in: repo)
            #expect(publish.status == 0, "\(publish.out)\(publish.err)")
            #expect(FileSystem.exists(directory + "/root/current/index.html") && FileSystem.exists(directory + "/root/current/app/app.js"))
        }
    }

    @Test func bareStatusShowsEveryEnvironmentInSeoulTimeWithItsApproval() throws {
        try withTemporaryDirectory { directory in
            let setup = try ApprovalGateTests.Protected(in: directory)
            let table = setup.fixture.repo + "/products/acme-bank/credit/rates/2026-01-15.yaml"
            let text = String(decoding: try FileSystem.readFile(table), as: UTF8.self)
            try FileSystem.writeFile(table, Array(text.replacingOccurrences(of: "apr_max_pct: 9.8", with: "apr_max_pct: 13.3").utf8))
            try Repository.open(at: setup.fixture.repo).commitAll(message: "Big move", author: Signature(name: "Kim Minji", email: "minji@example.com"))
            let approved = try ratecard(setup.publish("production") + ["-m", "big move", "--approve", "Risk committee 2026-11-28"], in: setup.fixture.repo)
            try #require(approved.status == 0, "\(approved.err)")
            let status = try ratecard(["status"], in: setup.fixture.repo)
            #expect(status.status == 0, "\(status.err)")
            #expect(status.out.contains("== staging ==\n") && status.out.contains("== production ==\n"), "\(status.out)")
            #expect(status.out.contains("approved:  Risk committee 2026-11-28"), "\(status.out)")
            #expect(status.out.contains("message:   big move"), "\(status.out)")
            #expect(try status.out.contains(Regex(#"since:     \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+09:00 \(publish\)"#)), "\(status.out)")
            #expect(!status.out.contains(".."), "\(status.out)")
            let json = try JSONReader.parse(Array(try ratecard(["status", "--format", "json"], in: setup.fixture.repo).out.utf8))
            #expect(json["environments"]?["production"]?["approval"]?.stringValue == "Risk committee 2026-11-28")
            #expect(json["environments"]?["staging"]?["approval"] == .null)
            let releases = try ratecard(["releases", "--env", "production"], in: setup.fixture.repo)
            #expect(releases.out.contains("big move  (approved: Risk committee 2026-11-28)  [live]"), "\(releases.out)")
            // Rolled back: the message names the environment's folder without '..'.
            let back = try ratecard(["rollback", "--env", "production", "-m", "too big"], in: setup.fixture.repo)
            #expect(back.status == 0, "\(back.err)")
            #expect(back.out.hasPrefix("Rolled back \(directory)/production from "), "\(back.out)")
        }
    }

    @Test func environmentNamesWorkAsRevisionsInDiff() throws {
        try withTemporaryDirectory { directory in
            let setup = try ApprovalGateTests.Protected(in: directory)
            try setup.commitSmallChange(in: setup.fixture.repo)
            try #require(try ratecard(setup.publish("staging") + ["-m", "next"], in: setup.fixture.repo).status == 0)
            let diff = try ratecard(["diff", "production", "staging"], in: setup.fixture.repo)
            #expect(diff.status == 0, "\(diff.out)\(diff.err)")
            #expect(diff.out.contains("production (live "), "\(diff.out)")
            #expect(diff.out.contains("0-800") && diff.out.contains("9.80% -> 9.90%"), "\(diff.out)")
            let none = try ratecard(["diff", "staging", "staging"], in: setup.fixture.repo)
            #expect(none.status == 0)
            #expect(!none.out.contains("9.90%"), "\(none.out)")
        }
    }

    @Test func aTableEndingSoonMakesARateUpdateStaleSooner() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 1)
            let publish = ["publish", "--root", fixture.root, "--web", fixture.web, "--as-of", "2026-11-29", "-m", "x"]
            try #require(try ratecard(publish, in: fixture.repo).status == 0)
            let serve = ServeRoot(path: fixture.root)
            let first = try ReleaseInfo.read(from: serve.folder(of: #require(try serve.live())))
            #expect(first.staleFrom == "2100-01-01")
            // A rate update that ends the table on 2026-12-05: built onto the live bundle, and stale from the 6th.
            let table = fixture.repo + "/products/acme-bank/credit/rates/2026-01-15.yaml"
            let text = String(decoding: try FileSystem.readFile(table), as: UTF8.self)
            try FileSystem.writeFile(table, Array(text.replacingOccurrences(of: "effective_from: 2026-01-15\n", with: "effective_from: 2026-01-15\neffective_to: 2026-12-05\n").utf8))
            try Repository.open(at: fixture.repo).commitAll(message: "End the table", author: Signature(name: "T", email: "t@example.com"))
            let update = try ratecard(publish, in: fixture.repo)
            #expect(update.status == 0, "\(update.out)\(update.err)")
            #expect(update.out.contains("built onto the live bundle"), "\(update.out)")
            #expect(try ReleaseInfo.read(from: serve.folder(of: #require(try serve.live()))).staleFrom == "2026-12-06")
        }
    }

    @Test func bareStatusReportsEveryEnvironmentEvenWhenOneIsBroken() throws {
        try withTemporaryDirectory { directory in
            let setup = try ApprovalGateTests.Protected(in: directory)
            let live = try #require(try setup.production.live())
            try FileSystem.removeTree(setup.production.folder(of: live))
            let status = try ratecard(["status"], in: setup.fixture.repo)
            #expect(status.status == 4)
            #expect(status.out.contains("== staging ==\nlive:      "), "\(status.out)")
            #expect(status.err.contains("Error: production: "), "\(status.err)")
        }
    }
}
