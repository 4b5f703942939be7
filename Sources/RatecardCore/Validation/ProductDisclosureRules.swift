import Foundation
import RatecardSupport

/// What a product page discloses besides rates and fees (`disclosure:` in product.yaml): the
/// compliance review, how the rate is set and a worked repayment example.
public enum ProductDisclosureRules {
    public static let review = Rule(
        "DSC-10", .error, "advertising has a compliance review in force", "금소법 제22조, 시행령 제19조②: an advertised product carries its 준법감시인 심의 number, and is advertised only while the review is valid.")
    public static let rateComposition = Rule(
        "DSC-11", .error, "the rate type and what it follows agree", "금소법 제19조①1라, 시행령 제13조: the borrower is told whether the rate is fixed or variable and, if variable, the base rate it follows.")
    public static let repaymentExample = Rule(
        "DSC-12", .error, "the repayment example is computed right",
        "금소법 제22조④, 시행령 제18조①: a total-cost example must be what the loan costs: the total for its amount, rate, term and method, on terms the product offers and at a rate no lower than it charges.")

    public static let requiredCredit = Rule(
        "DSC-17", .error, "the required credit level is the table's",
        "금소법 제19조①, 시행령 제13조: the borrower is told the credit needed to borrow; a stated floor ('KCB 개인신용평점 601점 이상', '6등급 이내', '전 구간') must be where the table in force stops lending, on its bureau.")

    public static let gradesInCopy = Rule(
        "DSC-18", .error, "a product priced on scores does not speak of credit grades",
        "Credit grades (신용등급, 1-10등급) were replaced by 0-1000 scores on 2021-01-01 (FSC, https://fsc.go.kr/eng/pr010101/22329); copy that tells a borrower a grade for a product priced on scores misleads about who can borrow (금소법 제22조④)."
    )

    public static let all = [review, rateComposition, repaymentExample, requiredCredit, gradesInCopy]

    /// A credit grade in normalized copy: '신용등급', '6등급', '1~3등급'.
    package static let gradeWording = try! NSRegularExpression(pattern: "신용등급|[0-9]{1,2}(~[0-9]{1,2})?등급")

    /// A review number: '제YYYY-N호' somewhere in the text, with a number that is not all zeros.
    package static let reviewNumber = try! NSRegularExpression(pattern: "제(19|20)[0-9]{2}-0*[1-9][0-9]*호")

    package static func check(_ content: Content, _ context: ValidationContext, into diagnostics: Diagnostics) {
        let tablesByProduct = content.rateTablesByProduct
        let pending = content.partnersGoingLive(after: context.asOf)
        for product in content.products {
            // A product of a partner that goes live later is judged as of that day.
            let day = Content.offerDay(of: product, asOf: context.asOf, pending: pending)
            let disclosure = product.disclosure
            let number = disclosure.reviewNumber
            if DisclosureRules.firstMatch(reviewNumber, in: number.value) == nil {
                diagnostics.report(review, product.path, number.mark, "review_no '\(number.value)' is not a compliance review number ('준법감시인 심의필 제2026-0412호'); copy it from the review record")
            }
            let from = disclosure.reviewValidFrom
            let until = disclosure.reviewValidUntil
            if until.value < from.value {
                diagnostics.report(review, product.path, until.mark, "review_valid_until \(until.value) is before review_valid_from \(from.value)")
            } else if product.status.value == .active && !(from.value...until.value).contains(day) {
                let when = day < from.value ? "starts on \(from.value)" : "ended on \(until.value)"
                diagnostics.report(
                    review, product.path, day < from.value ? from.mark : until.mark,
                    "the compliance review \(when), so the product cannot be advertised on \(day); renew the review or set status: withdrawn")
            }
            switch (disclosure.rateType.value, disclosure.baseRate) {
            case (.fixed, let base?):
                diagnostics.report(rateComposition, product.path, base.mark, "a fixed rate follows no base rate; remove base_rate_ko or set rate_type: variable")
            case (.variable, nil), (.mixed, nil):
                diagnostics.report(
                    rateComposition, product.path, disclosure.rateType.mark, "a \(disclosure.rateType.value.rawValue) rate needs base_rate_ko naming the base rate it follows (COFIX, 금융채 6개월, ...)")
            default: break
            }
            checkExample(disclosure.repaymentExample, product: product, tables: tablesByProduct[product.key] ?? [], limits: content.limits, on: day, into: diagnostics)
            let inForce = (tablesByProduct[product.key] ?? []).last(where: { $0.isInForce(on: day) })
            if product.status.value == .active, let table = inForce {
                let lowestScore = (content.limits?.latest(.creditScoreMin)?.value.thousandths ?? 0) / 1000
                checkRequiredCredit(disclosure.requiredCredit, of: product, against: table, lowestScore: lowestScore, into: diagnostics)
            }
            if let pricing = inForce ?? tablesByProduct[product.key]?.last, pricing.scale == .score {
                checkGrades(product, pricedBy: pricing, requiredCreditChecked: product.status.value == .active && inForce != nil, into: diagnostics)
            }
        }
    }

