import RatecardSupport

/// The changes between two snapshots, as product staff and release managers think of them.
public struct SemanticDiff: Sendable {
    public var changes: [SemanticChange]

    public init(changes: [SemanticChange]) { self.changes = changes }

    /// Compares `old` with `new`; rate tables are compared as in force on `asOf`, or the old side
    /// on `oldAsOf` when it was published as of another day (what is live shows the tables in
    /// force on its own date, so a scheduled table taking effect is a change users see).
    public static func between(_ old: Content, _ new: Content, asOf: Day, oldAsOf: Day? = nil) -> SemanticDiff {
        var changes: [SemanticChange] = []
        let oldPartners = Dictionary(old.partners.map { ($0.id.value, $0) }, uniquingKeysWith: { first, _ in first })
        let newPartners = Dictionary(new.partners.map { ($0.id.value, $0) }, uniquingKeysWith: { first, _ in first })
        for id in Set(oldPartners.keys).union(newPartners.keys).sorted() {
            switch (oldPartners[id], newPartners[id]) {
            case (nil, let added?): changes.append(.partnerAdded(id: id, name: added.nameKo.value))
            case (let removed?, nil): changes.append(.partnerRemoved(id: id, name: removed.nameKo.value))
            case (let before?, let after?) where before.status.value != after.status.value:
                changes.append(.partnerStatus(id: id, name: after.nameKo.value, from: before.status.value.rawValue, to: after.status.value.rawValue, reason: after.statusReason?.value))
            default: break
            }
        }
        let oldProducts = Dictionary(old.products.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let newProducts = Dictionary(new.products.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let oldTables = Dictionary(grouping: old.rateTables, by: \.productKey)
        let newTables = Dictionary(grouping: new.rateTables, by: \.productKey)
        for key in Set(oldProducts.keys).union(newProducts.keys).sorted() {
            let name = displayName(key, newProducts[key] ?? oldProducts[key], new)
            switch (oldProducts[key], newProducts[key]) {
            case (nil, _?):
                changes.append(.productAdded(key: key, name: name))
                continue
            case (_?, nil):
                changes.append(.productRemoved(key: key, name: name))
                continue
            case (let before?, let after?) where before.status.value != after.status.value:
                changes.append(.productStatus(key: key, name: name, from: before.status.value.rawValue, to: after.status.value.rawValue))
            default: break
            }
            let before = inForce(oldTables[key] ?? [], on: oldAsOf ?? asOf)
            let after = inForce(newTables[key] ?? [], on: asOf)
            if let before, let after { changes += bandChanges(key: key, name: name, from: before, to: after) }
            let oldPaths = Set((oldTables[key] ?? []).map(\.path))
            for table in (newTables[key] ?? []).sorted(by: { $0.effectiveFrom.value < $1.effectiveFrom.value })
            where !oldPaths.contains(table.path) && table.effectiveFrom.value > asOf {
                changes.append(.tableScheduled(key: key, name: name, effectiveFrom: table.effectiveFrom.value))
            }
        }
        let oldTerms = Set(old.terms.map { "\($0.documentID)/\($0.fileVersion)" })
        for terms in new.terms.sorted(by: { ($0.documentID, $0.semver ?? []) < ($1.documentID, $1.semver ?? []) })
        where !oldTerms.contains("\(terms.documentID)/\(terms.fileVersion)") {
            changes.append(
                .termsAdded(document: terms.documentID, version: terms.fileVersion, title: terms.title.value, summary: terms.summary.value, requiresReconsent: terms.requiresReconsent.value))
        }
        let oldLimits = Dictionary((old.limits?.entries ?? []).map { ("\($0.kind.rawValue)@\($0.effectiveFrom)", $0) }, uniquingKeysWith: { first, _ in first })
        let newLimits = Dictionary((new.limits?.entries ?? []).map { ("\($0.kind.rawValue)@\($0.effectiveFrom)", $0) }, uniquingKeysWith: { first, _ in first })
        for id in Set(oldLimits.keys).union(newLimits.keys).sorted() where oldLimits[id]?.value != newLimits[id]?.value {
            let entry = (newLimits[id] ?? oldLimits[id])!
            changes.append(.limitChanged(id: entry.kind.rawValue, effectiveFrom: entry.effectiveFrom, old: oldLimits[id]?.value.description, new: newLimits[id]?.value.description))
        }
        let oldPhrases = Dictionary((old.phrases ?? []).map { ($0.id.value, $0.ko.value) }, uniquingKeysWith: { first, _ in first })
        let newPhrases = Dictionary((new.phrases ?? []).map { ($0.id.value, $0.ko.value) }, uniquingKeysWith: { first, _ in first })
        for id in Set(oldPhrases.keys).union(newPhrases.keys).sorted() where oldPhrases[id] != newPhrases[id] {
            changes.append(.phraseChanged(id: id, old: oldPhrases[id], new: newPhrases[id]))
        }
        return SemanticDiff(changes: changes)
    }

    /// The table of one product's `tables` in force on `day` (the latest to take effect), if any.
    static func inForce(_ tables: [RateTable], on day: Day) -> RateTable? {
        tables.filter { $0.isInForce(on: day) }.max { $0.effectiveFrom.value < $1.effectiveFrom.value }
    }

    /// The bands whose APR or limit differ from `before` to `after`, best band first (bands
    /// compared by their bounds, on one scale).
    static func bandChanges(key: String, name: String, from before: RateTable, to after: RateTable) -> [SemanticChange] {
        guard before.scale == after.scale else { return [] }
        var changes: [SemanticChange] = []
        for band in after.bandsBestFirst {
            guard let previous = before.bands.first(where: { $0.min.value == band.min.value && $0.max.value == band.max.value }) else { continue }
            if previous.aprMin.value != band.aprMin.value || previous.aprMax.value != band.aprMax.value || previous.limitMax.value != band.limitMax.value {
                changes.append(
                    .bandChanged(
                        .init(
                            key: key, name: name, scale: after.scale, min: band.min.value, max: band.max.value,
                            aprMin: (previous.aprMin.value, band.aprMin.value), aprMax: (previous.aprMax.value, band.aprMax.value),
                            limit: (previous.limitMax.value, band.limitMax.value))))
            }
        }
        return changes
    }

    /// What `content`, published as of `asOf`, will show changing on each later day on which one
    /// of its rate tables takes effect or ends: the bands that move that day against the day
    /// before, oldest day first. These are changes users see while the release (and its
    /// rebuilds by `publish --if-stale`) stays live, decided when it is published.
    public static func scheduled(_ content: Content, after asOf: Day) -> [(day: Day, change: SemanticChange)] {
        var found: [(day: Day, change: SemanticChange)] = []
        let products = Dictionary(content.products.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        for (key, tables) in content.rateTablesByProduct.sorted(by: { $0.key < $1.key }) {
            let days = Set(tables.flatMap { table in [table.effectiveFrom.value] + (table.effectiveTo.map { [$0.value.adding(days: 1)] } ?? []) })
                .filter { $0 > asOf }.sorted()
            guard !days.isEmpty else { continue }
            let name = displayName(key, products[key], content)
            var before = inForce(tables, on: asOf)
            for day in days {
                let after = inForce(tables, on: day)
                if let before, let after {
                    for change in bandChanges(key: key, name: name, from: before, to: after) { found.append((day, change)) }
                }
                before = after
            }
        }
        // By day; on one day in the order found (products by key, bands best first).
        return found.enumerated().sorted { ($0.element.day, $0.offset) < ($1.element.day, $1.offset) }.map(\.element)
    }

    package static func displayName(_ key: String, _ product: Product?, _ content: Content) -> String {
        let partner = product.flatMap { content.partner($0.partner.value)?.nameKo.value } ?? String(key.split(separator: "/").first ?? "")
        return "\(partner) \(product?.nameKo.value ?? key)"
    }

    /// The changes a protected environment refuses without `--approve`.
    public func risks(threshold: Percent) -> [Message] { changes.compactMap { $0.isRisky(threshold: threshold) } }
}

private func < (lhs: (String, [Int]), rhs: (String, [Int])) -> Bool {
    lhs.0 != rhs.0 ? lhs.0 < rhs.0 : lhs.1.lexicographicallyPrecedes(rhs.1)
}
