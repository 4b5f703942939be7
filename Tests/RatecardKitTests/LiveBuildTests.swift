import Foundation
import Glibc
import RatecardGenerate
import Testing

@testable import RatecardCore
@testable import RatecardKit
@testable import RatecardOutput

/// `preview --watch` keeps the content in memory and, after each edit, re-reads the files it
/// touched, checks again only what they can change and rebuilds through the render memo. After
/// every step of a random sequence of edits (rate tables, terms, partners, new and deleted
/// files and folders, broken YAML, commits) its findings must be what `validate` reports on
/// the work tree and its bundle what a cold `preview` builds, byte for byte.
@Suite struct LiveBuildTests {
    static let parameters = LargeContentGenerator.Parameters(partners: 4, products: 12, rateTables: 24, termsVersions: 10, history: 0, seed: 11)

    @Test(arguments: [UInt64(1), 2])
    func everyRebuildAfterRandomEditsEqualsAColdBuild(seed: UInt64) throws {
        try withTemporaryDirectory { directory in
            try LargeContentGenerator(Self.parameters).generate(into: directory)
            let repository = try Repository.open(at: directory)
            let location = try ContentLocation.find(from: directory)
            let live = try LiveBuild(location: location, asOf: fixtureDay, webFolder: nil, caches: Caches())
            try expectSameAsCold(live, location: location, step: "start")

            var random = SplitMix64(seed: seed)
            func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }
            let tables = try files(in: directory, under: "products").filter { $0.contains("/rates/") }
            let terms = try files(in: directory, under: "terms")
            let partners = try files(in: directory, under: "partners")
            var originals: [String: String] = [:]
            func read(_ path: String) throws -> String { String(decoding: try FileSystem.readFile(directory + "/" + path), as: UTF8.self) }
            func edit(_ path: String, _ change: (String) -> String) throws {
                let text = try read(path)
                if originals[path] == nil { originals[path] = text }
                try write(change(text), to: directory + "/" + path)
            }
            var added: [String] = []
            var scopes: [LiveBuild.Scope] = []
            // A new version of the notice, not committed: its date is edited in place (the
            // other versions' pages list it with its date).
            let notices = terms.filter { $0.hasPrefix("terms/broker-notice/") }.sorted()
            let draft = "terms/broker-notice/\(notices.last!.split(separator: "/").last!.split(separator: ".")[0]).99.0.md"
            for step in 0..<32 {
                var changed: Set<String> = []
                var committed = false
                var what = ""
                switch random.next() % 13 {
                case 12:
                    let dated = FileSystem.exists(directory + "/" + draft) ? try read(draft).contains("2026-06-01") : false
                    let day = dated ? "2026-11-15" : "2026-06-01"
                    let text = try read(notices.last!).split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
                        if line.hasPrefix("version:") { return "version: " + draft.split(separator: "/").last!.dropLast(3) }
                        if line.hasPrefix("effective_from:") { return "effective_from: \(day)" }
                        return String(line)
                    }.joined(separator: "\n")
                    try write(text, to: directory + "/" + draft)
                    changed = [draft]
                    what = "draft notice dated \(day)"
                case 0, 1:
                    let table = pick(tables)
                    try edit(table) { LargeContentGenerator.nudgedRate($0) }
                    changed = [table]
                    what = "bureau of \(table)"
                case 2:
                    let table = pick(tables)
                    let value = pick(["9.99", "24.5", "11.11"])
                    try edit(table) { text in
                        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                        if let index = lines.firstIndex(where: { $0.contains("apr_max_pct:") }) { lines[index] = "    apr_max_pct: \(value)" }
                        return lines.joined(separator: "\n")
                    }
                    changed = [table]
                    what = "apr_max_pct \(value) in \(table)"
                case 3:
                    let path = pick(tables + terms)
                    try edit(path) { $0.replacingOccurrences(of: "effective_from:", with: "effective_from: [") }
                    changed = [path]
                    what = "broken YAML in \(path)"
                case 4:
                    let path = pick(terms)
                    try edit(path) { $0 + "\n추가 문장 \(step)입니다.\n" }
                    changed = [path]
                    what = "terms body \(path)"
                case 5:
                    let path = pick(terms)
                    try edit(path) { $0 + "\n누구나 무조건 승인됩니다.\n" }
                    changed = [path]
                    what = "prohibited wording in \(path)"
                case 6:
                    let path = pick(partners)
                    try edit(path) { $0.replacingOccurrences(of: "name_ko: ", with: "name_ko: 새 ") }
                    changed = [path]
                    what = "partner name \(path)"
                case 7:
                    let table = pick(tables)
                    let path = DurableFiles.parent(of: table) + "/2027-0\(1 + step % 9)-15.yaml"
                    let text = try read(table)
                    try write(text.replacingOccurrences(of: "effective_from: ", with: "effective_from: 2027-0\(1 + step % 9)-15\n#"), to: directory + "/" + path)
                    added.append(path)
                    changed = [path]
                    what = "new table \(path)"
                case 8:
                    let product = DurableFiles.parent(of: DurableFiles.parent(of: pick(tables)))
                    let copy = product + "-copy\(step)"
                    _ = try runCopy(directory + "/" + product, directory + "/" + copy)
                    added.append(copy)
                    changed = [copy]
                    what = "new folder \(copy)"
                case 9 where !added.isEmpty:
                    let path = added.removeLast()
                    try FileSystem.removeTree(directory + "/" + path)
                    changed = [path]
                    what = "removed \(path)"
                case 10 where !originals.isEmpty:
                    let path = originals.keys.sorted()[Int(random.next() % UInt64(originals.count))]
                    try write(originals.removeValue(forKey: path)!, to: directory + "/" + path)
                    changed = [path]
                    what = "restored \(path)"
                case 11:
                    _ = try repository.commitAll(message: "Step \(step)", author: Fixtures.testAuthor)
                    originals = [:]
                    committed = true
                    what = "commit"
                default:
                    continue
                }
                scopes.append(try live.update(changed: changed, gitChanged: committed))
                try expectSameAsCold(live, location: location, step: "step \(step): \(what)")
            }
            // The short ways were taken, not only the full one.
            #expect(scopes.contains { if case .products = $0 { return true } else { return false } })
            #expect(scopes.contains { if case .document = $0 { return true } else { return false } })
            #expect(scopes.contains(.everything))
        }
    }

    /// The live build's findings and bundle against `validate` and a cold `preview`.
    func expectSameAsCold(_ live: LiveBuild, location: ContentLocation, step: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let snapshot = live.snapshot
        let current = snapshot.current
        let cold = try ValidationRun(location: location, context: ValidationContext(asOf: fixtureDay), caches: Caches()).validateWorkingTree()
        let findings = snapshot.findings
        #expect(findings == cold.diagnostics, "\(step)", sourceLocation: sourceLocation)
        guard !cold.hasErrors else {
            #expect(!current, "\(step)", sourceLocation: sourceLocation)
            return
        }
        guard case .built(let output, _) = try BundleRun(location: location, asOf: fixtureDay, caches: Caches()).render(revision: nil) else {
            Issue.record("\(step): the cold build refused valid content", sourceLocation: sourceLocation)
            return
        }
        #expect(current, "\(step)", sourceLocation: sourceLocation)
        let files = snapshot.output?.files ?? [:]
        let differing = Set(output.files.keys).union(files.keys).filter { files[$0] != output.files[$0] }.sorted()
        #expect(differing.isEmpty, "\(step): \(differing.count) files differ, first \(differing.prefix(3))", sourceLocation: sourceLocation)
    }

    func files(in directory: String, under folder: String) throws -> [String] {
        var result: [String] = []
        for name in try FileSystem.listDirectory(directory + "/" + folder) {
            let path = folder + "/" + name
            if FileSystem.isDirectory(directory + "/" + path) { result += try files(in: directory, under: path) } else { result.append(path) }
        }
        return result
    }

    func runCopy(_ from: String, _ to: String) throws -> Bool {
        try FileSystem.copyTree(from: from, to: to)
        return true
    }
}

