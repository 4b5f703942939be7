import Foundation
import Glibc
import RatecardGenerate
import RatecardKit
import Testing

/// How long an edit takes to show in an open page of `preview --watch` on the 3,000-product
/// repository (`ratecard generate`), in headless Chromium: from the moment the file is written
/// until the open page shows it (a static page takes the new body in place; a page running
/// scripts of its own reloads). The medians are printed (the bench
/// measures the same with a release build); the test asserts that every reload shows the edit,
/// that an invalid edit shows its file and line in the page and that the fix clears it.
///
/// Full tier only (`make test-full`): it generates the 3,000-product repository and is a
/// measurement first; `PreviewWatchTests` checks the same behaviour on small content in every
/// tier, and `make bench` reports the latency.
@Suite(.serialized, .enabled(if: TestTier.isFull, "the 3,000-product latency run is in make test-full")) struct PreviewLatencyTests {
    static let runs = 5
    /// rates.html takes Chromium seconds to load on a busy machine: fewer runs of it.
    static let ratesRuns = 3

    @Test func editsShowInTheOpenPageAndInvalidOnesShowTheirProblem() throws {
        try withTemporaryDirectory { directory in
            let repo = directory + "/big"
            let generated = try ratecard(["generate", repo, "--history", "0"], in: directory)
            try #require(generated.status == 0, "\(generated.out)\(generated.err)")
            // The web app beside the content, where ratecard.yaml's default (../site) finds it.
            try FileSystem.copyTree(from: exampleContent + "/../site", to: directory + "/site")

            // A new version of a terms document, not committed: what staff edit while watching.
            let document = try FileSystem.listDirectory(repo + "/terms").contains("broker-notice") ? "broker-notice" : try #require(try FileSystem.listDirectory(repo + "/terms").first)
            let newest = try #require(try FileSystem.listDirectory(repo + "/terms/" + document).last)
            // A minor version (no consent asked again), in force from the as-of date (a new
            // version dated before it is backdated: HIS-11).
            let version = "\(newest.split(separator: ".")[0]).99.0"
            let draft = "terms/\(document)/\(version).md"
            let template = try String(contentsOfFile: repo + "/terms/\(document)/\(newest)", encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
                    if line.hasPrefix("version:") { return "version: \(version)" }
                    if line.hasPrefix("effective_from:") { return "effective_from: 2026-11-29" }
                    return String(line)
                }.joined(separator: "\n")
            func writeDraft(_ text: String) throws { try FileSystem.writeFile(repo + "/" + draft, Array(text.utf8)) }
            try writeDraft(template)

            let watch = try WatchProcess(in: repo, arguments: ["--as-of", "2026-11-29"], startup: 600)
            #expect(!(try HTTP.get(port: watch.port, "/terms/\(document)/\(version).html").text.contains("ratecard-problems")), "\(watch.output().suffix(3000))")
            let browser = try DevToolsBrowser()

            /// Writes, then waits until the open page satisfies `shows` (its body swapped in place,
            /// or the page reloaded); milliseconds.
            func measure(_ write: () throws -> Void, shows: String) throws -> Double {
                // Each edit on its own, as staff make them: the page settles from the last first
                // (bench/latency.py measures the same way).
                usleep(500_000)
                browser.discardEvents()
                let start = Date()
                try write()
                while Date().timeIntervalSince(start) < 120 {
                    // Mid-reload the page has no context to evaluate in: not yet.
                    if (try? browser.evaluate(shows)) as? Bool == true { return Date().timeIntervalSince(start) * 1000 }
                    usleep(2000)
                }
                Issue.record("the page never showed the edit (\(shows))")
                return .infinity
            }

            // A terms page: each edit adds a sentence to the draft's body.
            let page = "http://127.0.0.1:\(watch.port)/terms/\(document)/\(version).html"
            try browser.open(page)
            // A static page is updated in place: no navigation (what the page holds survives), and
            // the reader keeps their place in it.
            _ = try browser.evaluate("window.ratecardKept = 1; window.scrollTo(0, 400); window.scrollY")
            let scrolled = try browser.evaluate("window.scrollY") as? Double ?? 0
            var terms: [Double] = []
            for run in 0..<Self.runs {
                let marker = "측정 문장 \(run)번입니다."
                terms.append(try measure({ try writeDraft(template + "\n\(marker)\n") }, shows: "document.body.textContent.includes('\(marker)')"))
            }
            #expect(try browser.evaluate("window.ratecardKept") as? Int == 1, "the terms page was navigated, not updated in place")
            #expect(try browser.evaluate("window.scrollY") as? Double == scrolled && scrolled > 0, "the scroll position was lost")

            // An invalid edit shows its file and line in the page; the fix clears it.
            _ = try measure(
                { try writeDraft(template.replacingOccurrences(of: "effective_from: 2026-11-29", with: "effective_from: [")) },
                shows: "document.body.innerText.includes('\(draft):')")
            let problems = try #require(try browser.evaluate("document.getElementById('ratecard-problems').innerText") as? String)
            #expect(problems.contains("\(draft):") && problems.contains(": error YML-01: "), "\(problems)")
            _ = try measure({ try writeDraft(template + "\n고친 문장입니다.\n") }, shows: "document.body.innerText.includes('고친 문장입니다.')")
            #expect(try browser.evaluate("document.getElementById('ratecard-problems') === null") as? Bool == true)

            // A partner's rates page (rates.html lists the partners): each edit moves a rate of
            // a product's table.
            try browser.open("http://127.0.0.1:\(watch.port)/rates.html")
            let partner = try #require(try browser.evaluate("document.querySelector('li[id]').id") as? String)
            try browser.open("http://127.0.0.1:\(watch.port)/" + BundleLayout.ratesPage(partner))
            let key = try #require(try browser.evaluate("document.querySelector('section').id") as? String)
            let tables = try FileSystem.listDirectory(repo + "/products/\(key)/rates")
            let table = "products/\(key)/rates/\(try #require(tables.last))"
            var rates: [Double] = []
            for _ in 0..<Self.ratesRuns {
                let text = try String(contentsOfFile: repo + "/" + table, encoding: .utf8)
                let nudged = LargeContentGenerator.nudgedRate(text)
                let line = try #require(nudged.split(separator: "\n").first { $0.contains("apr_max_pct: ") })
                let rate = try #require(Percent.parse(String(line.split(separator: " ").last!))?.value.displayed)
                rates.append(
                    try measure(
                        { try FileSystem.writeFile(repo + "/" + table, Array(nudged.utf8)) },
                        shows: "document.getElementById('\(key)').textContent.includes('~ \(rate)%')"))
            }
            #expect(watch.stop() == 0)

            func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
            let report = """
                preview --watch, change to reloaded page, 3,000-product repository (this build):
                  terms page (11 KB):  median \(Int(median(terms))) ms  (\(terms.map { String(Int($0)) }.joined(separator: ", ")))
                  a rates page:        median \(Int(median(rates))) ms  (\(rates.map { String(Int($0)) }.joined(separator: ", ")))
                """
            print(report)
            if let path = ProcessInfo.processInfo.environment["RATECARD_LATENCY_REPORT"] { try FileSystem.writeFile(path, Array(report.utf8)) }
            // A generous bound: a reload that takes a minute is broken, not slow.
            #expect(terms.allSatisfy { $0 < 60_000 } && rates.allSatisfy { $0 < 60_000 })
        }
    }
}
