import RatecardKit

/// `ratecard promote`: ship the identical release (same id, same bytes) to another environment.
enum PromoteCommand {
    static let command = Command(
        name: "promote",
        abstract: "Make the release live in one environment live in another, byte for byte.",
        usage: "--from <env> --to <env> [--release <id>] [--expect-live <id>] [-m <msg>] [--dry-run] [--format <format>]",
        options: [
            OptionSpec("--from", value: "ENV", "The environment (or serve root folder) to take the release from"),
            OptionSpec("--to", value: "ENV", "The environment (or serve root folder) to make it live in"),
            OptionSpec("--release", value: "ID", "The release to promote (default: what is live in --from)"),
            OptionSpec("--expect-live", value: "ID", "Only swap if this release is live in --to now"),
            OptionSpec("-m", value: "MSG", "Why: recorded in the journal"),
            OptionSpec("--dry-run", "Print what would change (semantic diff, then files) and touch nothing"),
            OptionSpec("--approve", value: "REASON", "Approve a risky change for a protected --to environment (recorded in the journal)"),
            ServeRootOptions.noWait,
            ServeRootOptions.format,
        ],
        run: run)

    static func root(_ value: String, _ invocation: Invocation) throws -> any ReleaseTarget {
        try resolved(value, invocation).root
    }

    /// An environment name (a serve root or a bucket prefix), or a serve root folder.
    static func resolved(_ value: String, _ invocation: Invocation) throws -> (root: any ReleaseTarget, protected: Bool) {
        if value.contains("/") {
            let match = ServeRootOptions.byPath(RatecardCLI.resolve(value, against: invocation.directory), shown: value, invocation)
            return (match.root, match.protected)
        }
        let environment = try ServeRootOptions.environment(value, invocation)
        return (try environment.target(), environment.protected)
    }

    /// The semantic diff from what is live in `target` to the release being promoted, and the
    /// approval fields. Fails closed: a protected target whose diff cannot be computed needs
    /// `--approve` like a risky change.
    static func gate(_ arguments: ParsedArguments, _ invocation: Invocation, source: any ReleaseTarget, target: any ReleaseTarget, protected: Bool, name: String) throws -> (
        SemanticDiff?, [String: JSON]
    ) {
        let asOf = try invocation.asOf(arguments)
        let diff: ApprovalGate.LiveDiff
        var next: Content?
        do {
            guard let id = try arguments.value("--release") ?? source.live() else { throw OperationalError("the source has nothing live to promote") }
            guard let commit = try source.info(of: id).sourceCommit else { throw OperationalError("release \(id) names no source commit") }
            let location = try ContentLocation.find(from: invocation.directory)
            guard location.repository != nil else { throw OperationalError("there is no git repository here to read commit \(commit.prefix(12)) from") }
            do {
                next = try ValidationRun(location: location, context: ValidationContext(asOf: asOf)).content(at: commit)
            } catch {
                throw OperationalError("the promoted commit \(commit.prefix(12)) cannot be read from this clone (\(error)); in a shallow clone fetch it with 'git fetch --unshallow'")
            }
            diff = ApprovalGate.liveDiff(root: target, location: location, next: next!, asOf: asOf)
        } catch {
            diff = .unknown("\(error)")
        }
        if case .unknown(let reason) = diff, !protected {
            invocation.console.err("warning: no semantic diff: \(reason)\n")
        }
        guard protected else { return (diff.semantic, [:]) }
        let threshold = next?.config?.rateMoveWarn ?? Percent(thousandths: 3000)
        return (diff.semantic, try ApprovalGate.check(diff, threshold: threshold, environment: name, approval: arguments.value("--approve"), console: invocation.console))
    }

    static func run(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        guard let fromName = arguments.value("--from") else { throw UsageError("Missing expected option '--from <env>'") }
        guard let toName = arguments.value("--to") else { throw UsageError("Missing expected option '--to <env>'") }
        let source = try root(fromName, invocation)
        let (target, protected) = try resolved(toName, invocation)
        if fromName == toName || source.displayName == target.displayName {
            throw UsageError("'--from' and '--to' are the same environment (\(toName)); promote ships a release to another environment")
        }
        let json = try ServeRootCommands.format(arguments)
        let dryRun = arguments.has("--dry-run")
        // The native bridge: the release's web build must run on every app version --to supports.
        let promoted = try arguments.value("--release") ?? source.live()
        if let promoted, let manifest = try source.manifest(of: promoted),
            let requirement = try BridgeRequirement.recorded(manifest: manifest),
            !BridgeGate.refuse(requirement, environment: toName, invocation)
        {
            return RatecardCLI.ExitCode.invalid
        }
        // A protected target is gated against what is live there now: the swap must still find it live.
        let requested = arguments.value("--expect-live")
        let expectLive = protected && requested == nil ? try target.live() ?? "none" : requested
        // The semantic diff reads both commits' content: only when it is shown or gates.
        let (diff, approval) =
            dryRun || protected
            ? try gate(arguments, invocation, source: source, target: target, protected: protected, name: toName) : (nil, [:])
        if dryRun {
            if let diff, !json { invocation.console.out(DiffFormatter.text(diff, title: "\(toName): live -> promoted", colour: invocation.console.outIsTerminal)) }
            guard let id = try arguments.value("--release") ?? source.live() else { throw OperationalError("\(fromName) has nothing live to promote") }
            let next = try source.info(of: id)
            let live = try target.live()
            let liveFiles = try live.map { try target.info(of: $0).files } ?? []
            let plan = ReleasePlan.between(live: liveFiles, next: next.files)
            if json {
                invocation.console.out(
                    JSON.object([
                        "outcome": .string("dry_run"), "release": .string(id), "live": live.map(JSON.string) ?? .null, "changes": plan.counts,
                    ]).serialized() + "\n")
                return RatecardCLI.ExitCode.ok
            }
            invocation.console.out("Dry run: promoting \(id) from \(fromName) to \(toName) (live: \(live ?? "none")) would change: \(plan.summary)\nNothing was changed.\n")
            return RatecardCLI.ExitCode.ok
        }
        try ServeRootOptions.prepare(target)
        let result = try ReleaseHistory.promote(
            release: arguments.value("--release"), from: source, to: target, expectLive: expectLive,
            message: arguments.value("-m") ?? "", wait: !arguments.has("--no-wait"), extra: approval.merging(["from_env": .string(fromName)]) { $1 })
        if !result.alreadyLive { BridgeGate.updateLines(target, invocation) }
        if json {
            var fields: [String: JSON] = [
                "outcome": .string(result.alreadyLive ? "already_live" : "promoted"), "release": .string(result.id),
                "previous": result.previous.map(JSON.string) ?? .null, "from": .string(fromName), "to": .string(toName),
            ]
            if let usage = target.usage { fields["storage"] = usage }
            invocation.console.out(JSON.object(fields).serialized() + "\n")
        } else if result.alreadyLive {
            invocation.console.out("Release \(result.id) is already live in \(toName); nothing changed.\n")
        } else {
            invocation.console.out("Promoted release \(result.id) from \(fromName) to \(toName) (was \(result.previous ?? "none")).\n")
        }
        return RatecardCLI.ExitCode.ok
    }
}
