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
        var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(2)
        let base = parts.joined(separator: "/") + "/RatecardKitTests/Fixtures/base"
        try FileSystem.copyTree(from: base, to: contentFolder.map { repo + "/" + $0 } ?? repo)
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

    @Test func aShallowCloneValidatesHeadAndSaysTheParentIsMissing() throws {
        try withTemporaryDirectory { directory in
            var fixture = try HistoryFixture(in: directory)
            // A move of more than 3pp: HIS-04 warns when the parent can be compared.
            try fixture.edit(fixture.table, "apr_min_pct: 4.1", "apr_min_pct: 0.9")
            let head = try fixture.commit("Lower the top band's floor")
            let full = try ratecard(["validate", "--rev", "HEAD", "--as-of", "2026-11-29"], in: fixture.repo)
            #expect(full.status == 0, "\(full.out)\(full.err)")
            #expect(full.out.contains("warning HIS-04"), "\(full.out)")
            #expect(!full.out.contains("note:"))

            let (cloned, output) = try runTool("/usr/bin/git", ["clone", "-q", "--depth", "1", "file://" + fixture.repo, directory + "/shallow"])
            #expect(cloned == 0, "\(output)")
            let shallow = directory + "/shallow"
            let result = try ratecard(["validate", "--rev", "HEAD", "--as-of", "2026-11-29"], in: shallow)
            #expect(result.status == 0, "\(result.out)\(result.err)")
            #expect(result.err == "")
            let parent = fixture.commits[0]
            #expect(
                result.out.hasPrefix(
                    """
                    note: history rules (HIS-01 to HIS-04) were not checked for \(head.short): its parent \(parent.short) is not in this clone (a shallow clone); fetch it with 'git fetch --deepen=1' (in GitHub Actions: actions/checkout with fetch-depth: 2, or 0 for --range)
                    ok: 0 errors, 0 warnings in 
                    """), "\(result.out)")
            #expect(!result.out.contains("warning HIS-04"))

            let github = try ratecard(["validate", "--rev", "HEAD", "--as-of", "2026-11-29", "--format", "github"], in: shallow)
            #expect(github.status == 0)
            #expect(github.out.contains("::notice title=ratecard::history rules (HIS-01 to HIS-04) were not checked"), "\(github.out)")
            let json = try ratecard(["validate", "--rev", "HEAD", "--as-of", "2026-11-29", "--format", "json"], in: shallow)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
            #expect((object["notes"] as? [String])?.count == 1)
            #expect(object["valid"] as? Bool == true)

            // A range reaching past the clone's edge cannot be checked: say how to fetch it.
            let range = try ratecard(["validate", "--range", "HEAD~1..HEAD", "--as-of", "2026-11-29"], in: shallow)
            #expect(range.status == 4)
            #expect(range.err.contains("this is a shallow clone"), "\(range.err)")
            #expect(range.err.contains("fetch-depth: 0"), "\(range.err)")
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
            #expect(
                text.out.hasSuffix("invalid: 1 error, 2 warnings in 16 files across 3 commits (19 files parsed); 2 fixed later in the range\n") || text.out.contains("; 2 fixed later in the range\n"),
                "\(text.out)")

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
