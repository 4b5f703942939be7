import Foundation
import RatecardKit
import Testing

/// An environment is one value read once from ratecard.yaml per command, and what goes wrong
/// after a flip reaches the person in their language and in `--format json`.
@Suite struct PublishEnvironmentTests {
    /// The base content with `staging` (its web build and one app version named in
    /// ratecard.yaml) committed; `apps` replaces the app versions' lines.
    static func fixture(in directory: String, apps: String = "        \"1.0\": 1\n") throws -> PublishFixture {
        let fixture = try PublishFixture(in: directory, commits: 2)
        let config = """
            service_name: 레이트카드
            broker_registration_no: "제2021-0123호"
            timezone: Asia/Seoul
            rate_move_warn_pp: 3.0
            web: ../web
            environments:
              staging:
                root: ../serve-staging
                apps:

            """
        try FileSystem.writeFile(fixture.repo + "/ratecard.yaml", Array((config + apps).utf8))
        try Repository.open(at: fixture.repo).commitAll(message: "Environments", author: Signature(name: "Kim Minji", email: "minji@example.com"))
        return fixture
    }

    /// How many times a run read ratecard.yaml, as `RATECARD_TRACE` notes each read.
    static func reads(_ run: Execution) -> Int {
        run.err.split(separator: "\n").filter { $0.hasPrefix("trace: ratecard.yaml read: ") }.count
    }

    @Test func ratecardYamlIsReadOncePerCommand() throws {
        try withTemporaryDirectory { directory in
            let fixture = try Self.fixture(in: directory)
            let trace = ["RATECARD_TRACE": "1"]
            // publish needs the environment, its app versions and the web build folder: one read.
            let publish = try ratecard(["publish", "--env", "staging", "-m", "first", "--as-of", "2026-11-29"], in: fixture.repo, environment: trace)
            #expect(publish.status == 0, "\(publish.out)\(publish.err)")
            #expect(Self.reads(publish) == 1, "\(publish.err)")
            // status needs the environments, their app versions and the review window: one read,
            // whether it names the environment, its folder or none.
            for arguments in [["status"], ["status", "--env", "staging"], ["status", "--root", directory + "/serve-staging"]] {
                let status = try ratecard(arguments, in: fixture.repo, environment: trace)
                #expect(status.status == 0, "\(arguments): \(status.out)\(status.err)")
                #expect(status.out.contains("1.0 (bridge 1)"), "\(arguments): \(status.out)")
                #expect(Self.reads(status) == 1, "\(arguments): \(status.err)")
            }
        }
    }

    /// A bad `apps:` is an error naming the file, line and rule: never "no app versions", which
    /// would let a publish to the environment's folder skip the bridge gate.
    @Test func aBadAppsEntryIsAnError() throws {
        try withTemporaryDirectory { directory in
            let fixture = try Self.fixture(in: directory, apps: "        \"1.0\": 0\n")
            let publish = try ratecard(["publish", "--root", directory + "/serve-staging", "-m", "first", "--as-of", "2026-11-29"], in: fixture.repo)
            #expect(publish.status == 4, "\(publish.out)\(publish.err)")
            #expect(publish.err.contains("/ratecard.yaml:10:16: error SCH-"), "\(publish.err)")
            #expect(publish.err.contains("app '1.0' has bridge 0; bridge versions start at 1"), "\(publish.err)")
            #expect(!FileSystem.exists(directory + "/serve-staging/current"))
        }
    }

    /// A journal that cannot be written after the flip (made immutable, as a full or read-only
    /// disk would refuse it): the publish goes live and warns, in Korean with `--lang ko`, and
    /// names the warning in its `--format json` summary.
    @Test func aWarningAfterTheFlipIsInTheChosenLanguageAndInJSON() throws {
        try withTemporaryDirectory { directory in
            let fixture = try Self.fixture(in: directory)
            let first = try ratecard(["publish", "--env", "staging", "-m", "first", "--as-of", "2026-11-29"], in: fixture.repo)
            try #require(first.status == 0, "\(first.out)\(first.err)")
            let journal = directory + "/serve-staging/.ratecard/journal.jsonl"
            let before = try FileSystem.readFile(journal)
            let (locked, said) = try runTool("/usr/bin/chattr", ["+i", journal])
            try #require(locked == 0, "chattr +i needs root (CAP_LINUX_IMMUTABLE) and a file system with attributes: \(said)")
            defer { _ = try? runTool("/usr/bin/chattr", ["-i", journal]) }
            let table = fixture.repo + "/products/acme-bank/credit/rates/2026-01-15.yaml"
            let text = String(decoding: try FileSystem.readFile(table), as: UTF8.self)
            try FileSystem.writeFile(table, Array(text.replacingOccurrences(of: "apr_max_pct: 9.8", with: "apr_max_pct: 9.9").utf8))
            try Repository.open(at: fixture.repo).commitAll(message: "Small move", author: Signature(name: "Kim Minji", email: "minji@example.com"))

            let run = try ratecard(["--lang", "ko", "publish", "--env", "staging", "-m", "second", "--as-of", "2026-11-29", "--format", "json"], in: fixture.repo)
            #expect(run.status == 0, "\(run.out)\(run.err)")
            let summary = try JSONReader.parse(Array(run.out.utf8))
            let release = try #require(summary["release"]?.stringValue)
            #expect(try ServeRoot(path: directory + "/serve-staging").live() == release)
            #expect(try FileSystem.readFile(journal) == before)
            let warnings = try #require(summary["warnings"]?.arrayValue, "\(run.out)")
            #expect(warnings.count == 1)
            let english = try #require(warnings.first?.stringValue)
            #expect(english.contains("serve-staging: live was switched, but the journal could not be written ("), "\(english)")
            #expect(english.hasSuffix("); the next run records it"), "\(english)")
            #expect(run.err.contains("serve-staging: 라이브는 바뀌었지만 저널을 쓰지 못했습니다 ("), "\(run.err)")
            #expect(run.err.hasPrefix("경고: "), "\(run.err)")
            #expect(run.err.contains("다음 실행이 이를 기록합니다"), "\(run.err)")
            #expect(!run.err.contains("live was switched"), "\(run.err)")
        }
    }
}
