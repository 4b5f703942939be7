import RatecardKit

/// JUnit XML: one test suite, one test case per rule; a rule's errors are its failures, and a
/// rule that could not run (the history rules in a shallow clone) is skipped, never passed.
enum JUnitReport {
    static func render(_ report: ValidationReport, messages: Messages = .english) -> String {
        let byRule = Dictionary(grouping: report.present, by: \.rule)
        let failed = Set(Rule.all.filter { rule in byRule[rule.id]?.contains { $0.severity == .error } ?? false }.map(\.id))
        // A rule that failed on one commit and could not run on another failed.
        let skipped = Set(report.unrunRules).subtracting(failed)
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"ratecard validate\" tests=\"\(Rule.all.count)\" failures=\"\(failed.count)\" errors=\"0\">\n"
        xml += "  <testsuite name=\"ratecard validate\" tests=\"\(Rule.all.count)\" failures=\"\(failed.count)\" errors=\"0\" skipped=\"\(skipped.count)\">\n"
        for rule in Rule.all {
            let found = byRule[rule.id] ?? []
            xml += "    <testcase classname=\"ratecard.\(escape(rule.id))\" name=\"\(escape(rule.id)): \(escape(messages(rule.title)))\">\n"
            if skipped.contains(rule.id) {
                let commits = report.unrun.filter { $0.rules.contains(rule.id) }.map(\.commit.short).joined(separator: ", ")
                let why =
                    report.skipAllowed
                    ? Message(
                        "skipped on request (--allow-shallow): the parent of \(commits) is not in this clone (a shallow clone)",
                        ko: "요청대로 건너뜀 (--allow-shallow): \(commits)의 부모 커밋이 이 클론에 없습니다 (얕은 클론)")
                    : Message("could not run: the parent of \(commits) is not in this clone (a shallow clone)", ko: "실행하지 못함: \(commits)의 부모 커밋이 이 클론에 없습니다 (얕은 클론)")
                xml += "      <skipped message=\"\(escape(messages(why)))\"/>\n"
            }
            let errors = found.filter { $0.severity == .error }
            if !errors.isEmpty {
                let count = errors.count
                xml += "      <failure message=\"\(escape(messages(Message("\(count) problem\(count == 1 ? "" : "s")", ko: "문제 \(count)개"))))\" type=\"\(escape(rule.id))\">"
                xml += errors.map { escape(TextReport.line($0, style: ReportStyle(messages: messages))) }.joined(separator: "\n")
                xml += "</failure>\n"
            }
            let warnings = found.filter { $0.severity == .warning }
            if !warnings.isEmpty {
                xml += "      <system-out>" + warnings.map { escape(TextReport.line($0, style: ReportStyle(messages: messages))) }.joined(separator: "\n") + "</system-out>\n"
            }
            xml += "    </testcase>\n"
        }
        if !report.notes.isEmpty {
            xml += "    <system-out>" + report.notes.map { escape(messages(Message("note: ", ko: "참고: ") + $0)) }.joined(separator: "\n") + "</system-out>\n"
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    /// HTML's escaping (`& < > " '`) is XML's too; XML 1.0 also forbids most control characters.
    static func escape(_ text: String) -> String {
        HTML.escape(String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 && $0 != "\n" && $0 != "\t" && $0 != "\r" ? "?" : $0 })))
    }
}
