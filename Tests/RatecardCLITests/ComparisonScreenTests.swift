import Foundation
import RatecardKit
import Testing

/// A phone (390 x 844) in headless Chromium, driven over the DevTools protocol: the page is
/// loaded, waited on, clicked and read with JavaScript, and photographed into
/// `.build/artefacts/screens/` (kept as the run's artefacts; every test asserts content too).
final class PhoneScreen {
    let browser: DevToolsBrowser
    private var loads = 0

    static let width = 390
    static let height = 844

    init() throws {
        browser = try DevToolsBrowser()
        try browser.call(
            "Emulation.setDeviceMetricsOverride",
            [
                "width": Self.width, "height": Self.height, "deviceScaleFactor": 2, "mobile": true,
            ], session: browser.session)
    }

    /// Loads `base + "index.html" + hash` as a new document (a query before the hash makes a
    /// hash-only change a full load), then waits until `ready` is true in the page.
    func open(_ base: String, _ hash: String, until ready: String) throws {
        loads += 1
        try browser.open(base + "index.html?load=\(loads)" + hash)
        try wait(ready, what: hash)
    }

    /// Waits until the JavaScript expression is true.
    func wait(_ expression: String, what: String = "", timeout: TimeInterval = 20) throws {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            if try browser.evaluate("!!(\(expression))") as? Bool == true { return }
            if Date() > deadline {
                let main = try? browser.evaluate("(document.getElementById('main') || document.body).innerText.slice(0, 400)")
                throw BrowserError("\(what): not true in time: \(expression); the page shows: \(main ?? "-")")
            }
            usleep(50_000)
        }
    }

    func evaluate(_ expression: String) throws -> Any? { try browser.evaluate(expression) }

    /// The value of an expression that returns JSON.stringify(...), parsed.
    func json(_ expression: String) throws -> Any {
        let value = try browser.evaluate(expression)
        let text = try #require(value as? String, "\(expression) gave no JSON")
        return try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }

    func text(_ selector: String) throws -> String? {
        try browser.evaluate("(function () { var e = document.querySelector(\(Self.quoted(selector))); return e ? e.textContent : null; })()") as? String
    }

    func pressTab() throws {
        for type in ["keyDown", "keyUp"] {
            try browser.call(
                "Input.dispatchKeyEvent",
                [
                    "type": type, "key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9, "nativeVirtualKeyCode": 9,
                ], session: browser.session)
        }
    }

    /// Elements with the `hidden` attribute (or inside one) that are still laid out: a style
    /// that sets `display` overrides the attribute unless the stylesheet says otherwise.
    func visibleHiddenElements() throws -> [String] {
        try #require(
            try json(
                """
                JSON.stringify(Array.prototype.filter.call(document.querySelectorAll('[hidden]'), function (e) {
                  return e.getClientRects().length > 0;
                }).map(function (e) { return e.tagName + '#' + e.id + ' "' + e.textContent.trim().slice(0, 30) + '"'; }))
                """) as? [String])
    }

    /// The whole page as a PNG in `.build/artefacts/screens/<name>.png`, after checking that
    /// nothing hidden is on show.
    func screenshot(_ name: String) throws {
        let shown = try visibleHiddenElements()
        #expect(shown.isEmpty, "\(name): hidden elements on the screen: \(shown)")
        let height = min(12_000, (try browser.evaluate("document.documentElement.scrollHeight") as? Int) ?? Self.height)
        let shot = try browser.call(
            "Page.captureScreenshot",
            [
                "format": "png", "captureBeyondViewport": true,
                "clip": ["x": 0, "y": 0, "width": Self.width, "height": max(height, Self.height), "scale": 1],
            ], session: browser.session)
        let encoded = try #require(shot["data"] as? String)
        let data = try #require(Data(base64Encoded: encoded))
        try FileManager.default.createDirectory(atPath: Self.artefacts, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: Self.artefacts + "/" + name + ".png"))
        #expect(data.count > 1000, "\(name): an empty screenshot")
    }

    static var artefacts: String {
        String(exampleContent.dropLast("content".count)) + ".build/artefacts/screens"
    }

    /// The web app's modules (`app/....js` below site/), the generated bridge runtime aside.
    static func appModules() throws -> [String] {
        try ReleaseFiles.list(projectSite + "/app").filter { $0.hasSuffix(".js") && $0 != "bridge.js" }.map { "app/" + $0 }
    }

    static func quoted(_ text: String) -> String {
        let data = try! JSONSerialization.data(withJSONObject: [text])
        return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
    }
}

