import Foundation
import Glibc
import RatecardGenerate
import RatecardKit
import Testing

/// `publish` after rate tables were edited builds onto the live bundle: only the changed
/// products are read, checked and rendered. Every release it makes must be byte-for-byte the
/// release a full build of the same commit gives, and everything else must take the full build.
@Suite struct IncrementalPublishTests {
    // More than two shards' worth of products (about 64 each), so a change meets one shard among several.
    static let parameters = LargeContentGenerator.Parameters(partners: 14, products: 150, rateTables: 300, termsVersions: 6, history: 0, seed: 11)
    static let day = "2026-11-29"
    static let author = Signature(name: "Kim Minji", email: "minji@example.com", time: 1_767_225_600, offsetMinutes: 540)

    struct Fixture {
        let repo: String
        let root: String
        let scratch: String

        init(in directory: String, parameters: LargeContentGenerator.Parameters = IncrementalPublishTests.parameters) throws {
            repo = directory + "/content"
            root = directory + "/serve"
            scratch = directory
            _ = try LargeContentGenerator(parameters).generate(into: repo)
        }

        /// The newest rate table of the `index`-th product (by folder), content-relative.
        func newestTable(of index: Int) throws -> String {
            var products: [String] = []
            for partner in try FileSystem.listDirectory(repo + "/products").sorted() {
                for product in try FileSystem.listDirectory(repo + "/products/" + partner).sorted() {
                    products.append("products/\(partner)/\(product)")
                }
            }
            let folder = products[index] + "/rates"
            return folder + "/" + (try FileSystem.listDirectory(repo + "/" + folder).sorted().last!)
        }

        func text(_ path: String) throws -> String {
            String(decoding: try FileSystem.readFile(repo + "/" + path), as: UTF8.self)
        }

        /// Rewrites a file and commits it through libgit2.
        func write(_ path: String, _ text: String, message: String) throws {
            #expect(try self.text(path) != text, "\(path) did not change")
            try FileSystem.writeFile(repo + "/" + path, Array(text.utf8))
            try Repository.open(at: repo).commitAll(message: message, author: IncrementalPublishTests.author)
        }

        /// Rewrites each line of a file and commits it.
        func edit(_ path: String, message: String, _ line: (String) -> String) throws {
            let edited = try text(path).split(separator: "\n", omittingEmptySubsequences: false).map { line(String($0)) }.joined(separator: "\n")
            try write(path, edited, message: message)
        }

        func publish(_ extra: [String] = []) throws -> Execution {
            try ratecard(["publish", "--root", root, "--as-of", IncrementalPublishTests.day, "--no-web", "-m", "test"] + extra, in: repo)
        }

        /// The live release holds exactly the files of a full build of HEAD, byte for byte.
        func expectLiveEqualsFullBuild(_ name: String) throws {
            let serve = ServeRoot(path: root)
            let live = try #require(try serve.live())
            let out = scratch + "/full-" + name
            let build = try ratecard(["build", "--rev", "HEAD", "--out", out, "--as-of", IncrementalPublishTests.day], in: repo)
            #expect(build.status == 0, "\(build.err)")
            let built = try ReleaseFiles.list(out)
            let info = try ReleaseInfo.read(from: serve.folder(of: live))
            let own = info.files.filter { !info.isCarried($0.path) }.map(\.path)
            #expect(Set(own) == Set(built), "\(name): the release and the full build list different files")
            for path in built {
                let released = try #require(try serve.readFile(path, of: live, info: info))
                if path == BundleLayout.manifest {
                    // The release's copy also says where its objects are served; nothing else differs.
                    var manifest = try BundleManifest.parse(released)
                    #expect(manifest.objects == ObjectLayout.urlPrefix)
                    manifest.objects = nil
                    #expect(manifest == (try BundleManifest.parse(try FileSystem.readFile(out + "/" + path))), "\(name): the manifest differs from the full build's")
                    continue
                }
                if path == BundleLayout.entry {
                    // So does the release's entry document.
                    guard case .object(var entry) = try JSONReader.parse(released) else { throw OperationalError("entry.json is not an object") }
                    #expect(entry.removeValue(forKey: "objects") == .string(ObjectLayout.urlPrefix))
                    #expect(JSON.object(entry) == (try JSONReader.parse(try FileSystem.readFile(out + "/" + path))), "\(name): the entry document differs from the full build's")
                    continue
                }
                #expect(try FileSystem.readFile(out + "/" + path) == released, "\(name): \(path) differs from the full build")
            }
            #expect(try serve.drift(of: live) == [])
        }
    }

