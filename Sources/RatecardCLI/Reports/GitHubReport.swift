import RatecardKit

/// GitHub Actions workflow commands: `::error file=...,line=...,col=...,title=RULE::message`.
enum GitHubReport {
    static func render(_ report: ValidationReport, messages: Messages = .english) -> String {
        var text = ""
        // Only what is still present at the end of a range is annotated (on its lines there);
        // what a later commit fixed is history, not a problem on HEAD's lines.
        for diagnostic in report.present {
            let level = diagnostic.severity == .error ? "error" : "warning"
            var message = messages(diagnostic.message)
            if let commit = diagnostic.commit { message += messages(Message(" (introduced in \(commit.id.short))", ko: " (도입한 커밋 \(commit.id.short))")) }
            text += "::\(level) file=\(property(diagnostic.path)),line=\(diagnostic.mark.line),col=\(diagnostic.mark.column),title=\(property(diagnostic.rule))::\(data(message))\n"
        }
        // Rules that could not run fail the job (exit 4), or were skipped on request: an error or a
        // warning, never a notice that is easy to miss.
        for note in report.notes { text += "::\(report.incomplete ? "error" : "warning") title=ratecard::\(data(messages(note)))\n" }
        text += messages(report.verdict) + ": " + report.summary(messages) + "\n"
        return text
    }

    /// Escaping for the message part of a workflow command.
    static func data(_ text: String) -> String {
        text.replacingAll("%", "%25").replacingAll("\r", "%0D").replacingAll("\n", "%0A")
    }

    /// Escaping for a property value (also `:` and `,`).
    static func property(_ text: String) -> String {
        data(text).replacingAll(":", "%3A").replacingAll(",", "%2C")
    }
}

extension String {
    func replacingAll(_ target: String, _ replacement: String) -> String {
        split(separator: Substring(target), omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
