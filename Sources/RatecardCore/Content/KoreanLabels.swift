/// The Korean names people see for enum values.
package enum KoreanLabels {
    package static func category(_ category: Partner.Category) -> String {
        switch category {
        case .bank: return "은행"
        case .internetBank: return "인터넷전문은행"
        case .savingsBank: return "저축은행"
        case .card: return "카드사"
        case .capital: return "캐피탈"
        case .insurance: return "보험사"
        case .p2p: return "온라인투자연계금융"
        }
    }

    package static func productType(_ kind: Product.Kind) -> String {
        switch kind {
        case .credit: return "신용대출"
        case .creditLine: return "마이너스통장"
        case .cardLoan: return "카드론"
        case .autoSecured: return "자동차담보대출"
        case .policy: return "정책서민금융"
        case .refinance: return "대환대출"
        }
    }

    package static func consent(_ consent: TermsVersion.Consent) -> String {
        switch consent {
        case .required: return "필수 동의"
        case .optional: return "선택 동의"
        case .none: return "안내"
        }
    }

    /// `1억 2,000만원`, `5,000만원`, `300만원`, `12,345원`.
    package static func won(_ amount: Int) -> String {
        guard amount % 10_000 == 0, amount > 0 else { return grouped(amount) + "원" }
        let man = amount / 10_000
        let eok = man / 10_000
        let rest = man % 10_000
        var parts: [String] = []
        if eok > 0 { parts.append(grouped(eok) + "억") }
        if rest > 0 { parts.append(grouped(rest) + "만") }
        return parts.joined(separator: " ") + "원"
    }

    package static func grouped(_ value: Int) -> String {
        let digits = Array(String(abs(value)))
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out += "," }
            out.append(digit)
        }
        return (value < 0 ? "-" : "") + out
    }
}
