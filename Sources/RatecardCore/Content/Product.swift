import RatecardSupport

/// A loan product: `products/<partner-id>/<product-id>/product.yaml`.
public struct Product: Sendable, Equatable {
    public enum Kind: String, CaseIterable, Sendable {
        case credit
        case creditLine = "credit_line"
        case cardLoan = "card_loan"
        case autoSecured = "auto_secured"
        case policy
        case refinance
    }

    public enum Status: String, CaseIterable, Sendable {
        case active
        case withdrawn
    }

    public enum Repayment: String, CaseIterable, Sendable {
        case equalInstallment = "equal_installment"
        case equalPrincipal = "equal_principal"
        case bullet
        case revolving
    }

    /// How the rate is set (금소법 제19조①1라): fixed for the whole loan, tied to a base rate, or
    /// fixed for a period and then variable.
    public enum RateType: String, CaseIterable, Sendable {
        case fixed
        case variable
        case mixed
    }

    /// A worked example of what the loan costs in total (금소법 시행령 제18조①).
    public struct RepaymentExample: Sendable, Equatable {
        public var mark: SourceMark
        public var amount: Located<Int>
        public var apr: Located<Percent>
        public var months: Located<Int>
        public var method: Located<Repayment>
        public var total: Located<Int>
    }

    /// What a product page must tell the borrower besides rates and fees (금소법 제19조①,
    /// 제22조③, 시행령 제18조①): `disclosure:` in product.yaml.
    public struct Disclosure: Sendable, Equatable {
        public var mark: SourceMark
        /// The compliance officer's review of this advertising, and the days it is valid.
        public var reviewNumber: Located<String>
        public var reviewValidFrom: Located<Day>
        public var reviewValidUntil: Located<Day>
        public var rateType: Located<RateType>
        /// The base rate a variable rate follows (COFIX, 금융채 6개월, ...).
        public var baseRate: Located<String>?
        /// How the rate is made up: base rate + spread - discounts.
        public var rateComposition: Located<String>
        /// When interest is charged.
        public var interestTiming: Located<String>
        /// Costs besides interest (stamp duty, ...), or that there are none.
        public var incidentalCosts: Located<String>
        /// The credit a borrower needs.
        public var requiredCredit: Located<String>
        public var repaymentExample: RepaymentExample

        /// The free-text fields, with their names, for the wording checks.
        package var copyFields: [(String, Located<String>)] {
            [
                ("disclosure.rate_composition_ko", rateComposition), ("disclosure.interest_timing_ko", interestTiming),
                ("disclosure.incidental_costs_ko", incidentalCosts), ("disclosure.required_credit_ko", requiredCredit),
            ]
                + (baseRate.map { [("disclosure.base_rate_ko", $0)] } ?? [])
        }

        package static func read(_ fields: MappingReader, path: String, diagnostics: Diagnostics) -> Disclosure? {
            let number = fields.string("review_no")
            let from = fields.day("review_valid_from")
            let until = fields.day("review_valid_until")
            let type: Located<RateType>? = fields.choice("rate_type")
            let base = fields.string("base_rate_ko", required: false)
            let composition = fields.string("rate_composition_ko")
            let timing = fields.string("interest_timing_ko")
            let costs = fields.string("incidental_costs_ko")
            let credit = fields.string("required_credit_ko")
            var example: RepaymentExample?
            if let node = fields.mapping("repayment_example") {
                let amount = node.krw("amount_krw")
                let apr = node.percent("apr_pct")
                let months = node.integer("months")
                let method: Located<Repayment>? = node.choice("method")
                let total = node.krw("total_krw")
                node.finish()
                if let amount, let apr, let months, let method, let total {
                    example = RepaymentExample(mark: amount.mark, amount: amount, apr: apr, months: months, method: method, total: total)
                }
            }
            guard let number, let from, let until, let type, let composition, let timing, let costs, let credit, let example else { return nil }
            return Disclosure(
                mark: number.mark, reviewNumber: number, reviewValidFrom: from, reviewValidUntil: until, rateType: type, baseRate: base,
                rateComposition: composition, interestTiming: timing, incidentalCosts: costs, requiredCredit: credit, repaymentExample: example)
        }
    }

