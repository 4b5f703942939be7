import Foundation
import Glibc
import RatecardKit
import Testing

/// diff, save, log, the pre-commit hook and protected environments, end to end.
@Suite struct PeopleWorkflowTests {
    func diff(_ history: ScriptedHistory, _ format: String) throws -> String {
        let result = try ratecard(["diff", "HEAD~4", "HEAD", "--format", format, "--as-of", "2026-11-29"], in: history.fixture.repo)
        #expect(result.status == 0, "\(result.err)")
        return result.out
    }

    @Test func diffSpeaksInPartnersBandsTablesAndTerms() throws {
        try withTemporaryDirectory { directory in
            let history = try ScriptedHistory(in: directory)
            #expect(
                try diff(history, "text") == """
                    HEAD~4 -> HEAD: 4 changes
                      ~ partner 코랄카드 (coral-card) paused: 전산 점검으로 신규 접수 일시 중단
                      ~ 에이크미은행 에이크미 직장인 신용대출 (acme-bank/credit) scores 801-900: APR min 5.20% -> 5.70% (+0.5pp)
                      + 에이크미은행 에이크미 직장인 신용대출 (acme-bank/credit) new rate table scheduled from 2027-01-04
                      + terms 개인(신용)정보 조회 동의 (credit-inquiry-consent) version 2.0.0: 조회 대상 금융회사에 코랄카드를 추가했습니다. — needs re-consent

                    """)
            #expect(
                try diff(history, "markdown") == """
                    ### HEAD~4 -> HEAD

                    **Partners**

                    - partner 코랄카드 (coral-card) paused: 전산 점검으로 신규 접수 일시 중단

                    **Rates**

                    - 에이크미은행 에이크미 직장인 신용대출 (acme-bank/credit) scores 801-900: APR min 5.20% -> 5.70% (+0.5pp)
                    - 에이크미은행 에이크미 직장인 신용대출 (acme-bank/credit) new rate table scheduled from 2027-01-04

                    **Terms**

                    - terms 개인(신용)정보 조회 동의 (credit-inquiry-consent) version 2.0.0: 조회 대상 금융회사에 코랄카드를 추가했습니다. — needs re-consent

                    """)
            let json = try diff(history, "json")
            #expect(
                json.hasPrefix(
                    """
                    {
                      "changes": [
                        {
                          "from": "active",
                          "name": "코랄카드",
                          "partner": "coral-card",
                          "reason": "전산 점검으로 신규 접수 일시 중단",
                          "to": "paused",
                          "type": "partner_status"
                        },
                        {
                          "apr_max_pct": {
                            "new": 7.4,
                            "old": 7.4
                          },
                          "apr_min_pct": {
                            "new": 5.7,
                            "old": 5.2
                          },
                          "largest_move_pp": 0.5,
                    """))
            #expect(
                json.hasSuffix(
                    """
                        {
                          "document": "credit-inquiry-consent",
                          "requires_reconsent": true,
                          "summary": "조회 대상 금융회사에 코랄카드를 추가했습니다.",
                          "title": "개인(신용)정보 조회 동의",
                          "type": "terms_added",
                          "version": "2.0.0"
                        }
                      ]
                    }

                    """))
            let parsed = try JSONSerialization.jsonObject(with: Data(json.utf8)) as! [String: [[String: Any]]]
            #expect(parsed["changes"]!.map { $0["type"] as! String } == ["partner_status", "band_changed", "table_scheduled", "terms_added"])
        }
    }

    @Test func saveRefusesInvalidContentAndCommitsOnlyContent() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 1)
            let repository = try Repository.open(at: fixture.repo)
            let head = try #require(try repository.headCommit())
            let table = fixture.repo + "/products/acme-bank/credit/rates/2026-01-15.yaml"
            let original = String(decoding: try FileSystem.readFile(table), as: UTF8.self)
            try FileSystem.writeFile(table, Array(original.replacingOccurrences(of: "apr_max_pct: 9.8", with: "apr_max_pct: 21.0").utf8))
            let refused = try ratecard(["save", "-m", "Too high", "--author", "Lee Jun <jun@example.com>", "--as-of", "2026-11-29"], in: fixture.repo)
            #expect(refused.status == 1)
            #expect(refused.out.contains("error CAP-01"))
            #expect(try repository.headCommit() == head)

            try FileSystem.writeFile(table, Array(original.replacingOccurrences(of: "apr_max_pct: 9.8", with: "apr_max_pct: 9.5").utf8))
            try FileSystem.writeFile(fixture.repo + "/.preview-notes.txt", Array("not content\n".utf8))
            let saved = try ratecard(["save", "-m", "Lower the top rate", "--author", "Lee Jun <jun@example.com>", "--as-of", "2026-11-29"], in: fixture.repo)
            #expect(saved.status == 0, "\(saved.out)\(saved.err)")
            #expect(saved.out.contains("scores 0-800: APR max 9.80% -> 9.50% (-0.3pp)"))
            let commit = try #require(try repository.headCommit())
            let info = try repository.commitInfo(commit)
            #expect(info.parents == [head])
            #expect(info.authorName == "Lee Jun" && info.authorEmail == "jun@example.com")
            #expect(info.summary == "Lower the top rate")
            let before = try #require(try repository.treeEntries(commit: head, under: ""))
            let after = try #require(try repository.treeEntries(commit: commit, under: ""))
            let changed = Set(after.map { "\($0.path) \($0.id!.hex)" }).symmetricDifference(before.map { "\($0.path) \($0.id!.hex)" })
            #expect(Set(changed.map { String($0.split(separator: " ")[0]) }) == ["products/acme-bank/credit/rates/2026-01-15.yaml"])
            let again = try ratecard(["save", "-m", "Nothing", "--author", "Lee Jun <jun@example.com>"], in: fixture.repo)
            #expect(again.out == "Nothing to save: the content is the same as HEAD.\n")
        }
    }

    @Test func saveWithoutAnIdentityIsAClearError() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 1)
            let result = try ratecard(["save", "-m", "x"], in: fixture.repo, environment: ["HOME": directory, "XDG_CONFIG_HOME": directory, "GIT_CONFIG_NOSYSTEM": "1"])
            #expect(result.status == 2)
            #expect(result.err.hasPrefix("Error: no author: pass --author \"Name <email>\" or set git config user.name and user.email\n"))
        }
    }

    @Test func logNamesTheReleasesThatShippedAChangeAndTheRollback() throws {
        try withTemporaryDirectory { directory in
            let history = try ScriptedHistory(in: directory)
            let fixture = history.fixture
            #expect(try ratecard(fixture.publishArguments(history.commits[0]), in: fixture.repo).status == 0)
            let first = try #require(try ServeRoot(path: fixture.root).live())
            #expect(try ratecard(fixture.publishArguments(history.commits[1]), in: fixture.repo).status == 0)
            let second = try #require(try ServeRoot(path: fixture.root).live())
            #expect(try ratecard(["rollback", "--root", fixture.root, "-m", "coral paused by mistake"], in: fixture.repo).status == 0)
            let journal = try ServeRoot(path: fixture.root).journal.entries()
            let rollbackTime = try #require(journal.last?.time)

            let partner = try ratecard(["log", "--partner", "coral-card", "--root", fixture.root, "--as-of", "2026-11-29"], in: fixture.repo)
            #expect(partner.status == 0, "\(partner.err)")
            let lines = partner.out.split(separator: "\n").map(String.init)
            #expect(lines.count >= 4, "\(partner.out)")
            try #require(lines.count >= 4, "\(partner.out)")
            #expect(lines[0].contains("Kim Minji <minji@example.com>  Pause Coral Card"))
            #expect(lines[1] == "    partner 코랄카드 (coral-card) paused: 전산 점검으로 신규 접수 일시 중단")
            #expect(lines[2].hasPrefix("    live in release \(second) since "))
            // Times are shown in Asia/Seoul, with the offset.
            #expect(lines[3] == "    rolled back from \(second) at \(Timestamp.seoul(rollbackTime)): coral paused by mistake")
            #expect(Timestamp.seoul(rollbackTime).hasSuffix(" +09:00"))

            let product = try ratecard(["log", "--product", "acme-bank/credit", "--root", fixture.root, "--as-of", "2026-11-29", "--format", "json"], in: fixture.repo)
            let events = try #require((try JSONSerialization.jsonObject(with: Data(product.out.utf8)) as? [String: Any])?["events"] as? [[String: Any]])
            let raise = try #require(events.first { ($0["message"] as? String) == "Raise Acme Bank 801-900 floor" })
            let releases = raise["releases"] as! [[String: Any]]
            #expect(releases.first?["release"] as? String == first)
            let scheduled = try #require(events.first { ($0["message"] as? String) == "Schedule Acme Bank January table" })
            #expect((scheduled["releases"] as! [Any]).isEmpty)
        }
    }

    @Test func thePreCommitHookBlocksABadStagedTableEvenWhenTheWorkTreeIsFixed() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 1)
            let installed = try ratecard(["hook", "install"], in: fixture.repo)
            #expect(installed.status == 0, "\(installed.err)")
            let git = ["-C", fixture.repo, "-c", "user.name=Hook Test", "-c", "user.email=hook@example.com"]
            let table = fixture.repo + "/products/acme-bank/credit/rates/2026-01-15.yaml"
            let original = String(decoding: try FileSystem.readFile(table), as: UTF8.self)
            try FileSystem.writeFile(table, Array(original.replacingOccurrences(of: "score_min: 801", with: "score_min: 811").utf8))
            #expect(try runTool("/usr/bin/git", git + ["add", "-A"]).0 == 0)
            // Fix the work tree but leave the bad version staged: the hook reads the index.
            try FileSystem.writeFile(table, Array(original.utf8))
            // The hook finds ratecard on PATH (it records no build path).
            let blocked = try runTool("/usr/bin/git", git + ["commit", "-m", "bad band"], environment: environmentWithRatecardOnPath)
            #expect(blocked.0 != 0)
            #expect(blocked.1.contains("error BND-02"), "\(blocked.1)")
            #expect(try Repository.open(at: fixture.repo).headCommit()?.hex == fixture.commits[0])

            try FileSystem.writeFile(table, Array(original.replacingOccurrences(of: "apr_min_pct: 4.1", with: "apr_min_pct: 4.2").utf8))
            #expect(try runTool("/usr/bin/git", git + ["add", "-A"]).0 == 0)
            let allowed = try runTool("/usr/bin/git", git + ["commit", "-m", "good change"], environment: environmentWithRatecardOnPath)
            #expect(allowed.0 == 0, "\(allowed.1)")
            #expect(try Repository.open(at: fixture.repo).headCommit()?.hex != fixture.commits[0])
        }
    }

    @Test func aProtectedEnvironmentRefusesABigAPRMoveWithoutApproval() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 1)
            let repository = try Repository.open(at: fixture.repo)
            let author = Signature(name: "Kim Minji", email: "minji@example.com")
            try FileSystem.writeFile(
                fixture.repo + "/ratecard.yaml",
                Array(
                    """
                    service_name: 레이트카드
                    broker_registration_no: "제2021-0123호"
                    timezone: Asia/Seoul
                    rate_move_warn_pp: 3.0
                    environments:
                      production:
                        root: ../production
                        protected: true

                    """.utf8))
            try repository.commitAll(message: "Protect production", author: author)
            let publish = ["publish", "--env", "production", "--web", fixture.web, "--as-of", "2026-11-29"]
            let first = try ratecard(publish + ["-m", "first", "--approve", "First release"], in: fixture.repo)
            #expect(first.status == 0, "\(first.err)")
            let live = try #require(try ServeRoot(path: directory + "/production").live())
            let table = fixture.repo + "/products/acme-bank/credit/rates/2026-01-15.yaml"
            let original = String(decoding: try FileSystem.readFile(table), as: UTF8.self)
            try FileSystem.writeFile(table, Array(original.replacingOccurrences(of: "apr_max_pct: 9.8", with: "apr_max_pct: 13.3").utf8))
            try repository.commitAll(message: "Raise the 0-800 ceiling", author: author)

            let refused = try ratecard(publish + ["-m", "big move"], in: fixture.repo)
            #expect(refused.status == 1)
            #expect(refused.err.contains("production is protected and this change is risky:\n  - acme-bank/credit scores 0-800: APR moves 3.5pp, over the 3.0pp threshold\n"), "\(refused.err)")
            #expect(try ServeRoot(path: directory + "/production").live() == live)

            let approved = try ratecard(publish + ["-m", "big move", "--approve", "Risk committee 2026-11-28"], in: fixture.repo)
            #expect(approved.status == 0, "\(approved.err)")
            let entry = try #require(try ServeRoot(path: directory + "/production").journal.entries().last)
            #expect(entry.action == .publish)
            #expect(entry.approval?.reason == "Risk committee 2026-11-28")
            #expect(entry.approval?.risks?.first == "acme-bank/credit scores 0-800: APR moves 3.5pp, over the 3.0pp threshold")
        }
    }

    /// The regulatory data is compliance's: even a tighter cap ships to a protected environment
    /// only with its own approval, which the journal keeps.
    @Test func aRegulatoryChangeNeedsItsOwnApprovalOnAProtectedEnvironment() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 1)
            let repository = try Repository.open(at: fixture.repo)
            let author = Signature(name: "Kim Minji", email: "minji@example.com")
            let config = fixture.repo + "/ratecard.yaml"
            let text = String(decoding: try FileSystem.readFile(config), as: UTF8.self)
            let environments = text.range(of: "environments:").map { String(text[..<$0.lowerBound]) } ?? text
            try FileSystem.writeFile(config, Array((environments + "environments:\n  production:\n    root: ../production\n    protected: true\n").utf8))
            try repository.commitAll(message: "Protect production", author: author)
            let publish = ["publish", "--env", "production", "--web", fixture.web, "--as-of", "2026-11-29"]
            #expect(try ratecard(publish + ["-m", "first", "--approve", "First release"], in: fixture.repo).status == 0)
            let live = try #require(try ServeRoot(path: directory + "/production").live())

            let limits = fixture.repo + "/regulatory/limits.yaml"
            let original = String(decoding: try FileSystem.readFile(limits), as: UTF8.self)
            try FileSystem.writeFile(
                limits,
                Array(
                    original.replacingOccurrences(
                        of: "limits:\n",
                        with: """
                            limits:
                              - id: max_apr_pct
                                value: 19.9
                                effective_from: 2027-06-01
                                citation: "대부업법 시행령 제5조②·제9조① (가상의 개정, 시험용)"

                            """
                    ).utf8))
            try repository.commitAll(message: "A lower cap from 2027-06-01", author: author)
            let check = try ratecard(["validate"], in: fixture.repo)
            #expect(check.status == 0, "\(check.out)")

            let refused = try ratecard(publish + ["-m", "cap"], in: fixture.repo)
            #expect(refused.status == 1)
            #expect(refused.err.contains("  - regulatory limit max_apr_pct from 2027-06-01: none -> 19.9\n"), "\(refused.err)")
            #expect(try ServeRoot(path: directory + "/production").live() == live)

            let approved = try ratecard(publish + ["-m", "cap", "--approve", "Compliance memo 2026-11"], in: fixture.repo)
            #expect(approved.status == 0, "\(approved.err)")
            let entry = try #require(try ServeRoot(path: directory + "/production").journal.entries().last)
            #expect(entry.approval?.reason == "Compliance memo 2026-11")
            #expect(entry.approval?.risks == ["regulatory limit max_apr_pct from 2027-06-01: none -> 19.9"])
        }
    }
}
