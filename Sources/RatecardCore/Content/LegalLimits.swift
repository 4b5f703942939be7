import RatecardSupport

/// `regulatory/limits.yaml`: the legal caps as dated data, resolved by date.
public struct LegalLimits: Sendable, Equatable {
    /// The limits the rules use.
    public enum Kind: String, CaseIterable, Sendable {
        case maxAPR = "max_apr_pct"
        case lateSpreadMax = "late_interest_spread_max_pp"
        case lateInterestMax = "late_interest_max_pct"
        case earlyRepaymentFeeMaxMonths = "early_repayment_fee_max_months"
        /// An early-repayment fee up to this rate is not interest (on loans long enough, below).
        case earlyRepaymentFeeExemptMaxPct = "early_repayment_fee_exempt_max_pct"
        /// The shortest loan term on which an early-repayment fee is not interest.
        case earlyRepaymentFeeExemptMinTermMonths = "early_repayment_fee_exempt_min_term_months"
        case creditScoreMin = "credit_score_min"
        case creditScoreMax = "credit_score_max"
        /// The days a borrower has to withdraw a loan application (청약철회, 금소법 제46조①3).
        case withdrawalPeriodDays = "withdrawal_period_days"
        /// The days before it takes effect that a change to the terms is posted (전자금융거래법 제24조③).
        case termsNoticeDays = "terms_notice_days"
        /// The longest an advertising review may be valid, in months from `review_valid_from`
        /// (an association's review guide). Optional: without an entry, no maximum is checked.
        case reviewValidMaxMonths = "review_valid_max_months"
        /// How old, in months, a statistic's reference date may be before it is warned about
        /// (DSC-25). Optional: 12 without an entry.
        case statisticMaxAgeMonths = "statistic_max_age_months"

        /// Whether every limits.yaml must have an entry of this kind.
        package var required: Bool { self != .reviewValidMaxMonths && self != .statisticMaxAgeMonths }

        /// Whether a higher value lets a lender charge more (a looser limit). For the others a
        /// lower value is looser (the minimum term of the fee exemption, a shorter withdrawal or
        /// notice period); the score bounds are neither, and any change to them is treated as
        /// loosening.
        package var higherIsLooser: Bool? {
            switch self {
            case .maxAPR, .lateSpreadMax, .lateInterestMax, .earlyRepaymentFeeMaxMonths, .earlyRepaymentFeeExemptMaxPct, .reviewValidMaxMonths, .statisticMaxAgeMonths: true
            case .earlyRepaymentFeeExemptMinTermMonths, .withdrawalPeriodDays, .termsNoticeDays: false
            case .creditScoreMin, .creditScoreMax: nil
            }
        }

        /// Kinds a policy programme may set its own value for (`program:`).
        package static let programKinds: Set<Kind> = [.maxAPR, .lateInterestMax]
    }

    public struct Entry: Sendable, Equatable {
        public var kind: Kind
        public var value: Percent
        public var effectiveFrom: Day
        public var citation: String
        public var mark: SourceMark
        /// Where the value is written.
        public var valueMark: SourceMark
        /// The policy programme the entry applies to (`program:`), or nil for every loan.
        public var program: String?

        /// How a change to this entry is named in `regulatory/signoffs.yaml`.
        package var label: String {
            (program.map { "\(kind.rawValue) [\($0)]" } ?? kind.rawValue) + " from \(effectiveFrom)"
        }
    }

    public var path: String
    public var entries: [Entry]

    /// The entry in force on `day`: the latest `effective_from` on or before it.
    public func inForce(_ kind: Kind, on day: Day) -> Entry? {
        inForce(kind, on: day, program: nil)
    }

