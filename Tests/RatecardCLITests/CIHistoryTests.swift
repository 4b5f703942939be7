import Foundation
import RatecardKit
import Testing

/// A content repository made from the test base content, with commits added one edit at a time.
struct HistoryFixture {
    let repo: String
    let repository: Repository
    let table = "products/acme-bank/credit/rates/2026-01-15.yaml"
    private(set) var commits: [ObjectID] = []
    static let author = Signature(name: "Kim Minji", email: "minji@example.com")

    init(in directory: String, folder: String = "repo", contentFolder: String? = nil) throws {
        let repo = directory + "/" + folder
        self.repo = repo
        try FileSystem.copyTree(from: Fixtures.root + "/base", to: contentFolder.map { repo + "/" + $0 } ?? repo)
        repository = try Repository.create(at: repo)
        commits.append(try repository.commitAll(message: "Base content", author: Self.author))
    }

    var content: String { repo }

    func read(_ path: String) throws -> String {
        String(decoding: try FileSystem.readFile(repo + "/" + path), as: UTF8.self)
    }

    func write(_ path: String, _ text: String) throws {
        try FileSystem.writeFile(repo + "/" + path, Array(text.utf8))
    }

    /// Replaces `old` with `new` in `path` (which must contain it).
    func edit(_ path: String, _ old: String, _ new: String) throws {
        let text = try read(path)
        #expect(text.contains(old), "\(path) has no '\(old)'")
        try write(path, text.replacingOccurrences(of: old, with: new))
    }

    @discardableResult
    mutating func commit(_ message: String) throws -> ObjectID {
        let id = try repository.commitAll(message: message, author: Self.author)
        commits.append(id)
        return id
    }
}

/// CI on a content repository: shallow checkouts and ranges of commits.
@Suite struct CIHistoryTests {
    /// The 1-based line of the first line of `text` that contains `needle`.
    func line(of needle: String, in text: String) throws -> Int {
        try #require(text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains(needle) }) + 1
    }

    /// The ids of every rule that compares a commit with its parent.
    /// Every rule that reads the parent commit, from the rule table.
    static let historyRules = HistoryRules.all.map(\.id).sorted()

    /// A commit that rewords a mandatory phrase without a sign-off (HIS-06), and a depth-1 clone of it.
    func phraseChangeAndShallowClone(in directory: String) throws -> (fixture: HistoryFixture, head: ObjectID, shallow: String) {
        var fixture = try HistoryFixture(in: directory)
        try fixture.edit("regulatory/phrases.yaml", "개인신용평점이 하락할 수 있습니다.", "개인신용평점이 하락할 수도 있습니다.")
        let head = try fixture.commit("Soften the excess-debt warning")
        let shallow = directory + "/shallow"
        let (cloned, output) = try runTool("/usr/bin/git", ["clone", "-q", "--depth", "1", "file://" + fixture.repo, shallow])
        try #require(cloned == 0, "\(output)")
        return (fixture, head, shallow)
    }

    @Test func aShallowCloneFailsClosedNamingEveryRuleItCouldNotRun() throws {
        try withTemporaryDirectory { directory in
            let (fixture, head, shallow) = try phraseChangeAndShallowClone(in: directory)
            let validate = ["validate", "--rev", "HEAD", "--as-of", "2026-11-29"]
            let full = try ratecard(validate, in: fixture.repo)
            #expect(full.status == 1, "\(full.out)\(full.err)")
            #expect(full.out.contains("error HIS-06"), "\(full.out)")

            // The depth-1 clone cannot run the history rules: that is a refusal (exit 4), never a pass.
            let parent = fixture.commits[0]
            let rules = Self.historyRules.joined(separator: ", ")
            let result = try ratecard(validate, in: shallow)
            #expect(result.status == 4, "\(result.out)\(result.err)")
            #expect(
                result.out == """
                    error: history rules (\(rules)) could not run for \(head.short): its parent \(parent.short) is not in this clone (a shallow clone); fetch it with 'git fetch --deepen=1' (in GitHub Actions: actions/checkout with fetch-depth: 2, or 0 for --range); or pass --allow-shallow to skip them
                    incomplete: 0 errors, 0 warnings in 22 files across 1 commit (22 files parsed); \(Self.historyRules.count) rules could not run

                    """, "\(result.out)")
            #expect(
                result.err == """
                    Error: \(Self.historyRules.count) rules could not run: \(rules) compare a commit with its parent, and the parent of \(head.short) is not in this clone (a shallow clone); fetch it with 'git fetch --deepen=1' (in GitHub Actions: actions/checkout with fetch-depth: 2, or 0 for --range); or pass --allow-shallow to skip them

                    """, "\(result.err)")

