import RatecardSupport

/// Credit bands: on the scale of the table's era, within its range, contiguous,
/// non-overlapping, sensibly priced.
public enum BandRules {
    public static let bounds = Rule(
        "BND-01", .error, "band bounds within the scale", "Scores run 0-1000 since 2021-01-01 (KCB and NICE), grades 1-10 before; a band's min <= max.",
        ko: "구간 경계는 척도 안", "2021-01-01부터 점수는 0-1000(KCB, NICE), 그 전에는 1-10등급입니다. 구간의 최솟값은 최댓값 이하여야 합니다.")
    public static let gap = Rule(
        "BND-02", .error, "bands contiguous", "Every eligible score or grade must map to a price; a gap leaves some borrowers with none.",
        ko: "구간은 빈틈없이 이어짐", "대상이 되는 모든 점수나 등급에 가격이 있어야 합니다. 빈틈이 있으면 어떤 차입자는 가격이 없습니다.")
    public static let overlap = Rule(
        "BND-03", .error, "bands do not overlap", "A score in two bands has two prices.",
        ko: "구간끼리 겹치지 않음", "두 구간에 든 점수에는 가격이 두 개가 됩니다.")
    public static let monotone = Rule(
        "BND-04", .warning, "better scores do not pay more", "Higher scores (lower grades) normally get lower rates; an inversion is usually a typo.",
        ko: "신용이 좋을수록 더 내지 않음", "점수가 높을수록(등급 숫자가 작을수록) 보통 금리가 낮습니다. 거꾸로 되어 있으면 대개 오타입니다.")
    public static let top = Rule(
        "BND-05", .error, "the top band reaches the best score", "The best borrowers must have a price too: the maximum score, or grade 1.",
        ko: "가장 높은 구간은 최고 점수까지", "신용이 가장 좋은 차입자에게도 가격이 있어야 합니다: 최고 점수, 또는 1등급.")
    public static let scale = Rule(
        "BND-06", .error, "bands on the credit scale of the table's date",
        "Korea moved every financial sector from ten credit grades to 0-1000 scores on 2021-01-01 (FSC, https://fsc.go.kr/eng/pr010101/22329): a table in force before then prices by grade_min/grade_max (1 best, 10 worst), one from then by score_min/score_max, and one table uses one scale.",
        ko: "구간은 금리표 날짜의 신용 척도를 따름",
        "2021-01-01에 모든 금융권이 10개 신용등급에서 0-1000 점수제로 바뀌었습니다(금융위원회, https://fsc.go.kr/eng/pr010101/22329). 그 전에 시행된 표는 grade_min/grade_max(1이 가장 좋고 10이 가장 나쁨)로, 그 뒤의 표는 score_min/score_max로 가격을 정하며, 한 표는 한 척도만 씁니다."
    )

