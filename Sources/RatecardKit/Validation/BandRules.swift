/// Credit-score bands: within the score range, contiguous, non-overlapping, sensibly priced.
public enum BandRules {
    public static let bounds = Rule("BND-01", .error, "score bounds within 0-1000", "Scores run 0-1000 since 2021-01-01 (KCB and NICE); score_min <= score_max.")
    public static let gap = Rule("BND-02", .error, "bands contiguous", "Every eligible score must map to a price; a gap leaves some borrowers with none.")
    public static let overlap = Rule("BND-03", .error, "bands do not overlap", "A score in two bands has two prices.")
    public static let monotone = Rule("BND-04", .warning, "better scores do not pay more", "Higher scores normally get lower rates; an inversion is usually a typo.")
    public static let top = Rule("BND-05", .error, "the top band reaches the maximum score", "The best borrowers must have a price too.")

    public static let all = [bounds, gap, overlap, monotone, top]

    static func check(_ content: Content, into diagnostics: Diagnostics) {
        let minScore = content.limits?.latest(.creditScoreMin)?.value.thousandths ?? 0
        let maxScore = content.limits?.latest(.creditScoreMax)?.value.thousandths ?? 1_000_000
        let low = minScore / 1000
        let high = maxScore / 1000
        for table in content.rateTables {
            var valid: [RateTable.Band] = []
            for band in table.bands {
                if band.scoreMin.value < low || band.scoreMin.value > high {
                    diagnostics.report(bounds, table.path, band.scoreMin.mark, "score_min \(band.scoreMin.value) is outside the score range \(low)-\(high)")
                } else if band.scoreMax.value < low || band.scoreMax.value > high {
                    diagnostics.report(bounds, table.path, band.scoreMax.mark, "score_max \(band.scoreMax.value) is outside the score range \(low)-\(high)")
                } else if band.scoreMin.value > band.scoreMax.value {
                    diagnostics.report(bounds, table.path, band.scoreMin.mark, "score_min \(band.scoreMin.value) is above score_max \(band.scoreMax.value)")
                } else {
                    valid.append(band)
                }
            }
            // A band that could not be read was reported where it is broken; the gap it leaves
            // is not a second problem.
            guard !table.incompleteBands else { continue }
            let ordered = valid.sorted { $0.scoreMin.value < $1.scoreMin.value }
            for (lower, higher) in zip(ordered, ordered.dropFirst()) {
                if higher.scoreMin.value > lower.scoreMax.value + 1 {
                    diagnostics.report(gap, table.path, higher.scoreMin.mark, "scores \(lower.scoreMax.value + 1)-\(higher.scoreMin.value - 1) are in no band; score_min should be \(lower.scoreMax.value + 1)")
                } else if higher.scoreMin.value <= lower.scoreMax.value {
                    diagnostics.report(overlap, table.path, higher.scoreMin.mark, "scores \(higher.scoreMin.value)-\(min(lower.scoreMax.value, higher.scoreMax.value)) are also in the band \(lower.scoreMin.value)-\(lower.scoreMax.value); score_min should be \(lower.scoreMax.value + 1)")
                }
                if higher.aprMin.value > lower.aprMin.value {
                    diagnostics.report(monotone, table.path, higher.aprMin.mark, "band \(higher.scoreMin.value)-\(higher.scoreMax.value) starts at \(higher.aprMin.value)%, above the worse band \(lower.scoreMin.value)-\(lower.scoreMax.value) (\(lower.aprMin.value)%)")
                } else if higher.aprMax.value > lower.aprMax.value {
                    diagnostics.report(monotone, table.path, higher.aprMax.mark, "band \(higher.scoreMin.value)-\(higher.scoreMax.value) goes up to \(higher.aprMax.value)%, above the worse band \(lower.scoreMin.value)-\(lower.scoreMax.value) (\(lower.aprMax.value)%)")
                }
            }
            if let best = ordered.last, best.scoreMax.value != high {
                diagnostics.report(top, table.path, best.scoreMax.mark, "the top band ends at \(best.scoreMax.value); it must reach \(high)")
            }
        }
    }
}
