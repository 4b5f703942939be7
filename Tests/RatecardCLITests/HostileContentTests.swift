import Foundation
import RatecardKit
import Testing

/// Hostile content must render inert: loaded in headless Chromium, no payload runs.
///
/// Every payload, if it ever executed, would set `data-pwned` on the root element; the dumped
/// DOM must not carry it, and no page may hold a `javascript:`/`data:` link or an event handler.
@Suite(.serialized) struct HostileContentTests {
    static let mark = "document.documentElement.dataset.pwned"

    /// The example content plus a hostile partner name, product description and terms document.
    func hostileRepository(in directory: String) throws -> String {
        _ = try ratecard(["init", "repo"], in: directory)
        let root = directory + "/repo"
        let partner = root + "/partners/kbank.yaml"
        var text = String(decoding: try FileSystem.readFile(partner), as: UTF8.self)
        let nameLine = text.split(separator: "\n").first { $0.hasPrefix("name_ko:") }!
        text = text.replacingOccurrences(of: String(nameLine), with: "name_ko: '케이뱅크\"><img src=x onerror=\(Self.mark)=1> '' onmouseover=''\(Self.mark)=2'")
        try FileSystem.writeFile(partner, Array(text.utf8))
        // The data-provision consent names every partner (DSC-16): the hostile name too, in a
        // code span, where it is shown as text. Committed below, as if it had always been so
        // (a committed terms version never changes, HIS-02).
        let hostileName = "케이뱅크\"><img src=x onerror=\(Self.mark)=1> ' onmouseover='\(Self.mark)=2"
        for version in ["1.0.0", "1.1.0"] {
            let consent = root + "/terms/third-party-provision-consent/\(version).md"
            let consentText = String(decoding: try FileSystem.readFile(consent), as: UTF8.self)
            try FileSystem.writeFile(consent, Array(consentText.replacingOccurrences(of: "| 케이뱅크 |", with: "| `\(hostileName)` |").utf8))
        }
        let productFolder = try FileSystem.listDirectory(root + "/products/kbank").first!
        let product = root + "/products/kbank/\(productFolder)/product.yaml"
        var productText = String(decoding: try FileSystem.readFile(product), as: UTF8.self)
        productText = productText.split(separator: "\n").filter { !$0.hasPrefix("description_ko:") }.joined(separator: "\n")
        productText += "\ndescription_ko: '</script><script>\(Self.mark)=3</script>{{x}}'\n"
        try FileSystem.writeFile(product, Array(productText.utf8))
        try FileSystem.makeDirectories(root + "/terms/hostile-doc")
        try FileSystem.writeFile(root + "/terms/hostile-doc/1.0.0.md", Array(Self.hostileTerms(body: "[안전한 링크](https://www.fss.or.kr)\n").utf8))
        _ = try Repository.open(at: root).commitAll(message: "Hostile content", author: Signature(name: "Kim Minji", email: "minji@example.com"))
        return root
    }

    /// A terms version whose title and summary are hostile, with `body` below its heading.
    static func hostileTerms(body: String) -> String {
        """
        ---
        title: '</title><script>\(Self.mark)=8</script>'
        version: 1.0.0
        effective_from: 2026-01-01
        consent: none
        requires_reconsent: false
        summary: '" onload="\(Self.mark)=9'
        ---
        # 안내

        """ + "\n" + body
    }

    /// Raw HTML and unsafe link targets: the renderer drops every one (validation refuses them
    /// first, DSC-20), starting on line 11 of `hostileTerms`.
    static let hostileBody = """
        <script>\(Self.mark)=4</script>

        [누르기](javascript:\(Self.mark)=5) 와 [데이터](data:text/html,<script>\(Self.mark)=6</script>)
        그리고 <img src=x onerror="\(Self.mark)=7"> 와 ![그림](javascript:\(Self.mark)=10)

        <javascript:\(Self.mark)=11> 와 [공백](  JaVaScRiPt:\(Self.mark)=12) 와 [안전한 링크](https://www.fss.or.kr) 와 [VB](vbscript:msgbox)

        <div onclick="\(Self.mark)=13">raw</div>

        """

