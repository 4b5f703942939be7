import Foundation
import RatecardKit
import Testing

/// The web app end to end in headless Chromium: `ratecard preview` of the example content,
/// served on loopback, compared with what the bundle's JSON says the app must show.
@Suite(.serialized) struct BrowserComparisonTests {
    static let asOf = "2026-11-29"

    /// A product that would rank second at a high score, whose compliance review ended the day
    /// before the as-of date: the screens must not show it.
    static let expired = (key: "hana-bank/one-q-credit", name: "하나원큐 신용대출")

    /// The example content in `directory/repo` (with `expired`'s review ended the day before),
    /// previewed with the site into `directory/preview`.
    func preview(in directory: String) throws -> (repo: String, out: String) {
        let created = try ratecard(["init", "repo"], in: directory)
        #expect(created.status == 0, "\(created.out)\(created.err)")
        let product = directory + "/repo/products/\(Self.expired.key)/product.yaml"
        let text = String(decoding: try FileSystem.readFile(product), as: UTF8.self)
        #expect(text.contains("review_valid_until: 2027-10-31"))
        try FileSystem.writeFile(product, Array(text.replacingOccurrences(of: "review_valid_until: 2027-10-31", with: "review_valid_until: 2026-11-28").utf8))
        let site = exampleContent.replacingOccurrences(of: "/content", with: "/site")
        let out = directory + "/preview"
        let built = try ratecard(["preview", "--as-of", Self.asOf, "--web", site, "--out", out], in: directory + "/repo")
        #expect(built.status == 0, "\(built.out)\(built.err)")
        return (directory + "/repo", out)
    }

