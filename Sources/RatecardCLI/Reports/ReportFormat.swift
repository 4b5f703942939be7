import RatecardKit

/// How `validate` prints its findings.
public enum ReportFormat: String, CaseIterable, Sendable {
    case text
    case json
    case github
    case sarif
    case junit

    static func named(_ name: String?) throws(UsageError) -> ReportFormat {
        guard let name else { return .text }
        guard let format = ReportFormat(rawValue: name) else {
            throw UsageError("Unknown format '\(name)'; use one of: \(allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return format
    }

    /// The whole report as it goes to stdout. Messages are in `style`'s language in every
    /// format; the text format alone is decorated on a terminal.
    func render(_ report: ValidationReport, version: String, style: ReportStyle = .plain) -> String {
        let report = report.localized(style.messages)
        switch self {
        case .text: return TextReport.render(report, style: style)
        case .json: return JSONReport.render(report, version: version)
        case .github: return GitHubReport.render(report)
        case .sarif: return SARIFReport.render(report, version: version)
        case .junit: return JUnitReport.render(report)
        }
    }
}

extension ValidationReport {
    /// `2 errors, 1 warning in 180 files` (+ commits for a range, + how many a later commit fixed).
    var summary: String { summary(.english) }

    func summary(_ messages: Messages) -> String {
        messages.summary(
            errors: errorCount, warnings: warningCount, files: files, commits: commits.count, parsed: filesParsed, fixed: fixed.count,
            unrun: unrunRules.count, skipped: skipAllowed)
    }

    /// The word before the summary: an incomplete run is neither valid nor invalid.
    var verdict: String { incomplete ? "incomplete" : hasErrors ? "invalid" : "ok" }
}