    /// DSC-18: the copy of a product priced on scores (its table in force, else its last) names no
    /// credit grade. A required credit stated in grades against the table in force is DSC-17's.
    package static func checkGrades(_ product: Product, pricedBy table: RateTable, requiredCreditChecked: Bool, into diagnostics: Diagnostics) {
        for (field, value) in product.copyFields {
            if field == "disclosure.required_credit_ko" && requiredCreditChecked
                && gradeFloor.firstMatch(in: value.value, range: NSRange(value.value.startIndex..., in: value.value)) != nil
            {
                continue
            }
            guard let match = DisclosureRules.firstMatch(gradeWording, in: CopyText(plain: value.value, at: value.mark).text) else { continue }
            diagnostics.report(
                gradesInCopy, product.path, value.mark,
                "\(field) speaks of credit grades ('\(match)'), but the product is priced on credit scores (\(DurableFiles.name(of: table.path))); grades were replaced by 0-1000 scores on 2021-01-01, so state the score (신용평점) instead"
            )
        }
    }

    /// '<bureau> 개인신용평점 <n>점 이상', '<n>등급 이내', '전 구간': the floor a text states.
    package static let scoreFloor = try! NSRegularExpression(pattern: "(KCB|NICE)?\\s*(?:개인)?신용평점\\s*([0-9]+)\\s*점\\s*이상")
    package static let gradeFloor = try! NSRegularExpression(pattern: "(KCB|NICE)?\\s*(?:개인)?신용등급\\s*([0-9]+)\\s*등급\\s*이내")
    package static let everyone = try! NSRegularExpression(pattern: "(KCB|NICE)?\\s*(?:개인)?신용(?:평점|등급)\\s*전\\s*구간")

    /// The stated floor against the table in force: its bureau, and where its worst band ends.
    /// A text that states no floor in these words is left to review.
    package static func checkRequiredCredit(_ text: Located<String>, of product: Product, against table: RateTable, lowestScore: Int, into diagnostics: Diagnostics) {
        let value = text.value
        let range = NSRange(value.startIndex..., in: value)
        let bounds = (table.bands.map(\.min.value).min(), table.bands.map(\.max.value).max())
        guard let low = bounds.0, let high = bounds.1 else { return }
        let worst = table.scale == .score ? low : high
        let stated: (bureau: String?, floor: Int?, scale: RateTable.Scale)
        func group(_ match: NSTextCheckingResult, _ index: Int) -> String? {
            Range(match.range(at: index), in: value).map { String(value[$0]) }
        }
        if let match = scoreFloor.firstMatch(in: value, range: range) {
            stated = (group(match, 1), group(match, 2).flatMap { Int($0) }, .score)
        } else if let match = gradeFloor.firstMatch(in: value, range: range) {
            stated = (group(match, 1), group(match, 2).flatMap { Int($0) }, .grade)
        } else if let match = everyone.firstMatch(in: value, range: range) {
            stated = (group(match, 1), nil, table.scale)
        } else {
            return
        }
        let inForce = "the table in force (\(DurableFiles.name(of: table.path)))"
        if let bureau = stated.bureau, bureau != table.bureau.value.rawValue {
            diagnostics.report(
                requiredCredit, product.path, text.mark, "required_credit_ko names \(bureau), but \(inForce) is priced on \(table.bureau.value.rawValue) \(table.scale == .score ? "scores" : "grades")"
            )
        } else if stated.scale != table.scale {
            diagnostics.report(
                requiredCredit, product.path, text.mark,
                "required_credit_ko states a credit \(stated.scale == .score ? "score" : "grade"), but \(inForce) is priced by \(table.scale == .score ? "score" : "grade")")
        } else if let floor = stated.floor, floor != worst {
            let actual = table.scale == .score ? "\(worst)점 이상" : "\(worst)등급 이내"
            diagnostics.report(
                requiredCredit, product.path, text.mark,
                "required_credit_ko says '\(table.scale == .score ? "\(floor)점 이상" : "\(floor)등급 이내")', but \(inForce) lends to \(actual); state the table's floor")
        } else if stated.floor == nil {
            let bottom = table.scale == .score ? lowestScore : BandRules.grades.upperBound
            if worst != bottom {
                diagnostics.report(
                    requiredCredit, product.path, text.mark,
                    "required_credit_ko says every credit level (전 구간), but \(inForce) lends only to \(table.scale == .score ? "\(worst)점 이상" : "\(worst)등급 이내")")
            }
        }
    }

