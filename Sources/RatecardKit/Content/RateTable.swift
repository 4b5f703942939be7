/// A product's rate table in force from a date: `products/<p>/<q>/rates/<YYYY-MM-DD>.yaml`.
public struct RateTable: Sendable, Equatable {
    public enum Bureau: String, CaseIterable, Sendable {
        case kcb = "KCB"
        case nice = "NICE"
    }

    /// One credit-score band: who gets which APR range and limit.
    public struct Band: Sendable, Equatable {
        public var mark: SourceMark
        public var scoreMin: Located<Int>
        public var scoreMax: Located<Int>
        public var aprMin: Located<Percent>
        public var aprMax: Located<Percent>
        public var limitMax: Located<Int>
    }

    public var path: String
    public var productKey: String
    /// The date in the file name.
    public var fileDate: String
    public var mark: SourceMark
    public var effectiveFrom: Located<Day>
    public var effectiveTo: Located<Day>?
    public var bureau: Located<Bureau>
    public var bandsMark: SourceMark
    public var bands: [Band]
    /// True when a band could not be read (a missing field, a wrong type): `bands` then
    /// leaves it out, and checks across neighbouring bands (gaps, overlaps, the top band,
    /// pricing order) would only report the hole it leaves.
    public var incompleteBands = false

    /// Whether the table is in force on `day`.
    public func isInForce(on day: Day) -> Bool {
        effectiveFrom.value <= day && (effectiveTo.map { day <= $0.value } ?? true)
    }

    static func read(_ node: YAMLNode, path: String, productKey: String, fileDate: String, diagnostics: Diagnostics) -> RateTable? {
        guard let fields = MappingReader(node, path: path, what: "a rate table", diagnostics: diagnostics) else { return nil }
        defer { fields.finish() }
        let from = fields.day("effective_from")
        let to = fields.day("effective_to", required: false)
        let bureau: Located<Bureau>? = fields.choice("bureau")
        let list = fields.list("bands")
        var bands: [Band] = []
        var incomplete = false
        for item in list?.value ?? [] {
            guard let band = MappingReader(item, path: path, what: "a score band", diagnostics: diagnostics) else {
                incomplete = true
                continue
            }
            let scoreMin = band.integer("score_min")
            let scoreMax = band.integer("score_max")
            let aprMin = band.percent("apr_min_pct")
            let aprMax = band.percent("apr_max_pct")
            let limit = band.krw("limit_max_krw")
            band.finish()
            if let scoreMin, let scoreMax, let aprMin, let aprMax, let limit {
                bands.append(Band(mark: item.mark, scoreMin: scoreMin, scoreMax: scoreMax, aprMin: aprMin, aprMax: aprMax, limitMax: limit))
            } else {
                incomplete = true
            }
        }
        if let list, list.value.isEmpty {
            diagnostics.report(SchemaRules.empty, path, list.mark, "'bands' is empty; a rate table needs at least one score band")
        }
        guard let from, let bureau, let list else { return nil }
        return RateTable(
            path: path, productKey: productKey, fileDate: fileDate, mark: node.mark, effectiveFrom: from,
            effectiveTo: to, bureau: bureau, bandsMark: list.mark, bands: bands, incompleteBands: incomplete)
    }
}
