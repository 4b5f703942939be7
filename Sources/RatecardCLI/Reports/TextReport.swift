import RatecardKit

/// Compiler-style lines: `path:line:column: error RULE: message`, then a summary line.
///
/// A range's problems that a later commit fixed come after the others, indented under a
/// heading (history, not problems at the range's end); notes (what could not be checked)
/// come before the summary.
enum TextReport {
    static func render(_ report: ValidationReport, style: ReportStyle = .plain) -> String {
        var text = ""
        var cache: [String: [Substring]] = [:]
        for diagnostic in report.present {
            text += line(diagnostic, style: style) + "\n"
            text += style.snippet(diagnostic.path, diagnostic.mark, cache: &cache) ?? ""
        }
        let fixed = report.fixed
        if !fixed.isEmpty {
            text += style.messages(Message("Fixed later in the range (history, not problems at its end):", ko: "범위 안에서 나중에 고쳐진 문제 (기록일 뿐, 범위 끝에서는 문제가 아님):")) + "\n"
            for diagnostic in fixed { text += "  " + line(diagnostic, style: style) + "\n" }
        }
        // Rules that could not run make the run fail (exit 4) unless skipping was asked for.
        let label =
            report.incomplete ? style.paint(style.messages(Message("error", ko: "오류")), "1;31") : style.paint(style.messages(Message("note", ko: "참고")), "1;36")
        for note in report.notes {
            text += label + ": " + style.messages(note) + "\n"
        }
        text += style.messages(report.verdict) + ": " + report.summary(style.messages) + "\n"
        return text
    }

    static func line(_ diagnostic: Diagnostic, style: ReportStyle = .plain) -> String {
        let place = "\(diagnostic.path):\(diagnostic.mark.line):\(diagnostic.mark.column):"
        var text = "\(style.paint(place, "1")) \(style.severity(diagnostic.severity)) \(diagnostic.rule): \(style.messages(diagnostic.message))"
        if let commit = diagnostic.commit {
            text += " [\(style.messages(Message("introduced in", ko: "도입한 커밋"))) \(commit.id.short) \"\(commit.summary)\""
            if let fixer = diagnostic.fixedBy {
                text += "; \(style.messages(Message("fixed later in the range by", ko: "범위 안의 나중 커밋에서 고쳐짐:"))) \(fixer.id.short) \"\(fixer.summary)\""
            }
            text += "]"
        }
        return text
    }
}
