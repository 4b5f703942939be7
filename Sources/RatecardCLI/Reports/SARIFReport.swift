import RatecardKit

/// SARIF 2.1.0: one run, the full rule table, one result per diagnostic. A rule that could not
/// run (the history rules in a shallow clone) is a tool execution notification naming the rule
/// (SARIF's `associatedRule`), an error unless skipping was asked for, and such a run is not
/// `executionSuccessful`: no result is not a pass.
enum SARIFReport {
    static func render(_ report: ValidationReport, version: String, messages: Messages = .english) -> String {
        let rules = Rule.all
        let ruleIndex = Dictionary(uniqueKeysWithValues: rules.enumerated().map { ($1.id, $0) })
        let results = report.present.map { diagnostic -> JSON in
            var result: [String: JSON] = [
                "ruleId": .string(diagnostic.rule),
                "level": .string(diagnostic.severity == .error ? "error" : "warning"),
                "message": .object(["text": .string(messages(diagnostic.message))]),
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
                "name": .string(rule.title.english),
                "shortDescription": .object(["text": .string(messages(rule.title))]),
                "fullDescription": .object(["text": .string(messages(rule.rationale))]),
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
                            "executionSuccessful": .bool(!report.incomplete),
                            "toolExecutionNotifications": .array(notifications(report, ruleIndex: ruleIndex, messages: messages)),
                        ])
                    ]),
                ])
            ]),
        ])
        return sarif.serialized() + "\n"
    }

    /// One notification per rule not run on a commit, naming the rule; then the notes.
    static func notifications(_ report: ValidationReport, ruleIndex: [String: Int], messages: Messages = .english) -> [JSON] {
        let level = report.incomplete ? "error" : "warning"
        var notifications: [JSON] = []
        for unrun in report.unrun {
            for rule in unrun.rules {
                var reference: [String: JSON] = ["id": .string(rule)]
                if let index = ruleIndex[rule] { reference["index"] = .int(index) }
                let (commit, parent) = (unrun.commit.short, unrun.parent.short)
                let text =
                    report.skipAllowed
                    ? Message(
                        "\(rule) was skipped (--allow-shallow) for \(commit): its parent \(parent) is not in this clone (a shallow clone)",
                        ko: "\(commit) 커밋의 \(rule) 규칙은 요청대로 건너뛰었습니다 (--allow-shallow): 부모 커밋 \(parent)이(가) 이 클론에 없습니다 (얕은 클론)")
                    : Message(
                        "\(rule) could not run for \(commit): its parent \(parent) is not in this clone (a shallow clone)",
                        ko: "\(commit) 커밋의 \(rule) 규칙을 실행하지 못했습니다: 부모 커밋 \(parent)이(가) 이 클론에 없습니다 (얕은 클론)")
                notifications.append(
                    .object([
                        "level": .string(level),
                        "associatedRule": .object(reference),
                        "message": .object([
                            "text": .string(messages(text))
                        ]),
                        "properties": .object(["commit": .string(unrun.commit.hex), "missingParent": .string(unrun.parent.hex)]),
                    ]))
            }
        }
        for note in report.notes {
            notifications.append(.object(["level": .string(report.unrun.isEmpty ? "note" : level), "message": .object(["text": .string(messages(note))])]))
        }
        return notifications
    }
}