extension LiveBuildTests {
    /// The layout `ratecard init` makes: the web app inside the content folder (`web: site`),
    /// which is not content but is part of the work tree git compares, so an edit to it
    /// changes whether the bundle names a commit; a commit changes the history rules' base.
    @Test func theWebAppInsideTheContentFolderAndCommitsRebuildAsAColdBuildDoes() throws {
        try withTemporaryDirectory { directory in
            let example = try ExampleContent.folder(environment: [:])
            try FileSystem.copyTree(from: example, to: directory)
            try FileSystem.copyTree(from: try ExampleContent.webBuild(besides: example), to: directory + "/site")
            let config = try String(contentsOfFile: directory + "/ratecard.yaml", encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasPrefix("web:") ? "web: site" : String($0) }
            try write(config.joined(separator: "\n"), to: directory + "/ratecard.yaml")
            let repository = try Repository.create(at: directory)
            try repository.commitAll(message: "Example", author: Fixtures.testAuthor)
            let location = try ContentLocation.find(from: directory)
            let live = try LiveBuild(location: location, asOf: fixtureDay, webFolder: directory + "/site", caches: Caches())
            #expect(live.snapshot.bridge == [])
            #expect(live.snapshot.current)
            try expectSameAsCold(live, location: location, step: "start")
            #expect(live.snapshot.output?.manifest.sourceCommit != nil)

            try write(try String(contentsOfFile: directory + "/site/app/app.css", encoding: .utf8) + "\n/* edited */\n", to: directory + "/site/app/app.css")
            _ = try live.update(changed: ["site/app/app.css"], webChanged: true)
            try expectSameAsCold(live, location: location, step: "web file edited")
            #expect(live.snapshot.output?.manifest.sourceDirty == true)

            let table = try files(in: directory, under: "products").first { $0.contains("/rates/") }!
            let text = try String(contentsOfFile: directory + "/" + table, encoding: .utf8)
            try write(LargeContentGenerator.nudgedRate(text), to: directory + "/" + table)
            #expect(try live.update(changed: [table]) == .products([String(table.split(separator: "/")[1] + "/" + table.split(separator: "/")[2])]))
            // One product's document, its section, its partner's rates page, its comparison
            // shard and that shard's list of documents were rendered again, nothing else.
            #expect(live.memo.rendered == 5, "\(live.memo.rendered) units rendered")
            try expectSameAsCold(live, location: location, step: "table edited")

            try repository.commitAll(message: "Both", author: Fixtures.testAuthor)
            _ = try live.update(changed: [], gitChanged: true)
            try expectSameAsCold(live, location: location, step: "committed")
            #expect(live.snapshot.output?.manifest.sourceDirty == false)
        }
    }
}

