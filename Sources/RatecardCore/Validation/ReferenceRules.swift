import Foundation
import RatecardSupport

/// Rules that tie files together: partners, products, rate tables, phrases, assets, identifiers.
public enum ReferenceRules {
    public static let partnerExists = Rule(
        "REF-01", .error, "products belong to a real partner", "Every product must belong to a partner file, and sit in that partner's folder.",
        ko: "상품은 실제 제휴사에 속함", "모든 상품은 제휴사 파일이 있는 제휴사에 속하고, 그 제휴사의 폴더 안에 있어야 합니다.")
    public static let currentTable = Rule(
        "REF-02", .error, "active products have a current rate table", "An active product without a price in force would show an empty comparison row.",
        ko: "판매 중인 상품에는 시행 중인 금리표가 있음", "시행 중인 가격이 없는 판매 상품은 비교 화면에 빈 줄로 나옵니다.")
    public static let orphanTable = Rule(
        "REF-03", .error, "rate tables belong to a product", "A rate table with no product.yaml beside it is never shown.",
        ko: "금리표는 상품에 속함", "옆에 product.yaml이 없는 금리표는 화면에 나오지 않습니다.")
    public static let phraseExists = Rule(
        "REF-04", .error, "referenced phrases and documents exist", "A dangling disclosure reference means a missing legal warning.",
        ko: "가리키는 문구와 문서가 있음", "가리키는 고지가 없으면 법정 경고 문구가 빠집니다.")
    public static let logoExists = Rule(
        "REF-05", .error, "logos exist under assets/", "A broken logo is the first thing a user sees in the partner list.",
        ko: "로고가 assets/ 아래에 있음", "깨진 로고는 사용자가 제휴사 목록에서 가장 먼저 보게 됩니다.")
    public static let businessNumber = Rule(
        "REF-06", .error, "사업자등록번호 in ASCII digits with a valid checksum",
        "A mistyped business registration number ends up in notices and consent tables; one pasted in full-width digits (an IME) reads the same to a person but matches no registry lookup or settlement file.",
        ko: "사업자등록번호는 ASCII 숫자이고 검증 숫자가 맞음",
        "잘못 입력한 사업자등록번호가 고지문과 동의서 표에 그대로 실립니다. 전각 숫자(입력기)로 붙여 넣은 번호는 사람 눈에는 같아 보여도 등록 조회나 정산 파일과 맞지 않습니다.")
    public static let bankCode = Rule(
        "REF-07", .error, "banks have a 3-digit KFTC code", "Bank and internet-bank partners are identified by their KFTC code in settlement.",
        ko: "은행에는 3자리 금융결제원 코드가 있음", "은행과 인터넷은행 제휴사는 정산에서 금융결제원(KFTC) 코드로 식별됩니다.")
    public static let terminatedPartner = Rule(
        "REF-08", .error, "terminated partners have no active products", "A terminated lender must vanish from results and consents.",
        ko: "계약 종료된 제휴사에는 판매 중인 상품이 없음", "계약이 끝난 금융사는 검색 결과와 동의서에서 사라져야 합니다.")
    public static let uniqueName = Rule(
        "REF-09", .error, "partner names are unique", "Two partners with one Korean name cannot be told apart by a user.",
        ko: "제휴사 이름은 서로 다름", "한글 이름이 같은 제휴사 둘은 사용자가 구별할 수 없습니다.")
    public static let secureWebsite = Rule(
        "REF-10", .error, "partner websites use https", "The app opens these links; plain http can be tampered with.",
        ko: "제휴사 웹사이트는 https 사용", "앱이 이 링크를 엽니다. 일반 http는 중간에서 바꿔치기될 수 있습니다.")

