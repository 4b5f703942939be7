import RatecardSupport

/// Legal caps, resolved by date from `regulatory/limits.yaml`.
public enum CapRules {
    public static let apr = Rule(
        "CAP-01", .error, "APR within the legal cap in force",
        "대부업법 시행령 제5조②·제9조①: 20% from 2021-07-07 (24% from 2018-02-08, 27.9% from 2016-03-03); the excess is void and charging it is a crime.",
        ko: "금리는 시행 중인 법정 최고금리 이내", "대부업법 시행령 제5조②·제9조①: 2021-07-07부터 20% (2018-02-08부터 24%, 2016-03-03부터 27.9%). 넘는 부분은 무효이고, 받으면 범죄입니다.")
    public static let lateSpread = Rule(
        "CAP-02", .error, "late-interest spread within the cap", "FSC late-interest rule (2018-04-30): at most contract rate + 3.0pp.",
        ko: "연체 가산금리는 상한 이내", "금융위원회 연체이자 기준(2018-04-30): 약정금리 + 3.0%p까지입니다.")
    public static let lateMax = Rule(
        "CAP-03", .error, "late interest within the legal cap", "대부업법 제15조③, 시행령 제9조④: late interest is capped like any interest.",
        ko: "연체이자는 법정 최고금리 이내", "대부업법 제15조③, 시행령 제9조④: 연체이자도 다른 이자처럼 최고금리의 제한을 받습니다.")
    public static let earlyRepaymentPeriod = Rule(
        "CAP-04", .error, "early-repayment fee only within the legal period", "금소법 제20조①4나: an early-repayment fee after 3 years is an unfair practice.",
        ko: "중도상환수수료는 법정 기간 안에서만", "금소법 제20조①4나: 3년이 지난 뒤의 중도상환수수료는 불공정영업행위입니다.")
    public static let capDefined = Rule(
        "CAP-05", .error, "a cap is defined for every date used", "A rate table dated before every known cap cannot be checked against the law.",
        ko: "쓰이는 모든 날짜에 한도가 정의됨", "알려진 어떤 한도보다도 앞선 날짜의 금리표는 법에 맞는지 검사할 수 없습니다.")
    public static let originationFee = Rule(
        "CAP-06", .error, "fees count as interest",
        "대부업법 제8조②·제15조②: a fee under any name is interest; an origination fee, annualised on the smallest loan over the shortest term, plus apr_max_pct stays within the cap.",
        ko: "수수료도 이자로 계산",
        "대부업법 제8조②·제15조②: 명칭이 무엇이든 수수료는 이자입니다. 가장 작은 대출액과 가장 짧은 기간으로 연이율을 환산한 취급수수료에 apr_max_pct를 더해도 최고금리 이내여야 합니다.")
    public static let earlyRepaymentFee = Rule(
        "CAP-07", .error, "an early-repayment fee above the exemption counts as interest",
        "대부업법 시행령 제9조③: only an early-repayment fee up to 1% on loans of a year or more is not interest; above it, apr_max_pct + the fee stays within the cap.",
        ko: "면제 한도를 넘는 중도상환수수료는 이자로 계산",
        "대부업법 시행령 제9조③: 1년 이상 대출의 1% 이하 중도상환수수료만 이자가 아닙니다. 그보다 높으면 apr_max_pct에 수수료를 더해도 최고금리 이내여야 합니다.")
    public static let shortLoanFee = Rule(
        "CAP-08", .error, "no early-repayment fee on loans shorter than the exemption allows",
        "대부업법 시행령 제9조③: on a loan under 12 months an early-repayment fee is interest; such terms are offered without one.",
        ko: "면제 기간보다 짧은 대출에는 중도상환수수료 없음", "대부업법 시행령 제9조③: 12개월 미만 대출의 중도상환수수료는 이자입니다. 그런 기간은 수수료 없이 제공합니다.")
    public static let feePeriod = Rule(
        "CAP-09", .error, "early-repayment fee and its period agree with the loan terms",
        "금소법 제19조①1라: whether a fee applies, for how long and at what rate is explained to the borrower; a fee without a period, a period without a fee or a period longer than every term misleads.",
        ko: "중도상환수수료와 그 기간이 대출 조건과 맞음",
        "금소법 제19조①1라: 수수료가 붙는지, 얼마 동안 몇 %인지 차입자에게 설명해야 합니다. 기간 없는 수수료, 수수료 없는 기간, 모든 대출 기간보다 긴 수수료 기간은 오해를 낳습니다.")
    public static let programCap = Rule(
        "CAP-10", .error, "policy products respect their programme's caps",
        "Policy programmes (햇살론, 사잇돌 and the like) set caps below the legal one; they are data in regulatory/limits.yaml (program:), and a policy product names its programme.",
        ko: "정책 상품은 그 프로그램의 한도를 지킴",
        "정책 프로그램(햇살론, 사잇돌 등)은 법정 한도보다 낮은 한도를 둡니다. 그 한도는 regulatory/limits.yaml의 데이터(program:)이며, 정책 상품은 자기 프로그램을 밝힙니다.")

