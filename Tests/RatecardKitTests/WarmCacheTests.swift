import Foundation
import Glibc
import RatecardGenerate
import Testing

@testable import RatecardCore
@testable import RatecardKit
@testable import RatecardOutput

/// A build with a warm build cache (parsed rate tables and product files, the findings of the
/// last check, rendered units) after a one-table or one-terms-page edit gives what a cold build
/// gives: the same findings and the same bytes, with the kept findings checked again only where
/// the edit can change them; a kept entry that does not fit the content is never used.
@Suite struct WarmCacheTests {
    static let parameters = LargeContentGenerator.Parameters(partners: 3, products: 6, rateTables: 12, termsVersions: 10, history: 0, seed: 23)

    /// The caches of one run over the cache folder `folder` (a new process's).
    func caches(_ folder: String) -> Caches {
        Caches(build: BuildCache(folder: folder, limit: 64 << 20, warn: { Issue.record("cache unusable: \($0)") }))
    }

    /// Builds the work tree with a warm cache in `folder` and without one: the same findings, and
    /// the same files when valid. Returns the findings.
    @discardableResult
    func expectSameAsCold(_ location: ContentLocation, cache folder: String, _ step: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [Diagnostic] {
        let warmCaches = caches(folder)
        let warm = try BundleRun(location: location, asOf: fixtureDay, caches: warmCaches).render(revision: nil)
        warmCaches.finish()
        let cold = try BundleRun(location: location, asOf: fixtureDay, caches: Caches()).render(revision: nil)
        switch (warm, cold) {
        case (.built(let a, let warmSnapshot), .built(let b, let coldSnapshot)):
            #expect(warmSnapshot.report.diagnostics == coldSnapshot.report.diagnostics, "\(step)", sourceLocation: sourceLocation)
            let differing = Set(a.files.keys).union(b.files.keys).filter { a.files[$0] != b.files[$0] }.sorted()
            #expect(!a.files.isEmpty && differing.isEmpty, "\(step): \(differing.count) files differ, first \(differing.prefix(3))", sourceLocation: sourceLocation)
            return coldSnapshot.report.diagnostics
        case (.invalid(let a), .invalid(let b)):
            #expect(a.diagnostics == b.diagnostics, "\(step)", sourceLocation: sourceLocation)
            return b.diagnostics
        default:
            Issue.record("\(step): one build was refused, the other not", sourceLocation: sourceLocation)
            return []
        }
    }

    /// The work tree's content and HEAD's, loaded as `validate` loads them.
    func contents(_ location: ContentLocation, _ caches: Caches) throws -> (Content, Content) {
        let run = ValidationRun(location: location, context: ValidationContext(asOf: fixtureDay), caches: caches)
        let content = try run.content(at: nil)
        return (content, try run.content(at: "HEAD"))
    }

    @Test func warmBuildsAfterOneTableAndOneTermsPageEqualColdBuilds() throws {
        try withTemporaryDirectory { directory in
            let repo = directory + "/repo"
            let cache = directory + "/cache"
            try LargeContentGenerator(Self.parameters).generate(into: repo)
            let location = try ContentLocation.find(from: repo)
            func text(_ path: String) throws -> String { String(decoding: try FileSystem.readFile(repo + "/" + path), as: UTF8.self) }
            let listing = try WorkingTreeSource(root: repo, contentRoot: .repositoryRoot).entries().map(\.path)
            let table = try #require(listing.filter { $0.hasPrefix("products/") && $0.contains("/rates/") }.last)
            // A new version of the notice, not committed yet (what staff edit before a commit).
            let notice = try #require(listing.filter { $0.hasPrefix("terms/broker-notice/") }.last)
            let version = "\(notice.split(separator: "/").last!.split(separator: ".")[0]).99.0"
            let page = "terms/broker-notice/\(version).md"
            let draft = try text(notice).split(separator: "\n", omittingEmptySubsequences: false).map {
                $0.hasPrefix("version:") ? "version: \(version)" : $0.hasPrefix("effective_from:") ? "effective_from: \(fixtureDay)" : String($0)
            }
            try write(draft.joined(separator: "\n"), to: repo + "/" + page)
            try expectSameAsCold(location, cache: cache, "first build")

            let original = try text(table)
            try write(LargeContentGenerator.nudgedRate(original), to: repo + "/" + table)
            try expectSameAsCold(location, cache: cache, "one table nudged")
            // A table over the legal cap: an error on that table, found from the kept findings.
            let capped = original.replacingOccurrences(of: #"apr_max_pct: [0-9.]+"#, with: "apr_max_pct: 29.9", options: .regularExpression)
            try #require(capped != original)
            try write(capped, to: repo + "/" + table)
            let found = try expectSameAsCold(location, cache: cache, "one table over the cap")
            #expect(found.contains { $0.path == table && $0.severity == .error }, "\(found.map(\.rule))")
            let (content, head) = try contents(location, caches(cache))
            let validator = Validator(context: ValidationContext(asOf: fixtureDay))
            let kept = KeptFindings(validator: validator, cache: BuildCache(folder: cache, limit: 64 << 20, warn: { _ in }))
            // Kept findings are used (those of this content, or of one a file or two before it:
            // which of two entries written within one clock tick is read is not decided).
            let checked = kept.checked(content, base: head)
            #expect(checked.rechecked != nil && checked.found == validator.check(content, base: head))
            try write(original, to: repo + "/" + table)
            try expectSameAsCold(location, cache: cache, "the table restored")

            // A terms page: a new sentence, then prohibited wording in it.
            let body = try text(page)
            try write(body + "\n변경 안내 문장입니다.\n", to: repo + "/" + page)
            try expectSameAsCold(location, cache: cache, "one terms page edited")
            try write(body + "\n누구나 무조건 승인됩니다.\n", to: repo + "/" + page)
            let wording = try expectSameAsCold(location, cache: cache, "prohibited wording in a terms page")
            #expect(wording.contains { $0.path == page }, "\(wording.map(\.rule))")
            let (edited, base) = try contents(location, caches(cache))
            #expect(kept.checked(edited, base: base).rechecked != nil)
            try write(body, to: repo + "/" + page)
            let restored = try contents(location, caches(cache))
            let again = kept.checked(restored.0, base: restored.1)
            #expect(again.rechecked != nil && again.found == validator.check(restored.0, base: restored.1))
        }
    }

    @Test func keptFindingsThatDoNotFitTheContentAreNotUsed() throws {
        try withTemporaryDirectory { directory in
            let repo = directory + "/repo"
            try LargeContentGenerator(Self.parameters).generate(into: repo)
            let location = try ContentLocation.find(from: repo)
            let (content, head) = try contents(location, Caches())
            let validator = Validator(context: ValidationContext(asOf: fixtureDay))
            let cold = validator.check(content, base: head)
            let shape = try #require(KeptFindings.shape(content, base: head, context: validator.context))
            let bogus = Diagnostic(path: shape.units[0].path, mark: .start, rule: SchemaRules.empty, message: .verbatim("kept by no check"))
            var renamed = shape.units
            renamed[0].path += ".moved"
            var fewer = shape.units
            fewer.removeLast()
            let entries: [(String, [UInt8])] = [
                ("cut short", Array(KeptFindings.State(units: shape.units, found: [bogus]).encoded().dropLast(3))),
                ("another file's units", KeptFindings.State(units: renamed, found: [bogus]).encoded()),
                ("fewer units", KeptFindings.State(units: fewer, found: [bogus]).encoded()),
                ("not a record", Array("findings".utf8)),
            ]
            for (number, (what, payload)) in entries.enumerated() {
                // The only entry under the content's key, in a cache folder of its own.
                let cache = directory + "/cache-\(number)"
                let writing = BuildCache(folder: cache, limit: 64 << 20, warn: { _ in })
                writing.write(shape.key, payload)
                writing.finish()
                let kept = KeptFindings(validator: validator, cache: BuildCache(folder: cache, limit: 64 << 20, warn: { _ in }))
                let checked = kept.checked(content, base: head)
                #expect(checked.rechecked == nil && checked.found == cold, "\(what)")
            }
            // The same findings, kept whole, are used.
            let cache = directory + "/cache"
            let writing = BuildCache(folder: cache, limit: 64 << 20, warn: { _ in })
            writing.write(shape.key, KeptFindings.State(units: shape.units, found: [bogus]).encoded())
            writing.finish()
            let checked = KeptFindings(validator: validator, cache: BuildCache(folder: cache, limit: 64 << 20, warn: { _ in })).checked(content, base: head)
            #expect(checked.rechecked == 0 && checked.found == [bogus])
        }
    }

    /// A terms body is parsed once for its wording and for what its page drops: the one scan
    /// finds both, where they are written, and its cache record gives them back whole.
    @Test func oneScanFindsWordingAndDroppedMarkupAndItsRecordComesBackWhole() throws {
        let body = """
            # 안내

            누구나 대출 가능합니다.

            <div>숨은 글</div>

            [문의](javascript:alert(1)) 또는 ![배너](data:image/png;base64,AAAA) 그리고 [홈](https://example.com)
            """
        let result = TermsScan.scan(body: body, firstLine: 8)
        #expect(result.wording.map(\.kind) == [0] && result.wording.first?.mark == SourceMark(line: 10, column: 1))
        #expect(
            result.dropped == [
                CommonMark.Dropped(kind: .html, line: 5, column: 1, text: "<div>숨은 글</div>\n"),
                CommonMark.Dropped(kind: .link(url: "javascript:alert(1)"), line: 7, column: 1, text: "javascript:alert(1)"),
                CommonMark.Dropped(kind: .image(url: "data:image/png;base64,AAAA"), line: 7, column: 30, text: "data:image/png;base64,AAAA"),
            ])
        #expect(result.dropped == CommonMark.dropped(body))
        let record = TermsScan.encode(result)
        #expect(TermsScan.decode(record) == result)
        #expect(TermsScan.decode(Array(record.dropLast())) == nil)
        #expect(TermsScan.decode(record + [0]) == nil)
    }

    @Test func parsedTablesProductsAndTermsComeBackWhole() throws {
        try withTemporaryDirectory { directory in
            let repo = directory + "/repo"
            try LargeContentGenerator(Self.parameters).generate(into: repo)
            let location = try ContentLocation.find(from: repo)
            let cold = try contents(location, Caches()).0
            #expect(!cold.products.isEmpty && !cold.rateTables.isEmpty)
            for product in cold.products {
                guard case .product(let back?)? = ParsedRecord.encode(.product(product)).flatMap({ ParsedRecord.decode($0) }) else {
                    Issue.record("\(product.path) did not come back")
                    continue
                }
                #expect(back == product)
            }
            for table in cold.rateTables {
                guard case .rateTable(let back?)? = ParsedRecord.encode(.rateTable(table)).flatMap({ ParsedRecord.decode($0) }) else {
                    Issue.record("\(table.path) did not come back")
                    continue
                }
                #expect(back == table)
                #expect(ParsedRecord.decode(Array(ParsedRecord.encode(.rateTable(table))!.dropLast())) == nil)
            }
            for version in cold.terms {
                let text = try #require(cold.termsText[version.path])
                let file = Array(text.text.utf8)
                guard case .terms(let back?, let backText)? = ParsedRecord.encode(.terms(version, text: text)).flatMap({ ParsedRecord.decode($0, file: file) }) else {
                    Issue.record("\(version.path) did not come back")
                    continue
                }
                // The version taken back shares its text with the content, and decodes it when read.
                #expect(back.text === backText)
                #expect(back == version && backText == text && back.body == version.body)
                // A body recorded to end inside a scalar of the file (another file under the
                // same key) is no record.
                if let split = file.indices.first(where: { file[$0] & 0xC0 == 0x80 }) {
                    var shifted = ParsedRecord.encode(.terms(version, text: text))!
                    shifted.replaceSubrange((shifted.count - 16)..<(shifted.count - 8), with: withUnsafeBytes(of: Int64(split).littleEndian, Array.init))
                    #expect(ParsedRecord.decode(shifted, file: file) == nil)
                }
            }
            // Loaded twice through one cache folder: the second load reads them from it.
            let cache = directory + "/cache"
            for _ in 0..<2 {
                let warm = caches(cache)
                let content = try contents(location, warm).0
                warm.finish()
                #expect(content.products == cold.products && content.rateTables == cold.rateTables && content.fileDiagnostics == cold.fileDiagnostics)
                #expect(content.terms == cold.terms && content.termsText == cold.termsText)
            }
        }
    }
    /// An asset whose check found nothing is kept by its blob id and not checked again; one with
    /// findings is checked on every run, and an asset edited to be unsafe is found on the next.
    @Test func assetChecksAreKeptOnlyWhenTheyFoundNothing() throws {
        try withTemporaryDirectory { directory in
            let repo = directory + "/repo"
            try LargeContentGenerator(Self.parameters).generate(into: repo)
            let location = try ContentLocation.find(from: repo)
            let root = try #require(location.contentRoot)
            let logos = try FileSystem.listDirectory(repo + "/assets/partners").sorted()
            let (safe, unsafe) = ("assets/partners/" + logos[0], "assets/partners/" + logos[1])
            try write(#"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>"#, to: repo + "/" + unsafe)
            let cache = directory + "/cache"
            let cold = try contents(location, Caches()).0
            #expect(cold.fileDiagnostics.contains { $0.path == root.path(unsafe) && $0.rule == AssetRules.safeImage.id })
            for _ in 0..<2 {
                let warm = caches(cache)
                #expect(try contents(location, warm).0.fileDiagnostics == cold.fileDiagnostics)
                warm.finish()
            }
            let kept = caches(cache)
            func record(_ relative: String) throws -> [UInt8]? {
                kept.build?.read(ParsedRecord.key(path: root.path(relative), id: Repository.blobID(of: try FileSystem.readFile(repo + "/" + relative))))
            }
            let model = try record(safe).flatMap { ParsedRecord.decode($0) }
            guard case .asset? = model else {
                Issue.record("the safe asset's check was not kept")
                return
            }
            #expect(try record(unsafe) == nil)
            // The kept one made unsafe: its new bytes are checked.
            try write(#"<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>"#, to: repo + "/" + safe)
            let edited = caches(cache)
            let found = try contents(location, edited).0.fileDiagnostics
            #expect(found.contains { $0.path == root.path(safe) && $0.rule == AssetRules.safeImage.id })
            #expect(found == (try contents(location, Caches()).0.fileDiagnostics))
        }
    }
}