    public static let uniqueBusinessNumber = Rule(
        "REF-11", .error, "one 사업자등록번호 per partner",
        "Two partners with one business registration number are one lender entered twice, or a copied number; consent tables would name the wrong company.",
        ko: "제휴사마다 사업자등록번호 하나", "사업자등록번호가 같은 제휴사 둘은 한 금융사를 두 번 입력했거나 번호를 잘못 복사한 것입니다. 동의서 표에 엉뚱한 회사가 실립니다.")
    public static let brokerRegistration = Rule(
        "REF-12", .error, "broker registration number well-formed", "금소법 제26조①, 시행령 제24조①: every notice names our 대출모집인 registration number; a placeholder or mistyped one is a false notice.",
        ko: "대출모집인 등록번호 형식", "금소법 제26조①, 시행령 제24조①: 모든 고지에는 대출모집인 등록번호가 들어갑니다. 임시 번호나 잘못 입력한 번호는 거짓 고지입니다.")
    public static let all = [
        partnerExists, currentTable, orphanTable, phraseExists, logoExists, businessNumber, bankCode, terminatedPartner, uniqueName, secureWebsite, uniqueBusinessNumber, brokerRegistration,
    ]

    package static func check(_ content: Content, _ context: ValidationContext, into diagnostics: Diagnostics) {
        checkPartners(content, into: diagnostics)
        checkBroker(content, into: diagnostics)
        let phraseIDs = Set(content.phrases?.map(\.id.value) ?? [])
        let tablesByProduct = content.rateTablesByProduct
        let partnersByID = content.partnersByID
        let pending = content.partnersGoingLive(after: context.asOf)
        for product in content.products {
            let day = Content.offerDay(of: product, asOf: context.asOf, pending: pending)
            if !content.partnerFiles.contains(product.partner.value) {
                diagnostics.report(
                    partnerExists, product.path, product.partner.mark,
                    Message(
                        "partner '\(product.partner.value)' does not exist; add partners/\(product.partner.value).yaml or fix the id",
                        ko: "제휴사 '\(product.partner.value)'이(가) 없습니다; partners/\(product.partner.value).yaml을 추가하거나 id를 고치세요"))
            } else if product.partner.value != product.folderPartner {
                diagnostics.report(
                    partnerExists, product.path, product.partner.mark,
                    Message(
                        "product names partner '\(product.partner.value)' but sits in products/\(product.folderPartner)/; move it or fix the id",
                        ko: "상품이 제휴사 '\(product.partner.value)'을(를) 가리키는데 products/\(product.folderPartner)/ 폴더에 있습니다; 파일을 옮기거나 id를 고치세요"))
            }
            if product.status.value == .active && !(tablesByProduct[product.key] ?? []).contains(where: { $0.isInForce(on: day) }) {
                let when = day == context.asOf ? Message.verbatim("\(day)") : Message("\(day), the day its partner goes live", ko: "제휴 시작일인 \(day)")
                diagnostics.report(
                    currentTable, product.path, product.status.mark,
                    Message(
                        "active product has no rate table in force on \(when); add rates/<date>.yaml or set status: withdrawn",
                        ko: "판매 중인 상품에 \(when)에 적용되는 금리표가 없습니다; rates/<date>.yaml을 추가하거나 status: withdrawn으로 바꾸세요"))
            }
            if content.phrases != nil {
                for phrase in product.requiredPhrases.value where !phraseIDs.contains(phrase.value) {
                    diagnostics.report(
                        phraseExists, product.path, phrase.mark,
                        Message("phrase '\(phrase.value)' is not defined in regulatory/phrases.yaml", ko: "문구 '\(phrase.value)'이(가) regulatory/phrases.yaml에 정의되어 있지 않습니다"))
                }
            }
            if let partner = partnersByID[product.partner.value], partner.status.value == .terminated, product.status.value == .active {
                diagnostics.report(
                    terminatedPartner, product.path, product.status.mark,
                    Message("partner '\(partner.id.value)' is terminated, so this product must be withdrawn", ko: "제휴사 '\(partner.id.value)'은(는) 계약이 종료되었으므로 이 상품은 판매 중단(withdrawn)이어야 합니다"))
            }
        }
        for table in content.rateTables where !content.productFiles.contains(table.productKey) {
            diagnostics.report(
                orphanTable, table.path, .start,
                Message("no product.yaml for '\(table.productKey)'; a rate table needs its product", ko: "'\(table.productKey)'의 product.yaml이 없습니다; 금리표에는 그 상품이 있어야 합니다"))
        }
        let documents = Set(content.documentIDs)
        for phrase in content.phrases ?? [] {
            for document in phrase.documents where !documents.contains(document.value) {
                diagnostics.report(
                    phraseExists, content.root.path("regulatory/phrases.yaml"), document.mark,
                    Message("document '\(document.value)' does not exist under terms/", ko: "문서 '\(document.value)'이(가) terms/ 아래에 없습니다"))
            }
        }
    }

