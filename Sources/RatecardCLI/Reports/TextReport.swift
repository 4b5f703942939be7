import RatecardKit

/// Compiler-style lines: `path:line:column: error RULE: message`, then a summary line.
enum TextReport {
    static func render(_ report: ValidationReport) -> String {
        var text = ""
        for diagnostic in report.diagnostics {
            text += line(diagnostic) + "\n"
        }
        text += (report.hasErrors ? "invalid: " : "ok: ") + report.summary + "\n"
        return text
    }

    static func line(_ diagnostic: Diagnostic) -> String {
        var text = "\(diagnostic.path):\(diagnostic.mark.line):\(diagnostic.mark.column): \(diagnostic.severity.rawValue) \(diagnostic.rule): \(diagnostic.message)"
        if let commit = diagnostic.commit {
            text += " [introduced in \(commit.id.short) \"\(commit.summary)\"]"
        }
        return text
    }
}
