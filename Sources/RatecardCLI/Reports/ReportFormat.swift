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
            let known = allCases.map(\.rawValue).joined(separator: ", ")
            throw UsageError("Unknown format '\(name)'; use one of: \(known)", ko: "알 수 없는 형식 '\(name)'; 다음 중 하나를 쓰세요: \(known)")
        }
        return format
    }

    /// The whole report as it goes to stdout. Messages are in `style`'s language in every
    /// format; the text format alone is decorated on a terminal.
    func render(_ report: ValidationReport, version: String, style: ReportStyle = .plain) -> String {
        let messages = style.messages
        switch self {
        case .text: return TextReport.render(report, style: style)
        case .json: return JSONReport.render(report, version: version, messages: messages)
        case .github: return GitHubReport.render(report, messages: messages)
        case .sarif: return SARIFReport.render(report, version: version, messages: messages)
        case .junit: return JUnitReport.render(report, messages: messages)
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
    var verdict: Message {
        incomplete ? Message("incomplete", ko: "검사 미완료") : hasErrors ? Message("invalid", ko: "유효하지 않음") : Message("ok", ko: "정상")
    }
}
