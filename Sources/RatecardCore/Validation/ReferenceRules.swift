import Foundation

/// Rules that tie files together: partners, products, rate tables, phrases, assets, identifiers.
public enum ReferenceRules {
    public static let partnerExists = Rule("REF-01", .error, "products belong to a real partner", "Every product must belong to a partner file, and sit in that partner's folder.")
    public static let currentTable = Rule("REF-02", .error, "active products have a current rate table", "An active product without a price in force would show an empty comparison row.")
    public static let orphanTable = Rule("REF-03", .error, "rate tables belong to a product", "A rate table with no product.yaml beside it is never shown.")
    public static let phraseExists = Rule("REF-04", .error, "referenced phrases and documents exist", "A dangling disclosure reference means a missing legal warning.")
    public static let logoExists = Rule("REF-05", .error, "logos exist under assets/", "A broken logo is the first thing a user sees in the partner list.")
    public static let businessNumber = Rule(
        "REF-06", .error, "사업자등록번호 in ASCII digits with a valid checksum",
        "A mistyped business registration number ends up in notices and consent tables; one pasted in full-width digits (an IME) reads the same to a person but matches no registry lookup or settlement file."
    )
    public static let bankCode = Rule("REF-07", .error, "banks have a 3-digit KFTC code", "Bank and internet-bank partners are identified by their KFTC code in settlement.")
    public static let terminatedPartner = Rule("REF-08", .error, "terminated partners have no active products", "A terminated lender must vanish from results and consents.")
    public static let uniqueName = Rule("REF-09", .error, "partner names are unique", "Two partners with one Korean name cannot be told apart by a user.")
    public static let secureWebsite = Rule("REF-10", .error, "partner websites use https", "The app opens these links; plain http can be tampered with.")

    public static let uniqueBusinessNumber = Rule(
        "REF-11", .error, "one 사업자등록번호 per partner", "Two partners with one business registration number are one lender entered twice, or a copied number; consent tables would name the wrong company."
    )
    public static let brokerRegistration = Rule(
        "REF-12", .error, "broker registration number well-formed", "금소법 제26조①, 시행령 제24조①: every notice names our 대출모집인 registration number; a placeholder or mistyped one is a false notice.")
    public static let all = [
        partnerExists, currentTable, orphanTable, phraseExists, logoExists, businessNumber, bankCode, terminatedPartner, uniqueName, secureWebsite, uniqueBusinessNumber, brokerRegistration,
    ]

    package static func check(_ content: Content, _ context: ValidationContext, into diagnostics: Diagnostics) {
        checkPartners(content, into: diagnostics)
        checkBroker(content, into: diagnostics)
        let phraseIDs = Set(content.phrases?.map(\.id.value) ?? [])
        let tablesByProduct = Dictionary(grouping: content.rateTables, by: \.productKey)
        let partnersByID = content.partnersByID
        let pending = content.partnersGoingLive(after: context.asOf)
        for product in content.products {
            let day = Content.offerDay(of: product, asOf: context.asOf, pending: pending)
            if !content.partnerFiles.contains(product.partner.value) {
                diagnostics.report(partnerExists, product.path, product.partner.mark, "partner '\(product.partner.value)' does not exist; add partners/\(product.partner.value).yaml or fix the id")
            } else if product.partner.value != product.folderPartner {
                diagnostics.report(
                    partnerExists, product.path, product.partner.mark, "product names partner '\(product.partner.value)' but sits in products/\(product.folderPartner)/; move it or fix the id")
            }
            if product.status.value == .active && !(tablesByProduct[product.key] ?? []).contains(where: { $0.isInForce(on: day) }) {
                let when = day == context.asOf ? "\(day)" : "\(day), the day its partner goes live"
                diagnostics.report(currentTable, product.path, product.status.mark, "active product has no rate table in force on \(when); add rates/<date>.yaml or set status: withdrawn")
            }
            if content.phrases != nil {
                for phrase in product.requiredPhrases.value where !phraseIDs.contains(phrase.value) {
                    diagnostics.report(phraseExists, product.path, phrase.mark, "phrase '\(phrase.value)' is not defined in regulatory/phrases.yaml")
                }
            }
            if let partner = partnersByID[product.partner.value], partner.status.value == .terminated, product.status.value == .active {
                diagnostics.report(terminatedPartner, product.path, product.status.mark, "partner '\(partner.id.value)' is terminated, so this product must be withdrawn")
            }
        }
        for table in content.rateTables where !content.productFiles.contains(table.productKey) {
            diagnostics.report(orphanTable, table.path, .start, "no product.yaml for '\(table.productKey)'; a rate table needs its product")
        }
        let documents = Set(content.documentIDs)
        for phrase in content.phrases ?? [] {
            for document in phrase.documents where !documents.contains(document.value) {
                diagnostics.report(phraseExists, content.root.path("regulatory/phrases.yaml"), document.mark, "document '\(document.value)' does not exist under terms/")
            }
        }
    }

