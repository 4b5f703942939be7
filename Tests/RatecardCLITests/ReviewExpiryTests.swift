import Foundation
import Glibc
import RatecardKit
import Testing

/// A product's compliance review ends: the day after `review_valid_until` is a scheduled
/// change, the build of that day leaves the product out of every screen (as a withdrawn one),
/// and validate only warns. Dated around today (status reads the clock): the review ends
/// tomorrow, so the product leaves the screens the day after.
@Suite struct ReviewExpiryTests {
    static let today = Day.todayInSeoul(now: Date().timeIntervalSince1970)
    /// The last day of acme-bank/credit's review, and the first day it is left out.
    static let lastDay = today.adding(days: 1)
    static let leftOutDay = today.adding(days: 2)
    static let product = "에이크미 직장인 신용대출"

    /// The fixture with acme-bank/credit's review ending `lastDay`, committed.
    static func reviewEndingTomorrow(_ fixture: PublishFixture) throws {
        let path = fixture.repo + "/products/acme-bank/credit/product.yaml"
        let text = String(decoding: try FileSystem.readFile(path), as: UTF8.self)
        try FileSystem.writeFile(path, Array(text.replacingOccurrences(of: "review_valid_until: 2099-12-31", with: "review_valid_until: \(lastDay)").utf8))
        try Repository.open(at: fixture.repo).commitAll(message: "Review ends tomorrow", author: Signature(name: "T", email: "t@example.com"))
    }

    /// Waits until the clock has left the second of `journal`'s last entry, so that the next
    /// entry's time (to the second) is later: `show --at` names a second.
    static func nextSecond(after time: String?) {
        while let time, Timestamp.now() <= time { usleep(20_000) }
    }

    /// The text of a release's file whose path ends with `suffix`, read from the serve root's objects.
    static func file(_ serve: ServeRoot, _ id: String, _ suffix: String) throws -> String {
        let info = try ReleaseInfo.read(from: serve.folder(of: id))
        let file = try #require(info.files.first { $0.path.hasSuffix(suffix) }, "\(suffix) in \(id)")
        return String(decoding: try FileSystem.readFile(serve.objectsFolder + "/" + ObjectLayout.objectName(file)), as: UTF8.self)
    }