    /// Text a terms page would drop must not vanish without a word: validate names each
    /// payload of the hostile body where it is written (DSC-20, an error), and nothing is built.
    @Test func everyPayloadATermsPageWouldDropIsReported() throws {
        try withTemporaryDirectory { directory in
            let root = try hostileRepository(in: directory)
            let file = "terms/hostile-doc/1.0.0.md"
            try FileSystem.writeFile(root + "/" + file, Array(Self.hostileTerms(body: Self.hostileBody).utf8))
            let result = try ratecard(["validate", "--as-of", "2026-11-29"], in: root)
            #expect(result.status == 1, "\(result.out)\(result.err)")
            let found = result.out.split(separator: "\n").filter { $0.contains(" error DSC-20: ") }
            let places = found.map { String($0.prefix { $0 != " " }) }
            #expect(
                places == [
                    "\(file):11:1:", "\(file):13:1:", "\(file):13:\(Self.column(of: "[데이터]", in: 13))", "\(file):14:\(Self.column(of: "<img", in: 14))",
                    "\(file):14:\(Self.column(of: "![그림]", in: 14))", "\(file):16:1:", "\(file):16:\(Self.column(of: "[공백]", in: 16))",
                    "\(file):16:\(Self.column(of: "[VB]", in: 16))", "\(file):18:1:",
                ], "\(result.out)")
            #expect(result.out.contains("\(file):13:1: error DSC-20: the link target 'javascript:\(Self.mark)=5' is not a safe URL, so the published page drops it"), "\(result.out)")
            #expect(result.out.contains("\(file):18:1: error DSC-20: raw HTML ('<div onclick=\"\(Self.mark)=13\">...') is left out of the published page"), "\(result.out)")
            let built = try ratecard(["build", "--as-of", "2026-11-29", "--out", directory + "/out"], in: root)
            #expect(built.status == 1, "\(built.out)\(built.err)")
            #expect(!FileSystem.exists(directory + "/out"))
        }
    }

    /// `path:line:column:` of `needle` on `line` of the hostile terms file.
    static func column(of needle: String, in line: Int) -> String {
        let text = hostileTerms(body: hostileBody).split(separator: "\n", omittingEmptySubsequences: false)[line - 1]
        return "\(text.distance(from: text.startIndex, to: text.range(of: needle)!.lowerBound) + 1):"
    }

    /// In a serialized DOM a literal `<` only ever starts a real tag (text has `&lt;`), so these
    /// patterns find real attributes, never escaped text.
    static let dangerous = [
        #"<[a-zA-Z][^<>]*\son[a-zA-Z]+\s*="#,
        #"<[a-zA-Z][^<>]*\s(href|src|action|formaction)\s*=\s*"\s*(javascript|data|vbscript):"#,
        #"<script(?![^<>]*\ssrc="app/(app|bridge|loan-math)\.js")"#,
    ]

    func assertInert(_ dom: String, _ page: String) {
        #expect(!dom.contains("data-pwned"), "a payload ran in \(page)")
        // Serialized attribute values are always double-quoted with `"` escaped, so blanking them
        // leaves only tag and attribute names for the event-handler pattern.
        let names = dom.replacingOccurrences(of: #"="[^"]*""#, with: "=\"\"", options: .regularExpression)
        for (index, pattern) in Self.dangerous.enumerated() {
            let text = index == 0 ? names : dom
            let regex = try! NSRegularExpression(pattern: pattern, options: [.caseInsensitive])
            let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text))
            #expect(match == nil, "\(page) holds \(match.map { (text as NSString).substring(with: $0.range) } ?? "")")
        }
    }

    @Test func staticPagesRenderHostileContentInert() throws {
        try withTemporaryDirectory { directory in
            let root = try hostileRepository(in: directory)
            let built = try ratecard(["build", "--as-of", "2026-11-29", "--out", directory + "/out"], in: root)
            #expect(built.status == 0, "\(built.out)\(built.err)")
            let terms = String(decoding: try FileSystem.readFile(directory + "/out/terms/hostile-doc/1.0.0.html"), as: UTF8.self)
            #expect(terms.contains("<a href=\"https://www.fss.or.kr\">안전한 링크</a>"))
            // Validation refuses the hostile body (DSC-20); the renderer is still the second
            // line: what it makes of the body, in a page of its own, is inert too.
            let rendered = CommonMark.html(Self.hostileBody)
            #expect(rendered.contains("raw HTML omitted"))
            try FileSystem.writeFile(directory + "/out/terms/hostile-body.html", Array("<!DOCTYPE html><html><body><main>\(rendered)</main></body></html>\n".utf8))
            let server = try StaticServer(root: directory + "/out")
            var doms: [String: String] = [:]
            for page in ["terms/hostile-doc/1.0.0.html", "terms/hostile-body.html", "rates.html", "rates/kbank.html", "partners.html"] {
                let dom = try Browser.dumpDOM(server.base + page)
                #expect(dom.contains("</main>"), "\(page) did not load")
                assertInert(dom, page)
                doms[page] = dom
            }
            #expect(doms["partners.html"]?.contains("케이뱅크\"&gt;&lt;img src=x onerror=") == true)
        }
    }

    @Test func theWebAppRendersHostileContentInert() throws {
        try withTemporaryDirectory { directory in
            let root = try hostileRepository(in: directory)
            let site = exampleContent.replacingOccurrences(of: "/content", with: "/site")
            let built = try ratecard(["preview", "--as-of", "2026-11-29", "--web", site, "--out", directory + "/preview"], in: root)
            #expect(built.status == 0, "\(built.out)\(built.err)")
            let server = try StaticServer(root: directory + "/preview")
            let productFolder = try FileSystem.listDirectory(root + "/products/kbank").first!
            for route in ["#/partners", "#/compare?score=950&amount=1000", "#/product/kbank/\(productFolder)", "#/terms/hostile-doc"] {
                let dom = try Browser.dumpDOM(server.base + "index.html" + route)
                #expect(dom.contains("케이뱅크") || route.hasPrefix("#/terms"), "\(route) did not render")
                assertInert(dom, route)
            }
        }
    }
}
