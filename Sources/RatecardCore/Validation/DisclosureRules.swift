import Foundation
import RatecardSupport

/// Mandatory disclosures, partner status reasons, consent flags and banned advertising wording.
public enum DisclosureRules {
    public static let productPhrases = Rule(
        "DSC-01", .error, "products list every mandatory phrase", "금소법 제22조③, 시행령 제18조: every loan page carries the standard warnings.",
        ko: "상품은 필수 문구를 모두 나열함", "금소법 제22조③, 시행령 제18조: 모든 대출 페이지에는 표준 경고 문구가 들어갑니다.")
    public static let documentPhrases = Rule(
        "DSC-02", .error, "documents contain their mandatory phrases verbatim", "금소법 제26조①: the broker notice must say whom we act for, that we cannot sign contracts and take no fee.",
        ko: "문서에 필수 문구가 글자 그대로 있음", "금소법 제26조①: 대출모집인 고지에는 누구를 대리하는지, 계약을 체결할 수 없다는 것, 수수료를 받지 않는다는 것이 있어야 합니다.")
    public static let statusReason = Rule(
        "DSC-03", .error, "paused or terminated partners give a reason", "Staff and auditors must see why a lender disappeared from results.",
        ko: "일시 중지·계약 종료된 제휴사에는 사유가 있음", "직원과 감사인은 금융사가 검색 결과에서 사라진 이유를 알 수 있어야 합니다.")
    public static let reconsent = Rule(
        "DSC-04", .error, "re-consent only for consent documents", "개인정보보호법 제15조②·제17조②: re-consent applies to documents that are consented to.",
        ko: "재동의는 동의 문서에만", "개인정보보호법 제15조②·제17조②: 재동의는 동의를 받는 문서에만 해당합니다.")
    public static let emptyBody = Rule(
        "DSC-05", .error, "terms have a body", "An empty terms page is shown to a user who must agree to it.",
        ko: "약관에 본문이 있음", "본문 없는 약관 페이지가 동의해야 하는 사용자에게 그대로 보입니다.")
    public static let prohibited = Rule(
        "DSC-06", .error, "no prohibited advertising wording",
        "금소법 제22조④, 시행령 제20조, 대부업법 제11조의2②: no approval regardless of credit, no guaranteed lowest rate, no interest quoted per day, no fee from the borrower, in any text a user sees (checked after rendering and Unicode normalization); a terms body may quote such wording only to warn against it, with a quotation warning word.",
        ko: "금지된 광고 문구 없음",
        "금소법 제22조④, 시행령 제20조, 대부업법 제11조의2②: 사용자가 보는 어떤 글에도 신용과 무관한 승인, 최저금리 보장, 일 단위 이자 표시, 차입자에게서 받는 수수료가 없어야 합니다 (렌더링과 유니코드 정규화 뒤에 검사). 약관 본문은 이런 문구를 경고하려고 인용할 때만, 인용 경고어와 함께 쓸 수 있습니다."
    )
    public static let advertisedRate = Rule(
        "DSC-07", .error, "an advertised minimum rate is the table's",
        "금소법 제22조④4가: a rate in the product's copy ('최저 연 x%', '연 x%부터') is the lowest rate of its table in force; anything lower misleads.",
        ko: "광고하는 최저금리는 금리표의 최저금리", "금소법 제22조④4가: 상품 문구의 금리('최저 연 x%', '연 x%부터')는 시행 중인 금리표의 최저금리여야 합니다. 그보다 낮으면 오해를 낳습니다.")
    public static let securedAsUnsecured = Rule(
        "DSC-08", .error, "a secured loan is not advertised as unsecured",
        "금소법 제22조④, 시행령 제20조①: a loan against collateral called a 신용대출 or 무담보 hides what the borrower puts at risk (FSS 2025 loan-ad review).",
        ko: "담보대출을 무담보로 광고하지 않음", "금소법 제22조④, 시행령 제20조①: 담보가 있는 대출을 신용대출이나 무담보라고 부르면 차입자가 무엇을 걸었는지 감춥니다 (금융감독원 2025 대출 광고 점검).")

