import Foundation
import RatecardSupport

/// Mandatory disclosures, partner status reasons, consent flags and banned advertising wording.
public enum DisclosureRules {
    public static let productPhrases = Rule("DSC-01", .error, "products list every mandatory phrase", "금소법 제22조③, 시행령 제18조: every loan page carries the standard warnings.")
    public static let documentPhrases = Rule(
        "DSC-02", .error, "documents contain their mandatory phrases verbatim", "금소법 제26조①: the broker notice must say whom we act for, that we cannot sign contracts and take no fee.")
    public static let statusReason = Rule("DSC-03", .error, "paused or terminated partners give a reason", "Staff and auditors must see why a lender disappeared from results.")
    public static let reconsent = Rule("DSC-04", .error, "re-consent only for consent documents", "개인정보보호법 제15조②·제17조②: re-consent applies to documents that are consented to.")
    public static let emptyBody = Rule("DSC-05", .error, "terms have a body", "An empty terms page is shown to a user who must agree to it.")
    public static let prohibited = Rule(
        "DSC-06", .error, "no prohibited advertising wording",
        "금소법 제22조④, 시행령 제20조, 대부업법 제11조의2②: no approval regardless of credit, no guaranteed lowest rate, no interest quoted per day, no fee from the borrower, in any text a user sees (checked after rendering and Unicode normalization); a terms body may quote such wording only to warn against it, with a quotation warning word."
    )
    public static let advertisedRate = Rule(
        "DSC-07", .error, "an advertised minimum rate is the table's",
        "금소법 제22조④4가: a rate in the product's copy ('최저 연 x%', '연 x%부터') is the lowest rate of its table in force; anything lower misleads.")
    public static let securedAsUnsecured = Rule(
        "DSC-08", .error, "a secured loan is not advertised as unsecured",
        "금소법 제22조④, 시행령 제20조①: a loan against collateral called a 신용대출 or 무담보 hides what the borrower puts at risk (FSS 2025 loan-ad review).")

    public static let phraseForOthers = Rule(
        "DSC-09", .error, "products carry only the notices that apply to them",
        "금소법 제46조①, 시행령 제37조①3: a P2P-linked loan has no 14-day withdrawal right and others do; telling a borrower the wrong one misleads about a right they rely on.")

    public static let optionalStaysOptional = Rule(
        "DSC-13", .error, "an optional consent is never made required",
        "개인정보보호법 제22조①⑤, 신용정보법 제32조④: what a user may refuse cannot become a condition of the service; ask for a new, separate required consent instead.")
    public static let majorNeedsReconsent = Rule(
        "DSC-14", .error, "a new major version of a consent asks again", "개인정보보호법 제15조②·제17조②: a material change to what a user consented to (a major version) needs their consent again.")
    public static let noticePeriod = Rule(
        "DSC-15", .error, "terms changes are announced ahead",
        "전자금융거래법 제24조③: a change to the terms is posted at least one month before it takes effect (terms_notice_days in regulatory/limits.yaml, 30).")

    public static let recipients = Rule(
        "DSC-16", .error, "the provision consent names every lender",
        "개인정보보호법 제17조②1, 신용정보법 제32조①: the consent to provide data names who receives it; a new lender is added in a new major version that asks users again, in force by the lender's go_live day.")

    public static let withdrawalPeriod = Rule(
        "DSC-19", .error, "a stated withdrawal period is the law's",
        "금소법 제46조①3: a borrower may withdraw a loan application for 14 days (withdrawal_period_days in regulatory/limits.yaml); a notice stating fewer days tells them they have lost a right they still have."
    )

    public static let all = [
        productPhrases, documentPhrases, statusReason, reconsent, emptyBody, prohibited, advertisedRate, securedAsUnsecured, phraseForOthers, optionalStaysOptional, majorNeedsReconsent, noticePeriod,
        recipients, withdrawalPeriod,
    ]

