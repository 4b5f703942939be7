/// Ranges and internal consistency of amounts, rates and terms.
public enum RangeRules {
    public static let aprOrder = Rule("RNG-01", .error, "0 < apr_min_pct <= apr_max_pct", "A band's rate range must be a real range of positive rates.")
    public static let limitOrder = Rule("RNG-02", .error, "0 < limit.min_krw <= limit.max_krw", "The app shows the limit range as given; reversed bounds make no sense to a borrower.")
    public static let bandLimit = Rule("RNG-03", .error, "band limits within the product limit", "A band cannot promise more than the product lends.")
    public static let precision = Rule("RNG-04", .error, "rates have at most 3 decimals", "FSS disclosures use 2, banks sometimes 3; more is a typo.")
    public static let roundAmount = Rule("RNG-05", .warning, "KRW limits in units of 10,000", "Limits are quoted in 만원; an odd amount usually means a missing zero.")
    public static let wholeWon = Rule("RNG-06", .error, "KRW amounts are whole won", "The won has no minor unit; amounts are integers.")
    public static let termsMonths = Rule("RNG-07", .error, "terms_months unique, ascending, positive", "The app's term picker and calculator read this list as is.")
    public static let nonNegative = Rule("RNG-08", .error, "fees and spreads are not negative", "A negative fee or spread is a sign error.")
    public static let repaymentMethods = Rule("RNG-09", .error, "repayment methods listed once each", "Each method is a choice the app offers; none or duplicates break the offer.")

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
                    diagnostics.report(aprOrder, table.path, band.aprMin.mark, "apr_min_pct \(band.aprMin.value) must be above 0")
                } else if band.aprMin.value > band.aprMax.value {
                    diagnostics.report(aprOrder, table.path, band.aprMin.mark, "apr_min_pct \(band.aprMin.value) is above apr_max_pct \(band.aprMax.value); swap them")
                }
                if band.limitMax.value <= 0 {
                    diagnostics.report(limitOrder, table.path, band.limitMax.mark, "limit_max_krw \(band.limitMax.value) must be above 0")
                } else if band.limitMax.value % tenThousand != 0 {
                    diagnostics.report(roundAmount, table.path, band.limitMax.mark, "limit_max_krw \(band.limitMax.value) is not a multiple of 10,000 won")
                }
                if let limit = productLimits[table.productKey], band.limitMax.value > limit.value {
                    diagnostics.report(bandLimit, table.path, band.limitMax.mark, "limit_max_krw \(band.limitMax.value) is above the product's limit.max_krw \(limit.value)")
                }
            }
        }
    }

    private static func checkProduct(_ product: Product, into diagnostics: Diagnostics) {
        if product.limitMin.value <= 0 {
            diagnostics.report(limitOrder, product.path, product.limitMin.mark, "limit.min_krw \(product.limitMin.value) must be above 0")
        } else if product.limitMin.value > product.limitMax.value {
            diagnostics.report(limitOrder, product.path, product.limitMin.mark, "limit.min_krw \(product.limitMin.value) is above limit.max_krw \(product.limitMax.value)")
        }
        for amount in [product.limitMin, product.limitMax] where amount.value > 0 && amount.value % tenThousand != 0 {
            diagnostics.report(roundAmount, product.path, amount.mark, "\(amount.value) won is not a multiple of 10,000 won")
        }
        var previous = 0
        for term in product.termsMonths.value {
            if term.value <= previous {
                diagnostics.report(termsMonths, product.path, term.mark, "terms_months must be positive and strictly ascending; \(term.value) follows \(previous)")
            }
            previous = max(previous, term.value)
        }
        if product.termsMonths.value.isEmpty {
            diagnostics.report(termsMonths, product.path, product.termsMonths.mark, "terms_months is empty; list the loan terms offered")
        }
        if product.originationFee.value < 0 {
            diagnostics.report(nonNegative, product.path, product.originationFee.mark, "fees.origination_krw \(product.originationFee.value) is negative")
        }
        for rate in [product.earlyRepaymentFee, product.lateSpread, product.lateMax] where rate.value < .zero {
            diagnostics.report(nonNegative, product.path, rate.mark, "\(rate.value) is negative")
        }
        if product.earlyRepaymentMonths.value < 0 {
            diagnostics.report(nonNegative, product.path, product.earlyRepaymentMonths.mark, "fees.early_repayment_months \(product.earlyRepaymentMonths.value) is negative")
        }
        if product.repayment.isEmpty, product.repaymentMark != nil {
            diagnostics.report(repaymentMethods, product.path, product.repaymentMark!, "repayment_methods is empty; list how the loan is repaid")
        }
        var seen: Set<Product.Repayment> = []
        for method in product.repayment where !seen.insert(method.value).inserted {
            diagnostics.report(repaymentMethods, product.path, method.mark, "repayment method '\(method.value.rawValue)' is listed twice")
        }
    }
}