    public static let phraseForOthers = Rule(
        "DSC-09", .error, "products carry only the notices that apply to them",
        "금소법 제46조①, 시행령 제37조①3: a P2P-linked loan has no 14-day withdrawal right and others do; telling a borrower the wrong one misleads about a right they rely on.",
        ko: "상품에는 해당하는 고지만 붙임", "금소법 제46조①, 시행령 제37조①3: 온라인투자연계(P2P) 대출에는 14일 청약철회권이 없고 다른 대출에는 있습니다. 잘못된 고지는 차입자가 믿는 권리를 오해하게 합니다.")

    public static let optionalStaysOptional = Rule(
        "DSC-13", .error, "an optional consent is never made required",
        "개인정보보호법 제22조①⑤, 신용정보법 제32조④: what a user may refuse cannot become a condition of the service; ask for a new, separate required consent instead.",
        ko: "선택 동의를 필수로 바꾸지 않음", "개인정보보호법 제22조①⑤, 신용정보법 제32조④: 사용자가 거부할 수 있던 것을 서비스 조건으로 바꿀 수 없습니다. 대신 별도의 새 필수 동의를 받으세요.")
    public static let majorNeedsReconsent = Rule(
        "DSC-14", .error, "a new major version of a consent asks again", "개인정보보호법 제15조②·제17조②: a material change to what a user consented to (a major version) needs their consent again.",
        ko: "동의 문서의 새 주 버전은 다시 동의받음", "개인정보보호법 제15조②·제17조②: 사용자가 동의한 내용이 중요하게 바뀌면(주 버전) 다시 동의를 받아야 합니다.")
    public static let noticePeriod = Rule(
        "DSC-15", .error, "terms changes are announced ahead",
        "전자금융거래법 제24조③: a change to the terms is posted at least one month before it takes effect (terms_notice_days in regulatory/limits.yaml, 30).",
        ko: "약관 변경은 미리 공지", "전자금융거래법 제24조③: 약관 변경은 시행 1개월 전까지 게시해야 합니다 (regulatory/limits.yaml의 terms_notice_days, 30).")

    public static let recipients = Rule(
        "DSC-16", .error, "the provision consent names every lender",
        "개인정보보호법 제17조②1, 신용정보법 제32조①: the consent to provide data names who receives it; a new lender is added in a new major version that asks users again, in force by the lender's go_live day.",
        ko: "제공 동의서에 모든 금융사를 밝힘",
        "개인정보보호법 제17조②1, 신용정보법 제32조①: 정보 제공 동의서에는 받는 곳을 밝혀야 합니다. 새 금융사는 다시 동의를 받는 새 주 버전에서, 그 금융사의 go_live 날까지 시행되도록 추가합니다.")

    public static let withdrawalPeriod = Rule(
        "DSC-19", .error, "a stated withdrawal period is the law's",
        "금소법 제46조①3: a borrower may withdraw a loan application for 14 days (withdrawal_period_days in regulatory/limits.yaml); a notice stating fewer days tells them they have lost a right they still have.",
        ko: "안내한 청약철회 기간은 법이 정한 기간",
        "금소법 제46조①3: 차입자는 대출 신청을 14일 동안 철회할 수 있습니다 (regulatory/limits.yaml의 withdrawal_period_days). 그보다 짧게 안내하면 아직 있는 권리를 잃었다고 알리는 셈입니다.")
    public static let droppedMarkup = Rule(
        "DSC-20", .error, "a terms body shows everything it says",
        "A terms page is rendered safely: raw HTML (tags, comments) and links or images to javascript:, data:, vbscript: or other unsafe URLs are left out of it. In a legal document text must not vanish without a word: write it as Markdown, or link to an http(s), mailto: or tel: address.",
        ko: "약관 본문은 쓴 내용을 모두 보여 줌",
        "약관 페이지는 안전하게 렌더링되어 원시 HTML(태그, 주석)과 javascript:, data:, vbscript: 등 안전하지 않은 URL로 가는 링크나 이미지는 빠집니다. 법적 문서의 글이 아무 말 없이 사라지면 안 되므로 Markdown으로 쓰거나 http(s), mailto:, tel: 주소로 링크하세요.")

