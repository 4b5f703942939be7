import RatecardSupport

/// Rules that compare a snapshot with the commit before it.
public enum HistoryRules {
    public static let frozenVersion = Rule(
        "HIS-01", .error, "a committed terms version never changes", "Users consented to that exact text; publish a new version instead (금소법 제28조 record keeping).",
        ko: "커밋된 약관 버전은 바꾸지 않음", "사용자는 바로 그 문구에 동의했습니다. 대신 새 버전을 게시하세요 (금소법 제28조 자료 보존).")
    public static let bodyNeedsVersion = Rule(
        "HIS-02", .error, "a changed terms body needs a new version", "Changing what a version says without a new version silently changes what users agreed to.",
        ko: "약관 본문을 바꾸려면 새 버전", "새 버전 없이 본문을 바꾸면 사용자가 동의한 내용이 조용히 바뀝니다.")
    public static let deletedVersion = Rule(
        "HIS-03", .error, "committed terms versions are kept", "Records must be kept 10 years (금소법 시행령 제26조); old versions stay published.",
        ko: "커밋된 약관 버전은 보존", "기록은 10년 동안 보존해야 합니다 (금소법 시행령 제26조). 옛 버전도 계속 게시됩니다.")
    public static let rateMove = Rule(
        "HIS-04", .warning, "large rate moves are flagged", "A rate moving more than the threshold in one commit is more often a typo than a decision.",
        ko: "큰 금리 변동 표시", "한 커밋에서 기준보다 크게 움직인 금리는 결정이라기보다 오타인 경우가 많습니다.")

    public static let regulatoryLimits = Rule(
        "HIS-05", .error, "legal limits are loosened only with a sign-off",
        "Caps are the law, not content: raising a cap or removing a cap period (the whole dated history is kept, 27.9% from 2016-03-03 included) needs a compliance sign-off in regulatory/signoffs.yaml.",
        ko: "법정 한도는 승인이 있어야만 완화",
        "한도는 콘텐츠가 아니라 법입니다. 한도를 올리거나 한도 기간을 지우려면(2016-03-03부터의 27.9%를 포함해 날짜별 기록 전체를 보존합니다) regulatory/signoffs.yaml에 준법감시 승인이 있어야 합니다."
    )
    public static let regulatoryPhrases = Rule(
        "HIS-06", .error, "mandatory phrases are weakened only with a sign-off",
        "금소법 제22조③, 시행령 제18조: changing, removing or un-requiring a mandatory phrase, or adding a quotation warning word (which exempts quoted wording from DSC-06), needs a compliance sign-off in regulatory/signoffs.yaml.",
        ko: "필수 문구는 승인이 있어야만 약화",
        "금소법 제22조③, 시행령 제18조: 필수 문구를 바꾸거나 지우거나 필수에서 빼려면, 또는 인용 경고어(인용한 문구를 DSC-06에서 빼 줌)를 더하려면 regulatory/signoffs.yaml에 준법감시 승인이 있어야 합니다.")
    public static let signoffKept = Rule(
        "HIS-07", .error, "sign-offs are kept as written", "A sign-off is the record that a regulatory change was approved; it is never edited or removed.",
        ko: "승인 기록은 쓴 그대로 보존", "승인 기록은 규제 변경이 승인되었다는 기록이므로 고치거나 지우지 않습니다.")
    public static let pastTable = Rule(
        "HIS-08", .error, "rate tables that took effect are records",
        "금소법 제28조, 시행령 제26조: what was advertised is kept 10 years; a past table is never edited and no table that took effect is deleted: add a new table instead.",
        ko: "시행된 금리표는 기록", "금소법 제28조, 시행령 제26조: 광고한 내용은 10년 동안 보존합니다. 지난 금리표는 고치지 않고, 시행된 금리표는 지우지 않습니다. 대신 새 금리표를 추가하세요.")
    public static let backdatedTable = Rule(
        "HIS-09", .error, "no backdated rate tables",
        "A new table dated before the validation date rewrites what users were shown on days already past (금소법 제28조 record keeping); date it today or later.",
        ko: "금리표 소급 금지", "검사 기준일보다 앞선 날짜의 새 금리표는 이미 지난 날 사용자에게 보여 준 내용을 다시 씁니다 (금소법 제28조 자료 보존). 오늘이나 그 뒤로 날짜를 정하세요.")
    public static let keptOnRecord = Rule(
        "HIS-10", .error, "partners and products stay on record",
        "금소법 시행령 제26조: a lender or product that was published stays in the content (terminated or withdrawn), and a terminated lender gets no new rate tables.",
        ko: "제휴사와 상품은 기록으로 남김", "금소법 시행령 제26조: 게시된 금융사나 상품은 콘텐츠에 남고(계약 종료나 판매 중단으로), 계약 종료된 금융사에는 새 금리표를 두지 않습니다.")

