/// Credit bands: on the scale of the table's era, within its range, contiguous,
/// non-overlapping, sensibly priced.
public enum BandRules {
    public static let bounds = Rule("BND-01", .error, "band bounds within the scale", "Scores run 0-1000 since 2021-01-01 (KCB and NICE), grades 1-10 before; a band's min <= max.")
    public static let gap = Rule("BND-02", .error, "bands contiguous", "Every eligible score or grade must map to a price; a gap leaves some borrowers with none.")
    public static let overlap = Rule("BND-03", .error, "bands do not overlap", "A score in two bands has two prices.")
    public static let monotone = Rule("BND-04", .warning, "better scores do not pay more", "Higher scores (lower grades) normally get lower rates; an inversion is usually a typo.")
    public static let top = Rule("BND-05", .error, "the top band reaches the best score", "The best borrowers must have a price too: the maximum score, or grade 1.")
    public static let scale = Rule(
        "BND-06", .error, "bands on the credit scale of the table's date",
        "Korea moved every financial sector from ten credit grades to 0-1000 scores on 2021-01-01 (FSC, https://fsc.go.kr/eng/pr010101/22329): a table in force before then prices by grade_min/grade_max (1 best, 10 worst), one from then by score_min/score_max, and one table uses one scale."
    )

    public static let inverted = Rule(
        "BND-07", .error, "pricing does not run the wrong way end to end",
        "A table whose best band is priced above its worst (the best scores paying the most) was entered upside down; shown to borrowers, it misprices every band (금소법 제22조④: no misleading rate). A single step out of order stays a warning (BND-04)."
    )

    public static let all = [bounds, gap, overlap, monotone, top, scale, inverted]

    /// The first day priced by scores.
    public static let scoresFrom = Day(year: 2021, month: 1, day: 1)
    /// The credit grades: 1 (best) to 10.
    public static let grades = 1...10

    package static func check(_ content: Content, into diagnostics: Diagnostics) {
        let minScore = content.limits?.latest(.creditScoreMin)?.value.thousandths ?? 0
        let maxScore = content.limits?.latest(.creditScoreMax)?.value.thousandths ?? 1_000_000
        let scores = (minScore / 1000)...(maxScore / 1000)
        for table in content.rateTables {
            let range = table.scale == .score ? scores : grades
            let era: RateTable.Scale = table.effectiveFrom.value < scoresFrom ? .grade : .score
            if table.scale != era, let first = table.bands.first {
                let why =
                    era == .grade
                    ? "a table in force from \(table.effectiveFrom.value), before scores replaced grades on 2021-01-01, prices by grade: use grade_min/grade_max (1-10)"
                    : "a table in force from \(table.effectiveFrom.value), after scores replaced grades on 2021-01-01, prices by score: use score_min/score_max (\(scores.lowerBound)-\(scores.upperBound))"
                diagnostics.report(scale, table.path, first.min.mark, why)
            }
            var valid: [RateTable.Band] = []
            for band in table.bands {
                let scaleName = table.scale == .score ? "score range" : "grade range"
                if !range.contains(band.min.value) {
                    diagnostics.report(bounds, table.path, band.min.mark, "\(table.scale.minKey) \(band.min.value) is outside the \(scaleName) \(range.lowerBound)-\(range.upperBound)")
                } else if !range.contains(band.max.value) {
                    diagnostics.report(bounds, table.path, band.max.mark, "\(table.scale.maxKey) \(band.max.value) is outside the \(scaleName) \(range.lowerBound)-\(range.upperBound)")
                } else if band.min.value > band.max.value {
                    diagnostics.report(bounds, table.path, band.min.mark, "\(table.scale.minKey) \(band.min.value) is above \(table.scale.maxKey) \(band.max.value)")
                } else {
                    valid.append(band)
                }
            }
            // A band that could not be read was reported where it is broken; the gap it leaves
            // is not a second problem.
            guard !table.incompleteBands else { continue }
            let key = table.scale.minKey
            let ordered = valid.sorted { $0.min.value < $1.min.value }
            // End to end: the best band against the worst (on scores the highest band is the best).
            var upsideDown = false
            if ordered.count >= 2, let first = ordered.first, let last = ordered.last {
                let (best, worst) = table.scale == .score ? (last, first) : (first, last)
                let runs = "the table runs the wrong way end to end (the best scores pay the most); check that the rates are not in reverse order"
                if best.aprMin.value > worst.aprMin.value {
                    upsideDown = true
                    diagnostics.report(
                        inverted, table.path, best.aprMin.mark,
                        "the best band \(best.min.value)-\(best.max.value) starts at \(best.aprMin.value)%, above the worst band \(worst.min.value)-\(worst.max.value) (\(worst.aprMin.value)%); \(runs)"
                    )
                } else if best.aprMin.value == worst.aprMin.value && best.aprMax.value > worst.aprMax.value {
                    upsideDown = true
                    diagnostics.report(
                        inverted, table.path, best.aprMax.mark,
                        "the best band \(best.min.value)-\(best.max.value) goes up to \(best.aprMax.value)%, above the worst band \(worst.min.value)-\(worst.max.value) (\(worst.aprMax.value)%); \(runs)"
                    )
                }
            }
            for (lower, higher) in zip(ordered, ordered.dropFirst()) {
                if higher.min.value > lower.max.value + 1 {
                    diagnostics.report(gap, table.path, higher.min.mark, "\(table.scale.describe(lower.max.value + 1, higher.min.value - 1)) are in no band; \(key) should be \(lower.max.value + 1)")
                } else if higher.min.value <= lower.max.value {
                    diagnostics.report(
                        overlap, table.path, higher.min.mark,
                        "\(table.scale.describe(higher.min.value, Swift.min(lower.max.value, higher.max.value))) are also in the band \(lower.min.value)-\(lower.max.value); \(key) should be \(lower.max.value + 1)"
                    )
                }
                // On scores the higher band is the better one; on grades the lower.
                let (better, worse) = table.scale == .score ? (higher, lower) : (lower, higher)
                // A table upside down end to end is one error (BND-07), not a warning per step.
                if upsideDown {
                    continue
                } else if better.aprMin.value > worse.aprMin.value {
                    diagnostics.report(
                        monotone, table.path, better.aprMin.mark,
                        "band \(better.min.value)-\(better.max.value) starts at \(better.aprMin.value)%, above the worse band \(worse.min.value)-\(worse.max.value) (\(worse.aprMin.value)%)")
                } else if better.aprMax.value > worse.aprMax.value {
                    diagnostics.report(
                        monotone, table.path, better.aprMax.mark,
                        "band \(better.min.value)-\(better.max.value) goes up to \(better.aprMax.value)%, above the worse band \(worse.min.value)-\(worse.max.value) (\(worse.aprMax.value)%)")
                }
            }
            switch table.scale {
            case .score:
                if let best = ordered.last, best.max.value != range.upperBound {
                    diagnostics.report(top, table.path, best.max.mark, "the top band ends at \(best.max.value); it must reach \(range.upperBound)")
                }
            case .grade:
                if let best = ordered.first, best.min.value != range.lowerBound {
                    diagnostics.report(top, table.path, best.min.mark, "the best band starts at grade \(best.min.value); it must include grade \(range.lowerBound)")
                }
            }
        }
    }
}
