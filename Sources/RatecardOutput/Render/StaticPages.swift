import RatecardCore
import RatecardSupport
import Synchronization

/// The static HTML pages of a bundle: terms versions, the comparison table and the partner list.
///
/// A class: its pages are rendered on several threads, and each would otherwise copy the whole
/// value (the content and its lookups) per page.
package final class StaticPages: Sendable {
    let documents: DataDocuments
    let bundleID: String
    /// Terms pages kept between runs, if any.
    let cache: BuildCache?
    /// The render memo of a watching process, if any.
    let memo: RenderMemo?
    /// Key parts shared by many units of this build, computed once.
    let keyParts = KeyParts()
    /// Each product's key (`DataDocuments.productKey`) when the builder computed them already.
    let productKeys: [String: BuildCache.Key]
    /// The terms articles the load rendered, if it did.
    let articles: PageArticles?

    package init(documents: DataDocuments, bundleID: String, cache: BuildCache?, memo: RenderMemo? = nil, productKeys: [String: BuildCache.Key] = [:], articles: PageArticles? = nil) {
        self.documents = documents
        self.articles = articles
        self.bundleID = bundleID
        self.cache = cache
        self.memo = memo
        self.productKeys = productKeys
    }

    var content: Content { documents.content }

    /// `termsPage` as bytes: from the render memo of a watching process, else from the build
    /// cache, else rendered (and kept in both).
    func termsPageBytes(_ version: TermsVersion) -> [UInt8] {
        let key = termsPageKey(version)
        let render = { Array(self.termsPage(version).utf8) }
        let cached = { () -> [UInt8] in
            guard let key, let cache = self.cache else { return render() }
            return cache.value(key, render)
        }
        return memo.page(key, cached)
    }

    /// The build cache's entry of a terms page, its bytes not read; nil when the cache has none.
    func storedTermsPage(_ version: TermsVersion) -> BundleBuilder.CachedFile? {
        guard let cache, let key = termsPageKey(version) else { return nil }
        return BundleBuilder.CachedFile.stored(key, in: cache)
    }

    /// What a terms page is rendered from: its own file, the version number and date of every
    /// version of its document (the page lists them), the shared files, and the two things the
    /// as-of date decides for it: which version is in force and whether this one is still ahead.
    /// So a page is reused from one day to the next until one of those changes, and an edit to
    /// one version's text renders that version's page alone.
    func termsPageKey(_ version: TermsVersion) -> BuildCache.Key? {
        guard
            var key = keyParts.document(
                version.documentID,
                make: {
                    guard var key = content.keyBuilder("terms-page") else { return nil }
                    let terms = content.terms
                    for position in documents.versionsByDocument[version.documentID] ?? [] {
                        key.append(terms[position].fileVersion)
                        key.append(terms[position].effectiveFrom.value.description)
                    }
                    key.append(documents.currentVersion(of: version.documentID)?.fileVersion ?? "-")
                    return key
                }), let id = documents.fileIDs[version.path]
        else { return nil }
        key.append(file: version.path, id: id)
        key.append(version.effectiveFrom.value > documents.asOf ? "ahead" : "in force or past")
        return key.key
    }

    /// One terms version as a complete page (`terms/<doc>/<version>.html`).
    func termsPage(_ version: TermsVersion) -> String {
        let versions = documents.versions(of: version.documentID)
        var meta = HTML.element("span", [("class", "badge")], text: KoreanLabels.consent(version.consent.value))
        meta += HTML(text: " 버전 \(version.fileVersion) · 시행일 \(version.effectiveFrom.value)")
        if version.requiresReconsent.value { meta += HTML(text: " · 재동의 필요") }
        var body = HTML.element("h1", text: version.title.value)
        body += HTML.element("p", [("class", "meta")], meta)
        let current = documents.currentVersion(of: version.documentID)
        if let current, current.fileVersion != version.fileVersion {
            let when = version.effectiveFrom.value > documents.asOf ? "아직 시행 전인" : "시행이 끝난"
            body += HTML.element("p", [("class", "notice")], text: "\(when) 버전입니다. 현재 시행 중인 버전은 \(current.fileVersion)입니다.")
        }
        body += HTML.element("p", [("class", "meta")], text: "변경 요약: \(version.summary.value)")
        // The article the load made from its parse of the body, else rendered here: the same HTML.
        let article =
            articles?.take(path: version.path, body: version.body, title: version.title.value)
            ?? CommonMark.html(TitleHeading.dropping(from: version.body, title: version.title.value))
        body += HTML.element("article", [], HTML(raw: article))
        if versions.count > 1 {
            let items = versions.map { other -> HTML in
                let label = "버전 \(other.fileVersion) (시행일 \(other.effectiveFrom.value))"
                if other.fileVersion == version.fileVersion { return HTML.element("li", text: label + " · 현재 보고 있는 버전") }
                return HTML.element("li", [], HTML.element("a", [("href", "\(other.fileVersion).html")], text: label))
            }
            body += HTML.element("h2", text: "다른 버전") + HTML.element("ul", [], items.joined())
        }
        // Bytes, not Foundation's `contains` (which folds the whole page through CFString).
        let extraStyle = article.containsBytes("<table") ? PageTemplate.scrollingTables : ""
        return PageTemplate.page(title: "\(version.title.value) (버전 \(version.fileVersion))", root: "../../", body: body, extraStyle: extraStyle)
    }

    /// The body without its opening `# <title>` line, which the page already shows as its heading.
    package static func droppingTitleHeading(_ body: String, title: String) -> String {
        TitleHeading.dropping(from: body, title: title)
    }

    /// The table the rates pages show for a product, or nil when they leave it out
    /// (withdrawn, its partner paused, or no table in force).
    package func comparableTable(of product: Product) -> RateTable? {
        guard documents.status(of: product) == "active" else { return nil }
        return documents.tables(of: product).current
    }

    func envelope(_ table: RateTable) -> (low: Percent, high: Percent) {
        (table.bands.map(\.aprMin.value).min() ?? .zero, table.bands.map(\.aprMax.value).max() ?? .zero)
    }

    /// `rates.html`: every active partner in display order, each linking its own rates page
    /// (`rates/<partner>.html`). A change to one table rewrites that partner's page and its line
    /// here, not a page of every product.
    func ratesIndex(items: [String: [CompareIndex.Item]]) -> String {
        var body = HTML.element("h1", text: "대출 금리 비교")
        body += HTML.element("p", [("class", "meta")], text: "\(documents.asOf) 기준 · 금융회사별 금리표 · 금리는 연 기준이며 신용점수 구간별 최저~최고 금리입니다.")
        let rows = documents.orderedPartners.filter { $0.status.value == .active }.map { partner in
            ratesIndexRow(partner.id.value, nameKo: partner.nameKo.value, items[partner.id.value] ?? [])
        }
        body += HTML.element("ul", [("class", "rates-index")], rows.joined())
        body += notice(for: .rates)
        return PageTemplate.page(title: "대출 금리 비교", root: "", body: body)
    }

    /// One partner's line of `rates.html`: `<li id="<partner>">`, its products on the comparison and their APR range.
    package func ratesIndexRow(_ partner: String, nameKo: String, _ items: [CompareIndex.Item]) -> HTML {
        var row = HTML.element("a", [("href", BundleLayout.ratesPage(partner))], text: nameKo)
        let low = items.flatMap { $0.bands.map(\.aprMin) }.min()
        let high = items.flatMap { $0.bands.map(\.aprMax) }.max()
        if let low, let high {
            row += HTML.element("span", [("class", "meta")], text: " · 상품 \(items.count)개 · 연 \(low.displayed)% ~ \(high.displayed)%")
        } else {
            row += HTML.element("span", [("class", "meta")], text: " · 비교할 수 있는 상품이 없습니다")
        }
        return HTML.element("li", [("id", partner)], row)
    }

    /// `rates/<partner>.html`: a partner's comparable products, lowest APR first, with their
    /// limits by score band.
    package func partnerRatesPage(_ partner: Partner, products: [(Product, RateTable)], notice ratesNotice: HTML? = nil) -> String {
        let name = partner.nameKo.value
        var body = HTML.element("h1", text: "\(name) 대출 금리")
        body += HTML.element("p", [("class", "meta")], text: "\(documents.asOf) 기준 · 금리가 낮은 순서 · 금리는 연 기준이며 신용점수 구간별 최저~최고 금리입니다.")
        let ordered = products.map { (RatesOrder(product: $0.0, table: $0.1), $0.0, $0.1) }.sorted { $0.0 < $1.0 }
        body += HTML(
            raw: ordered.map { _, product, table in
                // A section is rendered from what its product's document is (the key's files and date).
                memo.section(productKey(product)) { ratesSection(product, table).markup }
            }.joined())
        if ordered.isEmpty { body += HTML.element("p", text: "지금 비교할 수 있는 상품이 없습니다.") }
        body += HTML.element("p", [], HTML.element("a", [("href", "../rates.html")], text: "금융회사 목록으로"))
        body += ratesNotice ?? notice(for: .rates)
        return PageTemplate.page(title: "\(name) 대출 금리", root: "../", body: body)
    }

    /// Every active partner's rates page, by path. A watching process takes the page of a
    /// partner none of whose products changed from its memo.
    func partnerRatesPages() -> [String: [UInt8]] {
        let products = content.products
        var byPartner: [String: [Int]] = [:]
        for index in products.indices { byPartner[products[index].folderPartner, default: []].append(index) }
        let partners = documents.orderedPartners.filter { $0.status.value == .active }
        let ratesNotice = notice(for: .rates)
        // 300 pages on a large site: rendered on two threads.
        let pages = ParallelMap.map(partners.map { PartnerPage(partner: $0, products: byPartner[$0.id.value] ?? []) }) { page -> [UInt8] in
            let render = { () -> [UInt8] in
                let comparable = page.products.compactMap { index in self.comparableTable(of: products[index]).map { (products[index], $0) } }
                return Array(self.partnerRatesPage(page.partner, products: comparable, notice: ratesNotice).utf8)
            }
            return memo.page(self.partnerPageKey(page.partner, products: page.products), render)
        }
        return Dictionary(zip(partners.map { BundleLayout.ratesPage($0.id.value) }, pages), uniquingKeysWith: { first, _ in first })
    }

    /// What a partner's rates page is rendered from: its partner file, the as-of date (shown on
    /// it), the shared files, and everything each of its products is rendered from.
    /// `products`: positions in `content.products` (a `Product` is a large value, and every
    /// build makes this key for each of 300 pages: by position, none is copied).
    func partnerPageKey(_ partner: Partner, products: [Int]) -> BuildCache.Key? {
        guard var key = content.keyBuilder("partner-rates-page"), let id = documents.fileIDs[partner.path] else { return nil }
        key.append(file: partner.path, id: id)
        key.append(documents.asOf.description)
        for index in products {
            guard let productKey = productKeys[documents.productNames[index]] ?? documents.productKey(at: index, shared: nil) else { return nil }
            key.append(key: productKey)
        }
        return key.key
    }

    /// A product's key: the builder's, else computed.
    func productKey(_ product: Product) -> BuildCache.Key? {
        productKeys[product.key] ?? documents.productKey(product)
    }

    /// One product's `<section id="<key>">` of its partner's rates page.
    func ratesSection(_ product: Product, _ table: RateTable) -> HTML {
        let partner = documents.partnersByID[product.partner.value]
        let (low, high) = envelope(table)
        var section = HTML.element("h2", [], HTML(text: partner?.nameKo.value ?? product.partner.value) + HTML(raw: " · ") + HTML(text: product.nameKo.value))
        section += HTML.element(
            "p", [("class", "meta")],
            text:
                "연 \(low.displayed)% ~ \(high.displayed)% · 최대 \(KoreanLabels.won(product.limitMax.value)) · \(KoreanLabels.productType(product.kind.value)) · \(table.bureau.value.rawValue) \(table.scale == .score ? "점수" : "등급") 기준 (\(table.effectiveFrom.value) 시행)"
        )
        let header = HTML.element("tr", [], [HTML.element("th", text: table.scale == .score ? "신용점수" : "신용등급"), HTML.element("th", text: "금리 (연)"), HTML.element("th", text: "최대 한도")].joined())
        let rows = table.bandsBestFirst.map { band in
            HTML.element(
                "tr", [],
                [
                    HTML.element("td", text: table.scale == .score ? "\(band.min.value)~\(band.max.value)점" : "\(band.min.value)~\(band.max.value)등급"),
                    HTML.element("td", text: "\(band.aprMin.value.displayed)% ~ \(band.aprMax.value.displayed)%"),
                    HTML.element("td", text: KoreanLabels.won(min(band.limitMax.value, product.limitMax.value))),
                ].joined())
        }
        section += HTML.element("table", [], HTML.element("thead", [], header) + HTML.element("tbody", [], rows.joined()))
        return HTML.element("section", [("id", product.key)], section)
    }

    /// `partners.html`: the partner list in display order; paused partners marked, terminated ones left out.
    func partnersPage() -> String {
        var body = HTML.element("h1", text: "제휴 금융회사")
        var items: [HTML] = []
        for partner in documents.orderedPartners where partner.status.value != .terminated {
            var item = HTML.element("img", [("class", "logo"), ("src", "\(BundleLayout.dataFolder(bundleID))\(partner.logo.value)"), ("alt", partner.nameKo.value)])
            item += HTML.element("strong", text: partner.nameKo.value)
            item += HTML(raw: " ") + HTML.element("span", [("class", "badge")], text: KoreanLabels.category(partner.category.value))
            if partner.status.value == .paused {
                item += HTML.element("p", [("class", "paused")], text: "일시 중단: \(partner.statusReason?.value ?? "")")
            }
            item += HTML.element("p", [("class", "meta")], text: "고객센터 \(partner.phone.value)")
            items.append(HTML.element("li", [("class", partner.status.value == .paused ? "paused" : "active")], item))
        }
        body += HTML.element("ul", [], items.joined())
        body += notice(for: .rates)
        return PageTemplate.page(title: "제휴 금융회사", root: "", body: body)
    }

    private func notice(for page: Phrase.Page) -> HTML {
        let phrases = (content.phrases ?? []).filter { $0.pages.contains { $0.value == page } }
        guard !phrases.isEmpty else { return .empty }
        return HTML.element("aside", [("class", "notice")], phrases.map { HTML.element("p", text: $0.text(config: content.config)) }.joined())
    }
}