    public static let all = [
        productPhrases, documentPhrases, statusReason, reconsent, emptyBody, prohibited, advertisedRate, securedAsUnsecured, phraseForOthers, optionalStaysOptional, majorNeedsReconsent, noticePeriod,
        recipients, withdrawalPeriod, droppedMarkup,
    ]

    /// DSC-20: what the page would leave out of a terms body, each where it is written.
    static func reportDropped(_ terms: TermsVersion, into diagnostics: Diagnostics) {
        for dropped in terms.droppedMarkup {
            let mark = SourceMark(line: terms.bodyLine - 1 + max(dropped.line, 1), column: dropped.column)
            var shown = String(dropped.text.trimmingCharacters(in: "\n ").prefix { $0 != "\n" })
            if shown.count > 60 { shown = String(shown.prefix(57)) + "..." }
            let message: Message
            switch dropped.kind {
            case .html:
                message = Message(
                    "raw HTML ('\(shown)') is left out of the published page, with any text inside it; write it as Markdown (a comment's text is not published either: remove it)",
                    ko: "원시 HTML('\(shown)')은 게시되는 페이지에서 빠지고, 그 안의 글도 함께 빠집니다; Markdown으로 쓰세요 (주석의 글도 게시되지 않으니 지우세요)")
            case .link(let url), .image(let url):
                let what = dropped.kind == .link(url: url) ? ("link", "링크") : ("image", "이미지")
                message = Message(
                    "the \(what.0) target '\(shown)' is not a safe URL, so the published page drops it; link to an http(s), mailto: or tel: address, or a page of this site",
                    ko: "\(what.1) 대상 '\(shown)'은(는) 안전한 URL이 아니어서 게시되는 페이지에서 빠집니다; http(s), mailto:, tel: 주소나 이 사이트의 페이지로 링크하세요")
            }
            diagnostics.report(droppedMarkup, terms.path, mark, message)
        }
    }

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
                let message =
                    phrase.partnerCategories.isEmpty && phrase.notPartnerCategories.isEmpty
                    ? Message(
                        "required_phrases lacks '\(phrase.id.value)', which every product page must show", ko: "required_phrases에 '\(phrase.id.value)'이(가) 없습니다; 모든 상품 페이지에 나와야 하는 문구입니다")
                    : Message(
                        "required_phrases lacks '\(phrase.id.value)', which the page of every \(category?.rawValue ?? "") partner's product must show",
                        ko: "required_phrases에 '\(phrase.id.value)'이(가) 없습니다; \(category?.rawValue ?? "") 분류 제휴사의 모든 상품 페이지에 나와야 하는 문구입니다")
                diagnostics.report(Self.productPhrases, product.path, product.requiredPhrases.mark, message)
            }
            if let category {
                for id in product.requiredPhrases.value {
                    guard let phrase = phrasesByID[id.value], !phrase.applies(to: category) else { continue }
                    diagnostics.report(
                        phraseForOthers, product.path, id.mark,
                        Message(
                            "'\(id.value)' is not for the products of a \(category.rawValue) partner (regulatory/phrases.yaml line \(phrase.id.mark.line)); remove it\(category == .p2p ? " and list the P2P notice instead" : "")",
                            ko:
                                "'\(id.value)'은(는) \(category.rawValue) 분류 제휴사의 상품에 붙이는 문구가 아닙니다 (regulatory/phrases.yaml \(phrase.id.mark.line)번째 줄); \(category == .p2p ? "지우고 대신 P2P 고지를 넣으세요" : "지우세요")"
                        )
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
                        Message(
                            "\(field) calls this \(product.kind.value.rawValue) loan '\(match)', but it is lent against collateral; describe it as a secured loan (담보대출)",
                            ko: "\(field)에서 이 \(product.kind.value.rawValue) 대출을 '\(match)'(이)라고 부르지만 담보를 잡는 대출입니다; 담보대출로 설명하세요"))
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
                    let id = phrase.id.value
                    if normalized(terms.body).contains(normalized(text)), let line = sourceLine(of: text, in: terms.body) {
                        diagnostics.report(
                            documentPhrases, terms.path, SourceMark(line: terms.bodyLine + line, column: 1),
                            Message(
                                "the mandatory phrase '\(id)' is written here but not shown: it is inside an HTML comment or raw HTML, which pages drop; write it as plain text",
                                ko: "필수 문구 '\(id)'이(가) 여기 쓰여 있지만 화면에는 나오지 않습니다: 페이지에서 빠지는 HTML 주석이나 HTML 태그 안에 있습니다; 일반 텍스트로 쓰세요"))
                    } else if let nearest = NearestPhrase.find(text, in: terms.body, firstLine: terms.bodyLine) {
                        // A typo in the phrase: point at the line that comes nearest, and say how it differs.
                        diagnostics.report(
                            documentPhrases, terms.path, nearest.mark,
                            Message(
                                "the mandatory phrase '\(id)' is not written exactly: this line comes nearest, and differs in \(nearest.shown); write it as regulatory/phrases.yaml has it: \"\(text)\"",
                                ko: "필수 문구 '\(id)'이(가) 글자 그대로 쓰여 있지 않습니다: 가장 비슷한 이 줄과 다른 곳은 \(nearest.shown)입니다; regulatory/phrases.yaml에 있는 그대로 쓰세요: \"\(text)\""))
                    } else {
                        diagnostics.report(
                            documentPhrases, terms.path, SourceMark(line: terms.bodyLine, column: 1),
                            Message(
                                "the body lacks the mandatory phrase '\(id)': \"\(text)\"; add it as plain text", ko: "본문에 필수 문구 '\(id)'이(가) 없습니다: \"\(text)\"; 일반 텍스트로 추가하세요"))
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
                statusReason, partner.path, partner.statusReason?.mark ?? partner.status.mark,
                Message(
                    "a \(partner.status.value.rawValue) partner needs status_reason saying why, in words a user can read",
                    ko: "status가 \(partner.status.value.rawValue)인 제휴사에는 그 이유를 사용자가 읽을 수 있는 말로 적은 status_reason이 있어야 합니다"))
        }
        checkVersions(content, context, into: diagnostics)
        checkWithdrawalPeriods(content, context, into: diagnostics)
        checkRecipients(content, context, into: diagnostics)
        let warnings = content.quotationWarnings.map(\.value)
        let warningList = warnings.isEmpty ? "none listed" : warnings.joined(separator: ", ")
        for terms in content.terms {
            if terms.requiresReconsent.value && terms.consent.value == .none {
                diagnostics.report(
                    reconsent, terms.path, terms.requiresReconsent.mark,
                    Message("requires_reconsent is true but consent is none; only consented documents can need re-consent", ko: "requires_reconsent가 true인데 consent가 none입니다; 재동의는 동의를 받는 문서에만 필요합니다"))
            }
            reportDropped(terms, into: diagnostics)
            if terms.body.allSatisfy(\.isWhitespace) {
                diagnostics.report(emptyBody, terms.path, SourceMark(line: terms.bodyLine, column: 1), Message("the document has no body below its front matter", ko: "머리말 아래에 본문이 없습니다"))
            }
            for (field, value) in [("title", terms.title), ("summary", terms.summary)] {
                reportProhibited(in: CopyText(plain: value.value, at: value.mark), field: field, path: terms.path, into: diagnostics)
            }
            for hit in terms.prohibitedWording {
                if let quotation = hit.quotation {
                    guard !AdWording.warns(quotation, warnings) else { continue }
                    diagnostics.report(
                        prohibited, terms.path, hit.mark,
                        Message(
                            "the text quotes \(hit.claim) ('\(hit.wording)') without warning against it; \(hit.advice). A quotation is a warning only when a word of quotation_warnings in regulatory/phrases.yaml (\(warningList)) follows it in its sentence, or for a block quote, stands in it or in the line before it",
                            ko:
                                "본문에 인용한 문구('\(hit.wording)')는 경고 없이 쓰였습니다; \(hit.advice). 인용은 regulatory/phrases.yaml의 quotation_warnings 단어(\(warningList))가 같은 문장에서 인용 뒤에 오거나, 인용 블록이면 그 블록이나 바로 앞 줄에 있을 때만 경고로 봅니다"
                        ))
                } else {
                    diagnostics.report(
                        prohibited, terms.path, hit.mark,
                        Message(
                            "the text claims \(hit.claim) ('\(hit.wording)'); \(hit.advice). Quoting such wording to warn against it is allowed: in quotation marks followed by a warning word (quotation_warnings in regulatory/phrases.yaml), or in a block quote ('> ...') with one",
                            ko:
                                "본문에 \(hit.claim)을(를) 내세우는 표현이 있습니다 ('\(hit.wording)'); \(hit.advice). 이런 문구를 경고하려고 인용하는 것은 따옴표 뒤에 경고어(regulatory/phrases.yaml의 quotation_warnings)가 오거나, 경고어가 있는 인용 블록('> ...') 안에서만 허용됩니다"
                        ))
                }
            }
        }
    }

    package static func reportProhibited(in copy: CopyText, field: String, path: String, into diagnostics: Diagnostics) {
        for hit in AdWording.hits(in: copy) {
            diagnostics.report(
                prohibited, path, hit.mark, Message("\(field) claims \(hit.claim) ('\(hit.wording)'); \(hit.advice)", ko: "\(field)에 \(hit.claim)을(를) 내세우는 표현이 있습니다 ('\(hit.wording)'); \(hit.advice)"))
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
        // Both alternatives of the expression hold '%': most copy has none and is not searched.
        guard text.containsBytes("%"), let table = tables.last(where: { $0.isInForce(on: day) }) ?? tables.last,
            let lowest = table.bands.map(\.aprMin.value).min()
        else { return }
        for match in advertisedMinimum.matches(in: text, range: NSRange(text.startIndex..<text.endIndex, in: text)) {
            let group = match.range(at: 3).location != NSNotFound ? 3 : 5
            guard let range = Range(match.range(at: group), in: text), let (advertised, _) = Percent.parse(String(text[range])) else { continue }
            if advertised != lowest {
                diagnostics.report(
                    advertisedRate, product.path, copy.mark(at: 0),
                    Message(
                        "\(field) advertises a lowest rate of \(advertised)% but the lowest apr_min_pct of \(table.path.split(separator: "/").last ?? "") is \(lowest)%; quote the table's rate or remove the figure",
                        ko: "\(field)은(는) 최저금리를 \(advertised)%로 광고하지만 \(table.path.split(separator: "/").last ?? "")의 가장 낮은 apr_min_pct는 \(lowest)%입니다; 금리표의 금리를 쓰거나 숫자를 빼세요")
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
        func check(_ copy: CopyText, on day: Day, path: String, what: Message) {
            guard let law = limits.inForce(.withdrawalPeriodDays, on: day) else { return }
            let minimum = law.value.thousandths / 1000
            let text = copy.text
            let string = NSString(string: text)
            guard text.containsBytes("철회") else { return }
            for match in statedWithdrawal.matches(in: text, range: NSRange(location: 0, length: string.length)) {
                let group = match.range(at: 1).location != NSNotFound ? 1 : 9
                guard let days = Int(string.substring(with: match.range(at: group))), days < minimum else { continue }
                let offset = string.substring(to: match.range.location).unicodeScalars.count
                let quoted = string.substring(with: match.range)
                diagnostics.report(
                    withdrawalPeriod, path, copy.mark(at: offset),
                    Message(
                        "\(what) states a withdrawal period of \(days) days ('\(quoted)'); a borrower may withdraw for \(minimum) days (withdrawal_period_days in regulatory/limits.yaml: \(law.citation)), so write \(minimum)일",
                        ko: "\(what)에 청약철회 기간이 \(days)일로 쓰여 있습니다 ('\(quoted)'); 청약철회 기간은 \(minimum)일이니 \(minimum)일로 쓰세요 (regulatory/limits.yaml의 withdrawal_period_days: \(law.citation))"))
            }
        }
        for phrase in content.phrases ?? [] {
            check(
                CopyText(plain: phrase.text(config: content.config), at: phrase.ko.mark), on: context.asOf, path: content.root.path("regulatory/phrases.yaml"),
                what: Message("phrase '\(phrase.id.value)'", ko: "문구 '\(phrase.id.value)'"))
        }
        for product in content.products {
            for (field, value) in product.copyFields {
                check(CopyText(plain: value.value, at: value.mark), on: context.asOf, path: product.path, what: .verbatim(field))
            }
        }
        for versions in content.versionsByDocument.values {
            for terms in currentVersions(among: versions, on: context.asOf) where terms.body.containsBytes("철회") {
                check(CopyText(markdown: terms.body, firstLine: terms.bodyLine), on: max(context.asOf, terms.effectiveFrom.value), path: terms.path, what: Message("the body", ko: "본문"))
            }
        }
    }

    /// DSC-16: a consent with `recipients: partners` names, in its rendered text, every partner
    /// that is not terminated (its current and scheduled versions; a partner that goes live
    /// later, from the version in force on its go-live day), and a version that names a partner
    /// the version before it did not is a major version asking for consent again.
    package static func checkRecipients(_ content: Content, _ context: ValidationContext, into diagnostics: Diagnostics) {
        let partners = content.partners.filter { $0.status.value != .terminated }.sorted { $0.id.value < $1.id.value }
        for versions in content.versionsByDocument.values where versions.contains(where: { $0.namesPartners != nil }) {
            let current = Set(currentVersions(among: versions, on: context.asOf).map(\.fileVersion))
            var previousNames: Set<String>?
            for (index, version) in versions.enumerated() {
                // Each table cell is read apart from the text around it: two cells side by side
                // do not make a name.
                let mark = SourceMark(line: version.bodyLine, column: 1)
                let shown = CommonMark.renderedText(version.body).segments.map { CopyText(plain: $0, at: mark).text }
                let named = Set(
                    content.partners.filter { partner in
                        let name = CopyText(plain: partner.nameKo.value, at: partner.nameKo.mark).text
                        return shown.contains { $0.contains(name) }
                    }.map(\.id.value))
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
                                Message(
                                    "the consent does not name partner '\(partner.nameKo.value)' (\(partner.path)), which goes live on \(goLive) while this version is in force; name it in a new major version with requires_reconsent: true that takes effect on \(goLive) or before, or move go_live",
                                    ko:
                                        "이 버전이 시행 중인 \(goLive)에 제휴를 시작하는 '\(partner.nameKo.value)'(\(partner.path))의 이름이 동의서에 없습니다; \(goLive) 또는 그 전에 시행하는 새 주 버전(requires_reconsent: true)에 이름을 넣거나 go_live를 옮기세요"
                                ))
                        } else {
                            diagnostics.report(
                                recipients, version.path, SourceMark(line: version.bodyLine, column: 1),
                                Message(
                                    "the consent does not name partner '\(partner.nameKo.value)' (\(partner.path)), which receives the data; add it in a new major version with requires_reconsent: true",
                                    ko: "동의서에 정보를 받는 제휴사 '\(partner.nameKo.value)'(\(partner.path))이(가) 없습니다; requires_reconsent: true인 새 주 버전에서 추가하세요"))
                        }
                    }
                }
                guard index > 0, let previousNames else { continue }
                let added = named.subtracting(previousNames).sorted()
                let isMajor = (version.semver?.first ?? 0) > (versions[index - 1].semver?.first ?? 0)
                if !added.isEmpty && !(isMajor && version.requiresReconsent.value) {
                    diagnostics.report(
                        recipients, version.path, version.version.mark,
                        Message(
                            "version \(version.fileVersion) adds recipients (\(added.joined(separator: ", "))) that users did not consent to; make it a major version with requires_reconsent: true",
                            ko: "버전 \(version.fileVersion)은(는) 사용자가 동의하지 않은 제공 대상(\(added.joined(separator: ", ")))을 추가합니다; requires_reconsent: true인 주 버전으로 만드세요"))
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
                        Message(
                            "an earlier version of this document was an optional consent; a user who refused it cannot be made to accept it, so keep consent: optional (a required consent is a separate document)",
                            ko: "이 문서의 이전 버전은 선택 동의였습니다; 거부한 사용자에게 동의를 강제할 수 없으니 consent: optional을 유지하세요 (필수 동의는 별도 문서로 만듭니다)")
                    )
                }
                if version.consent.value == .optional { wasOptional = true }
                guard index > 0, let now = version.semver, let before = versions[index - 1].semver else { continue }
                if now[0] > before[0] && version.consent.value != .none && !version.requiresReconsent.value {
                    diagnostics.report(
                        majorNeedsReconsent, version.path, version.requiresReconsent.mark,
                        Message(
                            "version \(version.fileVersion) is a major change to a consent (from \(versions[index - 1].fileVersion)); set requires_reconsent: true, or make it a minor version if nothing material changed",
                            ko: "버전 \(version.fileVersion)은(는) 동의 문서의 주 버전 변경입니다 (\(versions[index - 1].fileVersion)에서); requires_reconsent: true로 바꾸거나, 중요한 변경이 없다면 부 버전으로 만드세요")
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
                            Message(
                                "announced_on \(announced.value) is less than \(noticeDays) days before effective_from \(version.effectiveFrom.value); move effective_from to \(announced.value.adding(days: noticeDays)) or later",
                                ko:
                                    "announced_on \(announced.value)이(가) effective_from \(version.effectiveFrom.value)보다 \(noticeDays)일 이상 앞서지 않습니다; effective_from을 \(announced.value.adding(days: noticeDays)) 이후로 옮기세요"
                            )
                        )
                    }
                } else {
                    diagnostics.report(
                        noticePeriod, version.path, version.effectiveFrom.mark,
                        Message(
                            "a change to terms users accepted takes effect on \(version.effectiveFrom.value) and must be announced \(noticeDays) days before; add announced_on (\(latest) at the latest)",
                            ko: "사용자가 동의한 약관의 변경이 \(version.effectiveFrom.value)에 시행되므로 \(noticeDays)일 전에 공지해야 합니다; announced_on을 추가하세요 (늦어도 \(latest))"))
                }
            }
        }
    }

    /// The version in force on `day` and every version scheduled after it.
    package static func currentVersions(of document: String, in content: Content, on day: Day) -> [TermsVersion] {
        currentVersions(among: content.versions(of: document), on: day)
    }

    /// `currentVersions(of:in:on:)` among one document's versions, oldest first (a value of
    /// `Content.versionsByDocument`: a rule that goes through every document groups the terms
    /// once instead of filtering all of them for each document).
    package static func currentVersions(among versions: [TermsVersion], on day: Day) -> [TermsVersion] {
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
