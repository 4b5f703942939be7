/// `regulatory/limits.yaml`: the legal caps as dated data, resolved by date.
public struct LegalLimits: Sendable, Equatable {
    /// The limits the rules use.
    public enum Kind: String, CaseIterable, Sendable {
        case maxAPR = "max_apr_pct"
        case lateSpreadMax = "late_interest_spread_max_pp"
        case lateInterestMax = "late_interest_max_pct"
        case earlyRepaymentFeeMaxMonths = "early_repayment_fee_max_months"
        case creditScoreMin = "credit_score_min"
        case creditScoreMax = "credit_score_max"
    }

    public struct Entry: Sendable, Equatable {
        public var kind: Kind
        public var value: Percent
        public var effectiveFrom: Day
        public var citation: String
        public var mark: SourceMark
    }

    public var path: String
    public var entries: [Entry]

    /// The entry in force on `day`: the latest `effective_from` on or before it.
    public func inForce(_ kind: Kind, on day: Day) -> Entry? {
        entries.filter { $0.kind == kind && $0.effectiveFrom <= day }.max { $0.effectiveFrom < $1.effectiveFrom }
    }

    /// The newest entry of a kind, whatever its date (for bounds that do not depend on the date).
    public func latest(_ kind: Kind) -> Entry? {
        entries.filter { $0.kind == kind }.max { $0.effectiveFrom < $1.effectiveFrom }
    }

    static func read(_ node: YAMLNode, path: String, diagnostics: Diagnostics) -> LegalLimits? {
        guard let fields = MappingReader(node, path: path, what: "limits.yaml", diagnostics: diagnostics) else { return nil }
        defer { fields.finish() }
        guard let items = fields.list("limits") else { return nil }
        var entries: [Entry] = []
        for item in items.value {
            guard let entry = MappingReader(item, path: path, what: "a limit", diagnostics: diagnostics) else { continue }
            let kind: Located<Kind>? = entry.choice("id")
            let value = entry.percent("value")
            let from = entry.day("effective_from")
            let citation = entry.string("citation")
            entry.finish()
            if let kind, let value, let from, let citation {
                if entries.contains(where: { $0.kind == kind.value && $0.effectiveFrom == from.value }) {
                    diagnostics.report(DateRules.overlap, path, from.mark, "two '\(kind.value.rawValue)' limits take effect on \(from.value); keep one")
                }
                entries.append(Entry(kind: kind.value, value: value.value, effectiveFrom: from.value, citation: citation.value, mark: item.mark))
            }
        }
        for kind in Kind.allCases where !entries.contains(where: { $0.kind == kind }) {
            diagnostics.report(SchemaRules.missingField, path, items.mark, "no '\(kind.rawValue)' limit is defined; every known limit needs at least one dated entry")
        }
        return LegalLimits(path: path, entries: entries)
    }
}
