import Foundation
import RatecardSupport

/// What a product page discloses besides rates and fees (`disclosure:` in product.yaml): the
/// compliance review, how the rate is set and a worked repayment example.
public enum ProductDisclosureRules {
    public static let review = Rule(
        "DSC-10", .error, "advertising has a compliance review in force", "금소법 제22조, 시행령 제19조②: an advertised product carries its 준법감시인 심의 number, and is advertised only while the review is valid.",
        ko: "광고에는 유효한 준법감시인 심의가 있음", "금소법 제22조, 시행령 제19조②: 광고하는 상품에는 준법감시인 심의 번호가 있어야 하고, 심의가 유효한 동안에만 광고합니다.")
    public static let rateComposition = Rule(
        "DSC-11", .error, "the rate type and what it follows agree", "금소법 제19조①1라, 시행령 제13조: the borrower is told whether the rate is fixed or variable and, if variable, the base rate it follows.",
        ko: "금리 유형과 기준금리가 맞음", "금소법 제19조①1라, 시행령 제13조: 금리가 고정인지 변동인지, 변동이면 어느 기준금리를 따르는지 차입자에게 알려야 합니다.")
    public static let repaymentExample = Rule(
        "DSC-12", .error, "the repayment example is computed right",
        "금소법 제22조④, 시행령 제18조①: a total-cost example must be what the loan costs: the total for its amount, rate, term and method, on terms the product offers and at a rate no lower than it charges.",
        ko: "상환 예시의 계산이 맞음",
        "금소법 제22조④, 시행령 제18조①: 총비용 예시는 실제 대출 비용이어야 합니다. 상품이 제공하는 조건과 실제 받는 금리 이상으로, 금액·금리·기간·방식에 맞는 총액을 씁니다.")

    public static let requiredCredit = Rule(
        "DSC-17", .error, "the required credit level is the table's",
        "금소법 제19조①, 시행령 제13조: the borrower is told the credit needed to borrow; a stated floor ('KCB 개인신용평점 601점 이상', '6등급 이내', '전 구간') must be where the table in force stops lending, on its bureau.",
        ko: "안내하는 신용 조건은 금리표의 조건",
        "금소법 제19조①, 시행령 제13조: 대출에 필요한 신용 수준을 차입자에게 알려야 합니다. 안내한 하한('KCB 개인신용평점 601점 이상', '6등급 이내', '전 구간')은 시행 중인 금리표가 그 신용평가사 기준으로 대출하는 한계와 같아야 합니다.")

    public static let gradesInCopy = Rule(
        "DSC-18", .error, "a product priced on scores does not speak of credit grades",
        "Credit grades (신용등급, 1-10등급) were replaced by 0-1000 scores on 2021-01-01 (FSC, https://fsc.go.kr/eng/pr010101/22329); copy that tells a borrower a grade for a product priced on scores misleads about who can borrow (금소법 제22조④).",
        ko: "신용점수로 금리를 정하는 상품은 신용등급을 말하지 않음",
        "신용등급(1-10등급)은 2021-01-01부터 0-1000점의 신용점수로 바뀌었습니다(금융위원회, https://fsc.go.kr/eng/pr010101/22329). 점수로 금리를 정하는 상품에 등급을 안내하면 누가 대출받을 수 있는지 오해하게 합니다 (금소법 제22조④).")

    public static let reviewExpired = Rule(
        "DSC-21", .warning, "a product whose review has ended is not shown",
        "금소법 시행령 제19조②: advertising is shown only while its compliance review is valid; from the day after review_valid_until a build leaves the product out of every screen, as if withdrawn, until the review is renewed or the product withdrawn.",
        ko: "심의가 끝난 상품은 보여 주지 않음",
        "금소법 시행령 제19조②: 광고는 준법감시인 심의가 유효한 동안에만 보여 줍니다. review_valid_until 다음 날부터는 심의를 갱신하거나 상품을 판매 중단할 때까지 빌드가 그 상품을 판매 중단된 상품처럼 모든 화면에서 뺍니다.")
    public static let reviewEnding = Rule(
        "DSC-22", .warning, "a compliance review ends soon",
        "금소법 시행령 제19조②: a review that ends takes its product off the screens the next day; it is warned about review_warning_days ahead (ratecard.yaml, default 30) so that it can be renewed in time.",
        ko: "준법감시인 심의가 곧 끝남",
        "금소법 시행령 제19조②: 심의가 끝나면 다음 날 상품이 화면에서 빠집니다. 제때 갱신할 수 있도록 review_warning_days(ratecard.yaml, 기본값 30)일 전부터 경고합니다.")
    public static let reviewTooLong = Rule(
        "DSC-23", .error, "a review is valid no longer than the review guide allows",
        "The longest validity of an advertising review is dated data in regulatory/limits.yaml (review_valid_max_months, with its citation: 한국대부금융협회 광고심의 가이드, 심의필 유효기간 1년); a longer window was not given by the review.",
        ko: "심의 유효기간은 심의 기준이 허용하는 기간 이내",
        "광고 심의의 최장 유효기간은 regulatory/limits.yaml의 날짜별 데이터입니다(review_valid_max_months, 근거: 한국대부금융협회 광고심의 가이드, 심의필 유효기간 1년). 그보다 긴 기간은 심의가 준 것이 아닙니다.")

