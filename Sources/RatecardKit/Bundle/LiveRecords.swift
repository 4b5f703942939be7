import RatecardCore
import RatecardOutput
import RatecardRelease
import RatecardSupport

/// The records that must never change, checked against what the live release shipped rather
/// than against the commit before: every terms version it published (HIS-01, HIS-02, HIS-03)
/// and each product's rate table that was in force on its date, once that table is past
/// (HIS-08). The history rules compare a commit with its parent; a root commit (a squash, an
/// orphan branch) has none, and a parent that is not what is live says nothing of what users
/// were shown. So `publish` also asks the live bundle.
///
/// What the bundle keeps decides what is checked: every terms version (`terms.json` and its
/// page, whose `<article>` is the body as cmark rendered it), and for each product its table
/// in force and its next one (`products/<key>.json`); tables that were already past when the
/// live release was built are not in it (the history rules against the parent keep those).
/// A body is compared as rendered: byte for byte when the live release was rendered by this
/// build, else by its letters and digits in order (a renderer upgrade may change markup, never
/// words).
package struct LiveRecords {
    let live: LiveBundle

    package init(_ live: LiveBundle) { self.live = live }

    /// Every changed record. `built`: the new bundle's manifest; a product whose document has
    /// the live one's hash kept its tables, and its document is not read. `products`
    /// limits the tables checked to those products (nil: all); `terms`: check the terms versions.
    package func check(_ content: Content, asOf: Day, built: BundleManifest?, products: Set<String>? = nil, terms: Bool = true) throws -> [Diagnostic] {
        let diagnostics = Diagnostics()
        if terms { try checkTerms(content, built: built, into: diagnostics) }
        try checkTables(content, asOf: asOf, built: built, products: products, into: diagnostics)
        return diagnostics.items.sorted()
    }

    private func checkTerms(_ content: Content, built: BundleManifest?, into diagnostics: Diagnostics) throws {
        let index = try JSONReader.parse(try live.read("terms.json", inData: true))
        // A page the new bundle has byte for byte holds the same body: it is not read.
        let livePages = Dictionary(live.files.filter { $0.path.hasPrefix("terms/") }.map { ($0.path, $0.sha256) }, uniquingKeysWith: { first, _ in first })
        let builtPages = Dictionary((built?.files ?? []).filter { $0.path.hasPrefix("terms/") }.map { ($0.path, $0.sha256) }, uniquingKeysWith: { first, _ in first })
        var versions: [String: TermsVersion] = [:]
        for version in content.terms { versions["\(version.documentID)/\(version.fileVersion)"] = version }
        for document in index["documents"]?.arrayValue ?? [] {
            guard let id = document["id"]?.stringValue else { continue }
            for shipped in document["versions"]?.arrayValue ?? [] {
                guard let number = shipped["version"]?.stringValue else { continue }
                let file = "terms/\(id)/\(number).md"
                guard let version = versions["\(id)/\(number)"] else {
                    diagnostics.report(
                        HistoryRules.deletedVersion, content.root.path(file), .start,
                        Message(
                            "terms version \(id) \(number) is live on \(live.release.id) and was deleted; restore it as published (old versions stay published)",
                            ko: "약관 버전 \(id) \(number)은(는) 라이브 릴리스 \(live.release.id)에 게시되어 있는데 지워졌습니다; 게시된 그대로 되살리세요 (옛 버전도 계속 게시됩니다)"))
                    continue
                }
                if let mark = frontMatterDifference(version, shipped) {
                    diagnostics.report(
                        HistoryRules.frozenVersion, version.path, mark,
                        Message(
                            "this version differs from the one live on \(live.release.id), which users were shown; restore it as published and publish a new version instead",
                            ko: "이 버전이 라이브 릴리스 \(live.release.id)에 게시되어 이용자에게 보인 버전과 다릅니다; 게시된 그대로 되돌리고 대신 새 버전을 게시하세요"))
                }
                let pagePath = BundleLayout.termsPage(id, number)
                if let same = builtPages[pagePath], same == livePages[pagePath] { continue }
                let page = try String(decoding: live.read(pagePath), as: UTF8.self)
                if let line = bodyDifference(version, page: page) {
                    diagnostics.report(
                        HistoryRules.bodyNeedsVersion, version.path, SourceMark(line: line, column: 1),
                        Message(
                            "the body of this version differs from the one live on \(live.release.id), which users were shown and may have consented to; restore the published text and add the new text as a new version file",
                            ko: "이 버전의 본문이 라이브 릴리스 \(live.release.id)에 게시되어 이용자가 보고 동의했을 수 있는 본문과 다릅니다; 게시된 문구로 되돌리고 새 문구는 새 버전 파일로 추가하세요"))
                }
            }
        }
    }

    /// The mark of the first front-matter field that differs from the published entry, or nil.
    private func frontMatterDifference(_ version: TermsVersion, _ shipped: JSON) -> SourceMark? {
        if shipped["title"]?.stringValue != version.title.value { return version.title.mark }
        if shipped["effective_from"]?.stringValue != version.effectiveFrom.value.description { return version.effectiveFrom.mark }
        if shipped["consent"]?.stringValue != version.consent.value.rawValue { return version.consent.mark }
        if shipped["requires_reconsent"]?.boolValue != version.requiresReconsent.value { return version.requiresReconsent.mark }
        if shipped["summary"]?.stringValue != version.summary.value { return version.summary.mark }
        return nil
    }

    /// The line (in the file) where the body first differs from the live page's, or nil when
    /// they are the same.
    private func bodyDifference(_ version: TermsVersion, page: String) -> Int? {
        let article: Substring
        if let open = page.range(of: "<article>"), let close = page.range(of: "</article>", options: .backwards), open.upperBound <= close.lowerBound {
            article = page[open.upperBound..<close.lowerBound]
        } else {
            article = ""
        }
        let body = StaticPages.droppingTitleHeading(version.body, title: version.title.value)
        let rendered = CommonMark.html(body)
        if rendered == article { return nil }
        let old = Array(article.utf8).withUnsafeBufferPointer { CommonMark.textOfHTML($0).scalars }
        let new = CommonMark.renderedText(body)
        func words(_ scalars: [Unicode.Scalar]) -> [Unicode.Scalar] { scalars.filter { $0.properties.isAlphabetic || $0.properties.numericType != nil } }
        if live.build != BuildFingerprint.value && words(old) == words(new.scalars) { return nil }
        // The first scalar that differs, and the source line it came from.
        var index = 0
        while index < old.count, index < new.scalars.count, old[index] == new.scalars[index] { index += 1 }
        let line = new.lines.isEmpty ? 1 : Int(new.lines[min(index, new.lines.count - 1)])
        // `droppingTitleHeading` removed one line (the title) before the rest, when it did.
        let dropped = body != version.body ? 1 : 0
        return version.bodyLine - 1 + line + dropped
    }

    /// Where a table first differs from the one a product's document shipped: the first band
    /// value that changed (bands best first, as documents list them), else its bands.
    static func firstDifference(_ table: RateTable, _ shipped: JSON) -> SourceMark {
        if shipped["effective_to"]?.stringValue != table.effectiveTo?.value.description { return table.effectiveTo?.mark ?? table.effectiveFrom.mark }
        if shipped["bureau"]?.stringValue != table.bureau.value.rawValue { return table.bureau.mark }
        let bands = shipped["bands"]?.arrayValue ?? []
        let written = DataDocuments.tableDocument(table)["bands"]?.arrayValue ?? []
        for (index, band) in table.bandsBestFirst.enumerated() where index < bands.count && index < written.count {
            let fields = [
                (table.scale.minKey, band.min.mark), (table.scale.maxKey, band.max.mark), ("apr_min_pct", band.aprMin.mark), ("apr_max_pct", band.aprMax.mark), ("limit_max_krw", band.limitMax.mark),
            ]
            for (key, mark) in fields where written[index][key] != bands[index][key] { return mark }
        }
        return table.bandsMark
    }

    private func checkTables(_ content: Content, asOf: Day, built: BundleManifest?, products: Set<String>?, into diagnostics: Diagnostics) throws {
        let prefix = live.dataFolder + "products/"
        let byProduct = content.rateTablesByProduct
        var builtHashes: [String: String] = [:]
        if let built {
            let folder = BundleLayout.dataFolder(built.bundleID) + "products/"
            for file in built.files where file.path.hasPrefix(folder) { builtHashes[String(file.path.dropFirst(folder.count))] = file.sha256 }
        }
        for file in live.files where file.path.hasPrefix(prefix) && file.path.hasSuffix(".json") {
            let key = String(file.path.dropFirst(prefix.count).dropLast(5))
            if let products, !products.contains(key) { continue }
            if builtHashes["\(key).json"] == file.sha256 { continue }
            let document = try JSONReader.parse(try live.read("products/\(key).json", inData: true))
            guard let shipped = document["current"], case .object = shipped, let from = shipped["effective_from"]?.stringValue.flatMap(Day.init), from <= asOf else {
                continue
            }
            let tables = byProduct[key] ?? []
            guard let (table, end) = CapRules.periods(tables).first(where: { $0.0.effectiveFrom.value == from }) else {
                let path = content.root.path("products/\(key)/rates/\(from).yaml")
                diagnostics.report(
                    HistoryRules.pastTable, path, .start,
                    Message(
                        "the rate table of \(key) from \(from) is in force on \(live.release.id) (live) and was deleted; restore it (a table that was in force is a record) and add a new table to change the rates",
                        ko: "\(key)의 \(from)부터 시행된 금리표가 라이브 릴리스 \(live.release.id)에서 시행 중인데 지워졌습니다; 되살리고(시행된 금리표는 기록입니다) 금리를 바꾸려면 새 금리표를 추가하세요"))
                continue
            }
            guard let end, end < asOf else { continue }
            if DataDocuments.tableDocument(table).serialized() != shipped.serialized() {
                diagnostics.report(
                    HistoryRules.pastTable, table.path, Self.firstDifference(table, shipped),
                    Message(
                        "this rate table was in force from \(from) until \(end) as live on \(live.release.id), and is a record now; restore it as published and correct the rates in a new table dated \(asOf) or later",
                        ko: "이 금리표는 라이브 릴리스 \(live.release.id)에 게시된 대로 \(from)부터 \(end)까지 시행되어 이제 기록입니다; 게시된 그대로 되돌리고, 금리는 \(asOf) 이후 날짜의 새 금리표에서 고치세요"))
            }
        }
    }
}