/// The beginnings of keys that many units of one build share (the shared files; every version
/// of a terms document), computed once per build and copied for each unit.
final class KeyParts: Sendable {
    private let built = Mutex<[String: BuildCache.Key.Builder?]>([:])

    func shared(_ kind: String, make: () -> BuildCache.Key.Builder?) -> BuildCache.Key.Builder? {
        cached("kind " + kind, make)
    }

    func document(_ id: String, make: () -> BuildCache.Key.Builder?) -> BuildCache.Key.Builder? {
        cached("document " + id, make)
    }

    private func cached(_ name: String, _ make: () -> BuildCache.Key.Builder?) -> BuildCache.Key.Builder? {
        if let found = built.withLock({ $0[name] }) { return found }
        let made = make()
        built.withLock { $0[name] = made }
        return made
    }
}

/// A partner and its comparable products, handed to a rendering thread.
private struct PartnerPage: Sendable {
    let partner: Partner
    /// Indices of its products in the content.
    let products: [Int]
}

/// Where a product stands on its partner's rates page: lowest APR first, then lowest maximum APR, then the
/// highest limit, then the key. The same fields are in the comparison index, so an unchanged
/// product's place can be read back from a published bundle.
struct RatesOrder: Comparable {
    var low: Percent
    var high: Percent
    var limitMax: Int
    var key: String

    init(low: Percent, high: Percent, limitMax: Int, key: String) {
        self.low = low
        self.high = high
        self.limitMax = limitMax
        self.key = key
    }

    init(product: Product, table: RateTable) {
        self.init(
            low: table.bands.map(\.aprMin.value).min() ?? .zero, high: table.bands.map(\.aprMax.value).max() ?? .zero,
            limitMax: product.limitMax.value, key: product.key)
    }

    static func < (lhs: RatesOrder, rhs: RatesOrder) -> Bool {
        if lhs.low != rhs.low { return lhs.low < rhs.low }
        if lhs.high != rhs.high { return lhs.high < rhs.high }
        if lhs.limitMax != rhs.limitMax { return lhs.limitMax > rhs.limitMax }
        return lhs.key < rhs.key
    }
}
