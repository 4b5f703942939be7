import RatecardKit

/// The report as one JSON object: summary counts and every diagnostic.
enum JSONReport {
    static func render(_ report: ValidationReport, version: String, messages: Messages = .english) -> String {
        let diagnostics = report.diagnostics.map { diagnostic -> JSON in
            var fields: [String: JSON] = [
                "path": .string(diagnostic.path),
                "line": .int(diagnostic.mark.line),
                "column": .int(diagnostic.mark.column),
                "rule": .string(diagnostic.rule),
                "severity": .string(diagnostic.severity.rawValue),
                "message": .string(messages(diagnostic.message)),
            ]
            if let commit = diagnostic.commit {
                fields["commit"] = .object(["id": .string(commit.id.hex), "summary": .string(commit.summary)])
                // A range: still present at its end, or fixed by a later commit in it (history).
                fields["present_at_end"] = .bool(diagnostic.fixedBy == nil)
                fields["fixed_by"] = diagnostic.fixedBy.map { .object(["id": .string($0.id.hex), "summary": .string($0.summary)]) } ?? .null
            }
            return .object(fields)
        }
        let object: JSON = .object([
            "generator": .string("ratecard \(version)"),
            // A run with rules that could not run is not valid, unless skipping was asked for.
            "valid": .bool(!report.hasErrors && !report.incomplete),
            "complete": .bool(report.unrun.isEmpty),
            "unrun": .array(
                report.unrun.map { unrun in
                    .object([
                        "commit": .string(unrun.commit.hex), "missing_parent": .string(unrun.parent.hex), "rules": .array(unrun.rules.map(JSON.string)),
                        "skipped_on_request": .bool(report.skipAllowed),
                    ])
                }),
            "errors": .int(report.errorCount),
            "warnings": .int(report.warningCount),
            "files": .int(report.files),
            "files_parsed": .int(report.filesParsed),
            "commits": .array(report.commits.map { .object(["id": .string($0.id.hex), "summary": .string($0.summary)]) }),
            "diagnostics": .array(diagnostics),
            "notes": .array(report.notes.map { JSON.string(messages($0)) }),
        ])
        return object.serialized() + "\n"
    }
}
