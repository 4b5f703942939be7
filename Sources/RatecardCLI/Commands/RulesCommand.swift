import RatecardKit

/// `ratecard rules`: every rule with its id, severity and rationale.
enum RulesCommand {
    static let command = Command(
        name: "rules",
        abstract: "List every validation rule: id, severity, what it checks and why.",
        usage: "[--format <format>]",
        options: [OptionSpec("--format", value: "FORMAT", "text (default) or json")],
        run: run)

    static func run(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        switch arguments.value("--format") ?? "text" {
        case "text":
            var text = ""
            for rule in Rule.all {
                let word = invocation.messages(rule.severity == .error ? Message("error", ko: "오류") : Message("warning", ko: "경고"))
                let severity = word + String(repeating: " ", count: max(0, 7 - ServeRootCommands.cells(word)))
                text += "\(rule.id)  \(severity)  \(invocation.messages(rule.title))\n         \(invocation.messages(rule.rationale))\n"
            }
            text += invocation.messages(Message("\(Rule.all.count) rules\n", ko: "규칙 \(Rule.all.count)개\n"))
            invocation.console.out(text)
        case "json":
            let rules = Rule.all.map { rule -> JSON in
                .object([
                    "id": .string(rule.id), "severity": .string(rule.severity.rawValue), "title": .string(invocation.messages(rule.title)),
                    "rationale": .string(invocation.messages(rule.rationale)),
                ])
            }
            invocation.console.out(JSON.array(rules).serialized() + "\n")
        case let other:
            throw UsageError("Unknown format '\(other)'; use text or json", ko: "알 수 없는 형식 '\(other)'; text나 json을 쓰세요")
        }
        return RatecardCLI.ExitCode.ok
    }
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
