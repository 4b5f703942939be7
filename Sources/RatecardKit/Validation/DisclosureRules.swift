/// Mandatory disclosures, partner status reasons, consent flags and banned advertising wording.
public enum DisclosureRules {
    public static let productPhrases = Rule("DSC-01", .error, "products list every mandatory phrase", "금소법 제22조③, 시행령 제18조: every loan page carries the standard warnings.")
    public static let documentPhrases = Rule("DSC-02", .error, "documents contain their mandatory phrases verbatim", "금소법 제26조①: the broker notice must say whom we act for, that we cannot sign contracts and take no fee.")
    public static let statusReason = Rule("DSC-03", .error, "paused or terminated partners give a reason", "Staff and auditors must see why a lender disappeared from results.")
    public static let reconsent = Rule("DSC-04", .error, "re-consent only for consent documents", "개인정보보호법 제15조②·제17조②: re-consent applies to documents that are consented to.")
    public static let emptyBody = Rule("DSC-05", .error, "terms have a body", "An empty terms page is shown to a user who must agree to it.")
    public static let prohibited = Rule("DSC-06", .error, "no prohibited advertising wording", "금소법 제22조④, 시행령 제20조: no '누구나 대출', '무조건 승인', '업계 최저' and the like.")

    public static let all = [productPhrases, documentPhrases, statusReason, reconsent, emptyBody, prohibited]

    /// Wording that lender advertising may not use (self-regulation and 금소법 시행령 제20조).
    static let bannedWording = ["누구나 대출", "무조건 승인", "100% 승인", "무심사", "신용불량자 환영", "업계 최저"]

    static func check(_ content: Content, _ context: ValidationContext, into diagnostics: Diagnostics) {
        let phrases = content.phrases ?? []
        let productPhraseIDs = phrases.filter { $0.pages.contains { $0.value == .product } }.map(\.id.value)
        for product in content.products {
            let listed = Set(product.requiredPhrases.value.map(\.value))
            for id in productPhraseIDs where !listed.contains(id) {
                diagnostics.report(productPhrases, product.path, product.requiredPhrases.mark, "required_phrases lacks '\(id)', which every product page must show")
            }
            if let description = product.description {
                for word in bannedWording where WordScan.contains(word, in: description.value) {
                    diagnostics.report(prohibited, product.path, description.mark, "description_ko uses the prohibited wording '\(word)'")
                }
            }
        }
        for phrase in phrases {
            let text = phrase.text(config: content.config)
            for document in phrase.documents {
                for terms in currentVersions(of: document.value, in: content, on: context.asOf)
                where !normalized(terms.body).contains(normalized(text)) {
                    diagnostics.report(documentPhrases, terms.path, SourceMark(line: terms.bodyLine, column: 1), "the body lacks the mandatory phrase '\(phrase.id.value)': \"\(text)\"")
                }
            }
        }
        for partner in content.partners where partner.status.value != .active && (partner.statusReason?.value.isEmpty ?? true) {
            diagnostics.report(statusReason, partner.path, partner.status.mark, "a \(partner.status.value.rawValue) partner needs status_reason saying why")
        }
        for terms in content.terms {
            if terms.requiresReconsent.value && terms.consent.value == .none {
                diagnostics.report(reconsent, terms.path, terms.requiresReconsent.mark, "requires_reconsent is true but consent is none; only consented documents can need re-consent")
            }
            if terms.body.allSatisfy(\.isWhitespace) {
                diagnostics.report(emptyBody, terms.path, SourceMark(line: terms.bodyLine, column: 1), "the document has no body below its front matter")
            }
            for hit in terms.prohibitedWording {
                diagnostics.report(prohibited, terms.path, SourceMark(line: terms.bodyLine + hit.line, column: hit.column), "prohibited advertising wording '\(hit.word)'")
            }
        }
    }

    /// The version in force on `day` and every version scheduled after it.
    static func currentVersions(of document: String, in content: Content, on day: Day) -> [TermsVersion] {
        let versions = content.versions(of: document)
        let current = versions.last { $0.effectiveFrom.value <= day }
        return versions.filter { $0.effectiveFrom.value > day } + (current.map { [$0] } ?? [])
    }

    /// Whitespace runs collapsed to one space, so line wrapping in Markdown does not matter.
    static func normalized(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
