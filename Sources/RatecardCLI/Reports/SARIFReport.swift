import RatecardKit

/// SARIF 2.1.0: one run, the full rule table, one result per diagnostic.
enum SARIFReport {
    static func render(_ report: ValidationReport, version: String) -> String {
        let rules = Rule.all
        let ruleIndex = Dictionary(uniqueKeysWithValues: rules.enumerated().map { ($1.id, $0) })
        let results = report.present.map { diagnostic -> JSON in
            var result: [String: JSON] = [
                "ruleId": .string(diagnostic.rule),
                "level": .string(diagnostic.severity == .error ? "error" : "warning"),
                "message": .object(["text": .string(diagnostic.message)]),
                "locations": .array([
                    .object([
                        "physicalLocation": .object([
                            "artifactLocation": .object(["uri": .string(diagnostic.path), "uriBaseId": .string("SRCROOT")]),
                            "region": .object(["startLine": .int(diagnostic.mark.line), "startColumn": .int(diagnostic.mark.column)]),
                        ])
                    ])
                ]),
            ]
            if let index = ruleIndex[diagnostic.rule] { result["ruleIndex"] = .int(index) }
            if let commit = diagnostic.commit {
                result["properties"] = .object(["commit": .string(commit.id.hex), "commitSummary": .string(commit.summary)])
            }
            return .object(result)
        }
        let driverRules = rules.map { rule -> JSON in
            .object([
                "id": .string(rule.id),
                "name": .string(rule.title),
                "shortDescription": .object(["text": .string(rule.title)]),
                "fullDescription": .object(["text": .string(rule.rationale)]),
                "defaultConfiguration": .object(["level": .string(rule.severity == .error ? "error" : "warning")]),
            ])
        }
        let sarif: JSON = .object([
            "$schema": .string("https://json.schemastore.org/sarif-2.1.0.json"),
            "version": .string("2.1.0"),
            "runs": .array([
                .object([
                    "tool": .object([
                        "driver": .object([
                            "name": .string("ratecard"),
                            "version": .string(version),
                            "rules": .array(driverRules),
                        ])
                    ]),
                    "results": .array(results),
                    "invocations": .array([
                        .object([
                            "executionSuccessful": .bool(true),
                            "toolExecutionNotifications": .array(
                                report.notes.map { note in
                                    .object(["level": .string("note"), "message": .object(["text": .string(note)])])
                                }),
                        ])
                    ]),
                ])
            ]),
        ])
        return sarif.serialized() + "\n"
    }
}