    private static func checkPartners(_ content: Content, into diagnostics: Diagnostics) {
        var names: [String: Partner] = [:]
        var numbers: [String: Partner] = [:]
        for partner in content.partners.sorted(by: { $0.path < $1.path }) {
            let logo = partner.logo.value
            if !logo.hasPrefix("assets/") || !content.assets.contains(logo) {
                diagnostics.report(
                    logoExists, partner.path, partner.logo.mark, Message("logo '\(logo)' is not an .svg or .png file under assets/", ko: "로고 '\(logo)'은(는) assets/ 아래의 .svg나 .png 파일이 아닙니다"))
            }
            if !partner.brn.value.allSatisfy(\.isASCII) {
                diagnostics.report(businessNumber, partner.path, partner.brn.mark, nonASCIIBusinessNumber(partner.brn.value))
            } else if !isValidBusinessNumber(partner.brn.value) {
                diagnostics.report(
                    businessNumber, partner.path, partner.brn.mark,
                    Message("사업자등록번호 '\(partner.brn.value)' fails its checksum; copy it again from the registry", ko: "사업자등록번호 '\(partner.brn.value)'의 검증 숫자가 맞지 않습니다; 등록 정보에서 다시 복사하세요"))
            } else if isPlaceholderBusinessNumber(partner.brn.value) {
                diagnostics.report(
                    businessNumber, partner.path, partner.brn.mark,
                    Message(
                        "사업자등록번호 '\(partner.brn.value)' is a placeholder, not a registered number; copy the partner's number from the registry",
                        ko: "사업자등록번호 '\(partner.brn.value)'은(는) 등록된 번호가 아니라 임시 번호입니다; 등록 정보에서 제휴사의 번호를 복사하세요"))
            } else if let first = numbers[partner.brn.value.filter { $0 != "-" }] {
                diagnostics.report(
                    uniqueBusinessNumber, partner.path, partner.brn.mark,
                    Message(
                        "사업자등록번호 '\(partner.brn.value)' is already partner '\(first.id.value)''s; one lender has one file, so merge them or correct the number",
                        ko: "사업자등록번호 '\(partner.brn.value)'은(는) 이미 제휴사 '\(first.id.value)'의 번호입니다; 금융사 하나에는 파일 하나이므로, 두 파일을 합치거나 번호를 고치세요"))
            } else {
                numbers[partner.brn.value.filter { $0 != "-" }] = partner
            }
            let isBank = partner.category.value == .bank || partner.category.value == .internetBank
            if let code = partner.kftcBankCode {
                if code.value.count != 3 || !code.value.allSatisfy({ $0.isASCII && $0.isNumber }) {
                    diagnostics.report(
                        bankCode, partner.path, code.mark,
                        Message("kftc_bank_code '\(code.value)' must be 3 digits, in quotes (\"088\")", ko: "kftc_bank_code '\(code.value)'은(는) 따옴표로 감싼 숫자 3자리여야 합니다 (\"088\")"))
                }
            } else if isBank {
                diagnostics.report(
                    bankCode, partner.path, partner.category.mark,
                    Message("a \(partner.category.value.rawValue) partner needs registration.kftc_bank_code", ko: "\(partner.category.value.rawValue) 분류의 제휴사에는 registration.kftc_bank_code가 있어야 합니다"))
            }
            if partner.status.value != .terminated {
                // Compared as users read them: NFKC, without spaces or invisible characters.
                let name = CopyText(plain: partner.nameKo.value, at: partner.nameKo.mark).text
                if let first = names[name] {
                    let message =
                        first.nameKo.value == partner.nameKo.value
                        ? Message(
                            "name_ko '\(partner.nameKo.value)' is already used by partner '\(first.id.value)'", ko: "name_ko '\(partner.nameKo.value)'은(는) 이미 제휴사 '\(first.id.value)'이(가) 쓰는 이름입니다")
                        : Message(
                            "name_ko '\(partner.nameKo.value)' reads the same as '\(first.nameKo.value)' by partner '\(first.id.value)'",
                            ko: "name_ko '\(partner.nameKo.value)'은(는) 제휴사 '\(first.id.value)'의 이름 '\(first.nameKo.value)'와(과) 똑같이 읽힙니다")
                    diagnostics.report(uniqueName, partner.path, partner.nameKo.mark, message)
                } else {
                    names[name] = partner
                }
            }
            if !partner.website.value.hasPrefix("https://") {
                diagnostics.report(
                    secureWebsite, partner.path, partner.website.mark,
                    Message("website '\(partner.website.value)' must start with https://", ko: "website '\(partner.website.value)'은(는) https://로 시작해야 합니다"))
            }
        }
    }

