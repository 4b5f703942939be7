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

    /// The whole report as it goes to stdout.
    func render(_ report: ValidationReport, version: String) -> String {
        switch self {
        case .text: return TextReport.render(report)
        case .json: return JSONReport.render(report, version: version)
        case .github: return GitHubReport.render(report)
        case .sarif: return SARIFReport.render(report, version: version)
        case .junit: return JUnitReport.render(report)
        }
    }
}

extension ValidationReport {
    /// `2 errors, 1 warning in 180 files` (+ commits for a range).
    var summary: String {
        func count(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
        var text = "\(count(errorCount, "error")), \(count(warningCount, "warning")) in \(count(files, "file"))"
        if !commits.isEmpty { text += " across \(count(commits.count, "commit")) (\(count(filesParsed, "file")) parsed)" }
        return text
    }
}