    @Test func aServeRootDropsTheProductOnTheDayAfterItsReviewEndsAndValidateOnlyWarns() throws {
        try withTemporaryDirectory { directory in
            // With the bridge: each release needs bridge 1 of the app, so show names the bridge line.
            let fixture = try PublishFixture(in: directory, commits: 1, bridge: true)
            try Self.reviewEndingTomorrow(fixture)
            // The day before the last day: validate warns ahead (DSC-22), and passes.
            let ahead = try ratecard(["validate", "--as-of", "\(Self.today)"], in: fixture.repo)
            #expect(ahead.status == 0, "\(ahead.out)")
            #expect(ahead.out.contains("warning DSC-22: the compliance review of \(Self.product) (acme-bank/credit) ends on \(Self.lastDay) (in 1 day(s))"), "\(ahead.out)")
            let publish = ["publish", "--root", fixture.root, "--web", fixture.web, "-m", "daily"]
            try #require(try ratecard(publish + ["--as-of", "\(Self.today)"], in: fixture.repo).status == 0)
            let serve = ServeRoot(path: fixture.root)
            let first = try #require(try serve.live())
            #expect(try ReleaseInfo.read(from: serve.folder(of: first)).staleFrom == Self.leftOutDay.description)
            #expect(try Self.file(serve, first, "/products/acme-bank/credit.json").contains("\"status\": \"active\""))
            // status: current until the last day, and the review that ends within 30 days.
            let status = try ratecard(["status", "--root", fixture.root], in: fixture.repo)
            #expect(status.out.contains("until \(Self.lastDay) (something scheduled takes effect on \(Self.leftOutDay);"), "\(status.out)")
            #expect(status.out.contains("1 end within 30 days (the product leaves the screens the next day; renew the review): acme-bank/credit \(Self.lastDay)"), "\(status.out)")
            // On the last day the timer has nothing to do; the day after, it rebuilds without the product.
            let early = try ratecard(publish + ["--if-stale", "--as-of", "\(Self.lastDay)"], in: fixture.repo)
            #expect(early.status == 0 && early.out.contains("nothing to do"), "\(early.out)\(early.err)")
            #expect(try serve.live() == first)
            Self.nextSecond(after: try serve.journal.entries().last?.time)
            let due = try ratecard(publish + ["--if-stale", "--as-of", "\(Self.leftOutDay)"], in: fixture.repo)
            #expect(due.status == 0, "\(due.out)\(due.err)")
            #expect(due.out.contains("Left out (compliance review ended, shown as withdrawn): acme-bank/credit"), "\(due.out)")
            #expect(due.err.contains("the compliance review of \(Self.product) (acme-bank/credit) ended on \(Self.lastDay)"), "\(due.err)")
            #expect(due.err.contains("renew the review"), "\(due.err)")
            let second = try #require(try serve.live())
            #expect(second != first)
            #expect(try serve.journal.entries().last { $0.action == .publish }?.fields["review_expired"] == .array([.string("acme-bank/credit")]))
            // Out of every screen: the comparison, the rate pages; its own document says withdrawn.
            #expect(try Self.file(serve, second, "/products/acme-bank/credit.json").contains("\"status\": \"withdrawn\""))
            #expect(try Self.file(serve, first, "/compare/acme-bank.json").contains(Self.product))
            #expect(!(try Self.file(serve, second, "/compare/acme-bank.json").contains(Self.product)))
            #expect(!(try Self.file(serve, second, "rates/acme-bank.html").contains(Self.product)))
            let record = try JSONReader.parse(try FileSystem.readFile(serve.folder(of: second) + "/version.json"))
            #expect(record["review_ends"]?["acme-bank/credit"] == nil && record["review_ends"]?["acme-bank/credit-line"] != nil)
            // From that day validate warns (DSC-21), never refuses, and a build leaves it out too.
            let after = try ratecard(["validate", "--as-of", "\(Self.leftOutDay.adding(days: 1))"], in: fixture.repo)
            #expect(after.status == 0, "\(after.out)")
            #expect(after.out.contains("warning DSC-21: the compliance review of \(Self.product) (acme-bank/credit) ended on \(Self.lastDay)"), "\(after.out)")
            #expect(!after.out.contains("DSC-10"), "\(after.out)")

            // What a borrower saw on the last day, asked after the product was left out: the
            // first release (the journal's time of its publish), with its seal; then again after
            // prune removed it, rebuilt from its commit and proven by its bundle id.
            let journal = try serve.journal.entries()
            let firstEntry = try #require(journal.first { $0.action == .publish && $0.release == first })
            let at = String(Timestamp.seoul(firstEntry.time).prefix(19))
            let show = ["show", "--root", fixture.root, "--at", at, "--product", "acme-bank/credit", "--format", "json"]
            let seen = try ratecard(show, in: fixture.repo)
            #expect(seen.status == 0, "\(seen.out)\(seen.err)")
            let shown = try JSONReader.parse(Array(seen.out.utf8))
            #expect(shown["release"] == .string(first) && shown["seal"] == firstEntry.seal.map(JSON.string) && shown["rebuilt"] == .bool(false), "\(seen.out)")
            #expect(shown["product"]?["status"] == .string("active") && shown["product"]?["current"]?["bands"]?.arrayValue?.isEmpty == false, "\(seen.out)")
            #expect(shown["product"]?["disclosure"]?["repayment_example"]?["total_krw"] != nil)
            #expect(shown["bridge_lines"] == .object(["1": .string(first)]), "\(seen.out)")
            let now = try ratecard(["show", "--root", fixture.root, "--at", "\(Self.leftOutDay.adding(days: 400)) 00:00", "--product", "acme-bank/credit"], in: fixture.repo)
            #expect(now.status == 0 && now.out.contains("release \(second)") && now.out.contains("(acme-bank/credit): withdrawn"), "\(now.out)\(now.err)")
            #expect(now.out.contains("bridge lines (app bridge version -> release it loaded): 1 -> \(second)"), "\(now.out)")
            let terms = try ratecard(["show", "--root", fixture.root, "--at", at, "--terms", "service-terms"], in: fixture.repo)
            #expect(terms.status == 0 && terms.out.contains("(service-terms): version") && terms.out.contains("in force"), "\(terms.out)\(terms.err)")
            // A third release, so that prune may remove the first; the journal stays whole.
            try #require(try ratecard(publish + ["--as-of", "\(Self.leftOutDay.adding(days: 1))"], in: fixture.repo).status == 0)
            let pruned = try ratecard(["prune", "--root", fixture.root, "--keep", "1"], in: fixture.repo)
            #expect(pruned.status == 0, "\(pruned.err)")
            #expect(!FileSystem.exists(serve.folder(of: first)))
            #expect(Array(try serve.journal.entries().prefix(journal.count)) == journal)
            let rebuilt = try ratecard(show, in: fixture.repo)
            #expect(rebuilt.status == 0, "\(rebuilt.out)\(rebuilt.err)")
            let again = try JSONReader.parse(Array(rebuilt.out.utf8))
            #expect(again["rebuilt"] == .bool(true) && again["release"] == .string(first) && again["seal"] == shown["seal"], "\(rebuilt.out)")
            #expect(again["product"] == shown["product"] && again["bundle_id"] == shown["bundle_id"])
            // A rate update to the left-out product, built onto the live bundle: still left out.
            let table = fixture.repo + "/products/acme-bank/credit/rates/2026-01-15.yaml"
            let rates = String(decoding: try FileSystem.readFile(table), as: UTF8.self)
            try FileSystem.writeFile(table, Array(rates.replacingOccurrences(of: "apr_max_pct: 5.6", with: "apr_max_pct: 5.7").utf8))
            try Repository.open(at: fixture.repo).commitAll(message: "Rates", author: Signature(name: "T", email: "t@example.com"))
            let update = try ratecard(publish + ["--as-of", "\(Self.leftOutDay.adding(days: 1))"], in: fixture.repo)
            #expect(update.status == 0 && update.out.contains("built onto the live bundle"), "\(update.out)\(update.err)")
            let updated = try #require(try serve.live())
            #expect(try Self.file(serve, updated, "/products/acme-bank/credit.json").contains("\"status\": \"withdrawn\""))
            #expect(!(try Self.file(serve, updated, "/compare/acme-bank.json").contains(Self.product)))
            // Without the history the rebuild needs, it says what is missing.
            try FileSystem.makeDirectories(directory + "/elsewhere")
            let lost = try ratecard(show, in: directory + "/elsewhere")
            #expect(lost.status == 4 && lost.err.contains("is no longer in the store (pruned)") && lost.err.contains(firstEntry.commit?.hex ?? "?"), "\(lost.err)")
        }
    }

