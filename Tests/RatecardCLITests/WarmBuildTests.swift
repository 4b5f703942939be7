import Foundation
import RatecardGenerate
import RatecardKit
import Testing

/// The staff's own loop on generated content: `build` into the folder of the last build with
/// the cache that build filled, after one rate table changed and after one terms page changed,
/// writes what a cold build writes, byte for byte, from the findings the last build kept.
@Suite struct WarmBuildTests {
    @Test func warmBuildsAfterOneTableAndOneTermsPageWriteWhatAColdBuildWrites() throws {
        try withTemporaryDirectory { directory in
            let repo = directory + "/repo"
            let generated = try ratecard(["generate", repo, "--partners", "3", "--products", "6", "--tables", "12", "--terms", "10", "--history", "0", "--seed", "9"], in: directory)
            try #require(generated.status == 0, "\(generated.out)\(generated.err)")
            let paths = try treeListing(repo).filter { $0.value != "folder" }.keys.sorted()
            let table = try #require(paths.last { $0.hasPrefix("products/") && $0.contains("/rates/") })
            // A new version of the notice, not committed yet (what staff edit before a commit).
            let notice = try #require(paths.last { $0.hasPrefix("terms/broker-notice/") })
            let version = "\(notice.split(separator: "/").last!.split(separator: ".")[0]).99.0"
            let page = "terms/broker-notice/\(version).md"
            let draft = String(decoding: try FileSystem.readFile(repo + "/" + notice), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map {
                $0.hasPrefix("version:") ? "version: \(version)" : $0.hasPrefix("effective_from:") ? "effective_from: 2026-11-29" : String($0)
            }
            try FileSystem.writeFile(repo + "/" + page, Array(draft.joined(separator: "\n").utf8))
            let warm = ["RATECARD_CACHE_DIR": directory + "/cache", "RATECARD_TRACE": "1"]
            let out = directory + "/out"
            let first = try ratecard(["build", "--out", out, "--as-of", "2026-11-29"], in: repo, environment: warm)
            try #require(first.status == 0, "\(first.out)\(first.err)")
            let edits: [(String, String, (String) -> String)] = [
                ("one table", table, LargeContentGenerator.nudgedRate),
                ("one terms page", page, { $0 + "\n변경 안내 문장입니다.\n" }),
            ]
            for (what, path, change) in edits {
                let text = String(decoding: try FileSystem.readFile(repo + "/" + path), as: UTF8.self)
                try FileSystem.writeFile(repo + "/" + path, Array(change(text).utf8))
                let cold = directory + "/cold-\(path.count)"
                let warmBuild = try ratecard(["build", "--out", out, "--as-of", "2026-11-29"], in: repo, environment: warm)
                let coldBuild = try ratecard(["build", "--out", cold, "--as-of", "2026-11-29"], in: repo, environment: ["RATECARD_CACHE": "off"])
                try #require(warmBuild.status == 0 && coldBuild.status == 0, "\(what): \(warmBuild.err)\(coldBuild.err)")
                #expect(warmBuild.err.contains("trace: check: kept findings, "), "\(what): \(warmBuild.err)")
                let left = try treeListing(out)
                let right = try treeListing(cold)
                #expect(left.keys.sorted() == right.keys.sorted(), "\(what)")
                let differing = left.keys.sorted().filter { left[$0] != "folder" && (try? FileSystem.readFile(out + "/" + $0)) != (try? FileSystem.readFile(cold + "/" + $0)) }
                #expect(differing.isEmpty, "\(what): \(differing.prefix(5))")
                #expect(warmBuild.out == coldBuild.out.replacingOccurrences(of: cold, with: out), "\(what)")
            }
        }
    }
}