extension LiveBuildTests {
    /// A terms page lists every version of its document with its date: a new version's date
    /// edited in place renders every page of the document again, an edit to its text only its
    /// own page; both are what a cold build gives.
    @Test func aVersionsDateShowsOnEveryPageOfItsDocumentAndItsTextOnlyOnItsOwn() throws {
        try withTemporaryDirectory { directory in
            try LargeContentGenerator(Self.parameters).generate(into: directory)
            let location = try ContentLocation.find(from: directory)
            let live = try LiveBuild(location: location, asOf: fixtureDay, webFolder: nil, caches: Caches())
            let notices = try files(in: directory, under: "terms/broker-notice").sorted()
            let newest = try #require(notices.last)
            let draft = "terms/broker-notice/\(newest.split(separator: "/").last!.split(separator: ".")[0]).99.0.md"
            func writeDraft(day: String, extra: String = "") throws {
                let text =
                    try String(contentsOfFile: directory + "/" + newest, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
                        if line.hasPrefix("version:") { return "version: " + draft.split(separator: "/").last!.dropLast(3) }
                        if line.hasPrefix("effective_from:") { return "effective_from: \(day)" }
                        return String(line)
                    }.joined(separator: "\n") + extra
                try write(text, to: directory + "/" + draft)
            }
            // Dated from the as-of day on: a new version is never backdated (HIS-11).
            try writeDraft(day: "2026-11-29")
            _ = try live.update(changed: [draft])
            try expectSameAsCold(live, location: location, step: "draft added")
            try writeDraft(day: "2026-12-15")
            #expect(try live.update(changed: [draft]) == .document("broker-notice"))
            try expectSameAsCold(live, location: location, step: "draft's date moved")
            // Every page of the document (they list the versions' dates) and terms.json.
            #expect(live.memo.rendered == notices.count + 1 + 1, "\(live.memo.rendered) rendered")
            try writeDraft(day: "2026-12-15", extra: "\n한 문장 더.\n")
            #expect(try live.update(changed: [draft]) == .document("broker-notice"))
            try expectSameAsCold(live, location: location, step: "draft's text edited")
            // The draft's own page, and terms.json (which names each page by its hash); no other page.
            #expect(live.memo.rendered == 2, "\(live.memo.rendered) rendered")
            // Those rebuilds took the comparison index whole; a table edited after them makes
            // its own product's comparison entry again, not every product's: what the index
            // was made from was kept.
            let table = try #require(try files(in: directory, under: "products").filter { $0.contains("/rates/") }.sorted().last)
            try write(LargeContentGenerator.nudgedRate(try String(contentsOfFile: directory + "/" + table, encoding: .utf8)), to: directory + "/" + table)
            _ = try live.update(changed: [table])
            try expectSameAsCold(live, location: location, step: "table edited after terms edits")
            #expect(live.memo.itemsMade == 1, "\(live.memo.itemsMade) comparison entries made")
        }
    }
}
