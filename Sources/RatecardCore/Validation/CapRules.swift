/// Legal caps, resolved by date from `regulatory/limits.yaml`.
public enum CapRules {
    public static let apr = Rule(
        "CAP-01", .error, "APR within the legal cap in force", "대부업법 시행령 제5조②·제9조①: 20% from 2021-07-07 (24% from 2018-02-08, 27.9% from 2016-03-03); the excess is void and charging it is a crime.")
    public static let lateSpread = Rule("CAP-02", .error, "late-interest spread within the cap", "FSC late-interest rule (2018-04-30): at most contract rate + 3.0pp.")
    public static let lateMax = Rule("CAP-03", .error, "late interest within the legal cap", "대부업법 제15조③, 시행령 제9조④: late interest is capped like any interest.")
    public static let earlyRepaymentPeriod = Rule("CAP-04", .error, "early-repayment fee only within the legal period", "금소법 제20조①4나: an early-repayment fee after 3 years is an unfair practice.")
    public static let capDefined = Rule("CAP-05", .error, "a cap is defined for every date used", "A rate table dated before every known cap cannot be checked against the law.")
    public static let originationFee = Rule(
        "CAP-06", .error, "fees count as interest",
        "대부업법 제8조②·제15조②: a fee under any name is interest; an origination fee, annualised on the smallest loan over the shortest term, plus apr_max_pct stays within the cap.")
    public static let earlyRepaymentFee = Rule(
        "CAP-07", .error, "an early-repayment fee above the exemption counts as interest",
        "대부업법 시행령 제9조③: only an early-repayment fee up to 1% on loans of a year or more is not interest; above it, apr_max_pct + the fee stays within the cap.")
    public static let shortLoanFee = Rule(
        "CAP-08", .error, "no early-repayment fee on loans shorter than the exemption allows",
        "대부업법 시행령 제9조③: on a loan under 12 months an early-repayment fee is interest; such terms are offered without one.")
    public static let feePeriod = Rule(
        "CAP-09", .error, "early-repayment fee and its period agree with the loan terms",
        "금소법 제19조①1라: whether a fee applies, for how long and at what rate is explained to the borrower; a fee without a period, a period without a fee or a period longer than every term misleads.")
    public static let programCap = Rule(
        "CAP-10", .error, "policy products respect their programme's caps",
        "Policy programmes (햇살론, 사잇돌 and the like) set caps below the legal one; they are data in regulatory/limits.yaml (program:), and a policy product names its programme.")

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
                    "late_interest.spread_pp \(product.lateSpread.value) is above the cap \(cap.value)pp in force since \(cap.effectiveFrom) (\(cap.citation))")
            }
            if let cap = limits.inForce(.lateInterestMax, on: day), cap.value < product.lateMax.value {
                diagnostics.report(
                    lateMax, product.path, product.lateMax.mark,
                    "late_interest.max_pct \(product.lateMax.value) is above the legal cap \(cap.value) in force since \(cap.effectiveFrom) (\(cap.citation))")
            }
            if let cap = limits.inForce(.earlyRepaymentFeeMaxMonths, on: day),
                product.earlyRepaymentFee.value > .zero,
                cap.value < Percent(thousandths: product.earlyRepaymentMonths.value * 1000)
            {
                diagnostics.report(
                    earlyRepaymentPeriod, product.path, product.earlyRepaymentMonths.mark,
                    "fees.early_repayment_months \(product.earlyRepaymentMonths.value) is longer than the \(cap.value.thousandths / 1000) months allowed since \(cap.effectiveFrom) (\(cap.citation))")
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
                "fees.early_repayment_pct is \(fee.value) but early_repayment_months is 0; give the period the fee applies (from the loan date), or set the fee to 0.0")
        } else if fee.value == .zero && months.value > 0 {
            diagnostics.report(feePeriod, product.path, months.mark, "fees.early_repayment_months is \(months.value) but there is no early-repayment fee; set it to 0")
        } else if let longest = terms.map(\.value).max(), fee.value > .zero, months.value > longest {
            diagnostics.report(
                feePeriod, product.path, months.mark,
                "fees.early_repayment_months \(months.value) is longer than the longest term offered (\(longest) months); the fee period cannot outlast the loan, shorten it")
        }
        if fee.value > .zero, let minimum = limits.inForce(.earlyRepaymentFeeExemptMinTermMonths, on: day) {
            let floor = minimum.value.thousandths / 1000
            for term in terms where term.value < floor {
                diagnostics.report(
                    shortLoanFee, product.path, term.mark,
                    "a \(term.value)-month term is shorter than \(floor) months, where an early-repayment fee counts as interest (\(minimum.citation)); offer it without a fee (a separate product) or remove the term"
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
                    programCap, product.path, product.kind.mark, "a policy product needs policy_program naming its programme (its caps are entries with program: in regulatory/limits.yaml)")
            }
            return
        }
        guard limits.programs.contains(program.value) else {
            let known = limits.programs.sorted().joined(separator: ", ")
            diagnostics.report(
                programCap, product.path, program.mark,
                "policy programme '\(program.value)' has no caps in regulatory/limits.yaml (known: \(known.isEmpty ? "none" : known)); add its max_apr_pct with program: \(program.value) and a citation"
            )
            return
        }
        if let cap = limits.inForce(.lateInterestMax, on: day, program: program.value), cap.value < product.lateMax.value {
            diagnostics.report(
                programCap, product.path, product.lateMax.mark,
                "late_interest.max_pct \(product.lateMax.value) is above the \(program.value) programme's late-interest cap \(cap.value) in force since \(cap.effectiveFrom) (\(cap.citation)); lower it"
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
        var worstOrigination: (excess: Int, message: String)?
        var worstEarly: (excess: Int, message: String)?
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
            let tableName = table.path.split(separator: "/").suffix(2).joined(separator: "/")
            let capText = "the cap \(limit.value) in force since \(limit.effectiveFrom)" + (limit.program.map { " for \($0)" } ?? "")
            if origination > 0, let shortest, smallest > 0 {
                // KRW fee / KRW loan, as % a year over the shortest term, in thousandths of a percent.
                let annual = Percent(thousandths: Int((Double(origination) * 100_000 * 12 / (Double(smallest) * Double(shortest))).rounded(.up)))
                let allIn = highest + annual
                let excess = (allIn - limit.value).thousandths
                if excess > 0 && excess > (worstOrigination?.excess ?? 0) {
                    worstOrigination = (
                        excess,
                        "fees.origination_krw \(origination) on the smallest loan (limit.min_krw \(smallest)) over the shortest term (\(shortest) months) is \(annual)% a year; with apr_max_pct \(highest) in \(tableName) that is \(allIn)%, above \(capText); fees count as interest (대부업법 제8조②), so lower the fee or the rates"
                    )
                }
            }
            let exempt = limits.inForce(.earlyRepaymentFeeExemptMaxPct, on: table.effectiveFrom.value)
            if fee > .zero, exempt.map({ $0.value < fee }) ?? true {
                let allIn = highest + fee
                let excess = (allIn - limit.value).thousandths
                if excess > 0 && excess > (worstEarly?.excess ?? 0) {
                    let above = exempt.map { "above the \($0.value)% that 대부업법 시행령 제9조③ exempts" } ?? "not exempt on \(table.effectiveFrom.value)"
                    worstEarly = (
                        excess,
                        "fees.early_repayment_pct \(fee) is \(above), so it counts as interest: with apr_max_pct \(highest) in \(tableName) that is \(allIn)%, above \(capText); lower the fee to the exemption or the rates"
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
        let tablesByProduct = Dictionary(grouping: content.rateTables, by: \.productKey)
        var programs: [String: String] = [:]
        for product in content.products { programs[product.key] = product.policyProgram?.value }
        for (key, tables) in tablesByProduct {
            for (table, end) in periods(tables) {
                let start = table.effectiveFrom.value
                guard limits.inForce(.maxAPR, on: start) != nil else {
                    if let earliest = caps.first {
                        diagnostics.report(
                            capDefined, table.path, table.effectiveFrom.mark, "no legal APR cap is defined for \(start); the earliest in regulatory/limits.yaml is \(earliest.effectiveFrom)")
                    }
                    continue
                }
                if let strictest = strictest(.maxAPR, limits, from: start, to: end, program: nil) {
                    for band in table.bands where band.aprMax.value > strictest.value {
                        var message =
                            "apr_max_pct \(band.aprMax.value) is above the legal cap \(strictest.value) in force since \(strictest.effectiveFrom) (\(strictest.citation)); lower it or split the band"
                        if strictest.effectiveFrom > start {
                            message += "; this table stays in force past \(strictest.effectiveFrom), so add a table effective \(strictest.effectiveFrom)"
                        }
                        diagnostics.report(apr, table.path, band.aprMax.mark, message)
                    }
                }
                if let program = programs[key], let own = strictest(.maxAPR, limits, from: start, to: end, program: program) {
                    for band in table.bands where band.aprMax.value > own.value {
                        diagnostics.report(
                            programCap, table.path, band.aprMax.mark,
                            "apr_max_pct \(band.aprMax.value) is above the \(program) programme's cap \(own.value) in force since \(own.effectiveFrom) (\(own.citation)); lower it")
                    }
                }
            }
        }
    }
}
