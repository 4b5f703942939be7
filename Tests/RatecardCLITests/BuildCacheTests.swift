import Foundation
import Glibc
import RatecardGenerate
import RatecardKit
import Testing

/// The build cache never changes what ratecard outputs. Over several commits of random edits
/// (rate tables, terms versions, partners, ratecard.yaml), on two as-of dates, from commits and
/// from the work tree, every byte a build writes with the cache (warm from the runs before)
/// is the byte it writes without one, and `validate` says the same; a damaged cache is a miss.
@Suite struct BuildCacheTests {
    @Test func cachedBuildsEqualColdBuildsByteForByteAcrossRandomEditsAndCommits() throws {
        try withTemporaryDirectory { directory in
            let repo = directory + "/repo"
            let generated = try ratecard(["generate", repo, "--partners", "4", "--products", "12", "--tables", "24", "--terms", "10", "--history", "0", "--seed", "5"], in: directory)
            try #require(generated.status == 0, "\(generated.out)\(generated.err)")
            let cached = ["RATECARD_CACHE_DIR": directory + "/cache", "RATECARD_TRACE": "1"]
            let cold = ["RATECARD_CACHE": "off"]
            var random = SplitMix64(seed: 13)
            func pick<T>(_ items: [T]) -> T { items[Int(random.next() % UInt64(items.count))] }
            func text(_ path: String) throws -> String { try String(contentsOfFile: repo + "/" + path, encoding: .utf8) }
            func save(_ path: String, _ text: String) throws {
                try FileSystem.makeDirectories(DurableFiles.parent(of: repo + "/" + path))
                try FileSystem.writeFile(repo + "/" + path, Array(text.utf8))
            }
            func files(_ folder: String) throws -> [String] { try treeListing(repo + "/" + folder).filter { $0.value != "folder" }.keys.map { folder + "/" + $0 }.sorted() }
            // Commits are made on the first as-of day: a terms version dated from it is not
            // backdated (HIS-11) on either as-of date, whatever day the test runs.
            let commitDay = ["GIT_AUTHOR_DATE": "2026-11-29T12:00:00+09:00", "GIT_COMMITTER_DATE": "2026-11-29T12:00:00+09:00"]
            func git(_ arguments: [String]) throws {
                let (status, output) = try runTool(
                    "/usr/bin/git", ["-C", repo, "-c", "user.name=Test", "-c", "user.email=test@example.com"] + arguments,
                    environment: ProcessInfo.processInfo.environment.merging(commitDay) { _, new in new })
                try #require(status == 0, "\(output)")
            }
            var compared = 0
            var hits = 0
            var added = 0
            /// Builds with and without the cache and compares every file: the cached build into
            /// the folder of the one before (which keeps what is unchanged there), the cold one
            /// into an empty folder.
            func compareBuilds(_ arguments: [String], _ what: String) throws {
                let a = directory + "/out-cached"
                let b = directory + "/out-cold"
                try? FileSystem.removeTree(b)
                let withCache = try ratecard(["build", "--out", a] + arguments, in: repo, environment: cached)
                let without = try ratecard(["build", "--out", b] + arguments, in: repo, environment: cold)
                try #require(withCache.status == 0 && without.status == 0, "\(what): \(withCache.out)\(withCache.err)\(without.out)\(without.err)")
                let left = try treeListing(a).filter { $0.value != "folder" }.keys.sorted()
                let right = try treeListing(b).filter { $0.value != "folder" }.keys.sorted()
                #expect(left == right, "\(what)")
                let differing = try left.filter { try FileSystem.readFile(a + "/" + $0) != FileSystem.readFile(b + "/" + $0) }
                #expect(differing.isEmpty, "\(what): \(differing.prefix(5))")
                compared += left.count
                // How many entries the cached build read (the trace's last words).
                if let line = withCache.err.split(separator: "\n").last(where: { $0.hasPrefix("trace: cache: ") }) {
                    hits += Int(line.dropFirst("trace: cache: ".count).prefix { $0.isNumber }) ?? 0
                }
            }

            for round in 0..<5 {
                for _ in 0..<3 {
                    switch random.next() % 4 {
                    case 0:
                        // A product's newest table (the one in force may be edited; past ones are records).
                        let tables = try files("products").filter { $0.contains("/rates/") }
                        let table = pick(Dictionary(grouping: tables, by: { DurableFiles.parent(of: $0) }).values.map { $0.max()! }.sorted())
                        let old = try text(table)
                        try save(table, LargeContentGenerator.nudgedRate(old))
                    case 1:
                        // A new version of the notice (no consent): the document's other pages list it.
                        let versions = try files("terms/broker-notice")
                        let newest = try #require(versions.last)
                        let number = newest.split(separator: "/").last!.dropLast(3).split(separator: ".").compactMap { Int($0) }
                        let next = "\(number[0]).\(number[1] + 1).0"
                        // Later each time (a newer version takes effect later) and never before the
                        // day it is written (HIS-11): one in force on the first as-of date, some
                        // ahead of it and in force on the second, some ahead of both.
                        let days = ["2026-11-29", "2026-12-20", "2027-02-05", "2027-05-10", "2027-08-01", "2027-10-10", "2027-12-12", "2028-02-02"]
                        let day = days[min(added, days.count - 1)]
                        added += 1
                        let body =
                            try text(newest).split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
                                if line.hasPrefix("version:") { return "version: \(next)" }
                                if line.hasPrefix("effective_from:") { return "effective_from: \(day)" }
                                return String(line)
                            }.joined(separator: "\n") + "\n\(round)번째 개정 문장입니다.\n"
                        try save("terms/broker-notice/\(next).md", body)
                    case 2:
                        let partner = pick(try files("partners"))
                        try save(
                            partner,
                            try text(partner).split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
                                guard line.hasPrefix("display_order: "), let value = Int(line.dropFirst(15)) else { return String(line) }
                                return "display_order: \(value + 7)"
                            }.joined(separator: "\n"))
                    default:
                        // A shared file every key holds (its rendered part, the service name, is in the
                        // mandatory phrases the pages must carry, so the threshold is edited).
                        let config = try text("ratecard.yaml")
                        try save(
                            "ratecard.yaml",
                            config.contains("rate_move_warn_pp: 3.0")
                                ? config.replacingOccurrences(of: "rate_move_warn_pp: 3.0", with: "rate_move_warn_pp: 3.5")
                                : config.replacingOccurrences(of: "rate_move_warn_pp: 3.5", with: "rate_move_warn_pp: 3.0"))
                    }
                }
                // The work tree (not committed yet), then the commit, on two dates.
                try compareBuilds(["--as-of", "2026-11-29"], "round \(round), work tree")
                try git(["add", "-A"])
                try git(["commit", "-q", "-m", "Round \(round)"])
                for day in ["2026-11-29", "2027-06-01"] { try compareBuilds(["--rev", "HEAD", "--as-of", day], "round \(round), HEAD as of \(day)") }
            }
            #expect(compared >= 15 * 30)
            // The cached builds did use the cache (terms scans and pages of unchanged files).
            #expect(hits > 15 * 10, "\(hits) entries read")

