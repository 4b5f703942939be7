import RatecardSupport

/// Ranges and internal consistency of amounts, rates and terms.
public enum RangeRules {
    public static let aprOrder = Rule(
        "RNG-01", .error, "0 < apr_min_pct <= apr_max_pct", "A band's rate range must be a real range of positive rates.",
        ko: "금리 범위: 0 < apr_min_pct <= apr_max_pct", "구간의 금리 범위는 양수 금리로 된 실제 범위여야 합니다.")
    public static let limitOrder = Rule(
        "RNG-02", .error, "0 < limit.min_krw <= limit.max_krw", "The app shows the limit range as given; reversed bounds make no sense to a borrower.",
        ko: "한도 범위: 0 < limit.min_krw <= limit.max_krw", "앱은 한도 범위를 쓰인 그대로 보여 줍니다. 경계가 뒤바뀌면 차입자가 이해할 수 없습니다.")
    public static let bandLimit = Rule(
        "RNG-03", .error, "band limits within the product limit", "A band cannot promise more than the product lends.",
        ko: "구간 한도는 상품 한도 이내", "구간이 상품이 빌려주는 금액보다 많이 약속할 수는 없습니다.")
    public static let precision = Rule(
        "RNG-04", .error, "rates have at most 3 decimals", "FSS disclosures use 2, banks sometimes 3; more is a typo.",
        ko: "금리는 소수점 아래 3자리까지", "금융감독원 공시는 2자리, 은행은 가끔 3자리를 씁니다. 그보다 많으면 오타입니다.")
    public static let roundAmount = Rule(
        "RNG-05", .warning, "KRW limits in units of 10,000", "Limits are quoted in 만원; an odd amount usually means a missing zero.",
        ko: "원화 한도는 만 원 단위", "한도는 만 원 단위로 안내합니다. 끝자리가 맞지 않으면 대개 0이 빠진 것입니다.")
    public static let wholeWon = Rule(
        "RNG-06", .error, "KRW amounts are whole won", "The won has no minor unit; amounts are integers.",
        ko: "원화 금액은 정수", "원화에는 더 작은 단위가 없으므로 금액은 정수입니다.")
    public static let termsMonths = Rule(
        "RNG-07", .error, "terms_months unique, ascending, positive", "The app's term picker and calculator read this list as is.",
        ko: "terms_months는 중복 없이 오름차순 양수", "앱의 기간 선택기와 계산기가 이 목록을 그대로 읽습니다.")
    public static let nonNegative = Rule(
        "RNG-08", .error, "fees and spreads are not negative", "A negative fee or spread is a sign error.",
        ko: "수수료와 가산금리는 음수가 아님", "음수 수수료나 가산금리는 부호를 잘못 쓴 것입니다.")
    public static let repaymentMethods = Rule(
        "RNG-09", .error, "repayment methods listed once each", "Each method is a choice the app offers; none or duplicates break the offer.",
        ko: "상환 방식은 한 번씩만", "상환 방식마다 앱이 선택지로 보여 줍니다. 하나도 없거나 중복되면 선택지가 깨집니다.")

    public static let all = [aprOrder, limitOrder, bandLimit, precision, roundAmount, wholeWon, termsMonths, nonNegative, repaymentMethods]

    package static let tenThousand = 10_000

    package static func check(_ content: Content, into diagnostics: Diagnostics) {
        var productLimits: [String: Located<Int>] = [:]
        for product in content.products {
            productLimits[product.key] = product.limitMax
            checkProduct(product, into: diagnostics)
        }
        for table in content.rateTables {
            for band in table.bands {
                if band.aprMin.value <= .zero {
                    diagnostics.report(aprOrder, table.path, band.aprMin.mark, Message("apr_min_pct \(band.aprMin.value) must be above 0", ko: "apr_min_pct \(band.aprMin.value)은(는) 0보다 커야 합니다"))
                } else if band.aprMin.value > band.aprMax.value {
                    diagnostics.report(
                        aprOrder, table.path, band.aprMin.mark,
                        Message(
                            "apr_min_pct \(band.aprMin.value) is above apr_max_pct \(band.aprMax.value); swap them",
                            ko: "apr_min_pct \(band.aprMin.value)이(가) apr_max_pct \(band.aprMax.value)보다 큽니다; 두 값을 바꾸세요"))
                }
                if band.limitMax.value <= 0 {
                    diagnostics.report(
                        limitOrder, table.path, band.limitMax.mark, Message("limit_max_krw \(band.limitMax.value) must be above 0", ko: "limit_max_krw \(band.limitMax.value)은(는) 0보다 커야 합니다"))
                } else if band.limitMax.value % tenThousand != 0 {
                    diagnostics.report(
                        roundAmount, table.path, band.limitMax.mark,
                        Message("limit_max_krw \(band.limitMax.value) is not a multiple of 10,000 won", ko: "limit_max_krw \(band.limitMax.value)원은 만 원 단위가 아닙니다"))
                }
                if let limit = productLimits[table.productKey], band.limitMax.value > limit.value {
                    diagnostics.report(
                        bandLimit, table.path, band.limitMax.mark,
                        Message(
                            "limit_max_krw \(band.limitMax.value) is above the product's limit.max_krw \(limit.value)",
                            ko: "limit_max_krw \(band.limitMax.value)이(가) 상품의 limit.max_krw \(limit.value)보다 큽니다"))
                }
            }
        }
    }

