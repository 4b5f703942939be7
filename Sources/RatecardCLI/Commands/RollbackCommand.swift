import RatecardKit

/// `ratecard rollback`: swap back to an earlier release in one step.
enum RollbackCommand {
    static let command = Command(
        name: "rollback",
        abstract: "Make an earlier release live again (one rename); the release left is marked bad.",
        usage: "(--env <name> | --root <dir>) [--to <id>] [--expect-live <id>] -m <reason>",
        options: ServeRootOptions.options + [
            OptionSpec("--to", value: "ID", "The release to go back to (default: the newest good one before live)"),
            OptionSpec("--expect-live", value: "ID", "Only roll back if this release is live now"),
            OptionSpec("-m", value: "REASON", "Why (required): recorded in the journal"),
            ServeRootOptions.noWait,
        ],
        run: run)

    static func run(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        guard let reason = arguments.value("-m"), !reason.isEmpty else { throw UsageError("Missing expected option '-m <reason>'") }
        let root = try ServeRootOptions.existing(arguments, invocation)
        let (from, to) = try ReleaseHistory(root: root).rollback(
            to: arguments.value("--to"), expectLive: arguments.value("--expect-live"), reason: reason, wait: !arguments.has("--no-wait"))
        invocation.console.out("Rolled back \(root.path) from \(from) to \(to); \(from) is marked bad.\n")
        return RatecardCLI.ExitCode.ok
    }
}