            // Findings read from the cache are the findings: prohibited wording in a new version.
            let newest = try #require(try files("terms/broker-notice").last)
            try save("terms/broker-notice/99.0.0.md", try text(newest).replacingOccurrences(of: "version: ", with: "version: 99.0.0\n#") + "\n누구나 무조건 승인됩니다.\n")
            let first = try ratecard(["validate", "--format", "json", "--as-of", "2026-11-29"], in: repo, environment: cached)
            let again = try ratecard(["validate", "--format", "json", "--as-of", "2026-11-29"], in: repo, environment: cached)
            let without = try ratecard(["validate", "--format", "json", "--as-of", "2026-11-29"], in: repo, environment: cold)
            #expect(first.out.contains("DSC-06"))
            #expect(first.out == without.out && again.out == without.out)
            try FileSystem.removeTree(repo + "/terms/broker-notice/99.0.0.md")

            // A damaged pack is never trusted: every payload byte flipped in turn region by region,
            // a truncated pack, an index that does not match its sum.
            let packs = directory + "/cache/v1/packs"
            for name in try FileSystem.listDirectory(packs) {
                var bytes = try FileSystem.readFile(packs + "/" + name)
                for offset in stride(from: bytes.count - 1, to: bytes.count / 2, by: -997) { bytes[offset] ^= 0x20 }
                try FileSystem.writeFile(packs + "/" + name, bytes)
            }
            try FileSystem.writeFile(packs + "/00000000000000000000abcd.pack", Array(try FileSystem.readFile(packs + "/" + (try FileSystem.listDirectory(packs).first!)).prefix(500)))
            try compareBuilds(["--rev", "HEAD", "--as-of", "2026-11-29"], "damaged cache")

        }
    }
}