/// A folder for fixtures that several tests of one process only read, made once per test
/// process and removed when it exits.
enum SharedFixtures {
    static let folder: String = {
        var template = Array((temporaryRoot + "/ratecard-shared-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { fatalError("mkdtemp failed in \(temporaryRoot)") }
        atexit { try? FileSystem.removeTree(SharedFixtures.folder) }
        return String(cString: made)
    }()
}

/// The comparison screen of the example content on a phone: sort and filter orders, the
/// repayment figures (computed here by a month-by-month amortisation, not by the app's code),
/// the empty and error states, the product and terms screens, and accessibility.
@Suite(.serialized) struct ComparisonScreenTests {
    /// The notice on public loan programs (content/terms/public-loan-programs) is in force from this day.
    static let asOf = "2026-12-01"

    struct Preview {
        let repo: String
        let out: String
        let products: [[String: Any]]
        let partners: [[String: Any]]
    }

    /// The preview every test reads (one that changes it works on a copy): made once per test
    /// process.
    nonisolated(unsafe) static let shared = Result { () throws -> Preview in
        let directory = SharedFixtures.folder + "/comparison-screen"
        try FileSystem.makeDirectories(directory)
        return try ComparisonScreenTests().preview(in: directory)
    }

    func preview(in directory: String) throws -> Preview {
        let created = try ratecard(["init", "repo"], in: directory)
        try #require(created.status == 0, "\(created.out)\(created.err)")
        let out = directory + "/preview"
        let built = try ratecard(["preview", "--as-of", Self.asOf, "--web", projectSite, "--out", out], in: directory + "/repo")
        try #require(built.status == 0, "\(built.out)\(built.err)")
        let helper = BrowserComparisonTests()
        let products = try #require(try helper.productDocuments(out)["products"] as? [[String: Any]])
        let partners = try #require(try helper.dataFile(out, "partners.json")["partners"] as? [[String: Any]])
        return Preview(repo: directory + "/repo", out: out, products: products, partners: partners)
    }

    // MARK: - The comparison, computed independently (from the products' own documents)

    struct Conditions {
        var kcb: Int?
        var nice: Int?
        var amountMan: Int
        var term = 36
        var method = "equal_installment"
        var sort = "apr"
        var category: String?
        var type: String?
    }

    struct Expected {
        var key: String
        var below: Bool
        var aprMin: Double
        var aprMax: Double
        var limit: Int
        /// The band that prices the reader's score, as a row names it ("KCB 701~800점 구간").
        var band = ""
        var low: LoanMathTests.Figures?
        var high: LoanMathTests.Figures?
        /// Why a product below cannot lend, as its row says it.
        var reasons: [String] = []
    }

    /// The repayment methods as the screen names them.
    static let methodNames = [
        "equal_installment": "원리금균등분할상환", "equal_principal": "원금균등분할상환", "bullet": "만기일시상환", "revolving": "한도대출(마이너스통장)",
    ]

    static func expected(_ preview: Preview, _ c: Conditions) throws -> (main: [Expected], below: [Expected]) {
        let partnerByID = Dictionary(uniqueKeysWithValues: preview.partners.map { ($0["id"] as! String, $0) })
        let amount = c.amountMan * 10_000
        var main: [Expected] = []
        var below: [Expected] = []
        for product in preview.products {
            let partner = try #require(partnerByID[product["partner"] as! String])
            guard product["status"] as? String == "active", partner["status"] as? String == "active",
                let current = product["current"] as? [String: Any], let bands = current["bands"] as? [[String: Any]],
                bands.allSatisfy({ $0["score_min"] is Int })
            else { continue }
            if let category = c.category, partner["category"] as? String != category { continue }
            if let type = c.type, product["type"] as? String != type { continue }
            let bureau = try #require(current["bureau"] as? String)
            guard let score = bureau == "KCB" ? c.kcb : c.nice else { continue }
            guard let band = bands.first(where: { ($0["score_min"] as! Int) <= score && score <= ($0["score_max"] as! Int) }) else { continue }
            let limits = try #require(product["limit"] as? [String: Any])
            let limit = min(band["limit_max_krw"] as! Int, limits["max_krw"] as! Int)
            let terms = try #require(product["terms_months"] as? [Int])
            let methods = try #require(product["repayment_methods"] as? [String])
            let fits = amount <= limit && amount >= (limits["min_krw"] as! Int) && terms.contains(c.term) && methods.contains(c.method)
            let aprMin = (band["apr_min_pct"] as! NSNumber).doubleValue
            let aprMax = (band["apr_max_pct"] as! NSNumber).doubleValue
            var row = Expected(key: product["key"] as! String, below: !fits, aprMin: aprMin, aprMax: aprMax, limit: limit)
            // In plain words, what the product does lend on.
            if amount > limit { row.reasons.append("한도 초과 (최대 \(BrowserComparisonTests.formatKRW(limit)))") }
            if amount < (limits["min_krw"] as! Int) { row.reasons.append("최소 \(BrowserComparisonTests.formatKRW(limits["min_krw"] as! Int))부터 가능") }
            if !terms.contains(c.term) { row.reasons.append(terms.map(String.init).joined(separator: "·") + "개월만 가능") }
            if !methods.contains(c.method) { row.reasons.append(methods.map { methodNames[$0] ?? $0 }.joined(separator: ", ") + " 방식만 가능") }
            row.band = "\(bureau) \(band["score_min"]!)~\(band["score_max"]!)점 구간"
            if fits {
                row.low = LoanMathTests.amortised(.init(amount: amount, apr: aprMin, months: c.term, method: c.method))
                row.high = LoanMathTests.amortised(.init(amount: amount, apr: aprMax, months: c.term, method: c.method))
                main.append(row)
            } else {
                below.append(row)
            }
        }
        let order: (Expected, Expected) -> Bool = { a, b in
            switch c.sort {
            case "limit":
                return (-a.limit, a.aprMin, a.aprMax, a.key) < (-b.limit, b.aprMin, b.aprMax, b.key)
            default:
                // By APR; the payment order is checked on the figures shown.
                return (a.aprMin, a.aprMax, -a.limit, a.key) < (b.aprMin, b.aprMax, -b.limit, b.key)
            }
        }
        return (main.sorted(by: order), below.sorted(by: order))
    }

    // MARK: - Reading the page

    struct Shown {
        var key: String
        var below: Bool
        var apr: String
        var pay: [Int]
        var interest: [Int]
        var payText: String
        var reason: String
        var meta = ""
    }

    static let rowsScript = """
        JSON.stringify(Array.prototype.map.call(document.querySelectorAll('#results > li, #results-below > li'), function (li) {
          function t(s) { var e = li.querySelector(s); return e ? e.textContent : ''; }
          return { key: li.getAttribute('data-key'), below: li.getAttribute('data-below') === 'true', apr: t('.apr'),
                   pay: t('.pay'), interest: t('.interest'), reason: t('.reason'), meta: t('.meta') };
        }))
        """

    /// The empty state's reasons, as "<kind>: <text>".
    static func reasons(_ screen: PhoneScreen) throws -> [String] {
        try #require(
            try screen.json(
                "JSON.stringify(Array.prototype.map.call(document.querySelectorAll('#no-results-reasons li'), function (l) { return l.getAttribute('data-reason') + ': ' + l.textContent; }))"
            ) as? [String])
    }

    /// Every won amount in a text: "월 상환액 910,621원 ~ 936,635원" -> [910621, 936635].
    static func wons(_ text: String) -> [Int] {
        BrowserComparisonTests.matches(#"([0-9][0-9,]*)원"#, in: text).compactMap { Int($0[1].replacingOccurrences(of: ",", with: "")) }
    }

    /// Clicks both "더 보기" buttons until every row is shown, then reads the rows.
    func allRows(_ screen: PhoneScreen) throws -> [Shown] {
        for _ in 0..<400 {
            let clicked =
                try screen.evaluate(
                    """
                    (function () { var n = 0; ['more', 'more-below'].forEach(function (id) { var b = document.getElementById(id);
                      if (b && !b.hidden && b.offsetParent !== null) { b.click(); n++; } }); return n; })()
                    """) as? Int ?? 0
            if clicked == 0 { break }
        }
        let rows = try #require(try screen.json(Self.rowsScript) as? [[String: Any]])
        return rows.map { row in
            Shown(
                key: row["key"] as? String ?? "", below: row["below"] as? Bool ?? false, apr: row["apr"] as? String ?? "",
                pay: Self.wons(row["pay"] as? String ?? ""), interest: Self.wons(row["interest"] as? String ?? ""),
                payText: row["pay"] as? String ?? "", reason: row["reason"] as? String ?? "", meta: row["meta"] as? String ?? "")
        }
    }

    static func aprText(_ min: Double, _ max: Double) -> String {
        min == max ? "연 \(BrowserComparisonTests.formatRate(min))%" : "연 \(BrowserComparisonTests.formatRate(min))% ~ \(BrowserComparisonTests.formatRate(max))%"
    }

    static func hash(_ c: Conditions) -> String {
        var parts: [String] = []
        if let kcb = c.kcb, kcb == c.nice {
            parts.append("score=\(kcb)")
        } else {
            if let kcb = c.kcb { parts.append("kcb=\(kcb)") }
            if let nice = c.nice { parts.append("nice=\(nice)") }
        }
        parts += ["amount=\(c.amountMan)", "term=\(c.term)", "method=\(c.method)", "sort=\(c.sort)"]
        if let category = c.category { parts.append("cat=\(category)") }
        if let type = c.type { parts.append("type=\(type)") }
        return "#/compare?" + parts.joined(separator: "&")
    }

    static let summaryReady = "/ · \\d+개 상품/.test((document.getElementById('result-summary') || {}).textContent || '')"

    // MARK: - Tests

    /// The entry module is a module script and every other module is preloaded: a module left
    /// out still works, but is fetched only when the module importing it has arrived (one round
    /// trip more per import level on a phone).
    @Test func everyModuleIsPreloaded() throws {
        let page = String(decoding: try FileSystem.readFile(projectSite + "/index.html"), as: UTF8.self)
        let preloaded = BrowserComparisonTests.matches(#"<link rel="modulepreload" href="([^"]+)">"#, in: page).map { $0[1] }
        let modules = try PhoneScreen.appModules()
        #expect(modules.count > 5)
        #expect(Set(preloaded) == Set(modules).subtracting(["app/app.js"]), "\(preloaded) vs \(modules)")
        #expect(preloaded.count == Set(preloaded).count)
        #expect(page.contains(#"<script type="module" src="app/app.js"></script>"#))
        #expect(page.contains(#"<script src="app/bridge.js" defer></script>"#))
    }

    @Test func theListIsSortedFilteredAndPricedAsChosen() throws {
        let preview = try Self.shared.get()
        let server = try StaticServer(root: preview.out)
        let screen = try PhoneScreen()
        let cases = [
            Conditions(kcb: 750, nice: 750, amountMan: 3000),
            Conditions(kcb: 750, nice: 820, amountMan: 3000, sort: "limit"),
            Conditions(kcb: 680, nice: 700, amountMan: 2000, term: 24, method: "equal_principal", sort: "payment"),
            Conditions(kcb: 820, nice: 820, amountMan: 1000, term: 12, method: "bullet", category: "savings_bank"),
            Conditions(kcb: 900, nice: nil, amountMan: 6000, type: "credit"),
        ]
        for c in cases {
            let route = Self.hash(c)
            try screen.open(server.base, route, until: Self.summaryReady)
            let (main, below) = try Self.expected(preview, c)
            #expect(!main.isEmpty && !below.isEmpty, "\(route): the case should have products both ways")
            // The first screen shows at most one page of each group.
            let firstPage = try #require(try screen.evaluate("document.querySelectorAll('#results > li').length") as? Int)
            #expect(firstPage == min(20, main.count), "\(route)")
            let shown = try allRows(screen)
            #expect(shown.map(\.key) == main.map(\.key) + below.map(\.key), "\(route): order")
            #expect(shown.map(\.below) == main.map { _ in false } + below.map { _ in true }, "\(route): grouping")
            for (row, wanted) in zip(shown, main + below) {
                #expect(row.apr == Self.aprText(wanted.aprMin, wanted.aprMax), "\(route) \(row.key)")
                // The band that prices the row, not the score entered.
                #expect(row.meta.contains(" · \(wanted.band) · "), "\(route) \(row.key): \(row.meta)")
                if let low = wanted.low, let high = wanted.high {
                    let pay = [low.firstPayment, high.firstPayment]
                    let interest = [low.totalInterest, high.totalInterest]
                    #expect(row.pay.count == (pay[0] == pay[1] ? 1 : 2) || abs(pay[0] - pay[1]) <= 1, "\(route) \(row.key): \(row.payText)")
                    #expect(abs((row.pay.first ?? -9) - pay[0]) <= 1 && abs((row.pay.last ?? -9) - pay[1]) <= 1, "\(route) \(row.key): \(row.payText) vs \(pay)")
                    #expect(abs((row.interest.first ?? -9) - interest[0]) <= 1 && abs((row.interest.last ?? -9) - interest[1]) <= 1, "\(route) \(row.key): \(row.interest) vs \(interest)")
                } else {
                    #expect(row.pay.isEmpty && !row.reason.isEmpty, "\(route) \(row.key): a product below shows why, not figures")
                    #expect(row.reason == wanted.reasons.joined(separator: " · "), "\(route) \(row.key): \(row.reason)")
                    var depth = 0
                    for character in row.reason {
                        depth += character == "(" ? 1 : character == ")" ? -1 : 0
                        #expect(depth <= 1, "\(route) \(row.key): a parenthesis in a parenthesis: \(row.reason)")
                    }
                }
            }
            if c.sort == "payment" {
                let firsts = shown.filter { !$0.below }.map { $0.pay.first ?? .max }
                #expect(firsts == firsts.sorted(), "\(route): not by monthly payment: \(firsts)")
                #expect(shown.first?.payText.hasPrefix("첫 달 상환액 ") == true)
            }
            if c.method == "bullet" { #expect(shown.first?.payText.hasPrefix("월 이자 ") == true) }
            let scores = c.kcb == c.nice ? "신용점수 \(c.kcb!)점" : "신용점수 " + [c.kcb.map { "KCB \($0)점" }, c.nice.map { "NICE \($0)점" }].compactMap { $0 }.joined(separator: ", ")
            let summary =
                "\(scores) · \(main.count)개 상품 (희망 금액 \(BrowserComparisonTests.formatKRW(c.amountMan * 10_000)), \(c.term)개월)"
                + (below.isEmpty ? "" : " · 조건 밖 \(below.count)개")
            #expect(try screen.text("#result-summary") == summary)
            if c.nice == nil {
                #expect(try screen.text("#missing-score")?.contains("NICE 신용점수를 입력하면 NICE 기준 상품") == true)
            }
        }
        // Hard facts, so a wrong expectation cannot pass: 3,000만원 at 750 over 36 months,
        // equal installments: the first product and its figures at 5.85% and 7.75%
        // (30,000,000 x r / (1 - (1 + r)^-36), r = APR/1200, the total rounded once).
        try screen.open(server.base, "#/compare?score=750&amount=3000", until: Self.summaryReady)
        let first = try #require(try allRows(screen).first)
        #expect(first.key == "ibk/worker-credit")
        #expect(first.apr == "연 5.85% ~ 7.75%")
        #expect(first.payText == "월 상환액 910,621원 ~ 936,635원")
        #expect(first.interest == [2_782_340, 3_718_857])
        #expect(first.meta == "신용대출 · KCB 701~800점 구간 · 한도 최대 9,000만원", "\(first.meta)")
        // Logos: the partner's, from the data.
        let logo = try screen.evaluate("(function () { var i = document.querySelector('#results > li img.result-logo'); return i ? i.getAttribute('src') : null; })()") as? String
        #expect(logo?.hasSuffix("assets/partners/ibk.svg") == true, "\(logo ?? "no logo")")
        // Disclosure phrases for comparison pages, from phrases.json.
        let phrases = try #require(
            try screen.json("JSON.stringify(Array.prototype.map.call(document.querySelectorAll('.phrases li'), function (l) { return l.getAttribute('data-phrase'); }))") as? [String])
        #expect(phrases.contains("warn-excess-debt") && phrases.contains("broker-identity") && phrases.contains("info-rates-annual"), "\(phrases)")
        try screen.open(server.base, "#/compare?score=750&amount=3000", until: Self.summaryReady)
        try screen.screenshot("compare")
        // Changing the sort in the page reorders at once (no reload).
        _ = try screen.evaluate("(function () { var s = document.getElementById('sort'); s.value = 'limit'; s.dispatchEvent(new Event('change')); })()")
        let (byLimit, _) = try Self.expected(preview, Conditions(kcb: 750, nice: 750, amountMan: 3000, sort: "limit"))
        let limitRows = try #require(try screen.json(Self.rowsScript) as? [[String: Any]])
        #expect(limitRows.prefix(20).map { $0["key"] as? String ?? "" } == byLimit.prefix(20).map(\.key))
        #expect(try screen.evaluate("location.hash") as? String == "#/compare?score=750&amount=3000&sort=limit")
    }

    @Test func emptyAndErrorStates() throws {
        try withTemporaryDirectory { directory in
            // A comparison shard is taken away below: a copy of the shared preview.
            let shared = try Self.shared.get()
            try FileManager.default.copyItem(atPath: shared.out, toPath: directory + "/preview")
            let preview = Preview(repo: shared.repo, out: directory + "/preview", products: shared.products, partners: shared.partners)
            let server = try StaticServer(root: preview.out)
            let screen = try PhoneScreen()

            // No scores yet: a prompt, no list.
            try screen.open(server.base, "#/compare", until: "document.getElementById('result-summary')")
            #expect(try screen.text("#result-summary") == "KCB 또는 NICE 신용점수를 입력하면 받을 수 있는 금리와 한도를 보여 드립니다.")
            #expect(try screen.evaluate("document.querySelectorAll('#results > li').length") as? Int == 0)

            // Nothing can lend 90억원: the notice on public loan programs, as the content words it.
            try screen.open(server.base, "#/compare?score=750&amount=900000", until: Self.summaryReady)
            try screen.wait("document.querySelector('#no-results .no-results-body ul')", what: "the public programs notice")
            let noResults = try #require(try screen.text("#no-results"))
            let markdown = String(decoding: try FileSystem.readFile(preview.repo + "/terms/public-loan-programs/1.0.0.md"), as: UTF8.self)
            let programs = BrowserComparisonTests.matches(#"- \*\*([^*]+)\*\*"#, in: markdown).map { $0[1] }
            #expect(programs.count >= 3)
            for program in programs { #expect(noResults.contains(program), "\(program) is not shown") }
            #expect(noResults.contains("1397"))
            #expect(try screen.evaluate("document.querySelectorAll('#results > li').length") as? Int == 0)
            #expect(try screen.evaluate("document.querySelectorAll('#results-below > li').length") as? Int == 20)
            // Why: the amount, over the largest limit this score gets, for every product below.
            let (_, overAmount) = try Self.expected(preview, Conditions(kcb: 750, nice: 750, amountMan: 900_000))
            let largest = try #require(overAmount.map(\.limit).max())
            let overReasons = try Self.reasons(screen)
            #expect(
                overReasons == [
                    "amount: 희망 금액 90억원: 이 신용점수로 받을 수 있는 가장 큰 한도(\(BrowserComparisonTests.formatKRW(largest)))보다 많습니다 (상품 \(overAmount.count)개)"
                ], "\(overReasons)")
            #expect(!noResults.contains("줄이거나"))
            // The program names come from the data, not from the app.
            let app = try PhoneScreen.appModules().map { String(decoding: try FileSystem.readFile(projectSite + "/" + $0), as: UTF8.self) }.joined()
            for program in programs { #expect(!app.contains(program)) }
            try screen.screenshot("compare-no-results")

            // A score no product lends to: the score is the reason (with the lowest score each
            // bureau's products lend to), not the amount.
            try screen.open(server.base, "#/compare?score=300&amount=3000", until: Self.summaryReady)
            try screen.wait("document.querySelector('#no-results-reasons li')", what: "the reasons for no products")
            var floors: [String: (count: Int, floor: Int)] = [:]
            for product in preview.products {
                let partner = try #require(preview.partners.first { $0["id"] as? String == product["partner"] as? String })
                guard product["status"] as? String == "active", partner["status"] as? String == "active",
                    let current = product["current"] as? [String: Any], let bands = current["bands"] as? [[String: Any]],
                    let floor = bands.compactMap({ $0["score_min"] as? Int }).min(), let bureau = current["bureau"] as? String
                else { continue }
                #expect(floor > 300, "\(product["key"]!) lends to 300")
                floors[bureau] = (count: (floors[bureau]?.count ?? 0) + 1, floor: min(floors[bureau]?.floor ?? .max, floor))
            }
            let kcb = try #require(floors["KCB"])
            let nice = try #require(floors["NICE"])
            let scoreReasons = try Self.reasons(screen)
            #expect(
                scoreReasons == [
                    "score: 신용점수 KCB 300점: 이 점수에 금리를 정한 상품이 없습니다 (KCB 기준 상품 \(kcb.count)개는 \(kcb.floor)점부터)",
                    "score: 신용점수 NICE 300점: 이 점수에 금리를 정한 상품이 없습니다 (NICE 기준 상품 \(nice.count)개는 \(nice.floor)점부터)",
                ], "\(scoreReasons)")
            #expect(try screen.text("#no-results")?.contains("희망 금액") == false)
            try screen.screenshot("compare-no-product-for-score")

            // Credit lines over 24 months by equal installments: the term and the method.
            try screen.open(server.base, "#/compare?score=750&amount=1000&term=24&type=credit_line", until: Self.summaryReady)
            try screen.wait("document.querySelector('#no-results-reasons li')", what: "the reasons for no products")
            let (lines, linesBelow) = try Self.expected(preview, Conditions(kcb: 750, nice: 750, amountMan: 1000, term: 24, type: "credit_line"))
            try #require(lines.isEmpty && !linesBelow.isEmpty)
            let lineReasons = try Self.reasons(screen)
            #expect(
                lineReasons == [
                    "term: 대출 기간 24개월: 이 기간으로 빌려주지 않습니다 (상품 \(linesBelow.count)개)",
                    "method: 상환 방법 원리금균등분할상환: 이 방법으로 빌려주지 않습니다 (상품 \(linesBelow.count)개)",
                ], "\(lineReasons)")

            // A comparison shard gone: an error with a retry, not an empty list. (The browser's
            // cache is off: the static server's Last-Modified would let it keep the shard.)
            try screen.browser.call("Network.enable", session: screen.browser.session)
            try screen.browser.call("Network.setCacheDisabled", ["cacheDisabled": true], session: screen.browser.session)
            let manifest = try JSONReader.parse(try FileSystem.readFile(preview.out + "/data/manifest.json"))
            let folder = try #require(manifest["data"]?.stringValue)
            let shards = try FileSystem.listDirectory(preview.out + "/" + folder + "compare")
            try FileManager.default.moveItem(atPath: preview.out + "/" + folder + "compare/" + shards[0], toPath: directory + "/shard")
            try screen.open(server.base, "#/compare?score=750&amount=3000", until: "document.querySelector('.error-box')")
            #expect(try screen.text(".error-box h1") == "정보를 불러오지 못했습니다")
            #expect(try screen.evaluate("document.querySelector('.error-box').getAttribute('role')") as? String == "alert")
            #expect(try screen.evaluate("document.activeElement && document.activeElement.textContent") as? String == "다시 시도")
            try screen.screenshot("compare-error")
            // Back again, the retry draws the list.
            try FileManager.default.moveItem(atPath: directory + "/shard", toPath: preview.out + "/" + folder + "compare/" + shards[0])
            _ = try screen.evaluate("document.querySelector('.error-box button').click()")
            try screen.wait(Self.summaryReady, what: "retry")
        }
    }

    @Test func theProductAndTermsScreens() throws {
        let preview = try Self.shared.get()
        let server = try StaticServer(root: preview.out)
        let screen = try PhoneScreen()

        // From the comparison (KCB 750), the row opens the product's screen, and a KCB product
        // highlights the band holding 750.
        try screen.open(server.base, "#/compare?kcb=750&nice=900&amount=3000", until: Self.summaryReady)
        _ = try screen.evaluate("document.querySelector('#results li[data-key=\"ibk/worker-credit\"] a').click()")
        try screen.wait("document.querySelector('table.bands') && document.getElementById('review-no')", what: "product")
        #expect(try screen.evaluate("location.hash") as? String == "#/product/ibk/worker-credit")
        let product = try #require(preview.products.first { $0["key"] as? String == "ibk/worker-credit" })
        let current = try #require(product["current"] as? [String: Any])
        #expect(current["bureau"] as? String == "KCB")
        let band = try #require((current["bands"] as? [[String: Any]])?.first { ($0["score_min"] as! Int) <= 750 && 750 <= ($0["score_max"] as! Int) })
        let mine = try #require(
            try screen.json("JSON.stringify(Array.prototype.map.call(document.querySelectorAll('table.bands tr.is-mine th'), function (t) { return t.textContent; }))") as? [String])
        #expect(mine.first == "\(band["score_min"]!)~\(band["score_max"]!)점 내 구간", "\(mine)")
        #expect(try screen.text("#my-band")?.hasPrefix("내 KCB 신용점수 750점: 연 5.85% ~ 7.75%") == true)
        // The reader's repayment for 3,000만원 over 36 months (the default term), equal
        // installments, at the band's 5.85% and 7.75%: A = P r / (1 - (1 + r)^-n), r = APR / 12,
        // total = A n rounded once (worked out independently of loan-math.js:
        // 30,000,000 x 0.004875 / (1 - 1.004875^-36) = 910,620.57...).
        let figures = { (name: String) throws -> String? in
            try screen.evaluate(
                "(function () { var r = Array.prototype.find.call(document.querySelectorAll('#my-repayment dt'), function (d) { return d.textContent === '\(name)'; }); return r ? r.nextElementSibling.textContent : null; })()"
            ) as? String
        }
        #expect(try figures("조건") == "3,000만원 · 36개월 · 원리금균등분할상환")
        #expect(try figures("월 상환액") == "910,621원 ~ 936,635원")
        #expect(try figures("총 이자") == "2,782,340원 ~ 3,718,857원")
        #expect(try figures("총 상환액") == "32,782,340원 ~ 33,718,857원")
        #expect(try figures("마지막 달 상환액") == nil, "equal installments: every month pays the same")
        let installment = LoanMathTests.amortised(.init(amount: 30_000_000, apr: 5.85, months: 36, method: "equal_installment"))
        #expect(installment.firstPayment == 910_621 && installment.totalInterest == 2_782_340)
        try checkDisclosure(of: product, on: screen)
        // The content's own words, so that a builder dropping a field cannot pass.
        #expect(try screen.text("#review-no") == "준법감시인 심의필 제2026-0316호 (유효기간 2026년 11월 1일 ~ 2027년 10월 31일)")
        #expect(try Self.items(screen, "#product-terms")["base-rate"] == "금융채 6개월물 금리 (6개월마다 변동)")
        #expect(try screen.text("#product-example .example-sentence") == "1,000만원을 연 8.95%로 12개월 동안 원리금균등분할상환 시 총 상환액 10,491,395원")
        try screen.screenshot("product")
        // A fixed rate follows no base rate: no row for one.
        let fixed = try #require(
            preview.products.first { ($0["disclosure"] as? [String: Any])?["rate_type"] as? String == "fixed" && $0["status"] as? String == "active" })
        try screen.open(server.base, "#/product/" + (fixed["key"] as! String), until: "document.getElementById('review-no')")
        try checkDisclosure(of: fixed, on: screen)
        #expect(try Self.items(screen, "#product-terms")["base-rate"] == nil)
        try screen.screenshot("product-fixed-rate")
        // Equal principal pays most in the first month: P / n + P r, and P r (n + 1) / 2 of interest.
        try screen.open(server.base, "#/compare?kcb=750&nice=900&amount=3000&method=equal_principal", until: Self.summaryReady)
        _ = try screen.evaluate("location.hash = '#/product/ibk/worker-credit'")
        try screen.wait("document.querySelector('#my-repayment dl')", what: "repayment by equal principal")
        #expect(try figures("조건") == "3,000만원 · 36개월 · 원금균등분할상환")
        #expect(try figures("첫 달 상환액") == "979,583원 ~ 1,027,083원")
        #expect(try figures("마지막 달 상환액") == "837,396원 ~ 838,715원")
        #expect(try figures("총 이자") == "2,705,625원 ~ 3,584,375원")
        // An amount over the band's limit (9,000만원): no figures, the reason instead.
        try screen.open(server.base, "#/compare?kcb=750&nice=900&amount=20000", until: Self.summaryReady)
        _ = try screen.evaluate("location.hash = '#/product/ibk/worker-credit'")
        try screen.wait("document.querySelector('#my-repayment .reason')", what: "the reason there are no figures")
        #expect(try screen.text("#my-repayment .reason") == "2억원 · 36개월 · 원리금균등분할상환: 이 조건으로는 대출받을 수 없습니다. 한도 초과 (최대 9,000만원).")
        #expect(try screen.evaluate("document.querySelectorAll('#my-repayment dl').length") as? Int == 0)

        // Partners.
        try screen.open(server.base, "#/partners", until: "document.querySelector('#partners li')")
        try screen.screenshot("partners")

        // The terms list: an announced change is marked with its day, and every badge is a
        // word of its own in the text a screen reader reads.
        try screen.open(server.base, "#/terms", until: "document.querySelector('#documents li')")
        let third = try screen.text("#documents li[data-doc='third-party-provision-consent']")
        #expect(third == "개인(신용)정보 제3자 제공 동의 동의 구분: 필수 변경 예정 2027년 1월 4일 현재 버전 1.0.0 · 2024년 3월 1일 시행", "\(third ?? "")")
        let service = try screen.text("#documents li[data-doc='service-terms']")
        #expect(service?.contains("동의 구분: 필수 현재 버전") == true && service?.contains("변경 예정") == false, "\(service ?? "")")
        // A change that asks for consent again says so, with its day (the list drawn from a document like it).
        _ = try screen.evaluate(
            """
            import('./app/screens/terms.js').then(function (m) {
              m.renderTermsList({ list: [{ id: 'x', title: '동의서', consent: 'required', current: '1.0.0', versions: [
                { version: '1.0.0', effective_from: '2026-01-01' }, { version: '2.0.0', effective_from: '2027-02-01', requires_reconsent: true }] }] });
              window.reconsentDrawn = true;
            })
            """)
        try screen.wait("window.reconsentDrawn === true", what: "the list with a re-consent")
        #expect(try screen.text("#documents li[data-doc='x']") == "동의서 동의 구분: 필수 변경 예정 2027년 2월 1일 재동의 필요 2027년 2월 1일 현재 버전 1.0.0 · 2026년 1월 1일 시행")

        // Terms: a loading state while the text is on its way, then the text, with no
        // second navigation bar and no frame.
        try screen.browser.call("Fetch.enable", ["patterns": [["urlPattern": "*terms/service-terms/1.1.0.html*", "requestStage": "Request"]]], session: screen.browser.session)
        screen.browser.discardEvents()
        try screen.open(server.base, "#/terms/service-terms", until: "document.getElementById('terms-body')")
        let paused = try screen.browser.waitFor("Fetch.requestPaused", timeout: 20)
        let requestID = try #require((paused["params"] as? [String: Any])?["requestId"] as? String)
        #expect(try screen.evaluate("document.getElementById('terms-body').getAttribute('aria-busy')") as? String == "true")
        #expect(try screen.text("#terms-body")?.contains("약관을 불러오는 중") == true)
        try screen.screenshot("terms-loading")
        try screen.browser.call("Fetch.continueRequest", ["requestId": requestID], session: screen.browser.session)
        try screen.browser.call("Fetch.disable", session: screen.browser.session)
        try screen.wait("!document.getElementById('terms-body').hasAttribute('aria-busy')", what: "terms text")
        #expect(try screen.text("#terms-body")?.contains("제9조(준거법) 이 약관은 대한민국 법률에 따라 해석합니다.") == true)
        #expect(try screen.evaluate("document.querySelectorAll('main nav, main iframe').length") as? Int == 0)
        #expect(try screen.evaluate("document.querySelectorAll('nav').length") as? Int == 1)
        try screen.screenshot("terms")

        // The recipients of the required provision consent are a table (GFM, rendered by
        // cmark-gfm) with a row per lender, on the terms screen and on the terms page itself,
        // and neither page is wider than the phone: a wide table scrolls in its own box.
        let recipients = """
            JSON.stringify(Array.prototype.map.call(document.querySelectorAll('%@ table tbody tr'), function (r) {
              return Array.prototype.map.call(r.cells, function (c) { return c.textContent.trim(); });
            }))
            """
        let overflow = "document.documentElement.scrollWidth - window.innerWidth"
        try screen.open(server.base, "#/terms/third-party-provision-consent/1.0.0", until: "document.querySelector('#terms-body table')")
        let shownRows = try #require(try screen.json(recipients.replacingOccurrences(of: "%@", with: "#terms-body")) as? [[String]])
        #expect(shownRows.contains(["IBK기업은행", "은행"]) && shownRows.contains(["8퍼센트", "온라인투자연계금융업자"]), "\(shownRows)")
        #expect(shownRows.count >= 20 && shownRows.allSatisfy { $0.count == 2 }, "\(shownRows)")
        #expect(try screen.text("#terms-body")?.contains("|") == false)
        #expect(try screen.evaluate(overflow) as? Int == 0)
        try screen.screenshot("terms-recipients")
        try screen.browser.open(server.base + "terms/third-party-provision-consent/1.0.0.html")
        let pageRows = try #require(try screen.json(recipients.replacingOccurrences(of: "%@", with: "main article")) as? [[String]])
        #expect(pageRows == shownRows)
        #expect(try screen.evaluate("document.querySelectorAll('main article table thead th').length") as? Int == 2)
        #expect(try screen.evaluate(overflow) as? Int == 0)
        // A table wider than the phone scrolls inside its box; the page does not widen.
        _ = try screen.evaluate("(function (c) { c.style.whiteSpace = 'nowrap'; c.textContent = '제공받는 자 '.repeat(40); })(document.querySelector('main article table td'))")
        #expect(try screen.evaluate(overflow) as? Int == 0)
        #expect(try screen.evaluate("(function (t) { return t.scrollWidth > t.clientWidth; })(document.querySelector('main article table'))") as? Bool == true)
    }

    /// The rows of a definition list on the screen, by their `data-item`, each laid out.
    static func items(_ screen: PhoneScreen, _ selector: String) throws -> [String: String] {
        let rows = try #require(
            try screen.json(
                """
                JSON.stringify(Array.prototype.map.call(document.querySelectorAll('\(selector) [data-item]'), function (r) {
                  return [r.getAttribute('data-item'), r.querySelector('dd').textContent, r.getClientRects().length > 0 ? 'shown' : 'not shown'];
                }))
                """) as? [[String]])
        for row in rows { #expect(row[2] == "shown", "\(row[0]) is not on the screen") }
        return Dictionary(rows.map { ($0[0], $0[1]) }, uniquingKeysWith: { first, _ in first })
    }

    /// A product's screen shows every item of its disclosure with the values of its document,
    /// in the order a lender's product page gives them, and its repayment example with the
    /// total recomputed here (a month-by-month amortisation, not the app's code).
    func checkDisclosure(of product: [String: Any], on screen: PhoneScreen) throws {
        let key = product["key"] as? String ?? ""
        let disclosure = try #require(product["disclosure"] as? [String: Any])
        let terms = try Self.items(screen, "#product-terms")
        let order = try #require(
            try screen.json("JSON.stringify(Array.prototype.map.call(document.querySelectorAll('#product-terms [data-item]'), function (r) { return r.getAttribute('data-item'); }))")
                as? [String])
        let base = disclosure["base_rate_ko"] as? String
        #expect(
            order
                == ["limit", "terms", "repayment-methods", "rate-type"] + (base == nil ? [] : ["base-rate"])
                + ["rate-composition", "interest-timing", "incidental-costs", "origination-fee", "early-repayment-fee", "late-interest", "required-credit"], "\(key): \(order)")
        let rateType = ["fixed": "고정금리", "variable": "변동금리", "mixed": "혼합금리 (일정 기간 고정 후 변동)"]
        #expect(terms["rate-type"] == rateType[disclosure["rate_type"] as? String ?? ""], "\(key)")
        #expect(terms["base-rate"] == base, "\(key)")
        for (item, field) in [
            ("rate-composition", "rate_composition_ko"), ("interest-timing", "interest_timing_ko"), ("incidental-costs", "incidental_costs_ko"),
            ("required-credit", "required_credit_ko"),
        ] {
            #expect(terms[item] == disclosure[field] as? String, "\(key): \(item)")
        }
        let fees = try #require(product["fees"] as? [String: Any])
        let late = try #require(product["late_interest"] as? [String: Any])
        let feePct = (fees["early_repayment_pct"] as! NSNumber).doubleValue
        let feeMonths = fees["early_repayment_months"] as! Int
        #expect(terms["early-repayment-fee"] == (feePct == 0 || feeMonths == 0 ? "없음" : "\(Self.decimal(feePct))% (대출일부터 \(feeMonths)개월 이내 상환 시)"), "\(key)")
        #expect(
            terms["late-interest"]
                == "약정금리 + \(Self.decimal((late["spread_pp"] as! NSNumber).doubleValue))%p, 최고 연 \(Self.decimal((late["max_pct"] as! NSNumber).doubleValue))%", "\(key)")

        // The example: the content's, its total what the loan costs.
        let example = try #require(disclosure["repayment_example"] as? [String: Any])
        let amount = example["amount_krw"] as! Int
        let apr = (example["apr_pct"] as! NSNumber).doubleValue
        let months = example["months"] as! Int
        let method = example["method"] as! String
        let total = example["total_krw"] as! Int
        let recomputed = LoanMathTests.amortised(.init(amount: amount, apr: apr, months: months, method: method == "revolving" ? "bullet" : method))
        #expect(recomputed.total == total, "\(key): the example's total \(total) is not what the loan costs (\(recomputed.total))")
        let shown = try Self.items(screen, "#product-example")
        let methods = ["equal_installment": "원리금균등분할상환", "equal_principal": "원금균등분할상환", "bullet": "만기일시상환", "revolving": "한도대출(마이너스통장)"]
        let rate = BrowserComparisonTests.formatRate(apr)
        #expect(shown["example-conditions"] == "\(BrowserComparisonTests.formatKRW(amount)) · \(months)개월 · \(methods[method]!) · 연 \(rate)%", "\(key)")
        #expect(shown["example-total"] == Self.won(total), "\(key)")
        #expect(shown["example-interest"] == Self.won(total - amount), "\(key)")
        #expect(shown["example-payment"] == Self.won(recomputed.firstPayment), "\(key)")
        #expect(
            try screen.text("#product-example .example-sentence")
                == "\(BrowserComparisonTests.formatKRW(amount))을 연 \(rate)%로 \(months)개월 동안 \(methods[method]!) 시 총 상환액 \(Self.won(total))", "\(key)")
        // The reader's figures stand beside it, in the same section.
        if try screen.evaluate("!!document.getElementById('my-repayment')") as? Bool == true {
            #expect(try screen.evaluate("document.getElementById('my-repayment').parentElement.id") as? String == "repayment-examples")
        }
        // The review number and its validity close the page, after the mandatory phrases.
        let review = "\(disclosure["review_no"] as! String) (유효기간 \(Self.koreanDate(disclosure["review_valid_from"] as! String)) ~ \(Self.koreanDate(disclosure["review_valid_until"] as! String)))"
        #expect(try screen.text("#review-no") == review, "\(key)")
        #expect(try screen.evaluate("document.getElementById('main').lastElementChild.id") as? String == "review-no")
        let phrases = try #require(
            try screen.json("JSON.stringify(Array.prototype.map.call(document.querySelectorAll('.disclosures li'), function (l) { return l.getAttribute('data-phrase'); }))") as? [String])
        #expect(phrases == product["phrases"] as? [String], "\(key)")
        let sections = try #require(
            try screen.json("JSON.stringify(Array.prototype.map.call(document.querySelectorAll('#main > section h2'), function (h) { return h.textContent; }))") as? [String])
        #expect(sections == ["신용점수별 금리·한도", "상품 안내", "상환 예시", "금융회사", "꼭 확인하세요"], "\(key): \(sections)")
    }

    /// At least one and at most three decimals: 3 -> "3.0", 0.75 -> "0.75".
    static func decimal(_ value: Double) -> String {
        var text = BrowserComparisonTests.formatRate(value)
        if text.hasSuffix("0") { text.removeLast() }
        return text
    }

    /// 1234567 -> "1,234,567원".
    static func won(_ value: Int) -> String { BrowserComparisonTests.grouped(value) + "원" }

    /// "2026-11-01" -> "2026년 11월 1일".
    static func koreanDate(_ day: String) -> String {
        let parts = day.split(separator: "-").map { Int($0)! }
        return "\(parts[0])년 \(parts[1])월 \(parts[2])일"
    }

    /// Labels, focus order, contrast, and 200% text at 390 px.
    @Test func theScreensAreAccessible() throws {
        let preview = try Self.shared.get()
        let server = try StaticServer(root: preview.out)
        let screen = try PhoneScreen()
        try screen.open(server.base, "#/compare?score=750&amount=3000", until: Self.summaryReady)

        // Every input has a label with text.
        let unlabelled = try #require(
            try screen.json(
                """
                JSON.stringify(Array.prototype.filter.call(document.querySelectorAll('input, select, textarea'), function (i) {
                  return !(i.labels && i.labels.length && i.labels[0].textContent.trim());
                }).map(function (i) { return i.id || i.name || i.tagName; }))
                """) as? [String])
        #expect(unlabelled.isEmpty, "\(unlabelled)")
        #expect(try screen.evaluate("document.querySelectorAll('main input, main select').length") as? Int == 8)

        // Tab goes through the controls in the order they are seen: top to bottom, left to right.
        _ = try screen.evaluate("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0)")
        var focused: [[String: Any]] = []
        for _ in 0..<14 {
            try screen.pressTab()
            let item = try #require(
                try screen.json(
                    """
                    JSON.stringify((function () { var e = document.activeElement, r = e.getBoundingClientRect();
                      return { id: e.id || e.textContent.trim().slice(0, 20), top: r.top + window.scrollY, left: r.left }; })())
                    """) as? [String: Any])
            focused.append(item)
        }
        let ids = focused.map { $0["id"] as? String ?? "" }
        #expect(Array(ids.prefix(11)) == ["tab-compare", "tab-partners", "tab-terms", "kcb", "nice", "amount", "term", "method", "sort", "cat", "type"], "\(ids)")
        for (a, b) in zip(focused, focused.dropFirst()) {
            let (at, bt) = (a["top"] as! Double, b["top"] as! Double)
            let (al, bl) = (a["left"] as! Double, b["left"] as! Double)
            #expect(bt > at + 1 || (abs(bt - at) <= 1 && bl > al), "focus moves back up or left: \(a) -> \(b)")
        }

        // Text contrast >= 4.5:1 on every screen, from the computed colours.
        let contrast = """
            JSON.stringify((function () {
              function rgba(c) { var m = c.match(/[\\d.]+/g) || [0, 0, 0, 0]; return m.map(Number).concat([1]).slice(0, 4); }
              function lum(c) { return [0, 1, 2].map(function (i) { var v = c[i] / 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); })
                .reduce(function (s, v, i) { return s + v * [0.2126, 0.7152, 0.0722][i]; }, 0); }
              function background(e) { for (; e; e = e.parentElement) { var b = rgba(getComputedStyle(e).backgroundColor); if (b[3] >= 1) return b; } return [255, 255, 255, 1]; }
              var bad = [], checked = 0;
              document.querySelectorAll('body *').forEach(function (e) {
                var own = Array.prototype.some.call(e.childNodes, function (n) { return n.nodeType === 3 && n.nodeValue.trim(); });
                if (!own || e.closest('[hidden], .visually-hidden, option, noscript')) return;
                var r = e.getBoundingClientRect(); if (!r.width || !r.height) return;
                var l1 = lum(rgba(getComputedStyle(e).color)), l2 = lum(background(e));
                var ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05); checked++;
                if (ratio < 4.5) bad.push(e.tagName + '.' + e.className + ' "' + e.textContent.trim().slice(0, 20) + '" ' + ratio.toFixed(2));
              });
              return { bad: bad, checked: checked };
            })())
            """
        let screens: [(String, String)] = [
            ("#/compare?score=750&amount=3000", Self.summaryReady),
            ("#/compare?score=750&amount=900000", "document.querySelector('#no-results .no-results-body ul')"),
            ("#/product/ibk/worker-credit", "document.querySelector('table.bands')"),
            ("#/partners", "document.querySelector('#partners li')"),
            ("#/terms/service-terms", "document.querySelector('#terms-body h2')"),
        ]
        for (route, ready) in screens {
            try screen.open(server.base, route, until: ready)
            let hiddenShown = try screen.visibleHiddenElements()
            #expect(hiddenShown.isEmpty, "\(route): \(hiddenShown)")
            let result = try #require(try screen.json(contrast) as? [String: Any])
            #expect((result["checked"] as? Int ?? 0) > 10, "\(route)")
            #expect((result["bad"] as? [String])?.isEmpty == true, "\(route): \(result["bad"] ?? "")")
        }

        // 200% text: the reader's text size doubled, nothing wider than the phone.
        try screen.browser.call("Page.setFontSizes", ["fontSizes": ["standard": 32, "fixed": 26]], session: screen.browser.session)
        for (route, ready) in screens {
            try screen.open(server.base, route, until: ready)
            #expect(try screen.evaluate("getComputedStyle(document.body).fontSize") as? String == "32px", "\(route): the text size did not apply")
            let widths = try #require(try screen.json("JSON.stringify([document.documentElement.scrollWidth, window.innerWidth])") as? [Int])
            #expect(widths[0] <= widths[1] && widths[1] == PhoneScreen.width, "\(route): \(widths[0]) px wide at 200% text")
        }
        try screen.open(server.base, "#/compare?score=750&amount=3000", until: Self.summaryReady)
        try screen.screenshot("compare-200pct-text")
    }
}
