import RatecardSupport

/// A mandatory disclosure phrase from `regulatory/phrases.yaml`.
public struct Phrase: Sendable, Equatable {
    public enum Page: String, CaseIterable, Sendable {
        case product
        case rates
    }

    public var id: Located<String>
    public var ko: Located<String>
    public var pages: [Located<Page>]
    public var documents: [Located<String>]
    public var basis: String
    /// Partner categories whose products the phrase is for (`partner_categories`; empty: all).
    public var partnerCategories: [Located<Partner.Category>] = []
    /// Partner categories whose products must not carry it (`not_partner_categories`): the
    /// withdrawal right, which P2P-linked loans do not have.
    public var notPartnerCategories: [Located<Partner.Category>] = []

    /// Whether the phrase is for products of a partner of `category`.
    public func applies(to category: Partner.Category) -> Bool {
        (partnerCategories.isEmpty || partnerCategories.contains { $0.value == category })
            && !notPartnerCategories.contains { $0.value == category }
    }

    /// The partner categories whose product pages must show it (none unless `pages` has product).
    package var requiredForCategories: [Partner.Category] {
        guard pages.contains(where: { $0.value == .product }) else { return [] }
        return Partner.Category.allCases.filter(applies(to:))
    }

    /// The text with `{service_name}` and `{broker_registration_no}` filled in.
    public func text(config: ServiceConfig?) -> String {
        var text = ko.value
        if let config {
            text = text.replacingAll("{service_name}", with: config.serviceName.value)
            text = text.replacingAll("{broker_registration_no}", with: config.brokerRegistrationNo.value)
        }
        return text
    }

    /// The phrases of `phrases.yaml`, and its `quotation_warnings`: the words that, after
    /// wording quoted in a terms body, say it is quoted to warn against it (DSC-06).
    package static func readAll(_ node: YAMLNode, path: String, diagnostics: Diagnostics) -> (phrases: [Phrase]?, quotationWarnings: [Located<String>]) {
        guard let fields = MappingReader(node, path: path, what: .verbatim("phrases.yaml"), diagnostics: diagnostics, table: FieldTables.phrases) else { return (nil, []) }
        defer { fields.finish() }
        let warnings = fields.strings("quotation_warnings", required: false)?.value ?? []
        for word in warnings where CopyText(plain: word.value, at: word.mark).text.count < 2 {
            diagnostics.report(
                SchemaRules.notAllowed, path, word.mark,
                Message(
                    "quotation warning '\(word.value)' is shorter than two characters; a warning word says what is wrong (불법, 사기, 주의)",
                    ko: "인용 경고어 '\(word.value)'이(가) 두 글자보다 짧습니다; 경고어는 무엇이 잘못인지 말해야 합니다 (불법, 사기, 주의)"))
        }
        return (readPhrases(fields, path: path, diagnostics: diagnostics), warnings)
    }

    private static func readPhrases(_ fields: MappingReader, path: String, diagnostics: Diagnostics) -> [Phrase]? {
        guard let items = fields.list("phrases") else { return nil }
        if items.value.isEmpty {
            diagnostics.report(SchemaRules.empty, path, items.mark, Message("'phrases' is empty; the mandatory disclosure phrases belong here", ko: "'phrases'가 비어 있습니다; 필수 고지 문구를 여기에 씁니다"))
        }
        var phrases: [Phrase] = []
        for item in items.value {
            guard let entry = MappingReader(item, path: path, what: Message("a phrase", ko: "문구 항목"), diagnostics: diagnostics, table: FieldTables.phrase) else { continue }
            let id = entry.string("id")
            let ko = entry.string("ko")
            var pages: [Located<Page>] = []
            for page in entry.strings("pages", required: false)?.value ?? [] {
                if let value = Page(rawValue: page.value) {
                    pages.append(Located(value, at: page.mark))
                } else {
                    diagnostics.report(
                        SchemaRules.notAllowed, path, page.mark, Message("page '\(page.value)' is not one of: product, rates", ko: "page '\(page.value)'은(는) 쓸 수 없습니다. 쓸 수 있는 값: product, rates"))
                }
            }
            let documents = entry.strings("documents", required: false)?.value ?? []
            func categories(_ key: String) -> [Located<Partner.Category>] {
                (entry.strings(key, required: false)?.value ?? []).compactMap { name in
                    if let value = Partner.Category(rawValue: name.value) { return Located(value, at: name.mark) }
                    let allowed = Partner.Category.allCases.map(\.rawValue).joined(separator: ", ")
                    diagnostics.report(
                        SchemaRules.notAllowed, path, name.mark, Message("partner category '\(name.value)' is not one of: \(allowed)", ko: "제휴사 분류 '\(name.value)'은(는) 쓸 수 없습니다. 쓸 수 있는 값: \(allowed)"))
                    return nil
                }
            }
            let only = categories("partner_categories")
            let except = categories("not_partner_categories")
            let basis = entry.string("basis")
            entry.finish()
            guard let id, let ko, let basis else { continue }
            if !SchemaRules.isValidID(id.value) {
                diagnostics.report(
                    SchemaRules.identifier, path, id.mark, Message("phrase id '\(id.value)' must match ^[a-z0-9][a-z0-9-]{0,62}$", ko: "문구 id '\(id.value)'은(는) ^[a-z0-9][a-z0-9-]{0,62}$ 형식이어야 합니다"))
            }
            if let first = phrases.first(where: { $0.id.value == id.value }) {
                diagnostics.report(
                    SchemaRules.identifier, path, id.mark,
                    Message("phrase id '\(id.value)' is already used at line \(first.id.mark.line)", ko: "문구 id '\(id.value)'은(는) 이미 \(first.id.mark.line)번째 줄에서 쓰였습니다"))
            }
            phrases.append(Phrase(id: id, ko: ko, pages: pages, documents: documents, basis: basis.value, partnerCategories: only, notPartnerCategories: except))
        }
        return phrases
    }
}

extension String {
    /// Every occurrence of `target` replaced (no Foundation needed).
    package func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = Substring(self)
        while let range = rest.range(of: target) {
            result += rest[..<range.lowerBound]
            result += replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