    public static let backdatedTerms = Rule(
        "HIS-11", .error, "no backdated terms versions",
        "A new version of a terms document dated before the day it is committed says it was in force on days users were shown the version before (금소법 제28조 record keeping, 전자금융거래법 제24조③ notice); date it that day or later. The first version of a new document is exempt, as a new product's first tables are.",
        ko: "약관 새 버전은 소급하지 않음",
        "커밋한 날보다 앞선 날짜의 약관 새 버전은 이용자가 이전 버전을 본 날에도 시행 중이었다고 말하게 됩니다 (금소법 제28조 자료 보관, 전자금융거래법 제24조③ 공지); 그날이나 그 뒤로 날짜를 정하세요. 새 상품의 첫 금리표처럼 새 문서의 첫 버전은 예외입니다.")

    public static let all = [
        frozenVersion, bodyNeedsVersion, deletedVersion, rateMove, regulatoryLimits, regulatoryPhrases, signoffKept, pastTable, backdatedTable, keptOnRecord, backdatedTerms,
    ]

    package static func check(_ content: Content, base: Content, context: ValidationContext, into diagnostics: Diagnostics) {
        checkRegulatory(content, base: base, into: diagnostics)
        checkRecords(content, base: base, context: context, into: diagnostics)
        for (path, committed) in base.termsText.sorted(by: { $0.key < $1.key }) {
            guard let now = content.termsText[path] else {
                diagnostics.report(
                    deletedVersion, path, .start, Message("this committed terms version was deleted; restore it (old versions stay published)", ko: "커밋된 약관 버전이 지워졌습니다; 되살리세요 (옛 버전도 계속 게시됩니다)"))
                continue
            }
            // Compared by their bytes first: an unchanged file is not decoded.
            guard now != committed else { continue }
            let (old, new) = (committed.text, now.text)
            let oldBody = try? FrontMatter.split(old)
            let newBody = try? FrontMatter.split(new)
            let mark = SourceMark(line: firstDifferingLine(old, new), column: 1)
            if oldBody?.body != newBody?.body {
                diagnostics.report(
                    bodyNeedsVersion, path, mark,
                    Message("the body of a committed version changed; restore it and add the new text as a new version file", ko: "커밋된 버전의 본문이 바뀌었습니다; 원래대로 되돌리고 새 문구는 새 버전 파일로 추가하세요"))
            } else {
                diagnostics.report(frozenVersion, path, mark, Message("a committed version changed; restore it and publish a new version instead", ko: "커밋된 버전이 바뀌었습니다; 원래대로 되돌리고 대신 새 버전을 게시하세요"))
            }
        }
        let threshold = content.config?.rateMoveWarn ?? ServiceConfig.defaultRateMoveWarn
        // Made only when a table is not its base's file (each copies every base table).
        lazy var baseTables = Dictionary(grouping: base.rateTables, by: \.productKey)
        lazy var baseByPath = Dictionary(base.rateTables.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        for table in content.rateTables {
            // The same blob at the same path is the same table: nothing moved.
            if let id = content.fileIDs[table.path], id == base.fileIDs[table.path] { continue }
            let previous: RateTable?
            if let same = baseByPath[table.path] {
                previous = same
            } else {
                previous = baseTables[table.productKey]?
                    .filter { $0.effectiveFrom.value < table.effectiveFrom.value }
                    .max { $0.effectiveFrom.value < $1.effectiveFrom.value }
            }
            guard let previous, previous != table || previous.path != table.path, previous.scale == table.scale else { continue }
            for band in table.bands {
                guard let old = previous.bands.first(where: { $0.min.value == band.min.value && $0.max.value == band.max.value }) else { continue }
                for (new, before, name) in [(band.aprMin, old.aprMin, "apr_min_pct"), (band.aprMax, old.aprMax, "apr_max_pct")] {
                    let move = new.value - before.value
                    if abs(move.thousandths) > threshold.thousandths {
                        let sign = move.thousandths > 0 ? "+" : ""
                        let range = table.scale.describe(band.min.value, band.max.value)
                        diagnostics.report(
                            rateMove, table.path, new.mark,
                            Message(
                                "\(name) for \(range) moved \(sign)\(move)pp (\(before.value) -> \(new.value)), more than \(threshold)pp; check it is intended",
                                ko: "\(range) 구간의 \(name)이(가) \(sign)\(move)%p 움직였습니다 (\(before.value) -> \(new.value)); 기준 \(threshold)%p보다 크니 의도한 변경인지 확인하세요")
                        )
                    }
                }
            }
        }
    }

    package static func firstDifferingLine(_ old: String, _ new: String) -> Int {
        let a = old.split(separator: "\n", omittingEmptySubsequences: false)
        let b = new.split(separator: "\n", omittingEmptySubsequences: false)
        for index in 0..<min(a.count, b.count) where a[index] != b[index] { return index + 1 }
        return min(a.count, b.count) + 1
    }
}