    public static let all = [apr, lateSpread, lateMax, earlyRepaymentPeriod, capDefined, originationFee, earlyRepaymentFee, shortLoanFee, feePeriod, programCap]

    package static func check(_ content: Content, _ context: ValidationContext, into diagnostics: Diagnostics) {
        guard let limits = content.limits else { return }
        checkTables(content, limits, into: diagnostics)
        let tablesByProduct = content.rateTablesByProduct
        let pending = content.partnersGoingLive(after: context.asOf)
        for product in content.products {
            let tables = tablesByProduct[product.key] ?? []
            let day = offeredDay(product, tables, context, pending: pending)
            if let cap = limits.inForce(.lateSpreadMax, on: day), cap.value < product.lateSpread.value {
                diagnostics.report(
                    lateSpread, product.path, product.lateSpread.mark,
                    Message(
                        "late_interest.spread_pp \(product.lateSpread.value) is above the cap \(cap.value)pp in force since \(cap.effectiveFrom) (\(cap.citation))",
                        ko: "late_interest.spread_pp \(product.lateSpread.value)이(가) \(cap.effectiveFrom)부터 시행 중인 상한 \(cap.value)%p를 넘습니다 (\(cap.citation)); 상한 이하로 낮추세요"))
            }
            if let cap = limits.inForce(.lateInterestMax, on: day), cap.value < product.lateMax.value {
                diagnostics.report(
                    lateMax, product.path, product.lateMax.mark,
                    Message(
                        "late_interest.max_pct \(product.lateMax.value) is above the legal cap \(cap.value) in force since \(cap.effectiveFrom) (\(cap.citation))",
                        ko: "late_interest.max_pct \(product.lateMax.value)이(가) \(cap.effectiveFrom)부터 시행 중인 법정 최고금리 \(cap.value)을(를) 넘습니다 (\(cap.citation)); \(cap.value) 이하로 낮추세요"))
            }
            if let cap = limits.inForce(.earlyRepaymentFeeMaxMonths, on: day),
                product.earlyRepaymentFee.value > .zero,
                cap.value < Percent(thousandths: product.earlyRepaymentMonths.value * 1000)
            {
                diagnostics.report(
                    earlyRepaymentPeriod, product.path, product.earlyRepaymentMonths.mark,
                    Message(
                        "fees.early_repayment_months \(product.earlyRepaymentMonths.value) is longer than the \(cap.value.thousandths / 1000) months allowed since \(cap.effectiveFrom) (\(cap.citation))",
                        ko:
                            "fees.early_repayment_months \(product.earlyRepaymentMonths.value)개월은 \(cap.effectiveFrom)부터 허용되는 \(cap.value.thousandths / 1000)개월보다 깁니다 (\(cap.citation)); \(cap.value.thousandths / 1000) 이하로 줄이세요"
                    ))
            }
            checkFeePeriod(product, limits, day, into: diagnostics)
            checkProgram(product, limits, day, into: diagnostics)
            checkFees(product, tables, limits, into: diagnostics)
        }
    }

    /// The day a product's own terms (late interest, fees) are judged by: the law in force while
    /// it was offered. An active product is offered on the validation date; a withdrawn one was
    /// last offered when its last rate table ended (or, open-ended, took effect), so a product
    /// withdrawn in 2020 keeps the terms that were lawful then. A product of a partner that goes
    /// live later is offered from that day.
    package static func offeredDay(_ product: Product, _ tables: [RateTable], _ context: ValidationContext, pending: [String: Day] = [:]) -> Day {
        guard product.status.value == .withdrawn, let last = tables.last else { return Content.offerDay(of: product, asOf: context.asOf, pending: pending) }
        return min(last.effectiveTo?.value ?? last.effectiveFrom.value, context.asOf)
    }