    public static let inverted = Rule(
        "BND-07", .error, "pricing does not run the wrong way end to end",
        "A table whose best band is priced above its worst (the best scores paying the most) was entered upside down; shown to borrowers, it misprices every band (금소법 제22조④: no misleading rate). A single step out of order stays a warning (BND-04).",
        ko: "금리가 처음부터 끝까지 거꾸로 매겨지지 않음",
        "가장 좋은 구간이 가장 나쁜 구간보다 비싼 표(신용점수가 가장 좋은 고객이 가장 많이 냄)는 거꾸로 입력된 것입니다. 차입자에게 보이면 모든 구간의 금리가 틀립니다 (금소법 제22조④: 오해를 일으키는 금리 금지). 한 단계만 순서가 어긋난 것은 경고(BND-04)로 남습니다.")

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
                    ? Message(
                        "a table in force from \(table.effectiveFrom.value), before scores replaced grades on 2021-01-01, prices by grade: use grade_min/grade_max (1-10)",
                        ko: "\(table.effectiveFrom.value)부터 시행되는 표는 점수제가 등급제를 대신한 2021-01-01 이전이므로 등급으로 가격을 정합니다: grade_min/grade_max(1-10)를 쓰세요")
                    : Message(
                        "a table in force from \(table.effectiveFrom.value), after scores replaced grades on 2021-01-01, prices by score: use score_min/score_max (\(scores.lowerBound)-\(scores.upperBound))",
                        ko: "\(table.effectiveFrom.value)부터 시행되는 표는 점수제가 등급제를 대신한 2021-01-01 이후이므로 점수로 가격을 정합니다: score_min/score_max(\(scores.lowerBound)-\(scores.upperBound))를 쓰세요")
                diagnostics.report(scale, table.path, first.min.mark, why)
            }
            var valid: [RateTable.Band] = []
            // Messages are made only for what is reported: making them for every band of 6,000
            // tables was most of this rule's time.
            func scaleName() -> Message { table.scale == .score ? Message("score range", ko: "점수 범위") : Message("grade range", ko: "등급 범위") }
            for band in table.bands {
                if !range.contains(band.min.value) {
                    diagnostics.report(
                        bounds, table.path, band.min.mark,
                        Message(
                            "\(table.scale.minKey) \(band.min.value) is outside the \(scaleName()) \(range.lowerBound)-\(range.upperBound)",
                            ko: "\(table.scale.minKey) \(band.min.value)이(가) \(scaleName()) \(range.lowerBound)-\(range.upperBound)을(를) 벗어납니다"))
                } else if !range.contains(band.max.value) {
                    diagnostics.report(
                        bounds, table.path, band.max.mark,
                        Message(
                            "\(table.scale.maxKey) \(band.max.value) is outside the \(scaleName()) \(range.lowerBound)-\(range.upperBound)",
                            ko: "\(table.scale.maxKey) \(band.max.value)이(가) \(scaleName()) \(range.lowerBound)-\(range.upperBound)을(를) 벗어납니다"))
                } else if band.min.value > band.max.value {
                    diagnostics.report(
                        bounds, table.path, band.min.mark,
                        Message(
                            "\(table.scale.minKey) \(band.min.value) is above \(table.scale.maxKey) \(band.max.value)",
                            ko: "\(table.scale.minKey) \(band.min.value)이(가) \(table.scale.maxKey) \(band.max.value)보다 큽니다"))
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
                func runs() -> Message {
                    Message(
                        "the table runs the wrong way end to end (the best scores pay the most); check that the rates are not in reverse order",
                        ko: "금리표 전체가 거꾸로 되어 있습니다 (신용점수가 가장 좋은 고객이 가장 높은 금리를 냅니다); 금리를 거꾸로 입력하지 않았는지 확인하세요")
                }
                let (bestMin, bestMax, worstMin, worstMax) = (best.min.value, best.max.value, worst.min.value, worst.max.value)
                if best.aprMin.value > worst.aprMin.value {
                    upsideDown = true
                    diagnostics.report(
                        inverted, table.path, best.aprMin.mark,
                        Message(
                            "the best band \(bestMin)-\(bestMax) starts at \(best.aprMin.value)%, above the worst band \(worstMin)-\(worstMax) (\(worst.aprMin.value)%); \(runs())",
                            ko: "가장 좋은 구간 \(bestMin)-\(bestMax)의 최저 금리(\(best.aprMin.value)%)가 가장 낮은 구간 \(worstMin)-\(worstMax)의 최저 금리(\(worst.aprMin.value)%)보다 높습니다; \(runs())"))
                } else if best.aprMin.value == worst.aprMin.value && best.aprMax.value > worst.aprMax.value {
                    upsideDown = true
                    diagnostics.report(
                        inverted, table.path, best.aprMax.mark,
                        Message(
                            "the best band \(bestMin)-\(bestMax) goes up to \(best.aprMax.value)%, above the worst band \(worstMin)-\(worstMax) (\(worst.aprMax.value)%); \(runs())",
                            ko: "가장 좋은 구간 \(bestMin)-\(bestMax)의 최고 금리(\(best.aprMax.value)%)가 가장 낮은 구간 \(worstMin)-\(worstMax)의 최고 금리(\(worst.aprMax.value)%)보다 높습니다; \(runs())"))
                }
            }
            for (lower, higher) in zip(ordered, ordered.dropFirst()) {
                if higher.min.value > lower.max.value + 1 {
                    diagnostics.report(
                        gap, table.path, higher.min.mark,
                        Message(
                            "\(table.scale.describe(lower.max.value + 1, higher.min.value - 1)) are in no band; \(key) should be \(lower.max.value + 1)",
                            ko: "\(table.scale.describe(lower.max.value + 1, higher.min.value - 1))은(는) 어느 구간에도 속하지 않습니다; \(key)을(를) \(lower.max.value + 1)(으)로 고치세요"))
                } else if higher.min.value <= lower.max.value {
                    diagnostics.report(
                        overlap, table.path, higher.min.mark,
                        Message(
                            "\(table.scale.describe(higher.min.value, Swift.min(lower.max.value, higher.max.value))) are also in the band \(lower.min.value)-\(lower.max.value); \(key) should be \(lower.max.value + 1)",
                            ko:
                                "\(table.scale.describe(higher.min.value, Swift.min(lower.max.value, higher.max.value)))은(는) \(lower.min.value)-\(lower.max.value) 구간에도 속합니다; \(key)을(를) \(lower.max.value + 1)(으)로 고치세요"
                        )
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
                        Message(
                            "band \(better.min.value)-\(better.max.value) starts at \(better.aprMin.value)%, above the worse band \(worse.min.value)-\(worse.max.value) (\(worse.aprMin.value)%)",
                            ko: "\(better.min.value)-\(better.max.value) 구간의 최저 금리 \(better.aprMin.value)%가 신용이 더 낮은 \(worse.min.value)-\(worse.max.value) 구간(\(worse.aprMin.value)%)보다 높습니다; 금리를 확인하세요"
                        ))
                } else if better.aprMax.value > worse.aprMax.value {
                    diagnostics.report(
                        monotone, table.path, better.aprMax.mark,
                        Message(
                            "band \(better.min.value)-\(better.max.value) goes up to \(better.aprMax.value)%, above the worse band \(worse.min.value)-\(worse.max.value) (\(worse.aprMax.value)%)",
                            ko: "\(better.min.value)-\(better.max.value) 구간의 최고 금리 \(better.aprMax.value)%가 신용이 더 낮은 \(worse.min.value)-\(worse.max.value) 구간(\(worse.aprMax.value)%)보다 높습니다; 금리를 확인하세요"
                        ))
                }
            }
            switch table.scale {
            case .score:
                if let best = ordered.last, best.max.value != range.upperBound {
                    diagnostics.report(
                        top, table.path, best.max.mark,
                        Message("the top band ends at \(best.max.value); it must reach \(range.upperBound)", ko: "가장 높은 구간이 \(best.max.value)에서 끝납니다; \(range.upperBound)까지 이어져야 합니다"))
                }
            case .grade:
                if let best = ordered.first, best.min.value != range.lowerBound {
                    diagnostics.report(
                        top, table.path, best.min.mark,
                        Message(
                            "the best band starts at grade \(best.min.value); it must include grade \(range.lowerBound)", ko: "가장 좋은 구간이 \(best.min.value)등급에서 시작합니다; \(range.lowerBound)등급도 포함해야 합니다"))
                }
            }
        }
    }
}