    /// The entry of a policy programme in force on `day` (nil `program`: the general entry).
    public func inForce(_ kind: Kind, on day: Day, program: String?) -> Entry? {
        // One pass by index, copying only the entry returned: the cap rules ask this for every
        // rate table and product.
        // The entries are read in place (a copy of one retains its strings): this was 2% of a
        // build's CPU when each was copied to be compared.
        let found = entries.withUnsafeBufferPointer { entries -> Int? in
            var found: Int?
            for index in entries.indices where entries[index].kind == kind && entries[index].effectiveFrom <= day {
                guard entries[index].program == program else { continue }
                if let best = found, entries[best].effectiveFrom >= entries[index].effectiveFrom { continue }
                found = index
            }
            return found
        }
        return found.map { entries[$0] }
    }

    /// Every policy programme that has a limit of its own.
    public var programs: Set<String> { Set(entries.compactMap(\.program)) }

    /// The newest entry of a kind, whatever its date (for bounds that do not depend on the date).
    public func latest(_ kind: Kind) -> Entry? {
        entries.filter { $0.kind == kind }.max { $0.effectiveFrom < $1.effectiveFrom }
    }

    package static func read(_ node: YAMLNode, path: String, diagnostics: Diagnostics) -> LegalLimits? {
        guard let fields = MappingReader(node, path: path, what: .verbatim("limits.yaml"), diagnostics: diagnostics, table: FieldTables.limits) else { return nil }
        defer { fields.finish() }
        guard let items = fields.list("limits") else { return nil }
        var entries: [Entry] = []
        for item in items.value {
            guard let entry = MappingReader(item, path: path, what: Message("a limit", ko: "한도 항목"), diagnostics: diagnostics, table: FieldTables.limitEntry) else { continue }
            let kind: Located<Kind>? = entry.choice("id")
            let value = entry.percent("value")
            let from = entry.day("effective_from")
            let citation = entry.string("citation")
            let program = entry.string("program", required: false)
            entry.finish()
            if let program {
                if !SchemaRules.isValidID(program.value) {
                    diagnostics.report(
                        SchemaRules.identifier, path, program.mark,
                        Message("program '\(program.value)' must match ^[a-z0-9][a-z0-9-]{0,62}$", ko: "program '\(program.value)'은(는) ^[a-z0-9][a-z0-9-]{0,62}$ 형식이어야 합니다"))
                }
                if let kind, !Kind.programKinds.contains(kind.value) {
                    let allowed = Kind.programKinds.map(\.rawValue).sorted().joined(separator: ", ")
                    diagnostics.report(
                        SchemaRules.notAllowed, path, program.mark,
                        Message("a policy programme can only set its own \(allowed), not '\(kind.value.rawValue)'", ko: "정책 프로그램이 따로 정할 수 있는 한도는 \(allowed)뿐이며, '\(kind.value.rawValue)'은(는) 정할 수 없습니다")
                    )
                }
            }
            if let kind, let value, let from, let citation {
                if entries.contains(where: { $0.kind == kind.value && $0.program == program?.value && $0.effectiveFrom == from.value }) {
                    diagnostics.report(
                        DateRules.overlap, path, from.mark,
                        Message("two '\(kind.value.rawValue)' limits take effect on \(from.value); keep one", ko: "'\(kind.value.rawValue)' 한도 두 개가 같은 날(\(from.value)) 시행됩니다; 하나만 남기세요"))
                }
                entries.append(Entry(kind: kind.value, value: value.value, effectiveFrom: from.value, citation: citation.value, mark: item.mark, valueMark: value.mark, program: program?.value))
            }
        }
        for kind in Kind.allCases where kind.required && !entries.contains(where: { $0.kind == kind && $0.program == nil }) {
            diagnostics.report(
                SchemaRules.missingField, path, items.mark,
                Message("no '\(kind.rawValue)' limit is defined; every known limit needs at least one dated entry", ko: "'\(kind.rawValue)' 한도가 정의되어 있지 않습니다; 알려진 한도마다 시행일이 있는 항목이 하나 이상 있어야 합니다"))
        }
        return LegalLimits(path: path, entries: entries)
    }
}