    package static func check(_ content: Content, _ context: ValidationContext, into diagnostics: Diagnostics) {
        let phrases = content.phrases ?? []
        let productPhrases = phrases.filter { $0.pages.contains { $0.value == .product } }
        let phrasesByID = Dictionary(phrases.map { ($0.id.value, $0) }, uniquingKeysWith: { first, _ in first })
        let partners = content.partnersByID
        let tablesByProduct = content.rateTablesByProduct
        let pending = content.partnersGoingLive(after: context.asOf)
        for product in content.products {
            let listed = Set(product.requiredPhrases.value.map(\.value))
            let category = partners[product.partner.value]?.category.value
            for phrase in productPhrases
            where !listed.contains(phrase.id.value)
                // A partner that did not parse has no category: only unconditional phrases then.
                && category.map(phrase.applies(to:)) ?? (phrase.partnerCategories.isEmpty && phrase.notPartnerCategories.isEmpty)
            {
                let whose = phrase.partnerCategories.isEmpty && phrase.notPartnerCategories.isEmpty ? "every product page" : "the page of every \(category?.rawValue ?? "") partner's product"
                diagnostics.report(Self.productPhrases, product.path, product.requiredPhrases.mark, "required_phrases lacks '\(phrase.id.value)', which \(whose) must show")
            }
            if let category {
                for id in product.requiredPhrases.value {
                    guard let phrase = phrasesByID[id.value], !phrase.applies(to: category) else { continue }
                    diagnostics.report(
                        phraseForOthers, product.path, id.mark,
                        "'\(id.value)' is not for the products of a \(category.rawValue) partner (regulatory/phrases.yaml line \(phrase.id.mark.line)); remove it\(category == .p2p ? " and list the P2P notice instead" : "")"
                    )
                }
            }
            let tables = tablesByProduct[product.key] ?? []
            for (field, value) in product.copyFields {
                let copy = CopyText(plain: value.value, at: value.mark)
                reportProhibited(in: copy, field: field, path: product.path, into: diagnostics)
                checkAdvertisedRate(copy, field: field, product: product, tables: tables, on: Content.offerDay(of: product, asOf: context.asOf, pending: pending), into: diagnostics)
                if product.kind.value == .autoSecured, let match = firstMatch(unsecuredWording, in: copy.text) {
                    diagnostics.report(
                        securedAsUnsecured, product.path, value.mark,
                        "\(field) calls this \(product.kind.value.rawValue) loan '\(match)', but it is lent against collateral; describe it as a secured loan (담보대출)")
                }
            }
        }
        if let config = content.config {
            reportProhibited(in: CopyText(plain: config.serviceName.value, at: config.serviceName.mark), field: "service_name", path: config.path, into: diagnostics)
        }
        for partner in content.partners {
            var fields = [("name_ko", partner.nameKo)]
            if let reason = partner.statusReason { fields.append(("status_reason", reason)) }
            for (field, value) in fields {
                reportProhibited(in: CopyText(plain: value.value, at: value.mark), field: field, path: partner.path, into: diagnostics)
            }
        }
        for phrase in phrases {
            let text = phrase.text(config: content.config)
            for document in phrase.documents {
                for terms in currentVersions(of: document.value, in: content, on: context.asOf) {
                    // Judged on the rendered page: emphasis inside the sentence is fine, a
                    // sentence inside an HTML comment (which is never shown) is missing.
                    let shown = CommonMark.renderedText(terms.body).string
                    guard !normalized(shown).contains(normalized(text)) else { continue }
                    if normalized(terms.body).contains(normalized(text)), let line = sourceLine(of: text, in: terms.body) {
                        diagnostics.report(
                            documentPhrases, terms.path, SourceMark(line: terms.bodyLine + line, column: 1),
                            "the mandatory phrase '\(phrase.id.value)' is written here but not shown: it is inside an HTML comment or raw HTML, which pages drop; write it as plain text")
                    } else {
                        diagnostics.report(documentPhrases, terms.path, SourceMark(line: terms.bodyLine, column: 1), "the body lacks the mandatory phrase '\(phrase.id.value)': \"\(text)\"")
                    }
                }
            }
        }
        // A reason of spaces or invisible characters says nothing: judged after normalization.
        for partner in content.partners
        where partner.status.value != .active
            && (partner.statusReason.map { CopyText(plain: $0.value, at: $0.mark).text.isEmpty } ?? true)
        {
            diagnostics.report(
                statusReason, partner.path, partner.statusReason?.mark ?? partner.status.mark, "a \(partner.status.value.rawValue) partner needs status_reason saying why, in words a user can read")
        }
        checkVersions(content, context, into: diagnostics)
        checkWithdrawalPeriods(content, context, into: diagnostics)
        checkRecipients(content, context, into: diagnostics)
        let warnings = content.quotationWarnings.map(\.value)
        let warningList = warnings.isEmpty ? "none listed" : warnings.joined(separator: ", ")
        for terms in content.terms {
            if terms.requiresReconsent.value && terms.consent.value == .none {
                diagnostics.report(reconsent, terms.path, terms.requiresReconsent.mark, "requires_reconsent is true but consent is none; only consented documents can need re-consent")
            }
            if terms.body.allSatisfy(\.isWhitespace) {
                diagnostics.report(emptyBody, terms.path, SourceMark(line: terms.bodyLine, column: 1), "the document has no body below its front matter")
            }
            for (field, value) in [("title", terms.title), ("summary", terms.summary)] {
                reportProhibited(in: CopyText(plain: value.value, at: value.mark), field: field, path: terms.path, into: diagnostics)
            }
            for hit in terms.prohibitedWording {
                if let quotation = hit.quotation {
                    guard !AdWording.warns(quotation, warnings) else { continue }
                    diagnostics.report(
                        prohibited, terms.path, hit.mark,
                        "the text quotes \(hit.claim) ('\(hit.wording)') without warning against it; \(hit.advice). A quotation is a warning only when a word of quotation_warnings in regulatory/phrases.yaml (\(warningList)) follows it in its sentence, or for a block quote, stands in it or in the line before it"
                    )
                } else {
                    diagnostics.report(
                        prohibited, terms.path, hit.mark,
                        "the text claims \(hit.claim) ('\(hit.wording)'); \(hit.advice). Quoting such wording to warn against it is allowed: in quotation marks followed by a warning word (quotation_warnings in regulatory/phrases.yaml), or in a block quote ('> ...') with one"
                    )
                }
            }
        }
    }

