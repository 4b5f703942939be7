import Foundation
import RatecardGenerate
import RatecardKit
import Testing

/// The benchmark's content generator (`ratecard generate`, `make bench`): a small instance is
/// valid, reproducible, and its history validates the same incrementally as in full.
@Suite struct LargeContentGeneratorTests {
    static let small = LargeContentGenerator.Parameters(partners: 5, products: 20, rateTables: 40, termsVersions: 10, history: 5, seed: 7)
    let context = ValidationContext(asOf: fixtureDay)

    @Test func aSmallInstanceValidatesCleanAtHEADOverItsHistoryAndInTheWorkTree() throws {
        try withTemporaryDirectory { directory in
            let summary = try LargeContentGenerator(Self.small).generate(into: directory)
            #expect(summary.commits.count == 6)
            #expect(summary.markdownBytes > 10 * 7000)
            let run = ValidationRun(location: try ContentLocation.find(from: directory), context: context, caches: Caches())
            let head = try run.validate(revision: "HEAD")
            #expect(head.diagnostics == [], "\(head.diagnostics.prefix(5))")
            #expect(head.files == summary.files)
            let range = try run.validate(range: "\(summary.commits[0].hex)..HEAD")
            #expect(range.commits.count == 5)
            #expect(range.diagnostics == [], "\(range.diagnostics.prefix(5))")
            #expect(try run.validateWorkingTree().diagnostics == [])
            // Clean for any later as-of date too: every product's newest table is open-ended.
            let later = ValidationRun(location: try ContentLocation.find(from: directory), context: ValidationContext(asOf: Day("2031-01-01")!), caches: Caches())
            #expect(try later.validate(revision: "HEAD").diagnostics == [])
        }
    }

    @Test func theSameSeedGivesTheSameCommitsAndAnotherSeedDoesNot() throws {
        try withTemporaryDirectory { directory in
            let first = try LargeContentGenerator(Self.small).generate(into: directory + "/a")
            let second = try LargeContentGenerator(Self.small).generate(into: directory + "/b")
            #expect(first == second)
            var other = Self.small
            other.seed = 8
            let third = try LargeContentGenerator(other).generate(into: directory + "/c")
            #expect(third.commits.last != first.commits.last)
            #expect(throws: ConflictError.self) { try LargeContentGenerator(Self.small).generate(into: directory + "/a") }
        }
    }

