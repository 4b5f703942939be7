import Synchronization

/// Everything one snapshot of the content holds, parsed, with where each file came from.
public struct Content: Sendable {
    /// The folder of the repository's tree the content was read from: paths in findings and
    /// `fileIDs` are the repository's (`content/partners/a.yaml`).
    public var root: ContentRoot
    public var config: ServiceConfig?
    public var limits: LegalLimits?
    public var phrases: [Phrase]?
    /// `quotation_warnings` of `regulatory/phrases.yaml` (DSC-06).
    public var quotationWarnings: [Located<String>] = []
    /// Sign-offs for changes to the regulatory data (`regulatory/signoffs.yaml`, optional).
    public var signoffs: [Signoff] = []
    public var partners: [Partner] = []
    public var products: [Product] = []
    public var rateTables: [RateTable] = [] { didSet { tableGroups = TableGroups() } }
    public var terms: [TermsVersion] = [] { didSet { termGroups = TermGroups() } }
    /// Content-relative paths of asset files.
    public var assets: Set<String> = []
    /// Partner ids that have a file, parsed or not (so one broken file does not cascade).
    public var partnerFiles: Set<String> = []
    /// `<partner>/<product>` keys that have a product.yaml, parsed or not.
    public var productFiles: Set<String> = []
    /// Raw text of every terms file by repository-relative path (history rules compare it).
    public var termsText: [String: TermsText] = [:]
    /// Problems found while reading files (syntax, schema, encoding, tree).
    public var fileDiagnostics: [Diagnostic] = []
    /// The git blob id of each file whose bytes were read or whose commit named it, by
    /// repository-relative path: the identity of a file's bytes, which keys what the build
    /// caches (`BuildCache`, `RenderMemo`). A file without one is never served from a cache.
    public var fileIDs: [String: ObjectID] = [:]
    /// True when `fileIDs` holds every file this content was read from (a loader assembled it
    /// from a whole tree): only then does a missing id mean a missing file.
    package var identified = false
    /// `rateTablesByProduct` and `versionsByDocument` and their positions, made once for the
    /// tables and terms they group (a dozen rules and every build ask for them): a change to
    /// the tables starts their groups afresh and keeps the terms', and the other way round, so a
    /// watch rebuild after a terms edit groups no table again.
    private var tableGroups = TableGroups()
    private var termGroups = TermGroups()

    private final class TableGroups: Sendable {
        let tables = Mutex<[String: [RateTable]]?>(nil)
        let positions = Mutex<TablePositions?>(nil)
    }

    private final class TermGroups: Sendable {
        let versions = Mutex<[String: [TermsVersion]]?>(nil)
        let positions = Mutex<[String: [Int]]?>(nil)
    }

    /// Each product's tables, oldest first, as positions in `rateTables` (a table is a large
    /// value: grouping copies of 6,000 of them costs more than grouping their positions), and
    /// each table's path by position.
    package struct TablePositions: Sendable {
        package var byProduct: [String: [Int]]
        package var paths: [String]
    }

    public init(root: ContentRoot) { self.root = root }

    public func partner(_ id: String) -> Partner? { partners.first { $0.id.value == id } }

    /// The partners not live on `day` (`go_live` after it), by id, with the day each goes live.
    package func partnersGoingLive(after day: Day) -> [String: Day] {
        var pending: [String: Day] = [:]
        for partner in partners {
            if let goLive = partner.goLive?.value, goLive > day { pending[partner.id.value] = goLive }
        }
        return pending
    }

    /// The day the rules judge what `product` offers by: `asOf`, or its partner's go-live day
    /// when that is later (`pending`: `partnersGoingLive(after: asOf)`).
    package static func offerDay(of product: Product, asOf: Day, pending: [String: Day]) -> Day {
        pending[product.partner.value].map { Swift.max($0, asOf) } ?? asOf
    }

    /// The active products whose compliance review has ended by `day` (`review_valid_until`
    /// before it): they may no longer be advertised, so a build as of `day` shows them as
    /// withdrawn (DSC-21).
    public func reviewsExpired(on day: Day) -> [Product] {
        let pending = partnersGoingLive(after: day)
        return products.filter { $0.status.value == .active && $0.disclosure.reviewValidUntil.value < day && pending[$0.partner.value] == nil }
    }

