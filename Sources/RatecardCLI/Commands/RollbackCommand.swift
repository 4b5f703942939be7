import RatecardKit

/// `ratecard rollback`: swap back to an earlier release in one step.
enum RollbackCommand {
    static let command = Command(
        name: "rollback",
        abstract: "Make an earlier release live again (one rename); the release left is marked bad.",
        usage: "(--env <name> | --root <dir>) [--to <id>] [--expect-live <id>] [--verify] [--format <format>] -m <reason>",
        options: ServeRootOptions.options + [
            OptionSpec("--to", value: "ID", "The release to go back to (default: the newest good one before live)"),
            OptionSpec("--expect-live", value: "ID", "Only roll back if this release is live now"),
            OptionSpec("--verify", "Re-hash every file of the target first (default: check its version.json against the hash journaled at publish, when every file was verified)"),
            OptionSpec("-m", value: "REASON", "Why (required): recorded in the journal"),
            ServeRootOptions.noWait,
            ServeRootOptions.format,
        ],
        run: run)

    static func run(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        let json = try ServeRootCommands.format(arguments)
        guard let reason = arguments.value("-m"), !reason.isEmpty else { throw UsageError("Missing expected option '-m <reason>'") }
        let root = try ServeRootOptions.existing(arguments, invocation)
        let (from, to, check) = try ReleaseHistory(root: root).rollback(
            to: arguments.value("--to"), expectLive: arguments.value("--expect-live"), reason: reason,
            wait: !arguments.has("--no-wait"), verify: arguments.has("--verify"))
        if json {
            let how = switch check {
            case .sealed: JSON.object(["check": .string("sealed")])
            case .rehashed(let files): JSON.object(["check": .string("rehashed"), "files": .int(files)])
            }
            invocation.console.out(JSON.object(["from": .string(from), "to": .string(to), "verified": how]).serialized() + "\n")
            return RatecardCLI.ExitCode.ok
        }
        let checked = switch check {
        case .sealed: "its version.json matches the hash journaled at publish"
        case .rehashed(let files): "all \(files) files re-hashed against its version.json"
        }
        invocation.console.out("Rolled back \(root.path) from \(from) to \(to) (\(checked)); \(from) is marked bad.\n")
        return RatecardCLI.ExitCode.ok
    }
}
