import RatecardSupport

/// A partner lender: `partners/<id>.yaml`.
public struct Partner: Sendable, Equatable {
    public enum Category: String, CaseIterable, Sendable {
        case bank
        case internetBank = "internet_bank"
        case savingsBank = "savings_bank"
        case card
        case capital
        case insurance
        case p2p
    }

    public enum Status: String, CaseIterable, Sendable {
        case active
        case paused
        case terminated
    }

    public var path: String
    public var fileID: String
    public var mark: SourceMark
    public var id: Located<String>
    public var nameKo: Located<String>
    public var nameEn: String?
    public var category: Located<Category>
    public var status: Located<Status>
    public var statusReason: Located<String>?
    public var displayOrder: Located<Int>
    public var logo: Located<String>
    public var phone: Located<String>
    public var website: Located<String>
    public var brn: Located<String>
    public var kftcBankCode: Located<String>?
    /// The day the partner goes live (`go_live`, optional): before it the partner, its products
    /// and its logo are in no release, and the rules that judge what is offered judge its
    /// products as of that day. Staff commit a new lender, its products and the consent that
    /// names it together, ahead of time.
    public var goLive: Located<Day>? = nil

    /// Whether the partner is shown on `day` (it has no go-live date, or that day has come).
    public func isLive(on day: Day) -> Bool { goLive.map { $0.value <= day } ?? true }

    package static func read(_ node: YAMLNode, path: String, fileID: String, diagnostics: Diagnostics) -> Partner? {
        guard let fields = MappingReader(node, path: path, what: Message("a partner", ko: "제휴사"), diagnostics: diagnostics, table: FieldTables.partner) else { return nil }
        defer { fields.finish() }
        let id = fields.string("id")
        let nameKo = fields.string("name_ko")
        let nameEn = fields.string("name_en", required: false)
        let category: Located<Category>? = fields.choice("category")
        let status: Located<Status>? = fields.choice("status")
        let reason = fields.string("status_reason", required: false)
        let order = fields.integer("display_order")
        let logo = fields.string("logo")
        let contact = fields.mapping("contact")
        let phone = contact?.string("phone")
        let website = contact?.string("website")
        contact?.finish()
        let registration = fields.mapping("registration")
        let brn = registration?.string("brn")
        let kftc = registration?.string("kftc_bank_code", required: false)
        registration?.finish()
        let goLive = fields.day("go_live", required: false)
        guard let id, let nameKo, let category, let status, let order, let logo, let phone, let website, let brn else { return nil }
        return Partner(
            path: path, fileID: fileID, mark: node.mark, id: id, nameKo: nameKo, nameEn: nameEn?.value,
            category: category, status: status, statusReason: reason, displayOrder: order, logo: logo,
            phone: phone, website: website, brn: brn, kftcBankCode: kftc, goLive: goLive)
    }
}
