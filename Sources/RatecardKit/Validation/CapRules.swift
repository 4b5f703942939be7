/// Legal caps, resolved by date from `regulatory/limits.yaml`.
public enum CapRules {
    public static let apr = Rule("CAP-01", .error, "APR within the legal cap in force", "대부업법 시행령 제5조②·제9조①: 20% from 2021-07-07 (24% from 2018-02-08); the excess is void and charging it is a crime.")
    public static let lateSpread = Rule("CAP-02", .error, "late-interest spread within the cap", "FSC late-interest rule (2018-04-30): at most contract rate + 3.0pp.")
    public static let lateMax = Rule("CAP-03", .error, "late interest within the legal cap", "대부업법 제15조③, 시행령 제9조④: late interest is capped like any interest.")
    public static let earlyRepaymentPeriod = Rule("CAP-04", .error, "early-repayment fee only within the legal period", "금소법 제20조①4나: an early-repayment fee after 3 years is an unfair practice.")
    public static let capDefined = Rule("CAP-05", .error, "a cap is defined for every date used", "A rate table dated before every known cap cannot be checked against the law.")

    public static let all = [apr, lateSpread, lateMax, earlyRepaymentPeriod, capDefined]

    static func check(_ content: Content, _ context: ValidationContext, into diagnostics: Diagnostics) {
        guard let limits = content.limits else { return }
        checkTables(content, limits, into: diagnostics)
        for product in content.products {
            if let cap = limits.inForce(.lateSpreadMax, on: context.asOf), cap.value < product.lateSpread.value {
                diagnostics.report(lateSpread, product.path, product.lateSpread.mark, "late_interest.spread_pp \(product.lateSpread.value) is above the cap \(cap.value)pp in force since \(cap.effectiveFrom) (\(cap.citation))")
            }
            if let cap = limits.inForce(.lateInterestMax, on: context.asOf), cap.value < product.lateMax.value {
                diagnostics.report(lateMax, product.path, product.lateMax.mark, "late_interest.max_pct \(product.lateMax.value) is above the legal cap \(cap.value) in force since \(cap.effectiveFrom) (\(cap.citation))")
            }
            if let cap = limits.inForce(.earlyRepaymentFeeMaxMonths, on: context.asOf),
               product.earlyRepaymentFee.value > .zero,
               cap.value < Percent(thousandths: product.earlyRepaymentMonths.value * 1000) {
                diagnostics.report(earlyRepaymentPeriod, product.path, product.earlyRepaymentMonths.mark, "fees.early_repayment_months \(product.earlyRepaymentMonths.value) is longer than the \(cap.value.thousandths / 1000) months allowed since \(cap.effectiveFrom) (\(cap.citation))")
            }
        }
    }

    /// Each table must respect every APR cap in force at any time during its own period:
    /// from `effective_from` to `effective_to`, or until the next table takes over.
    private static func checkTables(_ content: Content, _ limits: LegalLimits, into diagnostics: Diagnostics) {
        let caps = limits.entries.filter { $0.kind == .maxAPR }.sorted { $0.effectiveFrom < $1.effectiveFrom }
        let tablesByProduct = Dictionary(grouping: content.rateTables, by: \.productKey)
        for (_, tables) in tablesByProduct {
            let ordered = tables.sorted { $0.effectiveFrom.value < $1.effectiveFrom.value }
            for (index, table) in ordered.enumerated() {
                let start = table.effectiveFrom.value
                var end = table.effectiveTo?.value
                if index + 1 < ordered.count {
                    let next = ordered[index + 1].effectiveFrom.value.adding(days: -1)
                    end = end.map { min($0, next) } ?? next
                }
                guard let first = limits.inForce(.maxAPR, on: start) else {
                    if let earliest = caps.first {
                        diagnostics.report(capDefined, table.path, table.effectiveFrom.mark, "no legal APR cap is defined for \(start); the earliest in regulatory/limits.yaml is \(earliest.effectiveFrom)")
                    }
                    continue
                }
                let applying = [first] + caps.filter { cap in cap.effectiveFrom > start && (end.map { cap.effectiveFrom <= $0 } ?? true) }
                guard let strictest = applying.min(by: { $0.value < $1.value }) else { continue }
                for band in table.bands where band.aprMax.value > strictest.value {
                    var message = "apr_max_pct \(band.aprMax.value) is above the legal cap \(strictest.value) in force since \(strictest.effectiveFrom) (\(strictest.citation)); lower it or split the band"
                    if strictest.effectiveFrom > start {
                        message += "; this table stays in force past \(strictest.effectiveFrom), so add a table effective \(strictest.effectiveFrom)"
                    }
                    diagnostics.report(apr, table.path, band.aprMax.mark, message)
                }
            }
        }
    }
}
