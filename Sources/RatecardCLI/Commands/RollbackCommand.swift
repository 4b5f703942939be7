import RatecardKit

/// `ratecard rollback`: swap back to an earlier release in one step.
enum RollbackCommand {
    static let command = Command(
        name: "rollback",
        abstract: "Make an earlier release live again (one rename); the release left is marked bad.",
        usage: "(--env <name> | --root <dir>) [--to <id>] [--force] [--expect-live <id>] [--verify] [--dry-run] [--no-wait] [--format <format>] -m <reason>",
        options: ServeRootOptions.options + [
            OptionSpec("--to", value: "ID", "The release to go back to: an id, a unique prefix of one, or its sequence number (default: the newest good one before live)"),
            OptionSpec("--force", "Allow --to a release marked bad (its mark is cleared)"),
            OptionSpec("--expect-live", value: "ID", "Only roll back if this release is live now"),
            OptionSpec("--verify", "Re-hash every file of the target first (default: check its version.json against the hash journaled at publish, when every file was verified)"),
            OptionSpec("--dry-run", "Say which release would be made live, check it, and change nothing"),
            OptionSpec("-m", value: "REASON", "Why (required): recorded in the journal"),
            ServeRootOptions.noWait,
            ServeRootOptions.format,
        ],
        run: run)

    static func run(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        let json = try ServeRootCommands.format(arguments)
        let dryRun = arguments.has("--dry-run")
        let reason = arguments.value("-m") ?? ""
        guard dryRun || !reason.isEmpty else { throw UsageError("Missing expected option '-m <reason>'") }
        let root = try ServeRootOptions.existing(arguments, invocation)
        let target = try arguments.value("--to").map { try resolve($0, in: root) }
        let done = try ReleaseHistory(root: root).rollback(
            to: target, expectLive: arguments.value("--expect-live"), reason: reason,
            wait: !arguments.has("--no-wait"), verify: arguments.has("--verify"), force: arguments.has("--force"), dryRun: dryRun)
        // The release each app version loads may have changed (the one left is bad now).
        if json {
            let how =
                switch done.check {
                case .sealed: JSON.object(["check": .string("sealed")])
                case .rehashed(let files): JSON.object(["check": .string("rehashed"), "files": .int(files)])
                }
            var fields: [String: JSON] = [
                "from": .string(done.from), "to": .string(done.to), "verified": how, "dry_run": .bool(dryRun),
                "target_was_bad": .bool(done.targetWasBad),
            ]
            if let usage = root.usage { fields["storage"] = usage }
            invocation.console.out(JSON.object(fields).serialized() + "\n")
            return RatecardCLI.ExitCode.ok
        }
        let checked =
            switch done.check {
            case .sealed: "its version.json matches the hash journaled at publish"
            case .rehashed(let files): "all \(files) files re-hashed against its version.json"
            }
        if dryRun {
            invocation.console.out("Would roll back \(root.displayName) from \(done.from) to \(done.to) (\(checked)); \(done.from) would be marked bad. Nothing was changed.\n")
        } else {
            invocation.console.out(
                "Rolled back \(root.displayName) from \(done.from) to \(done.to) (\(checked)); \(done.from) is marked bad\(done.targetWasBad ? " and \(done.to)'s bad mark is cleared" : "").\n")
        }
        return RatecardCLI.ExitCode.ok
    }

    /// A release named on the command line: an id, a unique prefix, or a sequence number.
    static func resolve(_ text: String, in root: any ReleaseStore) throws -> String {
        switch try root.release(named: text) {
        case .found(let id): return id
        case .ambiguous(let ids): throw UsageError("'\(text)' names more than one release: \(ids.joined(separator: ", "))")
        case .none(let known):
            throw UsageError("no release '\(text)' in \(root.displayName)" + (known.isEmpty ? "" : "; kept releases: \(known.suffix(10).joined(separator: ", "))"))
        }
    }
}
