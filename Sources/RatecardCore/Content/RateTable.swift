import RatecardSupport

/// A product's rate table in force from a date: `products/<p>/<q>/rates/<YYYY-MM-DD>.yaml`.
public struct RateTable: Sendable, Equatable {
    public enum Bureau: String, CaseIterable, Sendable {
        case kcb = "KCB"
        case nice = "NICE"
    }

    /// What a table's bands are drawn on. Korean lenders priced by the bureaus' ten credit
    /// grades (1 the best) until 2020-12-31 and by their 0-1000 scores from 2021-01-01 (FSC,
    /// 2020): a table is read in the terms of its own era.
    public enum Scale: String, Sendable {
        case score
        case grade

        /// The field names of a band's bounds on this scale.
        public var minKey: String { self == .score ? "score_min" : "grade_min" }
        public var maxKey: String { self == .score ? "score_max" : "grade_max" }
        /// "scores 801-900" (801-900점), "grades 1-2" (1-2등급): how a message names a range.
        public func describe(_ min: Int, _ max: Int) -> Message {
            self == .score ? Message("scores \(min)-\(max)", ko: "\(min)-\(max)점") : Message("grades \(min)-\(max)", ko: "\(min)-\(max)등급")
        }
        /// Whether a band starting at `a` is for better borrowers than one starting at `b`
        /// (higher scores, lower grade numbers).
        public func isBetter(_ a: Int, than b: Int) -> Bool { self == .score ? a > b : a < b }
    }

    /// One band: who gets which APR range and limit. `min` and `max` are the band's bounds on
    /// the table's scale (`score_min`/`score_max`, or `grade_min`/`grade_max`).
    public struct Band: Sendable, Equatable {
        public var mark: SourceMark
        public var min: Located<Int>
        public var max: Located<Int>
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
    public var scale: Scale
    public var bandsMark: SourceMark
    public var bands: [Band]
    /// True when a band could not be read (a missing field, a wrong type): `bands` then
    /// leaves it out, and checks across neighbouring bands (gaps, overlaps, the top band,
    /// pricing order) would only report the hole it leaves.
    public var incompleteBands = false

    /// The bands, best borrowers first.
    public var bandsBestFirst: [Band] { bands.sorted { scale.isBetter($0.min.value, than: $1.min.value) } }

    /// Whether the table is in force on `day`.
    public func isInForce(on day: Day) -> Bool {
        effectiveFrom.value <= day && (effectiveTo.map { day <= $0.value } ?? true)
    }

    package static func read(_ node: YAMLNode, path: String, productKey: String, fileDate: String, diagnostics: Diagnostics) -> RateTable? {
        guard let fields = MappingReader(node, path: path, what: Message("a rate table", ko: "금리표"), diagnostics: diagnostics, table: FieldTables.rateTable) else { return nil }
        defer { fields.finish() }
        let from = fields.day("effective_from")
        let to = fields.day("effective_to", required: false)
        let bureau: Located<Bureau>? = fields.choice("bureau")
        let list = fields.list("bands")
        var bands: [Band] = []
        var incomplete = false
        // The first band that names its bounds decides the scale; a band on the other one is
        // reported where it is.
        var scale: Scale?
        for item in list?.value ?? [] {
            guard let band = MappingReader(item, path: path, what: Message("a credit band", ko: "신용 구간"), diagnostics: diagnostics, table: FieldTables.band) else {
                incomplete = true
                continue
            }
            let onGrades = band.keyMark("grade_min") != nil || band.keyMark("grade_max") != nil
            let onScores = band.keyMark("score_min") != nil || band.keyMark("score_max") != nil
            let own: Scale = onGrades && !onScores ? .grade : .score
            if scale == nil && (onGrades || onScores) { scale = own }
            var fits = true
            if onGrades && onScores {
                fits = false
                diagnostics.report(
                    BandRules.scale, path, band.keyMark("grade_min") ?? band.keyMark("grade_max") ?? item.mark,
                    Message(
                        "a band has both score and grade bounds; use score_min/score_max (from 2021-01-01) or grade_min/grade_max (before), not both",
                        ko: "한 구간에 점수 경계와 등급 경계가 함께 있습니다; score_min/score_max(2021-01-01부터)나 grade_min/grade_max(그 전) 중 하나만 쓰세요"))
                _ = band.integer(Scale.grade.minKey, required: false)
                _ = band.integer(Scale.grade.maxKey, required: false)
            } else if let scale, own != scale {
                fits = false
                diagnostics.report(
                    BandRules.scale, path, band.keyMark(own.minKey) ?? band.keyMark(own.maxKey) ?? item.mark,
                    Message(
                        "this band has \(own.minKey)/\(own.maxKey) but the table's first band has \(scale.minKey)/\(scale.maxKey); a table uses one scale",
                        ko: "이 구간은 \(own.minKey)/\(own.maxKey)를 쓰는데 표의 첫 구간은 \(scale.minKey)/\(scale.maxKey)를 씁니다; 한 표에는 한 가지 척도만 씁니다"))
            }
            let min = band.integer(own.minKey)
            let max = band.integer(own.maxKey)
            let aprMin = band.percent("apr_min_pct")
            let aprMax = band.percent("apr_max_pct")
            let limit = band.krw("limit_max_krw")
            band.finish()
            if fits, let min, let max, let aprMin, let aprMax, let limit {
                bands.append(Band(mark: item.mark, min: min, max: max, aprMin: aprMin, aprMax: aprMax, limitMax: limit))
            } else {
                incomplete = true
            }
        }
        if let list, list.value.isEmpty {
            diagnostics.report(SchemaRules.empty, path, list.mark, Message("'bands' is empty; a rate table needs at least one credit band", ko: "'bands'가 비어 있습니다; 금리표에는 신용 구간이 하나 이상 있어야 합니다"))
        }
        guard let from, let bureau, let list else { return nil }
        return RateTable(
            path: path, productKey: productKey, fileDate: fileDate, mark: node.mark, effectiveFrom: from,
            effectiveTo: to, bureau: bureau, scale: scale ?? .score, bandsMark: list.mark, bands: bands, incompleteBands: incomplete)
    }
}