    /// The product keys of the live partners' rates pages, in page order.
    static func sectionOrder(_ root: String) throws -> [String] {
        try FileSystem.listDirectory(root + "/current/rates").sorted().flatMap { name in
            let page = String(decoding: try FileSystem.readFile(root + "/current/rates/" + name), as: UTF8.self)
            return page.components(separatedBy: "<section id=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }
        }
    }

    /// The data documents (paths below the data folder) whose bytes differ between two releases.
    static func changedDocuments(_ root: String, from old: String, to new: String) throws -> Set<String> {
        let serve = ServeRoot(path: root)
        func documents(_ id: String) throws -> [String: String] {
            let info = try ReleaseInfo.read(from: serve.folder(of: id))
            let folder = BundleLayout.dataFolder(info.bundleID)
            return Dictionary(info.files.filter { $0.path.hasPrefix(folder) }.map { (String($0.path.dropFirst(folder.count)), $0.sha256) }, uniquingKeysWith: { first, _ in first })
        }
        let before = try documents(old)
        let after = try documents(new)
        #expect(Set(before.keys) == Set(after.keys))
        return Set(after.filter { before[$0.key] != $0.value }.map(\.key))
    }

    /// An open-ended table given an end date far ahead: a change to the product's document
    /// that the comparison does not show.
    static func endingFarAhead(_ line: String) -> String {
        line.hasPrefix("effective_from: ") ? line + "\neffective_to: 2099-12-31" : line
    }

    /// Every band's limit 10,000 won lower: a change that keeps the product's place (the
    /// bureau would too, but the disclosure names it, DSC-17).
    static func lowerLimits(_ line: String) -> String {
        let key = "    limit_max_krw: "
        guard line.hasPrefix(key), let limit = Int(line.dropFirst(key.count)), limit > 10_000 else { return line }
        return key + String(limit - 10_000)
    }

    static func scaled(_ line: String, by factor: Double) -> String {
        for key in ["apr_min_pct: ", "apr_max_pct: "] where line.hasPrefix("    " + key) {
            let value = Double(line.dropFirst(4 + key.count))!
            return "    " + key + String(format: "%.2f", value * factor)
        }
        return line
    }

    @Test func rateUpdatesBuildOntoTheLiveBundleAndGiveTheFullBuildsBytes() throws {
        try withTemporaryDirectory { directory in
            let fixture = try Fixture(in: directory)
            let first = try fixture.publish()
            #expect(first.status == 0, "\(first.err)")
            #expect(!first.out.contains("built onto the live bundle"))

            // One table, a change that keeps the product's place (an end date far ahead).
            let serve = ServeRoot(path: fixture.root)
            let initial = try #require(try serve.live())
            let shards = try ReleaseInfo.read(from: serve.folder(of: initial)).files.filter { $0.path.contains("/compare/") }.count
            #expect(shards >= 2, "the fixture must have several comparison shards")
            let table = try fixture.newestTable(of: 3)
            try fixture.edit(table, message: "End date", Self.endingFarAhead)
            let one = try fixture.publish()
            #expect(one.status == 0, "\(one.err)")
            #expect(one.out.contains("built onto the live bundle: 1 changed product(s) re-rendered"), "\(one.out)")
            try fixture.expectLiveEqualsFullBuild("end date")
            // The end date is not on the comparison: the product's document, its shard's document
            // list and the list of lists change, no shard.
            let afterEndDate = try #require(try serve.live())
            let changed = try Self.changedDocuments(fixture.root, from: initial, to: afterEndDate)
            let key = table.split(separator: "/").dropFirst().prefix(2).joined(separator: "/")
            #expect(changed.contains("products/\(key).json"), "\(changed.sorted())")
            #expect(changed.count == 3, "\(changed.sorted())")
            #expect(changed.filter { $0.hasPrefix("documents/") }.count == 1, "\(changed.sorted())")
            #expect(changed.contains("documents.json"))

            // Two products (of two partners) move on their partners' rates pages.
            let before = try Self.sectionOrder(fixture.root)
            let cheaper = try fixture.newestTable(of: 17)
            let dearer = try fixture.newestTable(of: 0)
            try fixture.edit(cheaper, message: "Much cheaper") { Self.scaled($0, by: 0.3) }
            try fixture.edit(dearer, message: "A bit cheaper") { Self.scaled($0, by: 0.9) }
            let two = try fixture.publish()
            #expect(two.status == 0, "\(two.err)")
            #expect(two.out.contains("2 changed product(s) re-rendered"), "\(two.out)")
            try fixture.expectLiveEqualsFullBuild("moves")
            #expect(try Self.sectionOrder(fixture.root) != before, "no product moved on its rates page")
            // Rates moved: each changed product's shard is rewritten, no other.
            let moved = try Self.changedDocuments(fixture.root, from: afterEndDate, to: #require(try serve.live()))
            let movedShards = moved.filter { $0.hasPrefix("compare/") }.count
            #expect((1...2).contains(movedShards), "\(moved.sorted())")
            #expect(moved.count == 2 + 2 * movedShards + 1, "\(moved.sorted())")
            #expect(movedShards < shards)
        }
    }

    /// The file summary of a one-table change names the few files that changed: the data files
    /// whose bytes are the same keep their place in the new data folder (moved, unchanged), they
    /// are not each an addition and a removal. Dry run (text and JSON), the publish itself and
    /// promote's dry run say the same.
    @Test func theSummaryOfAOneTablePublishListsOnlyWhatChanged() throws {
        try withTemporaryDirectory { directory in
            let small = LargeContentGenerator.Parameters(partners: 4, products: 12, rateTables: 24, termsVersions: 3, history: 0, seed: 11)
            let fixture = try Fixture(in: directory, parameters: small)
            #expect(try fixture.publish().status == 0)
            let serve = ServeRoot(path: fixture.root)
            let initial = try #require(try serve.live())
            let before = try serve.info(of: initial)
            let table = try fixture.newestTable(of: 3)
            try fixture.edit(table, message: "End date", Self.endingFarAhead)
            let key = table.split(separator: "/").dropFirst().prefix(2).joined(separator: "/")

            // Promote's dry run is judged against a second environment where the first release is live.
            let other = directory + "/other"
            #expect(try ratecard(["promote", "--from", fixture.root, "--to", other, "-m", "first"], in: fixture.repo).status == 0)

            let dry = try fixture.publish(["--dry-run"])
            #expect(dry.status == 0, "\(dry.err)")
            let json = try fixture.publish(["--dry-run", "--format", "json"])
            #expect(json.status == 0, "\(json.err)")
            let published = try fixture.publish(["--format", "json"])
            #expect(published.status == 0, "\(published.err)")
            let after = try serve.info(of: try #require(try serve.live()))
            #expect(after.bundleID != before.bundleID)

            // What changed, worked out from the two version.json files: data files by their place
            // in the data folder, every other file by its path.
            func files(_ info: ReleaseInfo) -> [String: String] {
                let folder = BundleLayout.dataFolder(info.bundleID)
                return Dictionary(uniqueKeysWithValues: info.files.map { ($0.path.hasPrefix(folder) ? "data/*/" + $0.path.dropFirst(folder.count) : $0.path, $0.sha256) })
            }
            let (old, new) = (files(before), files(after))
            #expect(Set(old.keys) == Set(new.keys))
            let changed = new.keys.filter { old[$0] != new[$0] }.map { $0.replacingOccurrences(of: "data/*/", with: BundleLayout.dataFolder(after.bundleID)) }.sorted()
            let data = after.files.filter { $0.path.hasPrefix(BundleLayout.dataFolder(after.bundleID)) }.count
            // The product's document, its shard's document list, the list of lists, the two entry
            // documents and the partner list (which shows each partner's products): six files.
            let folder = BundleLayout.dataFolder(after.bundleID)
            #expect(changed.count == 6, "\(changed)")
            #expect(Set(changed).isSuperset(of: [folder + "products/\(key).json", folder + "documents.json", BundleLayout.entry, BundleLayout.manifest]), "\(changed)")
            #expect(changed.filter { $0.hasPrefix(folder + "documents/") }.count == 1, "\(changed)")
            let counts: JSON = .object([
                "added": .int(0), "changed": .int(6), "removed": .int(0), "unchanged": .int(after.files.count - 6), "moved": .int(data - 3),
            ])

            let summary = "0 added, 6 changed, 0 removed, \(after.files.count - 6) unchanged (\(data - 3) of them moved to the new data folder)"
            #expect(dry.out.contains("would change: \(summary)\n"), "\(dry.out)")
            let listed = dry.out.split(separator: "\n").filter { $0.hasPrefix("  ") }.map(String.init)
            #expect(listed == changed.map { "  ~ " + $0 }, "\(dry.out)")
            #expect(try JSONReader.parse(Array(json.out.utf8))["changes"] == counts, "\(json.out)")
            #expect(try JSONReader.parse(Array(published.out.utf8))["changes"] == counts, "\(published.out)")
            let promote = try ratecard(["promote", "--from", fixture.root, "--to", other, "--dry-run"], in: fixture.repo)
            #expect(promote.status == 0, "\(promote.err)")
            #expect(promote.out.contains("would change: \(summary)\n"), "\(promote.out)")
            let promoteJSON = try ratecard(["promote", "--from", fixture.root, "--to", other, "--dry-run", "--format", "json"], in: fixture.repo)
            #expect(try JSONReader.parse(Array(promoteJSON.out.utf8))["changes"] == counts, "\(promoteJSON.out)")
        }
    }

    @Test func anInvalidTableIsRefusedWithTheFullReportAndOtherChangesBuildInFull() throws {
        try withTemporaryDirectory { directory in
            let fixture = try Fixture(in: directory)
            #expect(try fixture.publish().status == 0)
            let live = try #require(try ServeRoot(path: fixture.root).live())

            // Over the legal cap: refused, with the rule and the line, and live stays.
            let table = try fixture.newestTable(of: 5)
            let original = try fixture.text(table)
            let band = try #require(original.range(of: "apr_max_pct: "))
            let line = original[band.upperBound...].prefix { $0 != "\n" }
            try fixture.write(table, original.replacingCharacters(in: band.upperBound..<line.endIndex, with: "29.90"), message: "Typo")
            let refused = try fixture.publish()
            #expect(refused.status == 1)
            #expect(refused.err.contains("the content is invalid; nothing was published"))
            #expect(refused.out.contains("CAP-"), "\(refused.out)")
            #expect(refused.out.contains(table + ":"), "\(refused.out)")
            #expect(try ServeRoot(path: fixture.root).live() == live)

            // Fixed in the next commit: builds onto live again.
            try fixture.write(table, original, message: "Fix")
            let fixed = try fixture.publish()
            #expect(fixed.status == 0, "\(fixed.out)\(fixed.err)")
            #expect(fixed.out.contains("built onto the live bundle"), "\(fixed.out)")
            try fixture.expectLiveEqualsFullBuild("fixed")

            // A partner edited: a full build.
            try fixture.edit("partners/" + (try FileSystem.listDirectory(fixture.repo + "/partners").sorted().first!), message: "Phone") { line in
                line.hasPrefix("  phone: ") ? "  phone: \"1588-0000\"" : line
            }
            let partner = try fixture.publish()
            #expect(partner.status == 0, "\(partner.err)")
            #expect(!partner.out.contains("built onto the live bundle"))
            try fixture.expectLiveEqualsFullBuild("partner")

            // Another as-of date than live's: a full build.
            try fixture.edit(try fixture.newestTable(of: 9), message: "Limits", Self.lowerLimits)
            let later = try ratecard(["publish", "--root", fixture.root, "--as-of", "2026-11-30", "--no-web", "-m", "next day"], in: fixture.repo)
            #expect(later.status == 0, "\(later.err)")
            #expect(!later.out.contains("built onto the live bundle"))
        }
    }

    /// The oldest rate table of the `index`-th product (a past table, not on any page).
    static func oldestTable(_ fixture: Fixture, of index: Int) throws -> String {
        let newest = try fixture.newestTable(of: index)
        let folder = String(newest[..<newest.lastIndex(of: "/")!])
        return folder + "/" + (try FileSystem.listDirectory(fixture.repo + "/" + folder).sorted().first!)
    }

    @Test func aBrokenPastTableIsRefusedThoughNoPageShowsIt() throws {
        try withTemporaryDirectory { directory in
            let fixture = try Fixture(in: directory)
            #expect(try fixture.publish().status == 0)
            let live = try #require(try ServeRoot(path: fixture.root).live())
            let table = try Self.oldestTable(fixture, of: 2)
            #expect(table != (try fixture.newestTable(of: 2)))
            try fixture.edit(table, message: "Broken") { $0.hasPrefix("bureau: ") ? "bureau: [KCB" : $0 }
            let refused = try fixture.publish()
            #expect(refused.status == 1, "\(refused.out)")
            #expect(refused.out.contains(table + ":"), "\(refused.out)")
            #expect(try ServeRoot(path: fixture.root).live() == live)
        }
    }

    /// A rate update built onto the live bundle runs the history rules of the commit against its
    /// parent as the full check does: a table that took effect and was superseded is a record,
    /// and editing it in place is refused (HIS-08), not published.
    @Test func aPastTableEditedInPlaceIsRefusedAsTheFullCheckRefusesIt() throws {
        try withTemporaryDirectory { directory in
            let fixture = try Fixture(in: directory)
            #expect(try fixture.publish().status == 0)
            let live = try #require(try ServeRoot(path: fixture.root).live())
            let table = try Self.oldestTable(fixture, of: 2)
            #expect(table != (try fixture.newestTable(of: 2)))
            var edited = false
            try fixture.edit(table, message: "Correct an old rate") { line in
                guard !edited, line.hasPrefix("    apr_min_pct: ") else { return line }
                edited = true
                return line + "1"
            }
            let full = try ratecard(["validate", "--rev", "HEAD", "--as-of", Self.day], in: fixture.repo)
            #expect(full.status == 1)
            #expect(full.out.contains(table + ":") && full.out.contains("error HIS-08"), "\(full.out)")
            let refused = try fixture.publish()
            #expect(refused.status == 1, "\(refused.out)\(refused.err)")
            #expect(refused.out.contains("error HIS-08"), "\(refused.out)")
            #expect(try ServeRoot(path: fixture.root).live() == live)
        }
    }

    /// The live bundle is read from the objects its release names, each checked against its
    /// hash, and must come from the same content root and the same build; otherwise: a full
    /// build. An entry folder's copy changed on disk is not what is read (the release's objects
    /// are); an object changed on disk that the new release would link is refused.
    @Test func aLiveBundleThatCannotBeTrustedTakesTheFullBuild() throws {
        try withTemporaryDirectory { directory in
            let fixture = try Fixture(in: directory)
            #expect(try fixture.publish().status == 0)
            let serve = ServeRoot(path: fixture.root)
            func live() throws -> String { try #require(try serve.live()) }
            func object(_ path: String) throws -> String {
                let info = try serve.info(of: try live())
                return serve.objectsFolder + "/" + ObjectLayout.objectName(try #require(info.files.first { $0.path == path }))
            }
            func replace(_ full: String, _ edit: (String) -> String) throws {
                let text = edit(String(decoding: try FileSystem.readFile(full), as: UTF8.self))
                unlink(full)
                try FileSystem.writeFile(full, Array(text.utf8))
            }
            let cases: [(name: String, incremental: Bool, spoil: () throws -> Void)] = [
                // The entry folder's copies are not read: the build goes on from the objects.
                ("a tampered rates.html in the entry folder", true, { try replace(serve.folder(of: try live()) + "/rates.html") { "<p>TAMPERED</p>" + $0 } }),
                ("a missing partners.html in the entry folder", true, { unlink(serve.folder(of: try live()) + "/partners.html") }),
                // What is read must be what the manifest says.
                ("another build", false, { try replace(try object(BundleLayout.manifest)) { $0.replacingOccurrences(of: "\"build\": \"", with: "\"build\": \"other-") } }),
                ("another content root", false, { try replace(try object(BundleLayout.manifest)) { $0.replacingOccurrences(of: "\"source_root\": \"\"", with: "\"source_root\": \"elsewhere\"") } }),
            ]
            for (index, (name, incremental, spoil)) in cases.enumerated() {
                try spoil()
                try fixture.edit(try fixture.newestTable(of: 10 + index), message: name, Self.lowerLimits)
                let result = try fixture.publish()
                #expect(result.status == 0, "\(name): \(result.err)")
                #expect(result.out.contains("built onto the live bundle") == incremental, "\(name): \(result.out)")
                try fixture.expectLiveEqualsFullBuild(name.replacingOccurrences(of: " ", with: "-"))
            }
            // An object changed on disk (same name, other bytes) that the new release links: refused, live unchanged.
            let before = try live()
            let table = try fixture.newestTable(of: 20)
            let edited = table.split(separator: "/").first { $0 != "products" }.map(String.init) ?? ""
            let unchanged = try #require(try serve.info(of: before).files.first { $0.path.hasPrefix("rates/") && $0.path != "rates/\(edited).html" })
            try replace(try object(unchanged.path)) { "<p>TAMPERED</p>" + $0 }
            try fixture.edit(table, message: "after tampering", Self.lowerLimits)
            let refused = try fixture.publish()
            #expect(refused.status == 4, "\(refused.out)\(refused.err)")
            #expect(refused.err.contains("does not match its hash"), "\(refused.err)")
            #expect(try live() == before)
        }
    }
}
