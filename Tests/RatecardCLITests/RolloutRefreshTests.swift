import Foundation
import Glibc
import RatecardKit
import RatecardLoader
import Testing

/// A rollout never keeps an unlawful release up: `publish --if-stale` counts the release being
/// rolled out as well as live, and when either is stale it halts the rollout (kept good) and
/// refreshes live, so a review that ends (DSC-21) leaves every phone's screens on its day. Dated
/// around today, as `ReviewExpiryTests` (status reads the clock). Also the bridge gate of a
/// rollout: refused as a plain publish is.
@Suite(.serialized) struct RolloutRefreshTests {
    typealias Days = ReviewExpiryTests

    /// The serve root's live.json, as apps read it (unsigned roots carry the same envelope).
    static func statement(_ root: String) throws -> LiveStatement {
        let envelope = try JSONDecoder().decode(SignedLiveStatement.self, from: Data(try FileSystem.readFile(root + "/live.json")))
        return try JSONDecoder().decode(LiveStatement.self, from: Data(try #require(envelope.payloadBytes)))
    }

    /// Writes a page of its own into the web build, so the next publish makes a release of its own.
    static func page(_ fixture: PublishFixture, _ text: String) throws {
        unlink(fixture.web + "/index.html")
        try FileSystem.writeFile(fixture.web + "/index.html", Array("<!DOCTYPE html><title>\(text)</title><script src=\"app/app.js\"></script>\n".utf8))
    }

    @Test("a rollout is open and a review ends: nothing to do the day before, the rollout untouched; on the day --if-stale halts it (kept good) and refreshes live")
    func liveGoesStale() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 1)
            try Days.reviewEndingTomorrow(fixture)
            let publish = ["publish", "--root", fixture.root, "--web", fixture.web, "-m", "daily"]
            try #require(try ratecard(publish + ["--as-of", "\(Days.today)"], in: fixture.repo).status == 0)
            let serve = ServeRoot(path: fixture.root)
            let first = try #require(try serve.live())
            try Self.page(fixture, "app 2")
            let started = try ratecard(publish + ["--as-of", "\(Days.today)", "--rollout", "10"], in: fixture.repo)
            try #require(started.status == 0, "\(started.out)\(started.err)")
            let rolled = try #require(try serve.releaseIDs().last)
            let rollout = try #require(try serve.journalLog.state().rollout)
            #expect(rollout.release == rolled && rolled != first)

            // status names the rollout release's day and its review ending.
            let status = try ratecard(["status", "--root", fixture.root], in: fixture.repo)
            #expect(status.out.contains("rollout current:"), "\(status.out)")
            #expect(status.out.contains("\(rolled): until \(Days.lastDay) (something scheduled takes effect on \(Days.leftOutDay);"), "\(status.out)")
            #expect(status.out.contains("\(rolled): 1 end within 30 days"), "\(status.out)")
            let json = try JSONReader.parse(Array(try ratecard(["status", "--root", fixture.root, "--format", "json"], in: fixture.repo).out.utf8))
            #expect(json["rollout"]?["stale_from"]?.stringValue == Days.leftOutDay.description && json["rollout"]?["stale"] == .bool(false), "\(json)")
            #expect(json["rollout"]?["reviews_ending"]?.arrayValue?.count == 1, "\(json)")

            // The last day of the review: nothing stale, the rollout stays as it was.
            let early = try ratecard(publish + ["--if-stale", "--as-of", "\(Days.lastDay)"], in: fixture.repo)
            #expect(early.status == 0 && early.out.contains("nothing to do"), "\(early.out)\(early.err)")
            #expect(early.out.contains("release \(rolled), being rolled out, is current until \(Days.lastDay)"), "\(early.out)")
            #expect(try serve.live() == first)
            #expect(try serve.journalLog.state().rollout == rollout)
            #expect(try Self.statement(fixture.root).live.rollout?.release == rolled)

            // A dry run on the day says it would halt the rollout, and changes nothing.
            let dry = try ratecard(publish + ["--if-stale", "--as-of", "\(Days.leftOutDay)", "--dry-run"], in: fixture.repo)
            #expect(dry.status == 0 && dry.out.contains("Would halt the rollout of \(rolled) first, for the scheduled refresh"), "\(dry.out)\(dry.err)")
            #expect(try serve.live() == first && serve.journalLog.state().rollout == rollout)

            // The day after: halted for the refresh, not marked bad; live shows the product withdrawn.
            Days.nextSecond(after: try serve.journal.entries().last?.time)
            let due = try ratecard(publish + ["--if-stale", "--as-of", "\(Days.leftOutDay)"], in: fixture.repo)
            #expect(due.status == 0, "\(due.out)\(due.err)")
            #expect(
                due.out.contains(
                    "Halted the rollout of \(rolled) first, for the scheduled refresh (not marked bad; publish it again to roll it out anew): "
                        + "release \(rolled) is stale since \(Days.leftOutDay)."),
                "\(due.out)")
            let second = try #require(try serve.live())
            #expect(second != first && second != rolled)
            let state = try serve.journalLog.state()
            #expect(state.rollout == nil && state.badReleases(live: second).isEmpty, "\(state.badReleases(live: second))")
            let halt = try #require(try serve.journal.entries().last { $0.action == .rolloutHalt })
            #expect(halt.fields["marks_bad"] == .bool(false) && halt.fields["release"]?.stringValue == rolled)
            #expect(halt.fields["message"]?.stringValue == "halted for the scheduled refresh (publish --if-stale): daily")
            let statement = try Self.statement(fixture.root)
            #expect(statement.live.release == second && statement.live.rollout == nil, "\(statement.live)")
            #expect(try ReviewExpiryTests.file(serve, second, "/products/acme-bank/credit.json").contains("\"status\": \"withdrawn\""))
            #expect(try ratecard(["verify", "--root", fixture.root], in: fixture.repo).status == 0)
        }
    }

    @Test("only the release being rolled out goes stale: --if-stale halts the rollout (kept good), refreshes live, and says so in JSON")
    func onlyTheRolloutGoesStale() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 1)
            let publish = ["publish", "--root", fixture.root, "--web", fixture.web, "-m", "daily"]
            // Live: the commit whose reviews run to 2099. Rolled out: the one whose review ends tomorrow.
            try #require(try ratecard(publish + ["--rev", fixture.commits[0], "--as-of", "\(Days.today)"], in: fixture.repo).status == 0)
            let serve = ServeRoot(path: fixture.root)
            let first = try #require(try serve.live())
            try Days.reviewEndingTomorrow(fixture)
            let started = try ratecard(publish + ["--as-of", "\(Days.today)", "--rollout", "30"], in: fixture.repo)
            try #require(started.status == 0, "\(started.out)\(started.err)")
            let rolled = try #require(try serve.releaseIDs().last)
            let liveInfo = try serve.info(of: first)
            #expect(!Freshness(liveInfo, asOf: Days.leftOutDay).isStale)

            Days.nextSecond(after: try serve.journal.entries().last?.time)
            let due = try ratecard(publish + ["--if-stale", "--as-of", "\(Days.leftOutDay)", "--format", "json"], in: fixture.repo)
            #expect(due.status == 0, "\(due.out)\(due.err)")
            let summary = try JSONReader.parse(Array(due.out.utf8))
            let halted = summary["halted_rollout"]
            #expect(halted?["release"]?.stringValue == rolled && halted?["marked_bad"] == .bool(false), "\(summary)")
            #expect(halted?["stale_from"]?.stringValue == Days.leftOutDay.description && halted?["live_stale_from"] == .null, "\(summary)")
            let live = try #require(try serve.live())
            #expect(live != rolled && live != first, "the refresh is a release of its own")
            #expect(summary["release"]?.stringValue == live, "\(summary)")
            let state = try serve.journalLog.state()
            #expect(state.rollout == nil && state.badReleases(live: live).isEmpty)
            let statement = try Self.statement(fixture.root)
            #expect(statement.live.release == live && statement.live.rollout == nil, "\(statement.live)")
            #expect(try ratecard(["verify", "--root", fixture.root], in: fixture.repo).status == 0)
        }
    }

    @Test("publish --rollout of a web build needing a bridge some app version lacks is refused as a plain publish is: exit 1, nothing journaled, live.json unchanged")
    func bridgeGateRefusesARollout() throws {
        try withTemporaryDirectory { directory in
            let fixture = try BridgeFixture(in: directory)
            try #require(try fixture.publish("production", commit: 0).status == 0)
            let production = ServeRoot(path: fixture.production)
            let (journal, statement) = (try production.journal.entries().count, try FileSystem.readFile(fixture.production + "/live.json"))
            try fixture.addToApp(
                """
                  function shareRates() { toNative(function () { return RatecardBridge.call("share", { title: "금리", url: "https://example.com" }); }); }
                """)
            let refused = try ratecard(
                ["publish", "--env", "production", "--rev", fixture.base.commits[1], "--as-of", "2026-11-29", "-m", "test", "--rollout", "10"], in: fixture.base.repo)
            #expect(refused.status == 1, "\(refused.out)\(refused.err)")
            #expect(refused.err.contains("which needs bridge 2; app versions supported in production lack it: ios-4.0 (bridge 1)"), "\(refused.err)")
            #expect(try production.journal.entries().count == journal)
            #expect(try production.journalLog.state().rollout == nil)
            #expect(try FileSystem.readFile(fixture.production + "/live.json") == statement)
        }
    }
}
