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
            text += style.messages.word("Fixed later in the range (history, not problems at its end):") + "\n"
            for diagnostic in fixed { text += "  " + line(diagnostic, style: style) + "\n" }
        }
        // Rules that could not run make the run fail (exit 4) unless skipping was asked for.
        let label = report.incomplete ? style.paint(style.messages.word("error"), "1;31") : style.paint(style.messages.word("note"), "1;36")
        for note in report.notes {
            text += label + ": " + note + "\n"
        }
        text += style.messages.word(report.verdict) + ": " + report.summary(style.messages) + "\n"
        return text
    }

    static func line(_ diagnostic: Diagnostic, style: ReportStyle = .plain) -> String {
        let place = "\(diagnostic.path):\(diagnostic.mark.line):\(diagnostic.mark.column):"
        var text = "\(style.paint(place, "1")) \(style.severity(diagnostic.severity)) \(diagnostic.rule): \(diagnostic.message)"
        if let commit = diagnostic.commit {
            text += " [\(style.messages.word("introduced in")) \(commit.id.short) \"\(commit.summary)\""
            if let fixer = diagnostic.fixedBy {
                text += "; \(style.messages.word("fixed later in the range by")) \(fixer.id.short) \"\(fixer.summary)\""
            }
            text += "]"
        }
        return text
    }
}
