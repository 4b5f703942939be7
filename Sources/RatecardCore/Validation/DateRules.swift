/// Effective dates of rate tables and terms versions.
public enum DateRules {
    public static let fileDate = Rule("DAT-01", .error, "rate table date equals its file name", "The file name is how editors and reviewers find the table in force.")
    public static let order = Rule("DAT-02", .error, "effective_to not before effective_from", "A table that ends before it starts is never in force.")
    public static let overlap = Rule("DAT-03", .error, "dated entries of one thing do not overlap", "Exactly one rate table (and one cap) applies on any day.")
    public static let version = Rule("DAT-04", .error, "terms version equals its file name", "The version in the file name is what the app links and consents to.")
    public static let versionDates = Rule("DAT-05", .error, "newer terms versions take effect later", "A higher version taking effect earlier would make the older text current again.")

    public static let all = [fileDate, order, overlap, version, versionDates]

    package static func check(_ content: Content, into diagnostics: Diagnostics) {
        for table in content.rateTables {
            if let fileDay = Day(table.fileDate), fileDay != table.effectiveFrom.value {
                diagnostics.report(fileDate, table.path, table.effectiveFrom.mark, "effective_from \(table.effectiveFrom.value) differs from the file name \(table.fileDate).yaml; they must be equal")
            }
            if let to = table.effectiveTo, to.value < table.effectiveFrom.value {
                diagnostics.report(order, table.path, to.mark, "effective_to \(to.value) is before effective_from \(table.effectiveFrom.value)")
            }
        }
        for (_, tables) in Dictionary(grouping: content.rateTables, by: \.productKey) {
            let ordered = tables.sorted { $0.effectiveFrom.value < $1.effectiveFrom.value }
            for (earlier, later) in zip(ordered, ordered.dropFirst()) {
                if let to = earlier.effectiveTo, to.value >= later.effectiveFrom.value {
                    diagnostics.report(
                        overlap, earlier.path, to.mark,
                        "effective_to \(to.value) overlaps the next table, in force from \(later.effectiveFrom.value); end it on \(later.effectiveFrom.value.adding(days: -1))")
                }
            }
        }
        for terms in content.terms where terms.version.value != terms.fileVersion {
            diagnostics.report(version, terms.path, terms.version.mark, "version '\(terms.version.value)' differs from the file name \(terms.fileVersion).md; they must be equal")
        }
        let versionsByDocument = content.versionsByDocument
        for document in content.documentIDs {
            let versions = (versionsByDocument[document] ?? []).filter { $0.semver != nil }
            for (older, newer) in zip(versions, versions.dropFirst()) where newer.effectiveFrom.value < older.effectiveFrom.value {
                diagnostics.report(
                    versionDates, newer.path, newer.effectiveFrom.mark,
                    "version \(newer.fileVersion) takes effect \(newer.effectiveFrom.value), before version \(older.fileVersion) (\(older.effectiveFrom.value))")
            }
        }
    }
}