    /// A data file of the preview's bundle, parsed with JSONSerialization.
    func dataFile(_ out: String, _ name: String) throws -> [String: Any] {
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(try FileSystem.readFile(out + "/data/manifest.json"))) as? [String: Any])
        let folder = try #require(manifest["data"] as? String)
        let bytes = try FileSystem.readFile(out + "/" + folder + name)
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    /// Every product's own document in the preview's bundle (not the comparison index the app
    /// reads), as `{"products": [...]}`.
    func productDocuments(_ out: String) throws -> [String: Any] {
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(try FileSystem.readFile(out + "/data/manifest.json"))) as? [String: Any])
        let folder = try #require(manifest["data"] as? String)
        let files = try #require(manifest["files"] as? [[String: Any]])
        var products: [[String: Any]] = []
        for case let path as String in files.map({ $0["path"] }) where path.hasPrefix(folder + "products/") {
            products.append(try #require(try JSONSerialization.jsonObject(with: Data(try FileSystem.readFile(out + "/" + path))) as? [String: Any]))
        }
        #expect(products.count > 40)
        return ["products": products]
    }

    // MARK: - The comparison, computed independently

    struct Row: Equatable, CustomStringConvertible {
        var key: String
        var partner: String
        var apr: String
        var over: Bool
        var description: String { "\(key) | \(partner) | \(apr)\(over ? " | over" : "")" }
    }

    /// app.js `fmtApr`: at least 2 and at most 3 decimals (6.9 -> "6.90", 5.125 -> "5.125").
    static func formatRate(_ value: Double) -> String {
        let thousandths = Int((abs(value) * 1000).rounded())
        var fraction = String(thousandths % 1000)
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        if fraction.hasSuffix("0") { fraction.removeLast() }
        return (value < 0 ? "-" : "") + "\(thousandths / 1000).\(fraction)"
    }

    // MARK: - Reading the dumped DOM

    static func matches(_ pattern: String, in text: String) -> [[String]] {
        let regex = try! NSRegularExpression(pattern: pattern, options: [.dotMatchesLineSeparators])
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { match in
            (0..<match.numberOfRanges).map { index in
                Range(match.range(at: index), in: text).map { String(text[$0]) } ?? ""
            }
        }
    }

    /// Text as a serialized DOM writes it (`&`, `<`, `>` escaped; quotes only in attributes).
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&nbsp;", with: "\u{A0}").replacingOccurrences(of: "&amp;", with: "&")
    }

    /// The rows of `#results` (or `#results-below`) in document order; `over` marks a row of the group below.
    static func renderedRows(_ dom: String, list id: String = "results") -> [Row]? {
        guard let list = matches(#"<ol\b[^>]*\bid="\#(id)"[^>]*>(.*?)</ol>"#, in: dom).first?[1] else { return nil }
        return matches(#"<li class="result"([^>]*)>(.*?)</li>"#, in: list).map { item in
            let attributes = item[1]
            let body = item[2]
            return Row(
                key: unescape(matches(#"\bdata-key="([^"]*)""#, in: attributes).first?[1] ?? "<no data-key>"),
                partner: unescape(matches(#"<span class="partner">([^<]*)</span>"#, in: body).first?[1] ?? "<no .partner>"),
                apr: unescape(matches(#"<span class="apr">([^<]*)</span>"#, in: body).first?[1] ?? "<no .apr>"),
                over: attributes.contains(#"data-below="true""#))
        }
    }

    static func text(ofElementWithID id: String, in dom: String) -> String? {
        matches(#"<[a-z0-9]+\b[^>]*\bid="\#(id)"[^>]*>([^<]*)<"#, in: dom).first.map { unescape($0[1]) }
    }

    // MARK: - Tests

    /// The first screen without any interaction (`--dump-dom`): the first page of each group,
    /// in the order `ComparisonScreenTests.expected` computes from the products' own documents.
    @Test func theComparisonListsWhatTheBundleSaysInConsumerOrder() throws {
        try withTemporaryDirectory { directory in
            let (repo, out) = try preview(in: directory)
            let products = try #require(try productDocuments(out)["products"] as? [[String: Any]])
            let partners = try #require(try dataFile(out, "partners.json")["partners"] as? [[String: Any]])
            let bundle = ComparisonScreenTests.Preview(repo: repo, out: out, products: products, partners: partners)
            let names = Dictionary(uniqueKeysWithValues: partners.map { ($0["id"] as! String, $0["name_ko"] as! String) })
            let server = try StaticServer(root: out)
            // A high score with a few products over the amount, a mid score with many over it.
            for (score, amount) in [(950, 3000), (750, 5000)] {
                let route = "#/compare?score=\(score)&amount=\(amount)"
                let dom = try Browser.dumpDOM(server.base + "index.html" + route)
                let (main, below) = try ComparisonScreenTests.expected(bundle, .init(kcb: score, nice: score, amountMan: amount))
                #expect(!main.isEmpty && !below.isEmpty, "\(route): the expectation is empty")
                func rows(_ list: [ComparisonScreenTests.Expected]) -> [Row] {
                    list.prefix(20).map { row in
                        Row(
                            key: row.key, partner: names[String(row.key.prefix { $0 != "/" })] ?? "",
                            apr: ComparisonScreenTests.aprText(row.aprMin, row.aprMax), over: row.below)
                    }
                }
                for (id, wanted) in [("results", rows(main)), ("results-below", rows(below))] {
                    let rendered = try #require(Self.renderedRows(dom, list: id), "\(route): no #\(id) in the page")
                    #expect(rendered.count == wanted.count, "\(route): \(rendered.count) rows shown in #\(id), \(wanted.count) expected")
                    for (index, (shown, expected)) in zip(rendered, wanted).enumerated() where shown != expected {
                        Issue.record("\(route): #\(id) row \(index + 1) is [\(shown)], expected [\(expected)]")
                        break
                    }
                }
                let summary = "신용점수 \(score)점 · \(main.count)개 상품 (희망 금액 \(Self.formatKRW(amount * 10_000)), 36개월) · 조건 밖 \(below.count)개"
                #expect(Self.text(ofElementWithID: "result-summary", in: dom) == summary, "\(route)")
                // The order's basis beside the sort, tie-break included.
                #expect(Self.text(ofElementWithID: "sort-basis", in: dom) == "금리가 같으면 한도 높은 순, 그다음 상품 코드 알파벳순", "\(route)")
                // The product whose review ended is on no screen, though its rate would rank it second.
                #expect(!dom.contains(Self.expired.name), "\(route): \(Self.expired.key) is shown after its review ended")
                #expect(!(main + below).contains { $0.key == Self.expired.key })
                if score == 950 {
                    // Hard facts, so an empty or wrongly computed expectation cannot pass.
                    #expect(Self.renderedRows(dom)?.first == Row(key: "ibk/worker-credit", partner: "IBK기업은행", apr: "연 4.15% ~ 5.35%", over: false))
                    #expect(main.count > 20)
                    #expect(dom.contains(#"id="more""#) && dom.contains("더 보기 (20/\(main.count))"))
                }
            }
        }
    }

    /// Front matter field of a terms file (`title: 서비스 이용약관`, quotes removed).
    static func frontMatter(_ field: String, in markdown: String) -> String? {
        let header = markdown.components(separatedBy: "\n---\n").first ?? ""
        guard let line = header.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return nil }
        var value = line.dropFirst(field.count + 1).trimmingCharacters(in: .whitespaces)
        if value.count >= 2, let first = value.first, first == value.last, first == "\"" || first == "'" {
            value = String(value.dropFirst().dropLast())
        }
        return value
    }

    @Test func theTermsPageAndTheAppsTermsViewShowTheDocument() throws {
        try withTemporaryDirectory { directory in
            let (repo, out) = try preview(in: directory)
            let folder = repo + "/terms/service-terms"
            var versions: [(version: String, effective: String, title: String)] = []
            for name in try FileSystem.listDirectory(folder) where name.hasSuffix(".md") {
                let markdown = String(decoding: try FileSystem.readFile(folder + "/" + name), as: UTF8.self)
                versions.append(
                    (
                        try #require(Self.frontMatter("version", in: markdown)),
                        try #require(Self.frontMatter("effective_from", in: markdown)),
                        try #require(Self.frontMatter("title", in: markdown))
                    ))
            }
            #expect(versions.count >= 2)
            let current = try #require(versions.filter { $0.effective <= Self.asOf }.max { $0.effective < $1.effective })
            #expect(current.version == "1.1.0")
            let markdown = String(decoding: try FileSystem.readFile(folder + "/1.1.0.md"), as: UTF8.self)
            let title = try #require(Self.frontMatter("title", in: markdown))
            #expect(title == "서비스 이용약관")
            let sentence = "제9조(준거법) 이 약관은 대한민국 법률에 따라 해석합니다."
            #expect(markdown.contains(sentence))

            let server = try StaticServer(root: out)
            let page = try Browser.dumpDOM(server.base + "terms/service-terms/1.1.0.html")
            #expect(page.contains("<title>\(title) (버전 1.1.0)</title>"))
            #expect(page.contains("<h1>\(title)</h1>"))
            #expect(page.contains(sentence))
            #expect(page.contains("</main>"))

            let app = try Browser.dumpDOM(server.base + "index.html#/terms/service-terms")
            let main = try #require(Self.matches(#"<main\b[^>]*>(.*?)</main>"#, in: app).first?[1], "the app has no <main>")
            #expect(Self.matches(#"<h1\b[^>]*>([^<]*)</h1>"#, in: main).first?[1] == title)
            // The version's text inside the page: no frame, no second navigation bar.
            #expect(!main.contains("<iframe") && !main.contains("<nav"))
            #expect(main.contains(sentence), "the terms text is not in the page")
            #expect(app.contains(#"data-title="\#(title) v\#(current.version)""#))
            // The picker lists every version, newest first, the current one marked.
            let list = try #require(Self.matches(#"<ul\b[^>]*\bid="versions"[^>]*>(.*?)</ul>"#, in: main).first?[1], "no version list")
            let links = Self.matches(#"<a class="version-link"([^>]*)>"#, in: list).map { $0[1] }
            let shown = links.compactMap { Self.matches(#"\bdata-version="([^"]*)""#, in: $0).first?[1] }
            let expected = versions.sorted { $0.effective > $1.effective }.map(\.version)
            #expect(shown == expected)
            let marked = links.filter { $0.contains(#"aria-current="true""#) }.compactMap { Self.matches(#"\bdata-version="([^"]*)""#, in: $0).first?[1] }
            #expect(marked == [current.version])
        }
    }

    /// app.js `fmtKrw` for whole amounts: 30000000 -> "3,000만원", 150000000 -> "1억 5,000만원".
    static func formatKRW(_ krw: Int) -> String {
        let eok = krw / 100_000_000
        let man = (krw % 100_000_000) / 10_000
        let won = krw % 10_000
        var parts: [String] = []
        if eok > 0 { parts.append(grouped(eok) + "억") }
        if man > 0 { parts.append(grouped(man) + "만") }
        if won > 0 { parts.append(grouped(won)) }
        return parts.isEmpty ? "0원" : parts.joined(separator: " ") + "원"
    }

    static func grouped(_ value: Int) -> String {
        let digits = Array(String(value))
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out += "," }
            out.append(digit)
        }
        return out
    }
}
