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
                let severity = rule.severity.rawValue.padding(7)
                text += "\(rule.id)  \(severity)  \(rule.title)\n         \(rule.rationale)\n"
            }
            text += "\(Rule.all.count) rules\n"
            invocation.console.out(text)
        case "json":
            let rules = Rule.all.map { rule -> JSON in
                .object(["id": .string(rule.id), "severity": .string(rule.severity.rawValue), "title": .string(rule.title), "rationale": .string(rule.rationale)])
            }
            invocation.console.out(JSON.array(rules).serialized() + "\n")
        case let other:
            throw UsageError("Unknown format '\(other)'; use text or json")
        }
        return RatecardCLI.ExitCode.ok
    }
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