    private static func checkProduct(_ product: Product, into diagnostics: Diagnostics) {
        if product.limitMin.value <= 0 {
            diagnostics.report(
                limitOrder, product.path, product.limitMin.mark, Message("limit.min_krw \(product.limitMin.value) must be above 0", ko: "limit.min_krw \(product.limitMin.value)은(는) 0보다 커야 합니다"))
        } else if product.limitMin.value > product.limitMax.value {
            diagnostics.report(
                limitOrder, product.path, product.limitMin.mark,
                Message(
                    "limit.min_krw \(product.limitMin.value) is above limit.max_krw \(product.limitMax.value)",
                    ko: "limit.min_krw \(product.limitMin.value)이(가) limit.max_krw \(product.limitMax.value)보다 큽니다"))
        }
        for amount in [product.limitMin, product.limitMax] where amount.value > 0 && amount.value % tenThousand != 0 {
            diagnostics.report(roundAmount, product.path, amount.mark, Message("\(amount.value) won is not a multiple of 10,000 won", ko: "\(amount.value)원은 만 원 단위가 아닙니다"))
        }
        var previous = 0
        for term in product.termsMonths.value {
            if term.value <= previous {
                diagnostics.report(
                    termsMonths, product.path, term.mark,
                    Message("terms_months must be positive and strictly ascending; \(term.value) follows \(previous)", ko: "terms_months는 양수이고 엄격한 오름차순이어야 합니다; \(previous) 다음에 \(term.value)이(가) 옵니다"))
            }
            previous = max(previous, term.value)
        }
        if product.termsMonths.value.isEmpty {
            diagnostics.report(termsMonths, product.path, product.termsMonths.mark, Message("terms_months is empty; list the loan terms offered", ko: "terms_months가 비어 있습니다; 제공하는 대출 기간을 쓰세요"))
        }
        if product.originationFee.value < 0 {
            diagnostics.report(
                nonNegative, product.path, product.originationFee.mark,
                Message("fees.origination_krw \(product.originationFee.value) is negative", ko: "fees.origination_krw \(product.originationFee.value)이(가) 음수입니다"))
        }
        for rate in [product.earlyRepaymentFee, product.lateSpread, product.lateMax] where rate.value < .zero {
            diagnostics.report(nonNegative, product.path, rate.mark, Message("\(rate.value) is negative", ko: "\(rate.value)이(가) 음수입니다"))
        }
        if product.earlyRepaymentMonths.value < 0 {
            diagnostics.report(
                nonNegative, product.path, product.earlyRepaymentMonths.mark,
                Message("fees.early_repayment_months \(product.earlyRepaymentMonths.value) is negative", ko: "fees.early_repayment_months \(product.earlyRepaymentMonths.value)이(가) 음수입니다"))
        }
        if product.repayment.isEmpty, product.repaymentMark != nil {
            diagnostics.report(
                repaymentMethods, product.path, product.repaymentMark!, Message("repayment_methods is empty; list how the loan is repaid", ko: "repayment_methods가 비어 있습니다; 대출을 상환하는 방식을 쓰세요"))
        }
        var seen: Set<Product.Repayment> = []
        for method in product.repayment where !seen.insert(method.value).inserted {
            diagnostics.report(repaymentMethods, product.path, method.mark, Message("repayment method '\(method.value.rawValue)' is listed twice", ko: "상환 방식 '\(method.value.rawValue)'이(가) 두 번 나옵니다"))
        }
    }
}
