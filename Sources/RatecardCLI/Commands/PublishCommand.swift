import RatecardKit

/// `ratecard publish`: validate, build and stage a release, then swap it live atomically.
enum PublishCommand {
    static let command = Command(
        name: "publish",
        abstract: "Build a commit and make it live: staged beside the live release, swapped in one rename.",
        usage:
            "(--env <name> | --root <dir>) [--rev <rev>] [--web <dir> | --no-web] [--as-of <date>] [--expect-live <id>] [-m <msg>] [--dry-run] [--if-stale] [--approve <reason>] [--no-wait] [--format <format>]",
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
            ServeRootOptions.noWait,
            ServeRootOptions.format,
        ],
        discussion:
            "Exit codes: 0 published (or already live), 1 content invalid, uncommitted, or a risky change to a\nprotected environment without --approve, 2 usage, 3 lock held or live is not --expect-live, 4 I/O failure\n(the live release is unchanged with 1, 3 and 4).",
        run: run)

    static func run(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        Trace.mark("publish: started")
        let json = try ServeRootCommands.format(arguments)
        let (root, protected, name) = try ServeRootOptions.resolve(arguments, invocation)
        let location = try ContentLocation.find(from: invocation.directory)
        let run = BundleRun(location: location, asOf: try invocation.asOf(arguments))
        var revision = arguments.value("--rev") ?? "HEAD"
        // "Is the work tree committed?" walks the whole work tree: it starts first, runs beside
        // the rest, and is answered before anything is reported or written. (`--if-stale`
        // rebuilds the live release's commit, never the work tree.)
        var dirtyCheck: Background<[String]>?
        if arguments.value("--rev") == nil, !arguments.has("--if-stale"), location.contentDir != nil {
            dirtyCheck = try location.uncommittedContentFilesInBackground()
        }
        // What is live, read once for the checks before the lock (the publisher reads it again
        // under the lock): a large site's version.json lists every file.
        let live = try root.live()
        let liveInfo = live.flatMap { try? root.info(of: $0) }
        try checkClock(run.asOf, explicit: arguments.value("--as-of") != nil, live: live, info: liveInfo, name: name)
        if arguments.has("--if-stale") {
            switch try staleness(live: live, info: liveInfo, asOf: run.asOf) {
            case .current(let text):
                invocation.console.out(json ? JSON.object(["environment": .string(name), "outcome": .string("current")]).serialized() + "\n" : "\(name): \(text); nothing to do.\n")
                return RatecardCLI.ExitCode.ok
            case .stale(let commit):
                // The live release's own commit, as of today: a timer never ships unreviewed HEAD.
                if arguments.value("--rev") == nil { revision = commit }
            }
        }
        Trace.mark("publish: content found")
        let dryRun = arguments.has("--dry-run")
        // The everyday rate update builds onto the live bundle (only the changed products are
        // read, checked and rendered); the semantic diff of --dry-run and protected roots, and
        // every other change, take the full build. Its outcome is reported after the checks
        // below, in their order.
        var built: (output: BundleBuilder.Output, commit: ObjectID?, content: Content?, incremental: [String]?)?
        var scheduledInChanged: Day?
        var rendered: Result<BundleRun.Outcome, any Error>?
        // The live bundle is read from a serve root's folder: a release in object storage is
        // rebuilt in full (its unchanged objects are found by one listing and not sent again).
        if !dryRun, !protected, let live, let local = root as? ServeRoot, let repository = location.repository,
            let commit = try? repository.resolveCommit(revision),
            case .built(let output, let products, let scheduled)? = IncrementalBundle(location: location, asOf: run.asOf).build(commit: commit, root: local, live: live, known: liveInfo)
        {
            built = (output, commit, nil, products)
            scheduledInChanged = scheduled
        } else {
            rendered = Result { try run.render(revision: revision) }
        }
        if let check = dirtyCheck {
            let uncommitted = try check.join()
            Trace.mark("publish: git status joined")
            if !uncommitted.isEmpty {
                let named = uncommitted.prefix(3).joined(separator: ", ") + (uncommitted.count > 3 ? " and \(uncommitted.count - 3) more" : "")
                invocation.console.err("Error: the content has uncommitted changes (\(named)); commit them first (or pass --rev to publish a commit as it is)\n")
                return RatecardCLI.ExitCode.invalid
            }
        }
        // A release without the web app leaves the app's screens blank: only on request.
        let web = arguments.has("--no-web") ? nil : try run.webFolder(override: arguments.value("--web").map { RatecardCLI.resolve($0, against: invocation.directory) })
        // The native bridge: refused when an app version this environment supports lacks a call.
        let bridge = try BridgeGate.check(web: web, environment: name, invocation)
        guard bridge.ok else { return RatecardCLI.ExitCode.invalid }
        Trace.mark("publish: web folder and bridge checked")
        if let rendered {
            switch try rendered.get() {
            case .invalid(let report):
                invocation.console.out((json ? ReportFormat.json : ReportFormat.text).render(report, version: RatecardCLI.version))
                invocation.console.err("Error: the content is invalid; nothing was published\n")
                return RatecardCLI.ExitCode.invalid
            case .built(let output, let snapshot):
                built = (output, snapshot.commit, snapshot.content, nil)
            }
        }
        guard let built else { return RatecardCLI.ExitCode.invalid }
        var author = ProcessUser.name
        if let commit = built.commit, let repository = location.repository, let info = try? repository.commitInfo(commit) {
            author = "\(info.authorName) <\(info.authorEmail)>"
        }
        var extra: [String: JSON] = [:]
        // A protected environment is gated against the release live now; the swap must still find
        // that release live (another publish in between was never gated against this change).
        var expectLive = arguments.value("--expect-live")
        if protected, expectLive == nil { expectLive = try root.live() ?? "none" }
        // The semantic diff against live reads the live commit's content: only when it is shown or gates.
        if let next = built.content, dryRun || protected {
            let diff = ApprovalGate.liveDiff(root: root, location: location, next: next, asOf: run.asOf)
            if dryRun && !json {
                switch diff {
                case .diff(let semantic): invocation.console.out(DiffFormatter.text(semantic, title: "\(name): live -> \(revision)", colour: invocation.console.outIsTerminal))
                case .unknown(let reason): invocation.console.err("warning: no semantic diff: \(reason)\n")
                case .nothingLive: break
                }
            }
            if protected {
                let threshold = next.config?.rateMoveWarn ?? Percent(thousandths: 3000)
                extra = try ApprovalGate.check(diff, threshold: threshold, environment: name, approval: arguments.value("--approve"), console: invocation.console)
            }
        }
        let output = built.output
        // What is scheduled next: from the content; for a build onto the live bundle, the earlier
        // of the live release's record and the dates in the tables re-read. An edit that drops a
        // date can only make that early (a republish that changes nothing), never late.
        let staleFrom: Day?
        if let content = built.content {
            staleFrom = content.nextScheduledChange(after: run.asOf)
        } else {
            let recorded = liveInfo?.staleFrom.flatMap(Day.init)
            staleFrom = [recorded, scheduledInChanged].compactMap { $0 }.min()
        }
        let request = Publisher.Request(
            bundle: output, webFolder: web, author: author, message: arguments.value("-m") ?? "",
            expectLive: expectLive, wait: !arguments.has("--no-wait"), extra: extra, staleFrom: staleFrom)
        var requestWithBridge = request
        requestWithBridge.bridge = bridge.requirement?.json
        requestWithBridge.knownLive = liveInfo
        let publisher = Publisher(root: root)
        var summary: [String: JSON] = [
            "environment": .string(name), "bundle_id": .string(output.manifest.bundleID),
            "commit": built.commit.map { .string($0.hex) } ?? .null, "built_onto_live": .bool(built.incremental != nil),
        ]
        if dryRun {
            let (plan, live) = try publisher.plan(requestWithBridge)
            summary.merge(["outcome": .string("dry_run"), "live": live.map(JSON.string) ?? .null, "changes": plan.counts]) { $1 }
            invocation.console.out(json ? JSON.object(summary).serialized() + "\n" : describe(plan, live: live, target: name, bundle: output.manifest.bundleID))
            return RatecardCLI.ExitCode.ok
        }
        try ServeRootOptions.prepare(root)
        let outcome = try publisher.publish(requestWithBridge, onWait: invocation.console.err)
        if bridge.requirement != nil, case .published = outcome { BridgeGate.updateLines(root, invocation) }
        if json {
            switch outcome {
            case .alreadyLive(let id):
                summary.merge(["outcome": .string("already_live"), "release": .string(id)]) { $1 }
            case .published(let id, let previous, let plan, let bytes, let linked):
                summary.merge([
                    "outcome": .string("published"), "release": .string(id), "previous": previous.map(JSON.string) ?? .null,
                    "changes": plan.counts, "bytes_written": .int(bytes), "files_linked": .int(linked),
                ]) { $1 }
            }
            if let usage = root.usage { summary["storage"] = usage }
            invocation.console.out(JSON.object(summary).serialized() + "\n")
            return RatecardCLI.ExitCode.ok
        }
        switch outcome {
        case .alreadyLive(let id):
            invocation.console.out("Already live on \(name): release \(id) serves this commit; nothing changed.\n")
        case .published(let id, let previous, let plan, let bytes, let linked):
            let how = built.incremental.map { "; built onto the live bundle: \($0.count) changed product(s) re-rendered, the rest reused" } ?? ""
            invocation.console.out("Published release \(id) to \(name) (was \(previous ?? "none")): \(plan.summary); wrote \(bytes) bytes of new objects, \(linked) entry files\(how).\n")
        }
        return RatecardCLI.ExitCode.ok
    }

    /// A publish dated by the clock must not go back in time: a date before the live release's
    /// as-of date means the clock is wrong (or the publish is meant to turn back what is
    /// current, which is said with --as-of).
    static func checkClock(_ asOf: Day, explicit: Bool, live: String?, info: ReleaseInfo?, name: String) throws {
        guard !explicit, let live, let info, let liveDay = Day(info.asOf), asOf < liveDay else { return }
        throw OperationalError(
            "today in Asia/Seoul (\(asOf)) is before the as-of date of the release live on \(name) (\(live), as of \(liveDay)): is this machine's clock set back? Nothing was published. To publish as of an earlier date on purpose, say so with --as-of \(asOf)"
        )
    }

    enum Staleness {
        case current(String)
        case stale(commit: String)
    }

    /// Whether the live release has gone stale by `asOf` (`--if-stale`).
    static func staleness(live: String?, info: ReleaseInfo?, asOf: Day) throws -> Staleness {
        guard let live else { return .current("nothing is live yet (--if-stale only refreshes what is live)") }
        guard let info else { throw OperationalError("the live release \(live)'s version.json cannot be read; run 'ratecard verify'") }
        guard let from = info.staleFrom.flatMap(Day.init) else {
            return .current("release \(live) has nothing scheduled after \(info.asOf)")
        }
        guard from <= asOf else { return .current("release \(live) is current until \(from.adding(days: -1)) (something scheduled takes effect on \(from))") }
        guard let commit = info.sourceCommit else { throw OperationalError("release \(live) is stale since \(from) but names no commit to rebuild; publish with --rev") }
        return .stale(commit: commit)
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