    /// `validate --range` derives a commit that only edits rate tables from its parent; every
    /// other commit is checked in full. Both must report exactly what checking every commit in
    /// full reports: errors and warnings introduced, none repeated, each stamped with its commit.
    @Test func rangeValidationMatchesAFullCheckOfEveryCommit() throws {
        try withTemporaryDirectory { directory in
            var parameters = Self.small
            parameters.history = 0
            let summary = try LargeContentGenerator(parameters).generate(into: directory)
            let repository = try Repository.open(at: directory)
            let tables = try rateTables(in: directory)
            let product = try #require(tables.first.map { DurableFiles.parent(of: DurableFiles.parent(of: $0)) })
            // The gap is made by moving a score bound: b and c are tables priced by score (dated
            // from 2021; older ones price by grade).
            let onScores = tables.filter { DurableFiles.name(of: $0) >= "2021" }
            let (a, b, c) = (tables[0], onScores[onScores.count / 2], onScores[onScores.count - 1])
            let original = try [a, b, c].map { String(decoding: try FileSystem.readFile(directory + "/" + $0), as: UTF8.self) }

            func commit(_ message: String, _ edits: [(String, String)]) throws {
                for (path, text) in edits { try write(text, to: directory + "/" + path) }
                try repository.commitAll(message: message, author: Fixtures.testAuthor)
            }
            /// The text with the value of the first `key:` line replaced.
            func setting(_ text: String, _ key: String, _ value: String) -> String {
                var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                if let index = lines.firstIndex(where: { $0.contains(key + ":") }), let colon = lines[index].firstIndex(of: ":") {
                    lines[index] = lines[index][...colon] + " " + value
                }
                return lines.joined(separator: "\n")
            }
            let productFile = product + "/product.yaml"
            let productText = String(decoding: try FileSystem.readFile(directory + "/" + productFile), as: UTF8.self)
            try commit("Over the cap", [(a, setting(original[0], "apr_max_pct", "24.5"))])
            try commit("Cap fixed, gap added", [(a, original[0]), (b, setting(original[1], "score_min", "911"))])
            try commit("Big move", [(c, setting(setting(original[2], "apr_max_pct", "19.5"), "apr_min_pct", "15.0"))])
            try commit("Broken YAML", [(a, "effective_from: [")])
            try commit("YAML fixed", [(a, original[0])])
            try commit("Product limit lowered", [(productFile, setting(productText, "max_krw", "10000"))])
            try commit("Everything fixed", [(b, original[1]), (c, original[2])])
            try commit("A new table", [(DurableFiles.parent(of: c) + "/2025-12-31.yaml", original[2].replacingOccurrences(of: "effective_from: ", with: "effective_from: 2025-12-31\n#"))])
            try commit("No content change", [])

            let location = try ContentLocation.find(from: directory)
            let report = try ValidationRun(location: location, context: context, caches: Caches()).validate(range: "\(summary.commits[0].hex)..HEAD")
            #expect(report.commits.count == 9)

            let validator = Validator(context: context)
            let loader = ContentLoader(caches: Caches())
            var parent = try loader.load(try location.source(for: summary.commits[0]))
            var known = Set(validator.check(parent).map { "\($0.path) \($0.rule) \($0.message)" })
            var expected: [Diagnostic] = []
            var keysByCommit: [Set<String>] = []
            // Each commit's content, the content before it and its context, for the history findings.
            var contents: [Content] = []
            var before: [(Content, ValidationContext)] = []
            for stamp in report.commits {
                let content = try loader.load(try location.source(for: stamp.id))
                // Each commit is judged by the day it was made (HIS-09), as the range does.
                let info = try Repository.open(at: directory).commitInfo(stamp.id)
                contents.append(content)
                before.append((parent, context.forCommit(info)))
                let found = Validator(context: context.forCommit(info)).check(content, base: parent)
                for var diagnostic in found where !known.contains("\(diagnostic.path) \(diagnostic.rule) \(diagnostic.message)") {
                    diagnostic.commit = stamp
                    expected.append(diagnostic)
                }
                known = Set(found.map { "\($0.path) \($0.rule) \($0.message)" })
                keysByCommit.append(known)
                parent = content
            }
            // A problem (other than a history finding) is fixed by the first later commit without it.
            for index in expected.indices where !expected[index].rule.hasPrefix("HIS-") {
                let key = "\(expected[index].path) \(expected[index].rule) \(expected[index].message)"
                let introduced = try #require(report.commits.firstIndex { $0 == expected[index].commit })
                if let fixer = report.commits.indices.first(where: { $0 > introduced && !keysByCommit[$0].contains(key) }) {
                    expected[index].fixedBy = report.commits[fixer]
                }
            }
            // A history finding is fixed by the later commit from which the history rules, comparing
            // it with the content before the finding's commit, stop finding it: by its message for
            // a sign-off rule (HIS-05, HIS-06), by its rule and file for the others.
            for index in expected.indices where expected[index].rule.hasPrefix("HIS-") {
                let finding = expected[index]
                let introduced = try #require(report.commits.firstIndex { $0 == finding.commit })
                let (base, commitContext) = before[introduced]
                for later in report.commits.indices where later > introduced {
                    let net = Diagnostics()
                    HistoryRules.check(contents[later], base: base, context: commitContext, into: net)
                    let bySignoff = finding.rule == "HIS-05" || finding.rule == "HIS-06"
                    let still = net.items.contains {
                        $0.path == finding.path && $0.rule == finding.rule && (!bySignoff || $0.message.english == finding.message.english)
                    }
                    if still {
                        expected[index].fixedBy = nil
                    } else if expected[index].fixedBy == nil {
                        expected[index].fixedBy = report.commits[later]
                    }
                }
            }
            #expect(expected.contains { $0.rule == "HIS-04" && $0.fixedBy?.summary == "Cap fixed, gap added" })
            #expect(expected.contains { $0.rule == "CAP-01" && $0.fixedBy?.summary == "Cap fixed, gap added" })
            #expect(expected.contains { $0.rule == "RNG-03" && $0.fixedBy == nil })
            #expect(Set(expected.map(\.rule)).isSuperset(of: ["CAP-01", "BND-02", "HIS-04", "YML-01", "RNG-03"]), "\(expected.map(\.rule))")
            #expect(report.diagnostics == expected)
        }
    }

    /// Content-relative paths of every rate table, sorted.
    private func rateTables(in directory: String) throws -> [String] {
        var result: [String] = []
        for partner in try FileSystem.listDirectory(directory + "/products") {
            for product in try FileSystem.listDirectory(directory + "/products/" + partner) {
                for table in try FileSystem.listDirectory(directory + "/products/\(partner)/\(product)/rates") {
                    result.append("products/\(partner)/\(product)/rates/\(table)")
                }
            }
        }
        return result
    }
}