    /// CAP-08 and CAP-09: the fee, its period and the terms offered agree.
    private static func checkFeePeriod(_ product: Product, _ limits: LegalLimits, _ day: Day, into diagnostics: Diagnostics) {
        let fee = product.earlyRepaymentFee
        let months = product.earlyRepaymentMonths
        let terms = product.termsMonths.value
        if fee.value > .zero && months.value == 0 {
            diagnostics.report(
                feePeriod, product.path, months.mark,
                Message(
                    "fees.early_repayment_pct is \(fee.value) but early_repayment_months is 0; give the period the fee applies (from the loan date), or set the fee to 0.0",
                    ko: "fees.early_repayment_pct는 \(fee.value)인데 early_repayment_months가 0입니다; 수수료가 붙는 기간(대출일부터)을 쓰거나 수수료를 0.0으로 바꾸세요"))
        } else if fee.value == .zero && months.value > 0 {
            diagnostics.report(
                feePeriod, product.path, months.mark,
                Message("fees.early_repayment_months is \(months.value) but there is no early-repayment fee; set it to 0", ko: "fees.early_repayment_months는 \(months.value)인데 중도상환수수료가 없습니다; 0으로 바꾸세요")
            )
        } else if let longest = terms.map(\.value).max(), fee.value > .zero, months.value > longest {
            diagnostics.report(
                feePeriod, product.path, months.mark,
                Message(
                    "fees.early_repayment_months \(months.value) is longer than the longest term offered (\(longest) months); the fee period cannot outlast the loan, shorten it",
                    ko: "fees.early_repayment_months \(months.value)개월이 제공하는 가장 긴 대출 기간(\(longest)개월)보다 깁니다; 수수료 기간은 대출 기간을 넘을 수 없으니 줄이세요"))
        }
        if fee.value > .zero, let minimum = limits.inForce(.earlyRepaymentFeeExemptMinTermMonths, on: day) {
            let floor = minimum.value.thousandths / 1000
            for term in terms where term.value < floor {
                diagnostics.report(
                    shortLoanFee, product.path, term.mark,
                    Message(
                        "a \(term.value)-month term is shorter than \(floor) months, where an early-repayment fee counts as interest (\(minimum.citation)); offer it without a fee (a separate product) or remove the term",
                        ko: "\(term.value)개월 기간은 \(floor)개월보다 짧아 중도상환수수료가 이자로 계산됩니다 (\(minimum.citation)); 이 기간은 수수료 없이(별도 상품으로) 제공하거나 빼세요")
                )
            }
        }
    }

    /// CAP-10: a policy product names its programme, the programme has caps, and late interest
    /// respects the programme's late cap (the APR cap is checked per table in `checkTables`).
    private static func checkProgram(_ product: Product, _ limits: LegalLimits, _ day: Day, into diagnostics: Diagnostics) {
        guard let program = product.policyProgram else {
            if product.kind.value == .policy {
                diagnostics.report(
                    programCap, product.path, product.kind.mark,
                    Message(
                        "a policy product needs policy_program naming its programme (its caps are entries with program: in regulatory/limits.yaml)",
                        ko: "정책 상품에는 그 프로그램을 밝히는 policy_program이 있어야 합니다 (프로그램의 한도는 regulatory/limits.yaml에서 program:이 있는 항목입니다)"))
            }
            return
        }
        guard limits.programs.contains(program.value) else {
            let known = limits.programs.sorted().joined(separator: ", ")
            diagnostics.report(
                programCap, product.path, program.mark,
                Message(
                    "policy programme '\(program.value)' has no caps in regulatory/limits.yaml (known: \(known.isEmpty ? "none" : known)); add its max_apr_pct with program: \(program.value) and a citation",
                    ko:
                        "정책 프로그램 '\(program.value)'의 한도가 regulatory/limits.yaml에 없습니다 (있는 프로그램: \(known.isEmpty ? "없음" : known)); program: \(program.value)와(과) 근거(citation)를 붙여 max_apr_pct 항목을 추가하세요"
                ))
            return
        }
        if let cap = limits.inForce(.lateInterestMax, on: day, program: program.value), cap.value < product.lateMax.value {
            diagnostics.report(
                programCap, product.path, product.lateMax.mark,
                Message(
                    "late_interest.max_pct \(product.lateMax.value) is above the \(program.value) programme's late-interest cap \(cap.value) in force since \(cap.effectiveFrom) (\(cap.citation)); lower it",
                    ko: "late_interest.max_pct \(product.lateMax.value)이(가) \(cap.effectiveFrom)부터 시행 중인 \(program.value) 프로그램의 연체이자 상한 \(cap.value)을(를) 넘습니다 (\(cap.citation)); \(cap.value) 이하로 낮추세요")
            )
        }
    }