    package static func checkExample(_ example: Product.RepaymentExample, product: Product, tables: [RateTable], limits: LegalLimits?, on day: Day, into diagnostics: Diagnostics) {
        let offered = Set(product.repayment.map(\.value))
        if !offered.contains(example.method.value) {
            diagnostics.report(
                repaymentExample, product.path, example.method.mark, "the example repays by \(example.method.value.rawValue), which the product does not offer; use one of repayment_methods")
        }
        if !product.termsMonths.value.contains(where: { $0.value == example.months.value }) {
            diagnostics.report(repaymentExample, product.path, example.months.mark, "the example runs \(example.months.value) months, which is not in terms_months")
        }
        if example.amount.value < product.limitMin.value || example.amount.value > product.limitMax.value {
            diagnostics.report(
                repaymentExample, product.path, example.amount.mark, "the example lends \(example.amount.value) won, outside the product's limit \(product.limitMin.value)-\(product.limitMax.value)")
        }
        // Below the lowest rate in force, the example understates what the loan costs; above
        // the highest it overstates it, which misleads no one (and a rate cut must not make
        // every example wrong).
        if let table = tables.last(where: { $0.isInForce(on: day) }), let low = table.bands.map(\.aprMin.value).min(), example.apr.value < low {
            diagnostics.report(
                repaymentExample, product.path, example.apr.mark,
                "the example's rate \(example.apr.value)% is below the lowest rate of the table in force (\(low)%), so it understates the cost; use a rate the product offers")
        }
        if let cap = limits?.inForce(.maxAPR, on: day), example.apr.value > cap.value {
            diagnostics.report(
                repaymentExample, product.path, example.apr.mark,
                "the example's rate \(example.apr.value)% is above the legal cap \(cap.value) in force since \(cap.effectiveFrom); use a rate the product offers")
        }
        guard example.months.value > 0, example.amount.value > 0 else { return }
        let expected = total(example)
        let tolerance = max(100, expected / 10_000)
        if abs(example.total.value - expected) > tolerance {
            diagnostics.report(
                repaymentExample, product.path, example.total.mark,
                "total_krw \(example.total.value) is not what \(example.amount.value) won at \(example.apr.value)% over \(example.months.value) months by \(example.method.value.rawValue) costs: \(expected) won; correct it"
            )
        }
    }

    /// What the borrower pays in all, in won: monthly interest at APR/12 on the balance;
    /// equal installments by the annuity formula, equal principal with interest on the falling
    /// balance, bullet and revolving with interest on the whole amount every month.
    package static func total(_ example: Product.RepaymentExample) -> Int {
        total(amount: example.amount.value, apr: example.apr.value, months: example.months.value, method: example.method.value)
    }

    package static func total(amount: Int, apr: Percent, months count: Int, method: Product.Repayment) -> Int {
        let principal = Double(amount)
        let rate = Double(apr.thousandths) / 1000 / 100 / 12
        let months = Double(count)
        switch method {
        case .equalInstallment:
            guard rate > 0 else { return amount }
            let payment = principal * rate / (1 - pow(1 + rate, -months))
            return Int((payment * months).rounded())
        case .equalPrincipal:
            return Int((principal + principal * rate * (months + 1) / 2).rounded())
        case .bullet, .revolving:
            return Int((principal + principal * rate * months).rounded())
        }
    }
}