    private static func checkPartners(_ content: Content, into diagnostics: Diagnostics) {
        var names: [String: Partner] = [:]
        var numbers: [String: Partner] = [:]
        for partner in content.partners.sorted(by: { $0.path < $1.path }) {
            let logo = partner.logo.value
            if !logo.hasPrefix("assets/") || !content.assets.contains(logo) {
                diagnostics.report(logoExists, partner.path, partner.logo.mark, "logo '\(logo)' is not an .svg or .png file under assets/")
            }
            if !partner.brn.value.allSatisfy(\.isASCII) {
                diagnostics.report(businessNumber, partner.path, partner.brn.mark, nonASCIIBusinessNumber(partner.brn.value))
            } else if !isValidBusinessNumber(partner.brn.value) {
                diagnostics.report(businessNumber, partner.path, partner.brn.mark, "사업자등록번호 '\(partner.brn.value)' fails its checksum; copy it again from the registry")
            } else if isPlaceholderBusinessNumber(partner.brn.value) {
                diagnostics.report(
                    businessNumber, partner.path, partner.brn.mark, "사업자등록번호 '\(partner.brn.value)' is a placeholder, not a registered number; copy the partner's number from the registry")
            } else if let first = numbers[partner.brn.value.filter { $0 != "-" }] {
                diagnostics.report(
                    uniqueBusinessNumber, partner.path, partner.brn.mark,
                    "사업자등록번호 '\(partner.brn.value)' is already partner '\(first.id.value)''s; one lender has one file, so merge them or correct the number")
            } else {
                numbers[partner.brn.value.filter { $0 != "-" }] = partner
            }
            let isBank = partner.category.value == .bank || partner.category.value == .internetBank
            if let code = partner.kftcBankCode {
                if code.value.count != 3 || !code.value.allSatisfy({ $0.isASCII && $0.isNumber }) {
                    diagnostics.report(bankCode, partner.path, code.mark, "kftc_bank_code '\(code.value)' must be 3 digits, in quotes (\"088\")")
                }
            } else if isBank {
                diagnostics.report(bankCode, partner.path, partner.category.mark, "a \(partner.category.value.rawValue) partner needs registration.kftc_bank_code")
            }
            if partner.status.value != .terminated {
                // Compared as users read them: NFKC, without spaces or invisible characters.
                let name = CopyText(plain: partner.nameKo.value, at: partner.nameKo.mark).text
                if let first = names[name] {
                    let same = first.nameKo.value == partner.nameKo.value ? "is already used" : "reads the same as '\(first.nameKo.value)'"
                    diagnostics.report(uniqueName, partner.path, partner.nameKo.mark, "name_ko '\(partner.nameKo.value)' \(same) by partner '\(first.id.value)'")
                } else {
                    names[name] = partner
                }
            }
            if !partner.website.value.hasPrefix("https://") {
                diagnostics.report(secureWebsite, partner.path, partner.website.mark, "website '\(partner.website.value)' must start with https://")
            }
        }
    }

    /// What is wrong with a number that has characters other than ASCII, and the number to write.
    package static func nonASCIIBusinessNumber(_ text: String) -> String {
        let ascii = text.precomposedStringWithCompatibilityMapping
        let fullWidth = text.unicodeScalars.contains { (0xFF10...0xFF19).contains($0.value) }
        let what = fullWidth ? "is written in full-width digits (an IME paste)" : "has characters other than ASCII digits and '-'"
        let fix = ascii.allSatisfy { $0.isASCII && ($0.isNumber || $0 == "-") } ? "write it in ASCII digits: '\(ascii)'" : "write it in ASCII digits (0-9) and '-'"
        return "사업자등록번호 '\(text)' \(what); \(fix)"
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
                brokerRegistration, config.path, number.mark, "broker_registration_no '\(number.value)' is not a registration number like '제2021-0123호'; copy it from the registration certificate")
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