    /// The last day of the compliance review of every product a build as of `day` shows as
    /// active, by `<partner>/<product>` key.
    public func reviewEnds(shownOn day: Day) -> [String: Day] {
        let pending = partnersGoingLive(after: day)
        var ends: [String: Day] = [:]
        for product in products where product.status.value == .active && pending[product.partner.value] == nil {
            let until = product.disclosure.reviewValidUntil.value
            if until >= day { ends[product.key] = until }
        }
        return ends
    }

    /// What a release built as of `day` shows: the content without the partners that go live
    /// after it, their products, their rate tables and the logos only they use; an active
    /// product whose compliance review has ended is shown as a withdrawn one is.
    public func served(on day: Day) -> Content { served(on: day, products: productsServed(on: day)) }

    /// `served(on:)` with `products` as `productsServed(on: day)` gave them (a watch rebuild
    /// after an edit that left the products alone takes them from the last build).
    package func served(on day: Day, products: [Product]) -> Content {
        var content = self
        content.products = products
        return content.withoutPending(on: day)
    }

    /// The products with those whose compliance review ended by `day` withdrawn (all of them,
    /// as they are, when none did: no copy is made).
    package func productsServed(on day: Day) -> [Product] {
        var served = products
        for index in products.indices where products[index].status.value == .active && products[index].disclosure.reviewValidUntil.value < day {
            served[index].status.value = .withdrawn
        }
        return served
    }

    private func withoutPending(on day: Day) -> Content {
        let pending = Set(partners.filter { !$0.isLive(on: day) }.map(\.id.value))
        guard !pending.isEmpty else { return self }
        var served = self
        served.partners = partners.filter { !pending.contains($0.id.value) }
        served.products = products.filter { !pending.contains($0.partner.value) && !pending.contains($0.folderPartner) }
        served.rateTables = rateTables.filter { !pending.contains(String($0.productKey.prefix { $0 != "/" })) }
        let shown = Set(served.partners.map(\.logo.value))
        let hidden = Set(partners.filter { pending.contains($0.id.value) }.map(\.logo.value)).subtracting(shown)
        served.assets = assets.subtracting(hidden)
        return served
    }

    /// The first day after `asOf` on which a bundle built as of `asOf` stops being current: a
    /// rate table, terms version or legal limit takes effect, a rate table ends, or an active
    /// product's compliance review has ended (the day after `review_valid_until`). Nil when
    /// nothing is scheduled.
    public func nextScheduledChange(after asOf: Day) -> Day? {
        var days: [Day] = rateTables.map(\.effectiveFrom.value) + terms.map(\.effectiveFrom.value)
        days += products.filter { $0.status.value == .active }.map { $0.disclosure.reviewValidUntil.value.adding(days: 1) }
        days += partners.compactMap { $0.goLive?.value }
        days += rateTables.compactMap { $0.effectiveTo.map { $0.value.adding(days: 1) } }
        days += (limits?.entries ?? []).map(\.effectiveFrom)
        return days.filter { $0 > asOf }.min()
    }

    /// The rate tables of one product, oldest first.
    public func rateTables(of productKey: String) -> [RateTable] {
        Content.oldestFirst(rateTables.filter { $0.productKey == productKey })
    }

    /// The versions of one terms document, oldest first.
    public func versions(of documentID: String) -> [TermsVersion] {
        Content.oldestFirst(terms.filter { $0.documentID == documentID })
    }

    /// `rateTables(of:)` for every product at once (one pass instead of one per product).
    public var rateTablesByProduct: [String: [RateTable]] {
        if let made = tableGroups.tables.withLock({ $0 }) { return made }
        let made = Dictionary(grouping: rateTables, by: \.productKey).mapValues(Content.oldestFirst)
        tableGroups.tables.withLock { $0 = made }
        return made
    }

    /// `versions(of:)` for every document at once.
    public var versionsByDocument: [String: [TermsVersion]] {
        if let made = termGroups.versions.withLock({ $0 }) { return made }
        let made = Dictionary(grouping: terms, by: \.documentID).mapValues(Content.oldestFirst)
        termGroups.versions.withLock { $0 = made }
        return made
    }

