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

    /// The fields a user reads as the product's own words, with their field names (DSC-06..08).
    var copyFields: [(String, Located<String>)] {
        [("name_ko", nameKo)] + (description.map { [("description_ko", $0)] } ?? [])
    }

    /// `<partner>/<product>`: unique across the repository.
    public var key: String { "\(folderPartner)/\(folderID)" }

    static func read(_ node: YAMLNode, path: String, folderPartner: String, folderID: String, diagnostics: Diagnostics) -> Product? {
        guard let fields = MappingReader(node, path: path, what: "a product", diagnostics: diagnostics) else { return nil }
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
                diagnostics.report(SchemaRules.notAllowed, path, method.mark, "repayment method '\(method.value)' is not one of: \(allowed)")
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
        guard let id, let partner, let nameKo, let kind, let status, let terms, let limitMin, let limitMax,
              let origination, let early, let earlyMonths, let spread, let lateMax, let phrases else { return nil }
        return Product(
            path: path, folderPartner: folderPartner, folderID: folderID, mark: node.mark, id: id, partner: partner,
            nameKo: nameKo, nameEn: nameEn?.value, kind: kind, status: status, repayment: repayment, repaymentMark: methods?.mark, termsMonths: terms,
            limitMin: limitMin, limitMax: limitMax, originationFee: origination, earlyRepaymentFee: early,
            earlyRepaymentMonths: earlyMonths, lateSpread: spread, lateMax: lateMax, requiredPhrases: phrases,
            description: description, policyProgram: program)
    }
}