    /// CAP-06 and CAP-07: fees that count as interest, added to the highest APR of each table,
    /// stay within the strictest cap in force while the table is. Each is reported once, for
    /// the table where it goes furthest over.
    private static func checkFees(_ product: Product, _ tables: [RateTable], _ limits: LegalLimits, into diagnostics: Diagnostics) {
        let origination = product.originationFee.value
        let shortest = product.termsMonths.value.map(\.value).filter { $0 > 0 }.min()
        let smallest = product.limitMin.value
        let fee = product.earlyRepaymentFee.value
        var worstOrigination: (excess: Int, message: Message)?
        var worstEarly: (excess: Int, message: Message)?
        for (table, end) in periods(tables) {
            guard let highest = table.bands.map(\.aprMax.value).max(),
                let cap = strictest(.maxAPR, limits, from: table.effectiveFrom.value, to: end, program: nil)
            else { continue }
            var limit = cap
            if let program = product.policyProgram?.value,
                let own = strictest(.maxAPR, limits, from: table.effectiveFrom.value, to: end, program: program), own.value < cap.value
            {
                limit = own
            }
            // Made only for a message that is kept (every table of every product otherwise).
            func tableName() -> String { table.path.split(separator: "/").suffix(2).joined(separator: "/") }
            func capText() -> Message {
                Message(
                    "the cap \(limit.value) in force since \(limit.effectiveFrom)" + (limit.program.map { " for \($0)" } ?? ""),
                    ko: "\(limit.effectiveFrom)부터 시행 중인 \(limit.program.map { "\($0) " } ?? "")상한 \(limit.value)")
            }
            if origination > 0, let shortest, smallest > 0 {
                // KRW fee / KRW loan, as % a year over the shortest term, in thousandths of a percent.
                let annual = Percent(thousandths: Int((Double(origination) * 100_000 * 12 / (Double(smallest) * Double(shortest))).rounded(.up)))
                let allIn = highest + annual
                let excess = (allIn - limit.value).thousandths
                if excess > 0 && excess > (worstOrigination?.excess ?? 0) {
                    worstOrigination = (
                        excess,
                        Message(
                            "fees.origination_krw \(origination) on the smallest loan (limit.min_krw \(smallest)) over the shortest term (\(shortest) months) is \(annual)% a year; with apr_max_pct \(highest) in \(tableName()) that is \(allIn)%, above \(capText()); fees count as interest (대부업법 제8조②), so lower the fee or the rates",
                            ko:
                                "fees.origination_krw \(origination)원은 가장 작은 대출(limit.min_krw \(smallest)원)과 가장 짧은 기간(\(shortest)개월)으로 환산하면 연 \(annual)%입니다; \(tableName())의 apr_max_pct \(highest)와(과) 합하면 \(allIn)%로 \(capText())을(를) 넘습니다; 수수료도 이자이므로(대부업법 제8조②) 수수료나 금리를 낮추세요"
                        )
                    )
                }
            }
            let exempt = limits.inForce(.earlyRepaymentFeeExemptMaxPct, on: table.effectiveFrom.value)
            if fee > .zero, exempt.map({ $0.value < fee }) ?? true {
                let allIn = highest + fee
                let excess = (allIn - limit.value).thousandths
                if excess > 0 && excess > (worstEarly?.excess ?? 0) {
                    let above =
                        exempt.map { Message("above the \($0.value)% that 대부업법 시행령 제9조③ exempts", ko: "대부업법 시행령 제9조③이 면제하는 \($0.value)%보다 높아") }
                        ?? Message("not exempt on \(table.effectiveFrom.value)", ko: "\(table.effectiveFrom.value)에는 면제 대상이 아니라")
                    worstEarly = (
                        excess,
                        Message(
                            "fees.early_repayment_pct \(fee) is \(above), so it counts as interest: with apr_max_pct \(highest) in \(tableName()) that is \(allIn)%, above \(capText()); lower the fee to the exemption or the rates",
                            ko:
                                "fees.early_repayment_pct \(fee)%는 \(above) 이자로 계산됩니다: \(tableName())의 apr_max_pct \(highest)와(과) 합하면 \(allIn)%로 \(capText())을(를) 넘습니다; 수수료를 면제 한도까지 낮추거나 금리를 낮추세요"
                        )
                    )
                }
            }
        }
        if let worstOrigination { diagnostics.report(originationFee, product.path, product.originationFee.mark, worstOrigination.message) }
        if let worstEarly { diagnostics.report(earlyRepaymentFee, product.path, product.earlyRepaymentFee.mark, worstEarly.message) }
    }

