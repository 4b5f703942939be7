import RatecardKit

/// `ratecard publish`: validate, build and stage a release, then swap it live atomically.
enum PublishCommand {
    static let command = Command(
        name: "publish",
        abstract: "Build a commit and make it live: staged beside the live release, swapped in one rename.",
        usage:
            "(--env <name> | --root <dir>) [--rev <rev>] [--web <dir> | --no-web] [--as-of <date>] [--expect-live <id>] [-m <msg>] [--dry-run] [--if-stale] [--approve <reason>] [--allow-shallow] [--no-wait] [--format <format>]",
        options: ServeRootOptions.options + [
            OptionSpec("--rev", value: "REV", "The commit to publish (default: HEAD; uncommitted content is refused)"),
            OptionSpec("--web", value: "DIR", "The web build folder (default: 'web' in ratecard.yaml, else ../site)"),
            OptionSpec("--no-web", "Publish the bundle alone, without a web build (the release serves data and pages only)"),
            OptionSpec("--as-of", value: "DATE", "The date that decides what is current (default: today in Asia/Seoul)"),
            OptionSpec("--expect-live", value: "ID", "Only swap if this release is live now (compare-and-swap; 'none' for an empty root)"),
            OptionSpec("-m", value: "MSG", "Why: recorded in the journal"),
            OptionSpec("--dry-run", "Print what would change (semantic diff, then files) and touch nothing"),
            OptionSpec("--if-stale", "Only if something scheduled has taken effect since the live release was built: rebuild the live release's commit as of today (for a daily timer)"),
            OptionSpec("--approve", value: "REASON", "Approve a risky change for a protected environment (recorded in the journal)"),
            OptionSpec("--allow-shallow", "Publish a commit whose parent is not in this shallow clone, its history rules skipped (else exit 4)"),
            ServeRootOptions.noWait,
            ServeRootOptions.format,
        ],
        discussion:
            "Publishing what is already live changes nothing and exits 0. A risky change to a protected environment (the first\nrelease there included) needs --approve; uncommitted content is refused (exit 1).",
        run: run)

    static func run(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        let json = try ServeRootCommands.format(arguments)
        let (root, protected, name) = try ServeRootOptions.resolve(arguments, invocation)
        let location = try ContentLocation.find(from: invocation.directory)
        let web: PublishFlow.Web =
            arguments.has("--no-web") ? .none : arguments.value("--web").map { .folder(RatecardCLI.resolve($0, against: invocation.directory)) } ?? .configured
        let options = PublishFlow.Options(
            environment: name, root: root, protected: protected, apps: ServeRootOptions.apps(of: name, invocation), revision: arguments.value("--rev"),
            ifStale: arguments.has("--if-stale"), web: web, asOf: try invocation.asOf(arguments), asOfExplicit: arguments.value("--as-of") != nil,
            expectLive: arguments.value("--expect-live"), message: arguments.value("-m") ?? "", dryRun: arguments.has("--dry-run"),
            approval: arguments.value("--approve"), wait: !arguments.has("--no-wait"), caches: invocation.caches, allowShallow: arguments.has("--allow-shallow"))
        let console = invocation.console
        let result = try PublishFlow(location: location, options: options).run { event in
            switch event {
            case .waiting(let text): console.err(text)
            case .liveDiff(let diff):
                guard options.dryRun, !json else { return }
                switch diff {
                case .diff(let semantic): console.out(DiffFormatter.text(semantic, title: "\(name): live -> \(options.revision ?? "HEAD")", colour: console.outIsTerminal))
                case .unknown(let reason): console.err("warning: no semantic diff: \(reason)\n")
                case .nothingLive: break
                }
            case .approved(let approval): console.err("Approved risky change for \(name): \(approval.summary)\n")
            case .warning(let text): console.err("warning: \(text)\n")
            }
        }
        var summary: [String: JSON] = [
            "environment": .string(name), "bundle_id": result.bundleID.map(JSON.string) ?? .null,
            "commit": result.commit.map { .string($0.hex) } ?? .null, "built_onto_live": .bool(result.builtOntoLive != nil),
        ]
        switch result.outcome {
        case .current(let text):
            console.out(json ? JSON.object(["environment": .string(name), "outcome": .string("current")]).serialized() + "\n" : "\(name): \(text); nothing to do.\n")
            return RatecardCLI.ExitCode.ok
        case .uncommitted(let files):
            let named = files.prefix(3).joined(separator: ", ") + (files.count > 3 ? " and \(files.count - 3) more" : "")
            console.err("Error: the content has uncommitted changes (\(named)); commit them first (or pass --rev to publish a commit as it is)\n")
            return RatecardCLI.ExitCode.invalid
        case .bridge(let verdict):
            ServeRootOptions.report(verdict, console)
            return RatecardCLI.ExitCode.invalid
        case .invalid(let report):
            console.out((json ? ReportFormat.json : ReportFormat.text).render(report, version: RatecardCLI.version))
            console.err("Error: the content is invalid; nothing was published\n")
            return RatecardCLI.ExitCode.invalid
        case .dryRun(let plan, let live):
            summary.merge(["outcome": .string("dry_run"), "live": live.map(JSON.string) ?? .null, "changes": plan.counts]) { $1 }
            console.out(json ? JSON.object(summary).serialized() + "\n" : describe(plan, live: live, target: name, bundle: result.bundleID ?? ""))
        case .published(.alreadyLive(let id)):
            summary.merge(["outcome": .string("already_live"), "release": .string(id)]) { $1 }
            if !json { console.out("Already live on \(name): release \(id) serves this commit; nothing changed.\n") }
        case .published(.published(let id, let previous, let plan, let bytes, let linked)):
            summary.merge([
                "outcome": .string("published"), "release": .string(id), "previous": previous.map(JSON.string) ?? .null,
                "changes": plan.counts, "bytes_written": .int(bytes), "files_linked": .int(linked),
            ]) { $1 }
            if !json {
                let how = result.builtOntoLive.map { "; built onto the live bundle: \($0.count) changed product(s) re-rendered, the rest reused" } ?? ""
                console.out("Published release \(id) to \(name) (was \(previous ?? "none")): \(plan.summary); wrote \(bytes) bytes of new objects, \(linked) entry files\(how).\n")
            }
        }
        if json, case .published = result.outcome {
            if let usage = root.usage { summary["storage"] = usage }
            console.out(JSON.object(summary).serialized() + "\n")
        }
        return RatecardCLI.ExitCode.ok
    }

    static func describe(_ plan: ReleasePlan, live: String?, target: String, bundle: String) -> String {
        var text = "Dry run: publishing bundle \(bundle) to \(target) (live: \(live ?? "none")) would change: \(plan.summary)\n"
        for path in plan.added { text += "  + \(path)\n" }
        for path in plan.changed { text += "  ~ \(path)\n" }
        for path in plan.removed { text += "  - \(path)\n" }
        text += "Nothing was changed.\n"
        return text
    }
}
