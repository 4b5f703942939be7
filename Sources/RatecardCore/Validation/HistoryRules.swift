import RatecardSupport

/// Rules that compare a snapshot with the commit before it.
public enum HistoryRules {
    public static let frozenVersion = Rule("HIS-01", .error, "a committed terms version never changes", "Users consented to that exact text; publish a new version instead (금소법 제28조 record keeping).")
    public static let bodyNeedsVersion = Rule("HIS-02", .error, "a changed terms body needs a new version", "Changing what a version says without a new version silently changes what users agreed to.")
    public static let deletedVersion = Rule("HIS-03", .error, "committed terms versions are kept", "Records must be kept 10 years (금소법 시행령 제26조); old versions stay published.")
    public static let rateMove = Rule("HIS-04", .warning, "large rate moves are flagged", "A rate moving more than the threshold in one commit is more often a typo than a decision.")

    public static let regulatoryLimits = Rule(
        "HIS-05", .error, "legal limits are loosened only with a sign-off",
        "Caps are the law, not content: raising a cap or removing a cap period (the whole dated history is kept, 27.9% from 2016-03-03 included) needs a compliance sign-off in regulatory/signoffs.yaml."
    )
    public static let regulatoryPhrases = Rule(
        "HIS-06", .error, "mandatory phrases are weakened only with a sign-off",
        "금소법 제22조③, 시행령 제18조: changing, removing or un-requiring a mandatory phrase, or adding a quotation warning word (which exempts quoted wording from DSC-06), needs a compliance sign-off in regulatory/signoffs.yaml."
    )
    public static let signoffKept = Rule("HIS-07", .error, "sign-offs are kept as written", "A sign-off is the record that a regulatory change was approved; it is never edited or removed.")
    public static let pastTable = Rule(
        "HIS-08", .error, "rate tables that took effect are records",
        "금소법 제28조, 시행령 제26조: what was advertised is kept 10 years; a past table is never edited and no table that took effect is deleted: add a new table instead.")
    public static let backdatedTable = Rule(
        "HIS-09", .error, "no backdated rate tables",
        "A new table dated before the validation date rewrites what users were shown on days already past (금소법 제28조 record keeping); date it today or later.")
    public static let keptOnRecord = Rule(
        "HIS-10", .error, "partners and products stay on record",
        "금소법 시행령 제26조: a lender or product that was published stays in the content (terminated or withdrawn), and a terminated lender gets no new rate tables.")

    public static let backdatedTerms = Rule(
        "HIS-11", .error, "no backdated terms versions",
        "A new version of a terms document dated before the day it is committed says it was in force on days users were shown the version before (금소법 제28조 record keeping, 전자금융거래법 제24조③ notice); date it that day or later. The first version of a new document is exempt, as a new product's first tables are."
    )

    public static let all = [
        frozenVersion, bodyNeedsVersion, deletedVersion, rateMove, regulatoryLimits, regulatoryPhrases, signoffKept, pastTable, backdatedTable, keptOnRecord, backdatedTerms,
    ]

    package static func check(_ content: Content, base: Content, context: ValidationContext, into diagnostics: Diagnostics) {
        checkRegulatory(content, base: base, into: diagnostics)
        checkRecords(content, base: base, context: context, into: diagnostics)
        for (path, old) in base.termsText.sorted(by: { $0.key < $1.key }) {
            guard let new = content.termsText[path] else {
                diagnostics.report(deletedVersion, path, .start, "this committed terms version was deleted; restore it (old versions stay published)")
                continue
            }
            guard new != old else { continue }
            let oldBody = try? FrontMatter.split(old)
            let newBody = try? FrontMatter.split(new)
            let mark = SourceMark(line: firstDifferingLine(old, new), column: 1)
            if oldBody?.body != newBody?.body {
                diagnostics.report(bodyNeedsVersion, path, mark, "the body of a committed version changed; restore it and add the new text as a new version file")
            } else {
                diagnostics.report(frozenVersion, path, mark, "a committed version changed; restore it and publish a new version instead")
            }
        }
        let threshold = content.config?.rateMoveWarn ?? ServiceConfig.defaultRateMoveWarn
        let baseTables = Dictionary(grouping: base.rateTables, by: \.productKey)
        let baseByPath = Dictionary(base.rateTables.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        for table in content.rateTables {
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
                        diagnostics.report(
                            rateMove, table.path, new.mark,
                            "\(name) for \(table.scale.describe(band.min.value, band.max.value)) moved \(sign)\(move)pp (\(before.value) -> \(new.value)), more than \(threshold)pp; check it is intended"
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