    /// In the full tier: a moto server and eight commands take longer than this suite's share of
    /// the sampled tier.
    @Test(.enabled(if: TestTier.isFull, "the bucket run is in make test-full")) func aBucketRepublishesOnTheDayAfterAReviewEnds() throws {
        try withTemporaryDirectory { directory in
            let s3 = try S3Environments(in: directory, commits: 1)
            defer { s3.stop() }
            try Self.reviewEndingTomorrow(s3.fixture)
            let publish = ["publish", "--env", "production", "--web", s3.fixture.web, "-m", "daily"]
            let published = try s3.run(publish + ["--as-of", "\(Self.lastDay)"])
            try #require(published.status == 0, "\(published.err)")
            let first = try #require(try s3.liveIsComplete("first"))
            let status = try s3.run(["status", "--env", "production", "--format", "json"])
            let reviews = try JSONReader.parse(Array(status.out.utf8))["reviews_ending"]
            #expect(reviews == .array([.object(["product": .string("acme-bank/credit"), "review_valid_until": .string(Self.lastDay.description)])]), "\(status.out)")
            Self.nextSecond(after: try s3.journal().last?["time"]?.stringValue)
            let due = try s3.run(publish + ["--if-stale", "--as-of", "\(Self.leftOutDay)", "--format", "json"])
            #expect(due.status == 0, "\(due.err)")
            #expect(try JSONReader.parse(Array(due.out.utf8))["review_expired"] == .array([.string("acme-bank/credit")]), "\(due.out)")
            let second = try #require(try s3.liveIsComplete("second"))
            #expect(second != first)
            #expect(try s3.journal().last?["review_expired"] == .array([.string("acme-bank/credit")]))
            let info = try ReleaseInfo.parse(try #require(try s3.client().get("releases/\(second).json")).bytes, source: "version.json")
            let shard = try #require(info.files.first { $0.path.hasSuffix("/compare/acme-bank.json") })
            let bytes = try #require(try s3.client().get("o/" + ObjectLayout.objectName(shard))).bytes
            #expect(!String(decoding: bytes, as: UTF8.self).contains(Self.product))
            // What the last day's screens showed, read from the bucket, then rebuilt after prune.
            let time = try #require(try s3.journal().first { $0["release"] == .string(first) }?["time"]?.stringValue)
            let show = ["show", "--env", "production", "--at", String(Timestamp.seoul(time).prefix(19)), "--product", "acme-bank/credit", "--format", "json"]
            let kept = try JSONReader.parse(Array(try s3.run(show).out.utf8))
            #expect(kept["release"] == .string(first) && kept["rebuilt"] == .bool(false) && kept["product"]?["status"] == .string("active"))
            try #require(try s3.run(publish + ["--as-of", "\(Self.leftOutDay.adding(days: 1))"]).status == 0)
            try #require(try s3.run(["prune", "--env", "production", "--keep", "1"]).status == 0)
            #expect(try s3.client().get("releases/\(first).json") == nil)
            let rebuilt = try JSONReader.parse(Array(try s3.run(show).out.utf8))
            #expect(rebuilt["rebuilt"] == .bool(true) && rebuilt["product"] == kept["product"] && rebuilt["seal"] == kept["seal"])
        }
    }
}
