import RatecardKit

/// `ratecard rollback`: swap back to an earlier release in one step.
enum RollbackCommand {
    static let command = Command(
        name: "rollback",
        abstract: "Make another kept release live (one rename); a bare rollback marks the release left bad.",
        usage:
            "(--env <name> | --root <dir>) [--to <id> [--mark-bad]] [--force] [--expect-live <id>] [--verify] [--dry-run] [--no-wait] [--format <format>] -m <reason>",
        options: ServeRootOptions.options + [
            OptionSpec("--to", value: "ID", "The release to make live: an id, a unique prefix of one, or its sequence number (default: the newest good one before live)"),
            OptionSpec("--mark-bad", "With --to, also mark the release left bad (a bare rollback always does; --to alone does not)"),
            OptionSpec("--force", "Allow --to a release marked bad (its mark is cleared)"),
            OptionSpec("--expect-live", value: "ID", "Only roll back if this release is live now"),
            OptionSpec("--verify", "Re-hash every file of the target first (default: check its version.json against the hash journaled at publish, when every file was verified)"),
            OptionSpec("--dry-run", "Say which release would be made live, check it, and change nothing"),
            OptionSpec("-m", value: "REASON", "Why (required): recorded in the journal"),
            ServeRootOptions.noWait,
            ServeRootOptions.format,
        ],
        discussion: """
            A bare rollback goes back to the newest good release that was live before this one, and
            marks the release it leaves bad: no later bare rollback returns to it. With --to, the
            release left is marked bad only with --mark-bad: rolling forward again, or back past
            several releases, is no verdict on the release left. A release marked bad needs --force
            to be made live again (its mark is cleared), or 'ratecard releases --clear-bad'.
            """,
        run: run)

    static func run(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        let json = try ServeRootCommands.format(arguments)
        let dryRun = arguments.has("--dry-run")
        let reason = arguments.value("-m") ?? ""
        guard dryRun || !reason.isEmpty else { throw UsageError("Missing expected option '-m <reason>'") }
        let root = try ServeRootOptions.existing(arguments, invocation)
        if arguments.has("--mark-bad") && arguments.value("--to") == nil {
            throw UsageError("'--mark-bad' goes with '--to <id>' (a bare rollback always marks the release it leaves bad)")
        }
        let target = try arguments.value("--to").map { try resolve($0, in: root) }
        let done = try ReleaseHistory(root: root).rollback(
            to: target, expectLive: arguments.value("--expect-live"), reason: reason,
            wait: !arguments.has("--no-wait"), verify: arguments.has("--verify"), force: arguments.has("--force"),
            markBad: target == nil || arguments.has("--mark-bad"), dryRun: dryRun)
        let forward = sequence(done.to) > sequence(done.from)
        // The release each app version loads may have changed (the one left is bad now).
        if json {
            let how =
                switch done.check {
                case .sealed: JSON.object(["check": .string("sealed")])
                case .rehashed(let files): JSON.object(["check": .string("rehashed"), "files": .int(files)])
                }
            var fields: [String: JSON] = [
                "from": .string(done.from), "to": .string(done.to), "verified": how, "dry_run": .bool(dryRun),
                "target_was_bad": .bool(done.targetWasBad), "marked_bad": .bool(done.markedBad), "direction": .string(forward ? "forward" : "back"),
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
        let cleared = done.targetWasBad ? "; \(done.to)'s bad mark is cleared" : ""
        if dryRun {
            let mark = done.markedBad ? "\(done.from) would be marked bad" : "\(done.from) would not be marked bad (--to without --mark-bad)"
            invocation.console.out("Would roll \(forward ? "forward" : "back") \(root.displayName) from \(done.from) to \(done.to) (\(checked)); \(mark). Nothing was changed.\n")
        } else {
            let mark = done.markedBad ? "\(done.from) is marked bad" : "\(done.from) is not marked bad (--to without --mark-bad)"
            invocation.console.out("Rolled \(forward ? "forward" : "back") \(root.displayName) from \(done.from) to \(done.to) (\(checked)); \(mark)\(cleared).\n")
        }
        return RatecardCLI.ExitCode.ok
    }

    /// A release id's sequence number (`000042-...`: 42).
    static func sequence(_ id: String) -> Int { Int(id.prefix { $0.isNumber }) ?? 0 }

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