    public var path: String
    /// The partner folder and product folder the file sits in.
    public var folderPartner: String
    public var folderID: String
    public var mark: SourceMark
    public var id: Located<String>
    public var partner: Located<String>
    public var nameKo: Located<String>
    public var nameEn: String?
    public var kind: Located<Kind>
    public var status: Located<Status>
    public var repayment: [Located<Repayment>]
    /// Where `repayment_methods` is written.
    public var repaymentMark: SourceMark?
    public var termsMonths: Located<[Located<Int>]>
    public var limitMin: Located<Int>
    public var limitMax: Located<Int>
    public var originationFee: Located<Int>
    public var earlyRepaymentFee: Located<Percent>
    public var earlyRepaymentMonths: Located<Int>
    public var lateSpread: Located<Percent>
    public var lateMax: Located<Percent>
    public var requiredPhrases: Located<[Located<String>]>
    public var description: Located<String>?
    /// The policy programme (햇살론, 사잇돌 and the like) whose own caps in
    /// `regulatory/limits.yaml` (`program:`) apply on top of the general ones.
    public var policyProgram: Located<String>?
    /// What the product page discloses besides rates and fees.
    public var disclosure: Disclosure

    /// The fields a user reads as the product's own words, with their field names (DSC-06..08).
    package var copyFields: [(String, Located<String>)] {
        [("name_ko", nameKo)] + (description.map { [("description_ko", $0)] } ?? []) + disclosure.copyFields
    }

    /// `<partner>/<product>`: unique across the repository.
    /// Inlinable, so that reading it loads two fields, not a copy of the whole product (a
    /// getter from another module takes its value whole, retaining every field).
    @inlinable public var key: String { "\(folderPartner)/\(folderID)" }

    package static func read(_ node: YAMLNode, path: String, folderPartner: String, folderID: String, diagnostics: Diagnostics) -> Product? {
        guard let fields = MappingReader(node, path: path, what: Message("a product", ko: "상품"), diagnostics: diagnostics, table: FieldTables.product) else { return nil }
        defer { fields.finish() }
        let id = fields.string("id")
        let partner = fields.string("partner")
        let nameKo = fields.string("name_ko")
        let nameEn = fields.string("name_en", required: false)
        let kind: Located<Kind>? = fields.choice("type")
        let status: Located<Status>? = fields.choice("status")
        var repayment: [Located<Repayment>] = []
        let methods = fields.strings("repayment_methods")
        for method in methods?.value ?? [] {
            if let value = Repayment(rawValue: method.value) {
                repayment.append(Located(value, at: method.mark))
            } else {
                let allowed = Repayment.allCases.map(\.rawValue).joined(separator: ", ")
                diagnostics.report(
                    SchemaRules.notAllowed, path, method.mark, Message("repayment method '\(method.value)' is not one of: \(allowed)", ko: "상환 방식 '\(method.value)'은(는) 쓸 수 없습니다. 쓸 수 있는 값: \(allowed)")
                )
            }
        }
        var terms: Located<[Located<Int>]>?
        if let list = fields.list("terms_months") {
            terms = Located(list.value.compactMap { Scalar.integer($0, key: "terms_months", reader: fields) }, at: list.mark)
        }
        let limit = fields.mapping("limit")
        let limitMin = limit?.krw("min_krw")
        let limitMax = limit?.krw("max_krw")
        limit?.finish()
        let fees = fields.mapping("fees")
        let origination = fees?.krw("origination_krw")
        let early = fees?.percent("early_repayment_pct")
        let earlyMonths = fees?.integer("early_repayment_months")
        fees?.finish()
        let late = fields.mapping("late_interest")
        let spread = late?.percent("spread_pp")
        let lateMax = late?.percent("max_pct")
        late?.finish()
        let phrases = fields.strings("required_phrases")
        let description = fields.string("description_ko", required: false)
        let program = fields.string("policy_program", required: false)
        var disclosure: Disclosure?
        if let section = fields.mapping("disclosure") {
            disclosure = Disclosure.read(section, path: path, diagnostics: diagnostics)
            section.finish()
        }
        guard let disclosure, let id, let partner, let nameKo, let kind, let status, let terms, let limitMin, let limitMax,
            let origination, let early, let earlyMonths, let spread, let lateMax, let phrases
        else { return nil }
        return Product(
            path: path, folderPartner: folderPartner, folderID: folderID, mark: node.mark, id: id, partner: partner,
            nameKo: nameKo, nameEn: nameEn?.value, kind: kind, status: status, repayment: repayment, repaymentMark: methods?.mark, termsMonths: terms,
            limitMin: limitMin, limitMax: limitMax, originationFee: origination, earlyRepaymentFee: early,
            earlyRepaymentMonths: earlyMonths, lateSpread: spread, lateMax: lateMax, requiredPhrases: phrases,
            description: description, policyProgram: program, disclosure: disclosure)
    }
}