    /// `rateTablesByProduct` as positions in `rateTables`, with each table's path.
    package var rateTablePositions: TablePositions {
        if let made = tableGroups.positions.withLock({ $0 }) { return made }
        // Fields read through buffer pointers: indexing the array would copy each large value whole.
        let made = rateTables.withUnsafeBufferPointer { tables in
            var positions: [String: [Int]] = [:]
            positions.reserveCapacity(tables.count)
            for index in tables.indices { positions[tables[index].productKey, default: []].append(index) }
            for (key, list) in positions where list.count > 1 {
                // `oldestFirst`'s order; equal dates keep the content's order, as a stable sort does.
                let dates = list.map { tables[$0].effectiveFrom.value }
                positions[key] = list.indices.sorted { (dates[$0], list[$0]) < (dates[$1], list[$1]) }.map { list[$0] }
            }
            return TablePositions(byProduct: positions, paths: tables.indices.map { tables[$0].path })
        }
        tableGroups.positions.withLock { $0 = made }
        return made
    }

    /// `versionsByDocument` as positions in `terms`.
    package var termsPositions: [String: [Int]] {
        if let made = termGroups.positions.withLock({ $0 }) { return made }
        let made = terms.withUnsafeBufferPointer { terms in
            var versions: [String: [Int]] = [:]
            for index in terms.indices { versions[terms[index].documentID, default: []].append(index) }
            for (document, list) in versions where list.count > 1 {
                // `oldestFirst`'s order.
                let semvers = list.map { TermsVersion.semver(terms[$0].fileVersion) ?? [] }
                versions[document] = list.indices.sorted { semvers[$0].lexicographicallyPrecedes(semvers[$1]) }.map { list[$0] }
            }
            return versions
        }
        termGroups.positions.withLock { $0 = made }
        return made
    }

    /// The position of the rate table read from `path` (fields read through a buffer pointer:
    /// a search over the array would copy each large value whole).
    package func rateTableIndex(path: String) -> Int? {
        rateTables.withUnsafeBufferPointer { tables in tables.indices.first { tables[$0].path == path } }
    }

    /// The position of the terms version read from `path`.
    package func termsIndex(path: String) -> Int? {
        terms.withUnsafeBufferPointer { terms in terms.indices.first { terms[$0].path == path } }
    }

    /// Puts `table` in place of the rate table at `index`. The tables' positions by product are
    /// kept when it has the replaced table's product, date and path (an edit of its rates): a
    /// watch rebuild after one does not group 6,000 tables again.
    package mutating func replaceRateTable(at index: Int, with table: RateTable) {
        let samePlace = rateTables.withUnsafeBufferPointer {
            $0[index].productKey == table.productKey && $0[index].effectiveFrom.value == table.effectiveFrom.value && $0[index].path == table.path
        }
        let positions = samePlace ? tableGroups.positions.withLock { $0 } : nil
        rateTables[index] = table
        if let positions { tableGroups.positions.withLock { $0 = positions } }
    }

    /// Puts `version` in place of the terms version at `index`, keeping the versions' positions
    /// by document when it has the replaced version's document and number (an edit of its text).
    package mutating func replaceTermsVersion(at index: Int, with version: TermsVersion) {
        let samePlace = terms.withUnsafeBufferPointer { $0[index].documentID == version.documentID && $0[index].fileVersion == version.fileVersion }
        let positions = samePlace ? termGroups.positions.withLock { $0 } : nil
        terms[index] = version
        if let positions { termGroups.positions.withLock { $0 = positions } }
    }

    /// `partner(_:)` for every partner id at once (the first partner with an id wins, as there).
    public var partnersByID: [String: Partner] {
        Dictionary(partners.map { ($0.id.value, $0) }, uniquingKeysWith: { first, _ in first })
    }

    package static func oldestFirst(_ tables: [RateTable]) -> [RateTable] {
        tables.sorted { $0.effectiveFrom.value < $1.effectiveFrom.value }
    }

    package static func oldestFirst(_ versions: [TermsVersion]) -> [TermsVersion] {
        versions.sorted { ($0.semver ?? []).lexicographicallyPrecedes($1.semver ?? []) }
    }

    /// Terms document ids, sorted.
    public var documentIDs: [String] { Array(Set(terms.map(\.documentID))).sorted() }
}