    public static let all = [review, rateComposition, repaymentExample, requiredCredit, gradesInCopy, reviewExpired, reviewEnding, reviewTooLong]

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
                diagnostics.report(
                    review, product.path, number.mark,
                    Message(
                        "review_no '\(number.value)' is not a compliance review number ('준법감시인 심의필 제2026-0412호'); copy it from the review record",
                        ko: "review_no '\(number.value)'은(는) 준법감시인 심의 번호('준법감시인 심의필 제2026-0412호')가 아닙니다; 심의 기록에서 복사하세요"))
            }
            let from = disclosure.reviewValidFrom
            let until = disclosure.reviewValidUntil
            if until.value < from.value {
                diagnostics.report(
                    review, product.path, until.mark,
                    Message("review_valid_until \(until.value) is before review_valid_from \(from.value)", ko: "review_valid_until \(until.value)이(가) review_valid_from \(from.value)보다 앞섭니다"))
            } else if product.status.value == .active && day < from.value {
                diagnostics.report(
                    review, product.path, from.mark,
                    Message(
                        "the compliance review starts on \(from.value), so the product cannot be advertised on \(day); renew the review or set status: withdrawn",
                        ko: "준법감시인 심의가 \(from.value)에 시작되므로 \(day)에는 상품을 광고할 수 없습니다; 심의를 갱신하거나 status: withdrawn으로 바꾸세요"))
            } else if product.status.value == .active {
                checkReviewWindow(product, on: day, content: content, into: diagnostics)
            }
            switch (disclosure.rateType.value, disclosure.baseRate) {
            case (.fixed, let base?):
                diagnostics.report(
                    rateComposition, product.path, base.mark,
                    Message("a fixed rate follows no base rate; remove base_rate_ko or set rate_type: variable", ko: "고정금리는 기준금리를 따르지 않습니다; base_rate_ko를 지우거나 rate_type: variable로 바꾸세요"))
            case (.variable, nil), (.mixed, nil):
                diagnostics.report(
                    rateComposition, product.path, disclosure.rateType.mark,
                    Message(
                        "a \(disclosure.rateType.value.rawValue) rate needs base_rate_ko naming the base rate it follows (COFIX, 금융채 6개월, ...)",
                        ko: "\(disclosure.rateType.value.rawValue) 금리에는 따르는 기준금리를 밝힌 base_rate_ko가 있어야 합니다 (COFIX, 금융채 6개월 등)"))
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

    /// What a build as of `day` says of an active product whose review has ended (DSC-21's
    /// message, and the warning of `build` and `publish`): the product and the fix.
    public static func leftOut(_ product: Product, on day: Day) -> Message {
        let (name, until) = ("\(product.nameKo.value) (\(product.key))", product.disclosure.reviewValidUntil.value)
        return Message(
            "the compliance review of \(name) ended on \(until), so a build as of \(day) leaves the product out of every screen (shown as withdrawn); renew the review (a new review_no and window) or set status: withdrawn",
            ko: "\(name)의 준법감시인 심의가 \(until)에 끝났으므로 \(day) 기준 빌드는 이 상품을 모든 화면에서 뺍니다 (판매 중단처럼 표시); 심의를 갱신하거나(새 review_no와 유효기간) status: withdrawn으로 바꾸세요")
    }

    /// DSC-21, DSC-22, DSC-23: an active product's review window, once it has started: ended
    /// (the product is left out of the build, a warning), ending within `review_warning_days`,
    /// or longer than the maximum in force on its first day.
    static func checkReviewWindow(_ product: Product, on day: Day, content: Content, into diagnostics: Diagnostics) {
        let (from, until) = (product.disclosure.reviewValidFrom, product.disclosure.reviewValidUntil)
        let name = "\(product.nameKo.value) (\(product.key))"
        if until.value < day {
            diagnostics.report(reviewExpired, product.path, until.mark, leftOut(product, on: day))
        } else {
            let warningDays = content.config?.reviewWarningDays ?? ServiceConfig.defaultReviewWarningDays
            let left = until.value.ordinal - day.ordinal
            if left < warningDays {
                diagnostics.report(
                    reviewEnding, product.path, until.mark,
                    Message(
                        "the compliance review of \(name) ends on \(until.value) (in \(left) day(s)); from \(until.value.adding(days: 1)) the product is left out of every screen until the review is renewed",
                        ko: "\(name)의 준법감시인 심의가 \(until.value)에 끝납니다 (\(left)일 남음); 심의를 갱신하지 않으면 \(until.value.adding(days: 1))부터 이 상품이 모든 화면에서 빠집니다"))
            }
        }
        if let maximum = content.limits?.inForce(.reviewValidMaxMonths, on: from.value) {
            let months = maximum.value.thousandths / 1000
            let end = from.value.adding(months: months)
            if until.value >= end {
                diagnostics.report(
                    reviewTooLong, product.path, until.mark,
                    Message(
                        "the review window \(from.value)..\(until.value) is longer than the \(months) month(s) a review is valid (\(maximum.citation)); the last valid day is \(end.adding(days: -1)): copy the window from the review record",
                        ko: "심의 유효기간 \(from.value)..\(until.value)이(가) 심의가 유효한 \(months)개월보다 깁니다 (\(maximum.citation)); 마지막 유효일은 \(end.adding(days: -1))입니다: 심의 기록의 유효기간을 그대로 쓰세요"))
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
            // Every match of the expression ends in '등급': copy without it is not searched.
            let text = CopyText(plain: value.value, at: value.mark).text
            guard text.containsBytes("등급"), let match = DisclosureRules.firstMatch(gradeWording, in: text) else { continue }
            let tableName = DurableFiles.name(of: table.path)
            diagnostics.report(
                gradesInCopy, product.path, value.mark,
                Message(
                    "\(field) speaks of credit grades ('\(match)'), but the product is priced on credit scores (\(tableName)); grades were replaced by 0-1000 scores on 2021-01-01, so state the score (신용평점) instead",
                    ko: "\(field)에 신용등급 표현('\(match)')이 있지만 이 상품은 신용점수로 금리를 정합니다 (\(tableName)); 신용등급은 2021-01-01부터 0-1000점의 신용점수로 바뀌었으니 신용평점으로 쓰세요"))
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
        let inForce = Message("the table in force (\(DurableFiles.name(of: table.path)))", ko: "시행 중인 금리표(\(DurableFiles.name(of: table.path)))")
        if let bureau = stated.bureau, bureau != table.bureau.value.rawValue {
            diagnostics.report(
                requiredCredit, product.path, text.mark,
                Message(
                    "required_credit_ko names \(bureau), but \(inForce) is priced on \(table.bureau.value.rawValue) \(table.scale == .score ? "scores" : "grades")",
                    ko: "required_credit_ko는 \(bureau) 기준인데 \(inForce)은(는) \(table.bureau.value.rawValue) \(table.scale == .score ? "점수" : "등급")로 가격을 정합니다")
            )
        } else if stated.scale != table.scale {
            diagnostics.report(
                requiredCredit, product.path, text.mark,
                Message(
                    "required_credit_ko states a credit \(stated.scale == .score ? "score" : "grade"), but \(inForce) is priced by \(table.scale == .score ? "score" : "grade")",
                    ko: "required_credit_ko는 신용\(stated.scale == .score ? "점수" : "등급")로 안내하는데 \(inForce)은(는) \(table.scale == .score ? "점수" : "등급")로 가격을 정합니다"))
        } else if let floor = stated.floor, floor != worst {
            let actual = table.scale == .score ? "\(worst)점 이상" : "\(worst)등급 이내"
            diagnostics.report(
                requiredCredit, product.path, text.mark,
                Message(
                    "required_credit_ko says '\(table.scale == .score ? "\(floor)점 이상" : "\(floor)등급 이내")', but \(inForce) lends to \(actual); state the table's floor",
                    ko: "required_credit_ko는 '\(table.scale == .score ? "\(floor)점 이상" : "\(floor)등급 이내")'(이)라고 하지만 \(inForce)은(는) \(actual)에 대출합니다; 금리표의 하한을 쓰세요"))
        } else if stated.floor == nil {
            let bottom = table.scale == .score ? lowestScore : BandRules.grades.upperBound
            if worst != bottom {
                diagnostics.report(
                    requiredCredit, product.path, text.mark,
                    Message(
                        "required_credit_ko says every credit level (전 구간), but \(inForce) lends only to \(table.scale == .score ? "\(worst)점 이상" : "\(worst)등급 이내")",
                        ko: "required_credit_ko는 모든 신용 수준(전 구간)이라고 하지만 \(inForce)은(는) \(table.scale == .score ? "\(worst)점 이상" : "\(worst)등급 이내")에만 대출합니다; 금리표의 하한을 쓰세요"))
            }
        }
    }

    package static func checkExample(_ example: Product.RepaymentExample, product: Product, tables: [RateTable], limits: LegalLimits?, on day: Day, into diagnostics: Diagnostics) {
        let offered = Set(product.repayment.map(\.value))
        if !offered.contains(example.method.value) {
            diagnostics.report(
                repaymentExample, product.path, example.method.mark,
                Message(
                    "the example repays by \(example.method.value.rawValue), which the product does not offer; use one of repayment_methods",
                    ko: "예시의 상환 방식 \(example.method.value.rawValue)은(는) 이 상품이 제공하지 않습니다; repayment_methods에 있는 방식을 쓰세요"))
        }
        if !product.termsMonths.value.contains(where: { $0.value == example.months.value }) {
            diagnostics.report(
                repaymentExample, product.path, example.months.mark,
                Message("the example runs \(example.months.value) months, which is not in terms_months", ko: "예시의 기간 \(example.months.value)개월이 terms_months에 없습니다"))
        }
        if example.amount.value < product.limitMin.value || example.amount.value > product.limitMax.value {
            diagnostics.report(
                repaymentExample, product.path, example.amount.mark,
                Message(
                    "the example lends \(example.amount.value) won, outside the product's limit \(product.limitMin.value)-\(product.limitMax.value)",
                    ko: "예시의 대출액 \(example.amount.value)원이 상품 한도 \(product.limitMin.value)-\(product.limitMax.value)원을 벗어납니다"))
        }
        // Below the lowest rate in force, the example understates what the loan costs; above
        // the highest it overstates it, which misleads no one (and a rate cut must not make
        // every example wrong).
        if let table = tables.last(where: { $0.isInForce(on: day) }), let low = table.bands.map(\.aprMin.value).min(), example.apr.value < low {
            diagnostics.report(
                repaymentExample, product.path, example.apr.mark,
                Message(
                    "the example's rate \(example.apr.value)% is below the lowest rate of the table in force (\(low)%), so it understates the cost; use a rate the product offers",
                    ko: "예시의 금리 \(example.apr.value)%가 시행 중인 금리표의 최저금리(\(low)%)보다 낮아 비용을 적게 보이게 합니다; 상품이 실제 제공하는 금리를 쓰세요"))
        }
        if let cap = limits?.inForce(.maxAPR, on: day), example.apr.value > cap.value {
            diagnostics.report(
                repaymentExample, product.path, example.apr.mark,
                Message(
                    "the example's rate \(example.apr.value)% is above the legal cap \(cap.value) in force since \(cap.effectiveFrom); use a rate the product offers",
                    ko: "예시의 금리 \(example.apr.value)%가 \(cap.effectiveFrom)부터 시행 중인 법정 최고금리 \(cap.value)을(를) 넘습니다; 상품이 실제 제공하는 금리를 쓰세요"))
        }
        guard example.months.value > 0, example.amount.value > 0 else { return }
        let expected = total(example)
        let tolerance = max(100, expected / 10_000)
        if abs(example.total.value - expected) > tolerance {
            diagnostics.report(
                repaymentExample, product.path, example.total.mark,
                Message(
                    "total_krw \(example.total.value) is not what \(example.amount.value) won at \(example.apr.value)% over \(example.months.value) months by \(example.method.value.rawValue) costs: \(expected) won; correct it",
                    ko:
                        "total_krw \(example.total.value)은(는) \(example.amount.value)원을 연 \(example.apr.value)%로 \(example.months.value)개월 동안 \(example.method.value.rawValue) 방식으로 갚을 때의 총액이 아닙니다: 총액은 \(expected)원입니다; 고치세요"
                )
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
