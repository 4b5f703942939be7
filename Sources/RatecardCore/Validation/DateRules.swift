import RatecardSupport

/// Effective dates of rate tables and terms versions.
public enum DateRules {
    public static let fileDate = Rule(
        "DAT-01", .error, "rate table date equals its file name", "The file name is how editors and reviewers find the table in force.",
        ko: "금리표 날짜는 파일 이름과 같음", "편집자와 검토자는 파일 이름으로 시행 중인 금리표를 찾습니다.")
    public static let order = Rule(
        "DAT-02", .error, "effective_to not before effective_from", "A table that ends before it starts is never in force.",
        ko: "effective_to는 effective_from보다 앞서지 않음", "시작하기 전에 끝나는 금리표는 한 번도 시행되지 않습니다.")
    public static let overlap = Rule(
        "DAT-03", .error, "dated entries of one thing do not overlap", "Exactly one rate table (and one cap) applies on any day.",
        ko: "한 대상의 날짜별 항목은 겹치지 않음", "어느 날이든 금리표(와 한도)는 정확히 하나만 적용됩니다.")
    public static let version = Rule(
        "DAT-04", .error, "terms version equals its file name", "The version in the file name is what the app links and consents to.",
        ko: "약관 버전은 파일 이름과 같음", "앱은 파일 이름의 버전으로 링크하고 동의를 받습니다.")
    public static let versionDates = Rule(
        "DAT-05", .error, "newer terms versions take effect later", "A higher version taking effect earlier would make the older text current again.",
        ko: "새 약관 버전은 더 늦게 시행됨", "높은 버전이 더 일찍 시행되면 옛 문구가 다시 현재 약관이 됩니다.")

    public static let all = [fileDate, order, overlap, version, versionDates]

    package static func check(_ content: Content, into diagnostics: Diagnostics) {
        for table in content.rateTables {
            if let fileDay = Day(table.fileDate), fileDay != table.effectiveFrom.value {
                diagnostics.report(
                    fileDate, table.path, table.effectiveFrom.mark,
                    Message(
                        "effective_from \(table.effectiveFrom.value) differs from the file name \(table.fileDate).yaml; they must be equal",
                        ko: "effective_from \(table.effectiveFrom.value)이(가) 파일 이름 \(table.fileDate).yaml과 다릅니다; 둘은 같아야 합니다"))
            }
            if let to = table.effectiveTo, to.value < table.effectiveFrom.value {
                diagnostics.report(
                    order, table.path, to.mark,
                    Message("effective_to \(to.value) is before effective_from \(table.effectiveFrom.value)", ko: "effective_to \(to.value)이(가) effective_from \(table.effectiveFrom.value)보다 앞섭니다"))
            }
        }
        for (_, tables) in content.rateTablesByProduct {
            let ordered = tables.sorted { $0.effectiveFrom.value < $1.effectiveFrom.value }
            for (earlier, later) in zip(ordered, ordered.dropFirst()) {
                if let to = earlier.effectiveTo, to.value >= later.effectiveFrom.value {
                    diagnostics.report(
                        overlap, earlier.path, to.mark,
                        Message(
                            "effective_to \(to.value) overlaps the next table, in force from \(later.effectiveFrom.value); end it on \(later.effectiveFrom.value.adding(days: -1))",
                            ko: "effective_to \(to.value)이(가) \(later.effectiveFrom.value)부터 시행되는 다음 금리표와 겹칩니다; \(later.effectiveFrom.value.adding(days: -1))에 끝나도록 고치세요"))
                }
            }
        }
        for terms in content.terms where terms.version.value != terms.fileVersion {
            diagnostics.report(
                version, terms.path, terms.version.mark,
                Message(
                    "version '\(terms.version.value)' differs from the file name \(terms.fileVersion).md; they must be equal",
                    ko: "version '\(terms.version.value)'이(가) 파일 이름 \(terms.fileVersion).md와 다릅니다; 둘은 같아야 합니다"))
        }
        let versionsByDocument = content.versionsByDocument
        for document in content.documentIDs {
            let versions = (versionsByDocument[document] ?? []).filter { $0.semver != nil }
            for (older, newer) in zip(versions, versions.dropFirst()) where newer.effectiveFrom.value < older.effectiveFrom.value {
                diagnostics.report(
                    versionDates, newer.path, newer.effectiveFrom.mark,
                    Message(
                        "version \(newer.fileVersion) takes effect \(newer.effectiveFrom.value), before version \(older.fileVersion) (\(older.effectiveFrom.value))",
                        ko: "버전 \(newer.fileVersion)이(가) 버전 \(older.fileVersion)(\(older.effectiveFrom.value))보다 이른 \(newer.effectiveFrom.value)에 시행됩니다"))
            }
        }
    }
}