    /// Each table with the last day it is in force: its `effective_to`, or the day before the
    /// next table takes over (nil: open-ended).
    package static func periods(_ tables: [RateTable]) -> [(RateTable, Day?)] {
        let ordered = tables.sorted { $0.effectiveFrom.value < $1.effectiveFrom.value }
        return ordered.enumerated().map { index, table in
            var end = table.effectiveTo?.value
            if index + 1 < ordered.count {
                let next = ordered[index + 1].effectiveFrom.value.adding(days: -1)
                end = end.map { min($0, next) } ?? next
            }
            return (table, end)
        }
    }

    /// The lowest cap of a kind in force at any time from `start` to `end` (nil end: open-ended).
    package static func strictest(_ kind: LegalLimits.Kind, _ limits: LegalLimits, from start: Day, to end: Day?, program: String?) -> LegalLimits.Entry? {
        let later = limits.entries.filter { cap in
            cap.kind == kind && cap.program == program && cap.effectiveFrom > start && (end.map { cap.effectiveFrom <= $0 } ?? true)
        }
        let applying = (limits.inForce(kind, on: start, program: program).map { [$0] } ?? []) + later
        return applying.min { $0.value < $1.value }
    }

    /// Each table must respect every APR cap in force at any time during its own period:
    /// from `effective_from` to `effective_to`, or until the next table takes over. A policy
    /// product's table must also respect its programme's caps.
    private static func checkTables(_ content: Content, _ limits: LegalLimits, into diagnostics: Diagnostics) {
        let caps = limits.entries.filter { $0.kind == .maxAPR && $0.program == nil }.sorted { $0.effectiveFrom < $1.effectiveFrom }
        let tablesByProduct = content.rateTablesByProduct
        var programs: [String: String] = [:]
        for product in content.products { programs[product.key] = product.policyProgram?.value }
        for (key, tables) in tablesByProduct {
            for (table, end) in periods(tables) {
                let start = table.effectiveFrom.value
                guard limits.inForce(.maxAPR, on: start) != nil else {
                    if let earliest = caps.first {
                        diagnostics.report(
                            capDefined, table.path, table.effectiveFrom.mark,
                            Message(
                                "no legal APR cap is defined for \(start); the earliest in regulatory/limits.yaml is \(earliest.effectiveFrom)",
                                ko: "\(start)에 적용할 법정 최고금리가 정의되어 있지 않습니다; regulatory/limits.yaml에서 가장 이른 것은 \(earliest.effectiveFrom)부터입니다"))
                    }
                    continue
                }
                if let strictest = strictest(.maxAPR, limits, from: start, to: end, program: nil) {
                    for band in table.bands where band.aprMax.value > strictest.value {
                        // A legal cap binds every band: the fix is a lower rate (splitting a band changes
                        // nothing, every part of it still charges the same maximum).
                        var message = Message(
                            "apr_max_pct \(band.aprMax.value) is above the legal cap \(strictest.value) in force since \(strictest.effectiveFrom) (\(strictest.citation)); lower it to \(strictest.value) or less",
                            ko:
                                "apr_max_pct \(band.aprMax.value)이(가) \(strictest.effectiveFrom)부터 시행 중인 법정 최고금리 \(strictest.value)을(를) 넘습니다 (\(strictest.citation)); \(strictest.value) 이하로 낮추세요"
                        )
                        if strictest.effectiveFrom > start {
                            message = message.then(
                                Message(
                                    "or, as this table stays in force past \(strictest.effectiveFrom) when that cap takes effect, add a table effective \(strictest.effectiveFrom) with rates of \(strictest.value) or less",
                                    ko: "또는, 이 금리표가 그 한도가 시행되는 \(strictest.effectiveFrom) 이후에도 쓰이므로 \(strictest.effectiveFrom)부터 시행하는 금리표를 \(strictest.value) 이하의 금리로 추가하세요"))
                        }
                        diagnostics.report(apr, table.path, band.aprMax.mark, message)
                    }
                }
                if let program = programs[key], let own = strictest(.maxAPR, limits, from: start, to: end, program: program) {
                    for band in table.bands where band.aprMax.value > own.value {
                        diagnostics.report(
                            programCap, table.path, band.aprMax.mark,
                            Message(
                                "apr_max_pct \(band.aprMax.value) is above the \(program) programme's cap \(own.value) in force since \(own.effectiveFrom) (\(own.citation)); lower it",
                                ko: "apr_max_pct \(band.aprMax.value)이(가) \(own.effectiveFrom)부터 시행 중인 \(program) 프로그램의 상한 \(own.value)을(를) 넘습니다 (\(own.citation)); \(own.value) 이하로 낮추세요"))
                    }
                }
            }
        }
    }
}
