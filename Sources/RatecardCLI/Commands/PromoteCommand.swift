import RatecardKit

/// `ratecard promote`: ship the identical release (same id, same bytes) to another environment.
enum PromoteCommand {
    static let command = Command(
        name: "promote",
        abstract: "Make the release live in one environment live in another, byte for byte.",
        usage: "--from <env> --to <env> [--release <id>] [--expect-live <id>] [-m <msg>] [--dry-run] [--force] [--format <format>]",
        options: [
            OptionSpec("--from", value: "ENV", "The environment (or serve root folder) to take the release from"),
            OptionSpec("--to", value: "ENV", "The environment (or serve root folder) to make it live in"),
            OptionSpec("--release", value: "ID", "The release to promote (default: what is live in --from)"),
            OptionSpec("--expect-live", value: "ID", "Only swap if this release is live in --to now"),
            OptionSpec("-m", value: "MSG", "Why: recorded in the journal"),
            OptionSpec("--dry-run", "Print what would change (semantic diff, then files) and touch nothing"),
            OptionSpec("--approve", value: "REASON", "Approve a risky change for a protected --to environment (recorded in the journal)"),
            ServeRootOptions.force,
            ServeRootOptions.noWait,
            ServeRootOptions.format,
            SigningKeys.option,
        ],
        run: run)

    static func root(_ value: String, _ invocation: Invocation) throws -> any ReleaseStore {
        try resolved(value, invocation).store
    }

    /// An environment name (a serve root or a bucket prefix), or a serve root folder; named in
    /// messages as given.
    static func resolved(_ value: String, _ invocation: Invocation) throws -> Destination {
        var destination: Destination
        if value.contains("/") {
            destination = try ServeRootOptions.byPath(RatecardCLI.resolve(value, against: invocation.directory), shown: value, invocation)
        } else {
            let environment = try ServeRootOptions.environment(value, invocation)
            destination = Destination(environment, store: try environment.store())
        }
        destination.name = value
        return destination
    }

    static func run(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        guard let fromName = arguments.value("--from") else { throw UsageError("Missing expected option '--from <env>'", ko: "'--from <env>' 옵션이 필요합니다") }
        guard let toName = arguments.value("--to") else { throw UsageError("Missing expected option '--to <env>'", ko: "'--to <env>' 옵션이 필요합니다") }
        let source = try root(fromName, invocation)
        var destination = try resolved(toName, invocation)
        SigningKeys.attach(&destination, arguments, invocation)
        let (target, protected) = (destination.store, destination.protected)
        if fromName == toName || source.displayName == target.displayName {
            throw UsageError(
                "'--from' and '--to' are the same environment (\(toName)); promote ships a release to another environment",
                ko: "'--from'과 '--to'가 같은 환경입니다 (\(toName)); promote는 릴리스를 다른 환경으로 보냅니다")
        }
        let json = try ServeRootCommands.format(arguments)
        // A release named on the command line must be one of the source's (an id, a unique prefix or a sequence number).
        let release = try arguments.value("--release").map { try RollbackCommand.resolve($0, in: source) }
        let options = PromoteFlow.Options(
            source: (fromName, source), destination: destination, change: ServeRootOptions.change(arguments), release: release,
            asOf: try invocation.asOf(arguments), caches: invocation.caches)
        let console = invocation.console
        let messages = invocation.messages
        let flow = PromoteFlow(location: Result { try ContentLocation.find(from: invocation.directory) }, options: options)
        // Warnings after the flip: on stderr as they come, and in the JSON summary.
        var warnings: [Message] = []
        let outcome = try flow.run { event in
            switch event {
            case .waiting(let text): console.err(messages(text) + "\n")
            case .liveDiff(.unknown(let reason)) where !protected:
                console.err(messages.warning(Message("no semantic diff: \(reason)", ko: "변경 내용을 비교하지 못했습니다: \(reason)")))
            case .liveDiff(.diff(let diff)) where options.change.dryRun && !json:
                let title = Message("\(toName): live -> promoted", ko: "\(toName): 라이브 -> 승격할 릴리스")
                console.out(DiffFormatter.text(diff, title: title, colour: console.outIsTerminal, language: messages.language))
            case .liveDiff: break
            case .approved(let approval):
                console.err(messages(Message("Approved risky change for \(toName): \(approval.summary)", ko: "\(toName)의 위험한 변경을 승인했습니다: \(approval.summary)")) + "\n")
            case .warning(let text):
                warnings.append(text)
                console.err(messages.warning(text))
            }
        }
        var fields: [String: JSON] = ["from": .string(fromName), "to": .string(toName)]
        switch outcome {
        case .bridge(let verdict):
            ServeRootOptions.report(verdict, invocation)
            return RatecardCLI.ExitCode.invalid
        case .dryRun(let id, let live, let plan):
            if json {
                console.out(
                    JSON.object(["outcome": .string("dry_run"), "release": .string(id), "live": live.map(JSON.string) ?? .null, "changes": plan.counts]).serialized() + "\n")
            } else {
                invocation.out(
                    Message(
                        "Dry run: promoting \(id) from \(fromName) to \(toName) (live: \(live ?? "none")) would change: \(plan.summary)\nNothing was changed.\n",
                        ko: "시험 실행: \(id)을(를) \(fromName)에서 \(toName)(으)로 승격하면 (라이브: \(live ?? "없음")) 바뀌는 것: \(plan.summary)\n아무것도 바꾸지 않았습니다.\n"))
            }
            return RatecardCLI.ExitCode.ok
        case .alreadyLive(let id):
            fields.merge(["outcome": .string("already_live"), "release": .string(id), "previous": .string(id)]) { $1 }
            if !json { invocation.out(Message("Release \(id) is already live in \(toName); nothing changed.\n", ko: "릴리스 \(id)은(는) 이미 \(toName)에 라이브입니다; 아무것도 바꾸지 않았습니다.\n")) }
        case .promoted(let id, let previous):
            fields.merge(["outcome": .string("promoted"), "release": .string(id), "previous": previous.map(JSON.string) ?? .null]) { $1 }
            if !json {
                invocation.out(
                    Message(
                        "Promoted release \(id) from \(fromName) to \(toName) (was \(previous ?? "none")).\n",
                        ko: "릴리스 \(id)을(를) \(fromName)에서 \(toName)(으)로 승격했습니다 (이전: \(previous ?? "없음")).\n"))
            }
        }
        if json {
            if let usage = target.usage { fields["storage"] = usage }
            if !warnings.isEmpty { fields["warnings"] = .array(warnings.map { .string($0.english) }) }
            console.out(JSON.object(fields).serialized() + "\n")
        }
        return RatecardCLI.ExitCode.ok
    }
}