    package static func reportProhibited(in copy: CopyText, field: String, path: String, into diagnostics: Diagnostics) {
        for hit in AdWording.hits(in: copy) {
            diagnostics.report(prohibited, path, hit.mark, "\(field) claims \(hit.claim) ('\(hit.wording)'); \(hit.advice)")
        }
    }

    /// Words that call a loan unsecured (normalized: no spaces).
    package static let unsecuredWording = try! NSRegularExpression(pattern: "신용대출|무담보|담보(가|를)?(없이|불필요|필요없)|무보증|신용만으로")

    /// A rate the copy advertises as the lowest: '최저 연 x%', '최저 x%', '연 x%부터', '연 x%~'.
    package static let advertisedMinimum = try! NSRegularExpression(pattern: "최저(금리)?(연)?([0-9]+(\\.[0-9]+)?)%|연([0-9]+(\\.[0-9]+)?)%(부터|~|∼|〜)")

    /// An advertised minimum rate equals the lowest rate of the table in force on `day` (or,
    /// for a product with none in force, its latest table).
    package static func checkAdvertisedRate(_ copy: CopyText, field: String, product: Product, tables: [RateTable], on day: Day, into diagnostics: Diagnostics) {
        let text = copy.text
        guard let table = tables.last(where: { $0.isInForce(on: day) }) ?? tables.last,
            let lowest = table.bands.map(\.aprMin.value).min()
        else { return }
        for match in advertisedMinimum.matches(in: text, range: NSRange(text.startIndex..<text.endIndex, in: text)) {
            let group = match.range(at: 3).location != NSNotFound ? 3 : 5
            guard let range = Range(match.range(at: group), in: text), let (advertised, _) = Percent.parse(String(text[range])) else { continue }
            if advertised != lowest {
                diagnostics.report(
                    advertisedRate, product.path, copy.mark(at: 0),
                    "\(field) advertises a lowest rate of \(advertised)% but the lowest apr_min_pct of \(table.path.split(separator: "/").last ?? "") is \(lowest)%; quote the table's rate or remove the figure"
                )
            }
        }
    }

    package static func firstMatch(_ expression: NSRegularExpression, in text: String) -> String? {
        guard let match = expression.firstMatch(in: text, range: NSRange(text.startIndex..<text.endIndex, in: text)),
            let range = Range(match.range, in: text)
        else { return nil }
        return String(text[range])
    }