            let korean = try ratecard(validate + ["--lang", "ko"], in: shallow)
            #expect(korean.status == 4)
            #expect(korean.out.contains("\(head.short) 커밋의 이력 규칙(\(rules))은 실행하지 못했습니다: 부모 커밋(\(parent.short))이 이 클론에 없습니다 (얕은 클론)"), "\(korean.out)")
            #expect(korean.out.contains("검사 미완료: 오류 0개, 경고 0개"), "\(korean.out)")
            #expect(korean.err.contains("오류: 규칙 \(Self.historyRules.count)개를 실행하지 못했습니다: 이 규칙들(\(rules))은 커밋을 부모 커밋과 비교하는데"), "\(korean.err)")
            #expect(korean.err.contains("일부러 건너뛰려면 --allow-shallow 옵션을 주세요"), "\(korean.err)")

            let github = try ratecard(validate + ["--format", "github"], in: shallow)
            #expect(github.status == 4, "\(github.out)\(github.err)")
            #expect(github.out.contains("::error title=ratecard::history rules (\(rules)) could not run for \(head.short)"), "\(github.out)")
            #expect(github.out.hasSuffix("incomplete: 0 errors, 0 warnings in 22 files across 1 commit (22 files parsed); \(Self.historyRules.count) rules could not run\n"), "\(github.out)")

            let json = try ratecard(validate + ["--format", "json"], in: shallow)
            #expect(json.status == 4)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
            #expect(object["valid"] as? Bool == false)
            #expect(object["complete"] as? Bool == false)
            let unrun = try #require((object["unrun"] as? [[String: Any]])?.first)
            #expect(unrun["rules"] as? [String] == Self.historyRules)
            #expect(unrun["missing_parent"] as? String == parent.hex)

