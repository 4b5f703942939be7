import Foundation
import RatecardKit
import Testing

/// Golden-file tests: five rendered files of the base fixture, compared byte for byte.
///
/// To regenerate after an intended rendering change, run the suite with
/// `RATECARD_UPDATE_GOLDEN=1`; the new output is written into this source tree's
/// `Fixtures/golden/` (review the diff before committing it).
@Suite struct GoldenBundleTests {
    /// A bundle file and the golden file it is compared with (no bundle id in golden names).
    struct GoldenFile: Sendable, CustomStringConvertible {
        var golden: String
        /// The path inside the bundle; `{id}` stands for the bundle id.
        var bundlePath: String

        var description: String { golden }

        func path(bundleID: String) -> String { bundlePath.replacingOccurrences(of: "{id}", with: bundleID) }
    }

    static let files = [
        GoldenFile(golden: "terms-service-terms-1.1.0.html", bundlePath: "terms/service-terms/1.1.0.html"),
        GoldenFile(golden: "rates.html", bundlePath: "rates.html"),
        GoldenFile(golden: "rates-acme-bank.html", bundlePath: "rates/acme-bank.html"),
        GoldenFile(golden: "compare-acme-bank.json", bundlePath: "data/{id}/compare/acme-bank.json"),
        GoldenFile(golden: "product-acme-bank-credit.json", bundlePath: "data/{id}/products/acme-bank/credit.json"),
    ]

    /// `Fixtures/golden` in the source tree (not the copied test resources), so updates land in git.
    static var goldenFolder: String { Fixtures.sourceFolder + "/golden" }

    static var updating: Bool { ProcessInfo.processInfo.environment["RATECARD_UPDATE_GOLDEN"] == "1" }

    /// Renders `revision` (nil: the work tree) of the content in `directory` as of the fixture day.
    func build(_ directory: String, revision: String?) throws -> BundleBuilder.Output {
        let run = BundleRun(location: try ContentLocation.find(from: directory), asOf: fixtureDay, caches: Caches())
        switch try run.render(revision: revision) {
        case .built(let output, _):
            return output
        case .invalid(let report):
            let problems = report.diagnostics.map { "\($0.path):\($0.mark) \($0.rule) \($0.message)" }
            throw OperationalError("the fixture content is invalid: \(problems.joined(separator: "; "))")
        }
    }