    /// A withdrawal period stated in normalized text: 'N일 이내에 (청약을) 철회', or '(청약)철회
    /// (기간)은 N일', 'N' in the first group that holds digits. A period of business days, or a
    /// deadline after the withdrawal ('철회 후 3영업일 이내 반환'), is not one.
    package static let statedWithdrawal = try! NSRegularExpression(
        pattern: "([0-9]{1,3})일(이내|안|내|간|동안)?(에|에는)?(청약|대출계약|계약|대출신청|신청)?(을|를|의)?철회|철회(할수있는|가능)?(기간|기한)?(은|는|이|가|:)?([0-9]{1,3})일"
    )

    /// DSC-19: every withdrawal period the copy states (mandatory phrases, the versions of terms
    /// in force or scheduled, products' copy) is at least the period in force.
    package static func checkWithdrawalPeriods(_ content: Content, _ context: ValidationContext, into diagnostics: Diagnostics) {
        guard let limits = content.limits else { return }
        func check(_ copy: CopyText, on day: Day, path: String, what: String) {
            guard let law = limits.inForce(.withdrawalPeriodDays, on: day) else { return }
            let minimum = law.value.thousandths / 1000
            let text = copy.text
            let string = NSString(string: text)
            guard text.contains("철회") else { return }
            for match in statedWithdrawal.matches(in: text, range: NSRange(location: 0, length: string.length)) {
                let group = match.range(at: 1).location != NSNotFound ? 1 : 9
                guard let days = Int(string.substring(with: match.range(at: group))), days < minimum else { continue }
                let offset = string.substring(to: match.range.location).unicodeScalars.count
                diagnostics.report(
                    withdrawalPeriod, path, copy.mark(at: offset),
                    "\(what) states a withdrawal period of \(days) days ('\(string.substring(with: match.range))'); a borrower may withdraw for \(minimum) days (withdrawal_period_days in regulatory/limits.yaml: \(law.citation)), so write \(minimum)일"
                )
            }
        }
        for phrase in content.phrases ?? [] {
            check(CopyText(plain: phrase.text(config: content.config), at: phrase.ko.mark), on: context.asOf, path: content.root.path("regulatory/phrases.yaml"), what: "phrase '\(phrase.id.value)'")
        }
        for product in content.products {
            for (field, value) in product.copyFields {
                check(CopyText(plain: value.value, at: value.mark), on: context.asOf, path: product.path, what: field)
            }
        }
        for document in content.documentIDs {
            for terms in currentVersions(of: document, in: content, on: context.asOf) where terms.body.contains("철회") {
                check(CopyText(markdown: terms.body, firstLine: terms.bodyLine), on: max(context.asOf, terms.effectiveFrom.value), path: terms.path, what: "the body")
            }
        }
    }

    /// DSC-16: a consent with `recipients: partners` names, in its rendered text, every partner
    /// that is not terminated (its current and scheduled versions; a partner that goes live
    /// later, from the version in force on its go-live day), and a version that names a partner
    /// the version before it did not is a major version asking for consent again.
    package static func checkRecipients(_ content: Content, _ context: ValidationContext, into diagnostics: Diagnostics) {
        let partners = content.partners.filter { $0.status.value != .terminated }.sorted { $0.id.value < $1.id.value }
        for (document, versions) in content.versionsByDocument where versions.contains(where: { $0.namesPartners != nil }) {
            let current = Set(currentVersions(of: document, in: content, on: context.asOf).map(\.fileVersion))
            var previousNames: Set<String>?
            for (index, version) in versions.enumerated() {
                let shown = CopyText(plain: CommonMark.renderedText(version.body).string, at: SourceMark(line: version.bodyLine, column: 1)).text
                let named = Set(content.partners.filter { shown.contains(CopyText(plain: $0.nameKo.value, at: $0.nameKo.mark).text) }.map(\.id.value))
                defer { previousNames = named }
                guard version.namesPartners != nil else { continue }
                if current.contains(version.fileVersion) {
                    // In force until the next version takes effect: a partner that goes live after
                    // that is named by the version in force on its go-live day instead.
                    let replaced = index + 1 < versions.count ? versions[index + 1].effectiveFrom.value : nil
                    for partner in partners where !named.contains(partner.id.value) {
                        if let goLive = partner.goLive?.value, goLive > context.asOf {
                            guard replaced.map({ goLive < $0 }) ?? true else { continue }
                            diagnostics.report(
                                recipients, version.path, SourceMark(line: version.bodyLine, column: 1),
                                "the consent does not name partner '\(partner.nameKo.value)' (\(partner.path)), which goes live on \(goLive) while this version is in force; name it in a new major version with requires_reconsent: true that takes effect on \(goLive) or before, or move go_live"
                            )
                        } else {
                            diagnostics.report(
                                recipients, version.path, SourceMark(line: version.bodyLine, column: 1),
                                "the consent does not name partner '\(partner.nameKo.value)' (\(partner.path)), which receives the data; add it in a new major version with requires_reconsent: true")
                        }
                    }
                }
                guard index > 0, let previousNames else { continue }
                let added = named.subtracting(previousNames).sorted()
                let isMajor = (version.semver?.first ?? 0) > (versions[index - 1].semver?.first ?? 0)
                if !added.isEmpty && !(isMajor && version.requiresReconsent.value) {
                    diagnostics.report(
                        recipients, version.path, version.version.mark,
                        "version \(version.fileVersion) adds recipients (\(added.joined(separator: ", "))) that users did not consent to; make it a major version with requires_reconsent: true")
                }
            }
        }
    }