            // Fetching the parent, as the message says, lets every rule run.
            let (deepened, output) = try runTool("/usr/bin/git", ["-C", shallow, "fetch", "-q", "--deepen=1"])
            try #require(deepened == 0, "\(output)")
            let fetched = try ratecard(validate, in: shallow)
            #expect(fetched.status == 1, "\(fetched.out)\(fetched.err)")
            #expect(fetched.out.contains("error HIS-06"), "\(fetched.out)")
            #expect(!fetched.out.contains("could not run"), "\(fetched.out)")
        }
    }

    @Test func allowShallowSkipsTheHistoryRulesAndEveryReportSaysSo() throws {
        try withTemporaryDirectory { directory in
            let (_, head, shallow) = try phraseChangeAndShallowClone(in: directory)
            let validate = ["validate", "--rev", "HEAD", "--as-of", "2026-11-29", "--allow-shallow"]
            let text = try ratecard(validate, in: shallow)
            #expect(text.status == 0, "\(text.out)\(text.err)")
            #expect(text.err == "")
            #expect(text.out.hasPrefix("note: history rules (\(Self.historyRules.joined(separator: ", "))) were skipped for \(head.short) (--allow-shallow)"), "\(text.out)")
            #expect(text.out.hasSuffix("ok: 0 errors, 0 warnings in 22 files across 1 commit (22 files parsed); \(Self.historyRules.count) rules skipped (--allow-shallow)\n"), "\(text.out)")
            let github = try ratecard(validate + ["--format", "github"], in: shallow)
            #expect(github.status == 0)
            #expect(github.out.contains("::warning title=ratecard::history rules ("), "\(github.out)")
            let json = try ratecard(validate + ["--format", "json"], in: shallow)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
            #expect(object["valid"] as? Bool == true)
            #expect(object["complete"] as? Bool == false)
        }
    }

    /// JUnit and SARIF list the rules that could not run as skipped (never as passed), refused or
    /// skipped on request, and stay valid against their schemas.
    @Test func junitAndSarifReportRulesThatCouldNotRunAsSkipped() throws {
        try withTemporaryDirectory { directory in
            let (_, head, shallow) = try phraseChangeAndShallowClone(in: directory)
            for allowed in [false, true] {
                let validate = ["validate", "--rev", "HEAD", "--as-of", "2026-11-29"] + (allowed ? ["--allow-shallow"] : [])
                let junit = try ratecard(validate + ["--format", "junit"], in: shallow)
                #expect(junit.status == (allowed ? 0 : 4), "\(junit.err)")
                #expect(junit.out.contains(#"failures="0" errors="0" skipped="\#(Self.historyRules.count)">"#), "\(junit.out)")
                let skippedCase = try #require(junit.out.range(of: #"<testcase classname="ratecard.HIS-06""#), "\(junit.out)")
                #expect(junit.out[skippedCase.upperBound...].prefix(200).contains("<skipped message=\""), "\(junit.out)")
                try FileSystem.writeFile(directory + "/report.xml", Array(junit.out.utf8))
                let (xsd, xsdOutput) = try runTool("/usr/bin/env", ["python3", schemaChecker, "junit", directory + "/report.xml"])
                #expect(xsd == 0, "\(xsdOutput)")
                #expect(xsdOutput.contains("0 failure(s), 0 error(s), \(Self.historyRules.count) skipped"), "\(xsdOutput)")

                let sarif = try ratecard(validate + ["--format", "sarif"], in: shallow)
                #expect(sarif.status == (allowed ? 0 : 4), "\(sarif.err)")
                try FileSystem.writeFile(directory + "/report.sarif", Array(sarif.out.utf8))
                let (schema, schemaOutput) = try runTool("/usr/bin/env", ["python3", schemaChecker, "sarif", directory + "/report.sarif"])
                #expect(schema == 0, "\(schemaOutput)")
                let object = try #require(try JSONSerialization.jsonObject(with: Data(sarif.out.utf8)) as? [String: Any])
                let run = try #require((object["runs"] as? [[String: Any]])?.first)
                let invocation = try #require((run["invocations"] as? [[String: Any]])?.first)
                #expect(invocation["executionSuccessful"] as? Bool == allowed)
                let notifications = try #require(invocation["toolExecutionNotifications"] as? [[String: Any]])
                let named = notifications.compactMap { ($0["associatedRule"] as? [String: Any])?["id"] as? String }
                #expect(named == Self.historyRules)
                let his06 = try #require(notifications.first { ($0["associatedRule"] as? [String: Any])?["id"] as? String == "HIS-06" })
                #expect(his06["level"] as? String == (allowed ? "warning" : "error"))
                #expect(((his06["message"] as? [String: Any])?["text"] as? String)?.contains(head.short) == true)
                #expect((run["results"] as? [Any])?.isEmpty == true)
            }
        }
    }

    /// A repository's first commit has no parent at all: nothing is missing, every rule ran.
    @Test func theFirstCommitOfARepositoryIsNotAShallowEdge() throws {
        try withTemporaryDirectory { directory in
            let fixture = try HistoryFixture(in: directory)
            let result = try ratecard(["validate", "--rev", "HEAD", "--as-of", "2026-11-29", "--format", "json"], in: fixture.repo)
            #expect(result.status == 0, "\(result.out)\(result.err)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
            #expect(object["complete"] as? Bool == true)
            #expect((object["unrun"] as? [Any])?.isEmpty == true)
            // It says the history rules had nothing to compare with: a note, not a finding.
            let notes = try #require(object["notes"] as? [String])
            #expect(notes.count == 1 && notes[0].hasPrefix("\(fixture.commits[0].short) is a root commit (no parent): the history rules (HIS-01, "), "\(notes)")
        }
    }

    /// A root commit (an orphan branch, a squash) has no parent for the history rules: publish
    /// compares the records that never change with what the live release shipped. A terms
    /// version edited in place, a live table edited once it is past, or a version deleted is
    /// refused (exit 1, file:line:column, the rule), from a repository that has the live commit
    /// and from a clone that has only the orphan (the bundle alone is compared).
    @Test func anOrphanCommitIsCheckedAgainstWhatIsLive() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 1)
            let first = try ratecard(fixture.publishArguments(fixture.commits[0]), in: fixture.repo)
            try #require(first.status == 0, "\(first.out)\(first.err)")
            let live = try ServeRoot(path: fixture.root).live()
            func git(_ arguments: [String], in repo: String = fixture.repo) throws {
                let (status, output) = try runTool("/usr/bin/git", ["-C", repo, "-c", "user.name=Squasher", "-c", "user.email=squash@example.com"] + arguments)
                try #require(status == 0, "git \(arguments): \(output)")
            }
            let terms = "terms/service-terms/1.0.0.md"
            let text = String(decoding: try FileSystem.readFile(fixture.repo + "/" + terms), as: UTF8.self)
            let edited = text.replacingOccurrences(of: "일시 중단할 수 있습니다", with: "예고 없이 중단할 수 있습니다")
            try #require(edited != text)
            try FileSystem.writeFile(fixture.repo + "/" + terms, Array(edited.utf8))
            try git(["checkout", "-q", "--orphan", "squashed"])
            try git(["add", "-A"])
            try git(["commit", "-q", "-m", "Squashed history"])

            let validate = try ratecard(["validate", "--rev", "HEAD", "--as-of", "2026-11-29"], in: fixture.repo)
            #expect(validate.status == 0, "\(validate.out)\(validate.err)")
            #expect(validate.out.contains("is a root commit (no parent): the history rules (HIS-01, "), "\(validate.out)")
            #expect(validate.out.contains("had nothing to compare with; publish compares the published terms versions and rate tables with the live release"), "\(validate.out)")

            let line = try #require(edited.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains("예고 없이") }) + 1
            let expected =
                "\(terms):\(line):1: error HIS-02: the body of this version differs from the one live on \(live!), which users were shown and may have consented to; restore the published text and add the new text as a new version file"
            let publish = try ratecard(fixture.publishArguments("HEAD"), in: fixture.repo)
            #expect(publish.status == 1, "\(publish.out)\(publish.err)")
            #expect(publish.out.contains(expected), "\(publish.out)")
            #expect(publish.out.components(separatedBy: "HIS-02").count == 2, "reported once: \(publish.out)")
            #expect(try ServeRoot(path: fixture.root).live() == live)

            // A clone of the orphan alone has no live commit: the live bundle is what is compared.
            let alone = directory + "/alone"
            let (cloned, output) = try runTool("/usr/bin/git", ["clone", "-q", "--single-branch", "--branch", "squashed", "file://" + fixture.repo, alone])
            try #require(cloned == 0, "\(output)")
            let korean = try ratecard(fixture.publishArguments("HEAD") + ["--lang", "ko"], in: alone)
            #expect(korean.status == 1, "\(korean.out)\(korean.err)")
            #expect(korean.out.contains("\(terms):\(line):1: 오류 HIS-02: 이 버전의 본문이 라이브 릴리스 \(live!)에 게시되어"), "\(korean.out)")

            // The title, a front-matter field, restored text but deleted version, and a live
            // table edited after a newer one took effect: each refused by the live bundle.
            try FileSystem.writeFile(alone + "/" + terms, Array(text.replacingOccurrences(of: "title: 서비스 이용약관", with: "title: 서비스 이용 약관").utf8))
            try git(["rm", "-q", "terms/credit-inquiry-consent/1.0.0.md"], in: alone)
            let table = "products/acme-bank/credit/rates/2026-01-15.yaml"
            let rates = String(decoding: try FileSystem.readFile(alone + "/" + table), as: UTF8.self)
            try FileSystem.writeFile(alone + "/" + table, Array(rates.replacingOccurrences(of: "apr_min_pct: 4.1", with: "apr_min_pct: 3.9").utf8))
            try FileSystem.writeFile(
                alone + "/products/acme-bank/credit/rates/2026-12-01.yaml", Array(rates.replacingOccurrences(of: "effective_from: 2026-01-15", with: "effective_from: 2026-12-01").utf8))
            try git(["add", "-A"], in: alone)
            try git(["commit", "-q", "--amend", "-m", "Squashed again"], in: alone)
            let later = ["publish", "--root", fixture.root, "--rev", "HEAD", "--web", fixture.web, "--as-of", "2026-12-02", "-m", "test"]
            let refused = try ratecard(later, in: alone)
            #expect(refused.status == 1, "\(refused.out)\(refused.err)")
            #expect(refused.out.contains("\(terms):2:8: error HIS-01: this version differs from the one live on \(live!)"), "\(refused.out)")
            #expect(refused.out.contains("terms/credit-inquiry-consent/1.0.0.md:1:1: error HIS-03: terms version credit-inquiry-consent 1.0.0 is live on \(live!) and was deleted"), "\(refused.out)")
            #expect(refused.out.contains("\(table):6:18: error HIS-08: this rate table was in force from 2026-01-15 until 2026-11-30 as live on \(live!)"), "\(refused.out)")
            #expect(try ServeRoot(path: fixture.root).live() == live)
        }
    }

    /// Plain validate in a depth-1 clone with a clean work tree validates HEAD, whose own change
    /// the history rules cannot check there: exit 4 unless --allow-shallow, as --rev HEAD.
    @Test func aCleanShallowWorkTreeFailsClosedLikeRevHead() throws {
        try withTemporaryDirectory { directory in
            let (_, head, shallow) = try phraseChangeAndShallowClone(in: directory)
            let refused = try ratecard(["validate", "--as-of", "2026-11-29"], in: shallow)
            #expect(refused.status == 4, "\(refused.out)\(refused.err)")
            #expect(refused.out.contains("error: history rules (\(Self.historyRules.joined(separator: ", "))) could not run for \(head.short)"), "\(refused.out)")
            #expect(refused.err.contains("or pass --allow-shallow to skip them"), "\(refused.err)")
            let allowed = try ratecard(["validate", "--as-of", "2026-11-29", "--allow-shallow"], in: shallow)
            #expect(allowed.status == 0, "\(allowed.out)\(allowed.err)")
            #expect(allowed.out.contains("were skipped for \(head.short) (--allow-shallow)"), "\(allowed.out)")
        }
    }

    /// A range reaching past the clone's edge cannot be walked: exit 4, saying how to fetch it.
    @Test func aRangePastTheShallowEdgeExits4() throws {
        try withTemporaryDirectory { directory in
            let (_, _, shallow) = try phraseChangeAndShallowClone(in: directory)
            let range = try ratecard(["validate", "--range", "HEAD~1..HEAD", "--as-of", "2026-11-29"], in: shallow)
            #expect(range.status == 4)
            #expect(range.err.contains("this is a shallow clone"), "\(range.err)")
            #expect(range.err.contains("fetch-depth: 0"), "\(range.err)")
        }
    }

    /// A range needs only its own commits and the parent of the first: in a depth-2 clone
    /// `HEAD~1..HEAD` runs every rule, as `--rev HEAD` does; one more commit back is past the edge.
    @Test func aRangeWithinADepthTwoCloneRunsInFull() throws {
        try withTemporaryDirectory { directory in
            var fixture = try HistoryFixture(in: directory)
            try fixture.edit(fixture.table, "apr_min_pct: 5.2", "apr_min_pct: 5.3")
            try fixture.commit("Raise the 801-900 floor")
            try fixture.edit("regulatory/phrases.yaml", "개인신용평점이 하락할 수 있습니다.", "개인신용평점이 하락할 수도 있습니다.")
            try fixture.commit("Soften the excess-debt warning")
            let shallow = directory + "/shallow"
            let (cloned, output) = try runTool("/usr/bin/git", ["clone", "-q", "--depth", "2", "file://" + fixture.repo, shallow])
            try #require(cloned == 0, "\(output)")
            let rev = try ratecard(["validate", "--rev", "HEAD", "--as-of", "2026-11-29"], in: shallow)
            #expect(rev.status == 1, "\(rev.out)\(rev.err)")
            #expect(rev.out.contains("error HIS-06"), "\(rev.out)")
            let range = try ratecard(["validate", "--range", "HEAD~1..HEAD", "--as-of", "2026-11-29", "--format", "json"], in: shallow)
            // HIS-06 ran (the content's own finding), so the range is complete and fails on it.
            #expect(range.status == 1, "\(range.out)\(range.err)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(range.out.utf8)) as? [String: Any])
            #expect(object["complete"] as? Bool == true, "\(range.out)")
            #expect((object["unrun"] as? [Any])?.isEmpty == true, "\(range.out)")
            #expect(range.out.contains("HIS-06"), "\(range.out)")
            #expect(range.err.isEmpty, "\(range.err)")
            // HEAD~2 is past the edge: its commits' parent is missing, exit 4 as before.
            let past = try ratecard(["validate", "--range", "HEAD~2..HEAD", "--as-of", "2026-11-29"], in: shallow)
            #expect(past.status == 4, "\(past.out)\(past.err)")
        }
    }

    /// publish and build run the same checks: in a shallow clone they refuse (exit 4, nothing
    /// published) unless --allow-shallow says to skip the history rules.
    @Test func publishAndBuildInAShallowCloneFailClosed() throws {
        try withTemporaryDirectory { directory in
            let (_, _, shallow) = try phraseChangeAndShallowClone(in: directory)
            let web = directory + "/web"
            try FileSystem.makeDirectories(web)
            try FileSystem.writeFile(web + "/index.html", Array("<!DOCTYPE html><title>app</title>\n".utf8))
            let root = directory + "/root"
            let publish = ["publish", "--root", root, "--web", web, "--as-of", "2026-11-29", "-m", "from CI"]
            let refused = try ratecard(publish, in: shallow)
            #expect(refused.status == 4, "\(refused.out)\(refused.err)")
            #expect(refused.err.contains("\(Self.historyRules.count) rules could not run: \(Self.historyRules.joined(separator: ", "))"), "\(refused.err)")
            #expect(refused.err.contains("--allow-shallow"), "\(refused.err)")
            #expect(try ServeRoot(path: root).live() == nil)
            let built = try ratecard(["build", "--rev", "HEAD", "--as-of", "2026-11-29", "--out", directory + "/out"], in: shallow)
            #expect(built.status == 4, "\(built.out)\(built.err)")
            #expect(!FileSystem.exists(directory + "/out"))
            let allowed = try ratecard(publish + ["--allow-shallow"], in: shallow)
            #expect(allowed.status == 0, "\(allowed.out)\(allowed.err)")
            #expect(try ServeRoot(path: root).live() != nil)
        }
    }

    @Test func aRangeAnnotatesOnlyWhatIsStillPresentAtItsEnd() throws {
        try withTemporaryDirectory { directory in
            var fixture = try HistoryFixture(in: directory)
            let table = fixture.table
            try fixture.edit(table, "apr_max_pct: 5.6", "apr_max_pct: 25.0")
            let overCap = try fixture.commit("Over the cap")
            try fixture.edit(table, "apr_max_pct: 25.0", "apr_max_pct: 5.6")
            try fixture.edit(table, "score_min: 801", "score_min: 811")
            let gap = try fixture.commit("Cap fixed, gap added")
            // Lines move: the gap is on another line at the end of the range.
            try fixture.write(table, "# Acme Bank credit\n# reviewed\n" + (try fixture.read(table)))
            try fixture.commit("Header comment")
            let gapLine = try line(of: "score_min: 811", in: try fixture.read(table))
            let range = "\(fixture.commits[0].hex)..HEAD"

            let text = try ratecard(["validate", "--range", range, "--as-of", "2026-11-29"], in: fixture.repo)
            #expect(text.status == 1)
            #expect(
                text.out.contains("\n\(table):\(gapLine):16: error BND-02: scores 801-810 are in no band; score_min should be 801 [introduced in \(gap.short) \"Cap fixed, gap added\"]\n"),
                "\(text.out)")
            let history = try #require(text.out.range(of: "Fixed later in the range (history, not problems at its end):\n"), "\(text.out)")
            let fixed = text.out[history.upperBound...]
            #expect(fixed.contains("  \(table):7:18: error CAP-01: apr_max_pct 25.0 is above the legal cap"), "\(fixed)")
            #expect(fixed.contains("[introduced in \(overCap.short) \"Over the cap\"; fixed later in the range by \(gap.short) \"Cap fixed, gap added\"]"), "\(fixed)")
            // The move to 25.0 (HIS-04) is history too: the rate is back where it was before it.
            #expect(fixed.contains("warning HIS-04: apr_max_pct for scores 901-1000 moved +19.4pp (5.6 -> 25.0)"), "\(fixed)")
            #expect(text.out.contains("invalid: 1 error, 1 warning in ") && text.out.hasSuffix("; 3 fixed later in the range\n"), "\(text.out)")

            let github = try ratecard(["validate", "--range", range, "--as-of", "2026-11-29", "--format", "github"], in: fixture.repo)
            #expect(github.status == 1)
            #expect(github.out.contains("::error file=\(table),line=\(gapLine),col=16,title=BND-02::scores 801-810 are in no band"), "\(github.out)")
            #expect(!github.out.contains("CAP-01"), "\(github.out)")
            #expect(!github.out.contains("BND-04"), "\(github.out)")
            for format in ["sarif", "junit"] {
                let report = try ratecard(["validate", "--range", range, "--as-of", "2026-11-29", "--format", format], in: fixture.repo)
                #expect(report.out.contains("BND-02"))
                #expect(!report.out.contains("apr_max_pct 25.0 is above the legal cap"), "\(format): \(report.out)")
            }

            let json = try ratecard(["validate", "--range", range, "--as-of", "2026-11-29", "--format", "json"], in: fixture.repo)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
            let diagnostics = try #require(object["diagnostics"] as? [[String: Any]])
            let cap = try #require(diagnostics.first { $0["rule"] as? String == "CAP-01" })
            #expect(cap["present_at_end"] as? Bool == false)
            #expect((cap["fixed_by"] as? [String: Any])?["id"] as? String == gap.hex)
            let band = try #require(diagnostics.first { $0["rule"] as? String == "BND-02" })
            #expect(band["present_at_end"] as? Bool == true)
            #expect(band["line"] as? Int == gapLine)
            #expect(object["errors"] as? Int == 1)
        }
    }

    /// A pull request that followed HIS-06's advice: commit 1 rewords a mandatory phrase,
    /// commit 2 adds exactly the sign-off the message asked for. The range passes as its end
    /// does; the HIS-06 of commit 1 is history, covered by commit 2. A sign-off for another
    /// change covers nothing.
    @Test func aSignoffLaterInTheRangeCoversTheChange() throws {
        try withTemporaryDirectory { directory in
            var fixture = try HistoryFixture(in: directory)
            try fixture.edit("regulatory/phrases.yaml", "개인신용평점이 하락할 수 있습니다.", "개인신용평점이 하락할 수도 있습니다.")
            let change = try fixture.commit("Soften the excess-debt warning")
            let asked = try ratecard(["validate", "--rev", "HEAD", "--as-of", "2026-11-29"], in: fixture.repo)
            #expect(asked.status == 1, "\(asked.out)\(asked.err)")
            // The message says what a fix in one commit is: the sign-off with the change.
            #expect(asked.out.contains("in the same commit as the change (in a pull request, a later commit of its range covers it too)"), "\(asked.out)")
            let marker = "when and on what: "
            let hint = try #require(asked.out.split(separator: "\n").first { $0.contains("error HIS-06") && $0.contains(marker) }, "\(asked.out)")
            let snippet = hint[try #require(hint.range(of: marker)).upperBound...]
                .replacingOccurrences(of: "who approved it", with: "Lee Jiwon")
                .replacingOccurrences(of: "YYYY-MM-DD", with: "2026-11-20")
                .replacingOccurrences(of: "review number", with: "CR-2026-31")
            try fixture.write("regulatory/signoffs.yaml", "signoffs:\n  " + snippet + "\n")
            let signoff = try fixture.commit("Sign-off for the softened warning")
            let range = "\(fixture.commits[0].hex)..HEAD"

            let end = try ratecard(["validate", "--rev", "HEAD", "--as-of", "2026-11-29"], in: fixture.repo)
            #expect(end.status == 0, "\(end.out)\(end.err)")
            let text = try ratecard(["validate", "--range", range, "--as-of", "2026-11-29"], in: fixture.repo)
            #expect(text.status == 0, "\(text.out)\(text.err)")
            let history = try #require(text.out.range(of: "Fixed later in the range (history, not problems at its end):\n"), "\(text.out)")
            #expect(
                text.out[history.upperBound...].contains(
                    "[introduced in \(change.short) \"Soften the excess-debt warning\"; fixed later in the range by \(signoff.short) \"Sign-off for the softened warning\"]"),
                "\(text.out)")
            let json = try ratecard(["validate", "--range", range, "--as-of", "2026-11-29", "--format", "json"], in: fixture.repo)
            #expect(json.status == 0)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
            let diagnostics = try #require(object["diagnostics"] as? [[String: Any]])
            let his06 = try #require(diagnostics.first { $0["rule"] as? String == "HIS-06" }, "\(json.out)")
            #expect(his06["present_at_end"] as? Bool == false)
            #expect((his06["fixed_by"] as? [String: Any])?["id"] as? String == signoff.hex)
            #expect(object["errors"] as? Int == 0)
            let github = try ratecard(["validate", "--range", range, "--as-of", "2026-11-29", "--format", "github"], in: fixture.repo)
            #expect(github.status == 0 && !github.out.contains("HIS-06"), "\(github.out)")

            // A sign-off naming another change leaves the change unsigned at the range's end.
            try fixture.edit("regulatory/signoffs.yaml", "하락할 수도 있습니다", "하락할 수도 있어요")
            try fixture.commit("Reword the sign-off")
            let wrong = try ratecard(["validate", "--range", range, "--as-of", "2026-11-29", "--format", "json"], in: fixture.repo)
            #expect(wrong.status == 1, "\(wrong.out)\(wrong.err)")
            let after = try #require(try JSONSerialization.jsonObject(with: Data(wrong.out.utf8)) as? [String: Any])
            let still = try #require((after["diagnostics"] as? [[String: Any]])?.first { $0["rule"] as? String == "HIS-06" }, "\(wrong.out)")
            #expect(still["present_at_end"] as? Bool == true)
            #expect((still["commit"] as? [String: Any])?["id"] as? String == change.hex, "\(wrong.out)")
        }
    }

    /// HIS-11 judges a new terms version by the day its commit was made, as HIS-09 judges a
    /// table: under --rev and --range, whatever day they run on.
    @Test func aBackdatedTermsVersionIsJudgedByItsCommitsDay() throws {
        try withTemporaryDirectory { directory in
            let fixture = try HistoryFixture(in: directory)
            let base = try fixture.read("terms/service-terms/1.1.0.md")
            func version(_ number: String, _ day: String) -> String {
                base.replacingOccurrences(of: "version: 1.1.0", with: "version: \(number)").replacingOccurrences(of: "effective_from: 2025-09-01", with: "effective_from: \(day)")
            }
            // Noon in Seoul on a day: the commit's day as the rules read it.
            func noon(_ day: String) throws -> Int64 {
                let parts = day.split(separator: "-").map { Int($0)! }
                var components = DateComponents(timeZone: TimeZone(identifier: "Asia/Seoul"), year: parts[0], month: parts[1], day: parts[2], hour: 12)
                components.calendar = Calendar(identifier: .gregorian)
                return Int64(try #require(components.date).timeIntervalSince1970)
            }
            // Committed on 2026-11-25, dated 2026-11-20: backdated.
            try fixture.write("terms/service-terms/1.2.0.md", version("1.2.0", "2026-11-20"))
            let backdated = try fixture.repository.commitAll(
                message: "Terms 1.2.0", author: Signature(name: "Kim Minji", email: "minji@example.com", time: try noon("2026-11-25"), offsetMinutes: 540))
            let rev = try ratecard(["validate", "--rev", "HEAD", "--as-of", "2026-12-01"], in: fixture.repo)
            #expect(rev.status == 1)
            #expect(
                rev.out.contains(
                    "terms/service-terms/1.2.0.md:4:17: error HIS-11: a new version dated 2026-11-20 is backdated (before 2026-11-25): it would say it was in force on days users were shown the version before; date it 2026-11-25 or later (effective_from)"
                ), "\(rev.out)")
            // Committed on 2026-11-27 and dated that day: not backdated, validated on any later day.
            try fixture.write("terms/service-terms/1.3.0.md", version("1.3.0", "2026-11-27"))
            _ = try fixture.repository.commitAll(
                message: "Terms 1.3.0", author: Signature(name: "Kim Minji", email: "minji@example.com", time: try noon("2026-11-27"), offsetMinutes: 540))
            let later = try ratecard(["validate", "--rev", "HEAD", "--as-of", "2026-12-10"], in: fixture.repo)
            #expect(later.status == 0, "\(later.out)")
            // The range reports the backdated version once, with the commit that added it.
            let range = try ratecard(["validate", "--range", "\(fixture.commits[0].hex)..HEAD", "--as-of", "2026-12-10"], in: fixture.repo)
            #expect(range.status == 1)
            #expect(range.out.components(separatedBy: "error HIS-11").count == 2, "\(range.out)")
            #expect(range.out.contains("[introduced in \(backdated.short) \"Terms 1.2.0\"]"), "\(range.out)")
        }
    }
}