    /// The first line where `actual` and `expected` differ, as a readable message, or nil.
    static func firstDifference(_ actual: [UInt8], _ expected: [UInt8]) -> String? {
        guard actual != expected else { return nil }
        let a = String(decoding: actual, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let e = String(decoding: expected, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        for index in 0..<max(a.count, e.count) {
            let actualLine = index < a.count ? String(a[index]) : "<end of file>"
            let expectedLine = index < e.count ? String(e[index]) : "<end of file>"
            if actualLine != expectedLine {
                let (column, expectedPart, actualPart) = excerpts(expectedLine, actualLine)
                return "first difference at line \(index + 1), column \(column):\n  expected: \(expectedPart)\n  actual:   \(actualPart)"
            }
        }
        return "the bytes differ (\(actual.count) vs \(expected.count) bytes) but every line is equal"
    }

    /// The first differing column (1-based, in characters) and both lines around it; long lines
    /// (the pages keep their body on one line) are cut to 80 characters either side.
    static func excerpts(_ expected: String, _ actual: String) -> (Int, String, String) {
        let e = Array(expected)
        let a = Array(actual)
        var column = 0
        while column < e.count && column < a.count && e[column] == a[column] { column += 1 }
        func cut(_ line: [Character]) -> String {
            let start = max(0, column - 80)
            let end = min(line.count, column + 80)
            guard start < end else { return start > 0 ? "…" : "" }
            return (start > 0 ? "…" : "") + String(line[start..<end]) + (end < line.count ? "…" : "")
        }
        return (column + 1, cut(e), cut(a))
    }

    @Test(arguments: files) func renderedFileMatchesItsGoldenFile(_ file: GoldenFile) throws {
        try withTemporaryDirectory { directory in
            try Fixtures.makeBaseRepository(at: directory)
            let output = try build(directory, revision: "HEAD")
            let path = file.path(bundleID: output.manifest.bundleID)
            let actual = try #require(output.files[path], "the bundle has no \(path)")
            let goldenPath = Self.goldenFolder + "/" + file.golden
            if Self.updating {
                try FileSystem.makeDirectories(Self.goldenFolder)
                try FileSystem.writeFile(goldenPath, actual)
                return
            }
            let expected = try FileSystem.readFile(goldenPath)
            if let difference = Self.firstDifference(actual, expected) {
                Issue.record("\(path) differs from golden/\(file.golden) (regenerate with RATECARD_UPDATE_GOLDEN=1 if intended); \(difference)")
            }
        }
    }

    /// A second commit that changes only a YAML comment: new commit id and time, identical
    /// content. The golden files and the bundle id must not move; only the manifest's source does.
    @Test func goldenFilesDoNotDependOnTheCommit() throws {
        try withTemporaryDirectory { directory in
            let repository = try Fixtures.makeBaseRepository(at: directory)
            let first = try build(directory, revision: "HEAD")
            let partner = directory + "/partners/acme-bank.yaml"
            let text = String(decoding: try FileSystem.readFile(partner), as: UTF8.self)
            try write("# comment only: the parsed content is unchanged\n" + text, to: partner)
            let later = Signature(name: "Other Author", email: "other@example.com", time: 1_780_000_000, offsetMinutes: 0)
            let commit = try repository.commitAll(message: "Comment only", author: later)
            let second = try build(directory, revision: "HEAD")

            #expect(first.manifest.sourceCommit != nil)
            #expect(second.manifest.sourceCommit == commit)
            #expect(first.manifest.sourceCommit != second.manifest.sourceCommit)
            #expect(first.files[BundleLayout.manifest] != second.files[BundleLayout.manifest])
            #expect(first.manifest.bundleID == second.manifest.bundleID)
            for file in Self.files {
                let path = file.path(bundleID: first.manifest.bundleID)
                let bytes = try #require(first.files[path])
                #expect(second.files[path] == bytes, "\(path) changed with the commit")
                let text = String(decoding: bytes, as: UTF8.self)
                for id in [first.manifest.sourceCommit, second.manifest.sourceCommit].compactMap({ $0 }) {
                    #expect(!text.contains(id.hex) && !text.contains(id.short), "\(path) mentions commit \(id.short)")
                }
            }
            // Only the manifest differs between the two builds.
            let changed = Set(first.files.keys).union(second.files.keys).filter { first.files[$0] != second.files[$0] }
            #expect(changed == [BundleLayout.manifest])
        }
    }

    /// The work tree (dirty: a comment added, not committed) and HEAD render the same data, so the
    /// same bundle id; the manifests differ only in their source fields.
    @Test func workTreeAndHEADWithTheSameContentShareABundleID() throws {
        try withTemporaryDirectory { directory in
            try Fixtures.makeBaseRepository(at: directory)
            let partner = directory + "/partners/coral-card.yaml"
            let text = String(decoding: try FileSystem.readFile(partner), as: UTF8.self)
            try write(text + "# an uncommitted comment\n", to: partner)
            let head = try build(directory, revision: "HEAD")
            let work = try build(directory, revision: nil)
            #expect(head.manifest.sourceDirty == false)
            #expect(head.manifest.sourceCommit != nil)
            #expect(work.manifest.sourceDirty == true)
            #expect(work.manifest.sourceCommit == nil)
            #expect(work.manifest.bundleID == head.manifest.bundleID)
            #expect(work.manifest.files == head.manifest.files)
            var headManifest = head.manifest
            headManifest.sourceCommit = nil
            headManifest.sourceDirty = true
            #expect(work.manifest == headManifest)
        }
    }

    /// One rate changed (committed): a new bundle id, and the product's JSON and rates.html change.
    @Test func aRateChangeMakesANewBundleID() throws {
        try withTemporaryDirectory { directory in
            let repository = try Fixtures.makeBaseRepository(at: directory)
            let before = try build(directory, revision: "HEAD")
            let table = directory + "/products/acme-bank/credit/rates/2026-01-15.yaml"
            let text = String(decoding: try FileSystem.readFile(table), as: UTF8.self)
            #expect(text.contains("apr_min_pct: 4.1\n"))
            try write(text.replacingOccurrences(of: "apr_min_pct: 4.1\n", with: "apr_min_pct: 4.15\n"), to: table)
            let dirty = try build(directory, revision: nil)
            try repository.commitAll(message: "Rate change", author: Fixtures.testAuthor)
            let after = try build(directory, revision: "HEAD")

            #expect(after.manifest.bundleID != before.manifest.bundleID)
            #expect(dirty.manifest.bundleID == after.manifest.bundleID)
            let product = try #require(after.files["data/\(after.manifest.bundleID)/products/acme-bank/credit.json"])
            #expect(String(decoding: product, as: UTF8.self).contains("\"apr_min_pct\": 4.15,"))
            // The partner's rates page and its comparison shard change; another partner's page does not.
            #expect(after.files["rates/acme-bank.html"] != before.files["rates/acme-bank.html"])
            let shards = { (output: BundleBuilder.Output) in output.files.filter { $0.key.hasPrefix("data/\(output.manifest.bundleID)/compare/") }.map(\.value) }
            #expect(shards(after) != shards(before))
            for page in before.files.keys where page.hasPrefix("rates/") && page != "rates/acme-bank.html" {
                #expect(after.files[page] == before.files[page], "\(page) changed")
            }
            #expect(after.files.keys.filter { $0.hasPrefix("data/\(before.manifest.bundleID)/") }.isEmpty)
        }
    }
}