    /// DSC-13..15: how one document's versions follow each other.
    package static func checkVersions(_ content: Content, _ context: ValidationContext, into diagnostics: Diagnostics) {
        for (_, versions) in content.versionsByDocument {
            var wasOptional = false
            for (index, version) in versions.enumerated() {
                if wasOptional && version.consent.value == .required {
                    diagnostics.report(
                        optionalStaysOptional, version.path, version.consent.mark,
                        "an earlier version of this document was an optional consent; a user who refused it cannot be made to accept it, so keep consent: optional (a required consent is a separate document)"
                    )
                }
                if version.consent.value == .optional { wasOptional = true }
                guard index > 0, let now = version.semver, let before = versions[index - 1].semver else { continue }
                if now[0] > before[0] && version.consent.value != .none && !version.requiresReconsent.value {
                    diagnostics.report(
                        majorNeedsReconsent, version.path, version.requiresReconsent.mark,
                        "version \(version.fileVersion) is a major change to a consent (from \(versions[index - 1].fileVersion)); set requires_reconsent: true, or make it a minor version if nothing material changed"
                    )
                }
                // A change to terms users accepted, not yet in force: announced a month ahead
                // (the period in force on the day it takes effect, from limits.yaml).
                guard version.consent.value == .required, !version.requiresReconsent.value, version.effectiveFrom.value > context.asOf,
                    let period = content.limits?.inForce(.termsNoticeDays, on: version.effectiveFrom.value)
                else { continue }
                let noticeDays = period.value.thousandths / 1000
                let latest = version.effectiveFrom.value.adding(days: -noticeDays)
                if let announced = version.announcedOn {
                    if announced.value > latest {
                        diagnostics.report(
                            noticePeriod, version.path, announced.mark,
                            "announced_on \(announced.value) is less than \(noticeDays) days before effective_from \(version.effectiveFrom.value); move effective_from to \(announced.value.adding(days: noticeDays)) or later"
                        )
                    }
                } else {
                    diagnostics.report(
                        noticePeriod, version.path, version.effectiveFrom.mark,
                        "a change to terms users accepted takes effect on \(version.effectiveFrom.value) and must be announced \(noticeDays) days before; add announced_on (\(latest) at the latest)")
                }
            }
        }
    }

    /// The version in force on `day` and every version scheduled after it.
    package static func currentVersions(of document: String, in content: Content, on day: Day) -> [TermsVersion] {
        let versions = content.versions(of: document)
        let current = versions.last { $0.effectiveFrom.value <= day }
        return versions.filter { $0.effectiveFrom.value > day } + (current.map { [$0] } ?? [])
    }

    /// The 0-based line of `body` that holds the start of `text` (its first 12 characters), if any.
    package static func sourceLine(of text: String, in body: String) -> Int? {
        let start = String(text.prefix(12))
        return body.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains(start) }
    }

    /// Whitespace runs collapsed to one space, so line wrapping in Markdown does not matter.
    package static func normalized(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