    /// What is wrong with a number that has characters other than ASCII, and the number to write.
    package static func nonASCIIBusinessNumber(_ text: String) -> Message {
        let ascii = text.precomposedStringWithCompatibilityMapping
        let fullWidth = text.unicodeScalars.contains { (0xFF10...0xFF19).contains($0.value) }
        let what =
            fullWidth
            ? Message("is written in full-width digits (an IME paste)", ko: "전각 숫자로 쓰여 있습니다 (입력기에서 붙여 넣은 값)")
            : Message("has characters other than ASCII digits and '-'", ko: "ASCII 숫자와 '-' 말고 다른 문자가 있습니다")
        let fix =
            ascii.allSatisfy { $0.isASCII && ($0.isNumber || $0 == "-") }
            ? Message("write it in ASCII digits: '\(ascii)'", ko: "ASCII 숫자로 쓰세요: '\(ascii)'")
            : Message("write it in ASCII digits (0-9) and '-'", ko: "ASCII 숫자(0-9)와 '-'로 쓰세요")
        return Message("사업자등록번호 '\(text)' \(what); \(fix)", ko: "사업자등록번호 '\(text)': \(what); \(fix)")
    }

    /// A number that passes the checksum but was never issued: one digit repeated, the
    /// counting sequence, tax office 000 or type code 00.
    package static func isPlaceholderBusinessNumber(_ text: String) -> Bool {
        let digits = text.filter { $0 != "-" }
        return Set(digits).count == 1 || digits == "1234567890" || digits.hasPrefix("000") || digits.dropFirst(3).hasPrefix("00")
    }

    /// '제YYYY-N호': the year registered and a number that is not all zeros.
    package static let brokerNumber = try! NSRegularExpression(pattern: "^제(19|20)[0-9]{2}-0*[1-9][0-9]{0,5}호$")

    package static func checkBroker(_ content: Content, into diagnostics: Diagnostics) {
        guard let config = content.config else { return }
        let number = config.brokerRegistrationNo
        if DisclosureRules.firstMatch(brokerNumber, in: number.value) == nil {
            diagnostics.report(
                brokerRegistration, config.path, number.mark,
                Message(
                    "broker_registration_no '\(number.value)' is not a registration number like '제2021-0123호'; copy it from the registration certificate",
                    ko: "broker_registration_no '\(number.value)'은(는) '제2021-0123호' 같은 등록번호가 아닙니다; 등록증에서 복사하세요"))
        }
    }

    /// 사업자등록번호: 10 digits (dashes allowed), weights 1,3,7,1,3,7,1,3,5 plus ⌊5·d9/10⌋.
    public static func isValidBusinessNumber(_ text: String) -> Bool {
        guard text.allSatisfy(\.isASCII) else { return false }
        let digits = text.filter { $0 != "-" }.compactMap { $0.wholeNumberValue }
        guard digits.count == 10, text.filter({ $0 != "-" }).count == 10 else { return false }
        let weights = [1, 3, 7, 1, 3, 7, 1, 3, 5]
        var sum = zip(digits, weights).reduce(0) { $0 + $1.0 * $1.1 }
        sum += (digits[8] * 5) / 10
        return (10 - sum % 10) % 10 == digits[9]
    }
}
