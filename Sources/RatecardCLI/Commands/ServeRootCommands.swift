import RatecardKit

/// Commands that read or tidy a serve root: status, releases, verify, prune, nginx-conf.
enum ServeRootCommands {
    static let status = Command(
        name: "status",
        abstract: "What is live: release, since when, from which commit, and whether it verifies.",
        usage: "[--env <name> | --root <dir>] [--format <format>]",
        options: ServeRootOptions.options + [ServeRootOptions.format],
        discussion: "Without --env or --root: every environment named in ratecard.yaml. Times are shown in Asia/Seoul.",
        run: runStatus)

    static let releases = Command(
        name: "releases",
        abstract: "The release history: id, commit, who, when, message, live and bad marks.",
        usage: "(--env <name> | --root <dir>) [--format <format>] [--clear-bad <id> -m <reason>] [--no-wait]",
        options: ServeRootOptions.options + [
            ServeRootOptions.format,
            OptionSpec("--clear-bad", value: "ID", "Clear a release's bad mark (journaled), so a bare rollback may choose it again"),
            OptionSpec("-m", value: "REASON", "Why the mark is cleared (required with --clear-bad)"),
            ServeRootOptions.noWait,
        ],
        run: runReleases)

    static let verify = Command(
        name: "verify",
        abstract: "Check the live release against its file list; exit 1 on any drift.",
        usage: "(--env <name> | --root <dir>) [--deep] [--format <format>]",
        options: ServeRootOptions.options + [
            OptionSpec("--deep", "In a bucket, download and re-hash every file (by default the listing's keys and sizes are compared; a folder is always re-hashed)"),
            ServeRootOptions.format,
        ],
        run: runVerify)

    static let prune = Command(
        name: "prune",
        abstract: "Delete old releases, keeping the newest N, the live one and the newest good one before it, then the objects no kept release names.",
        usage: "(--env <name> | --root <dir>) --keep <n> [--grace <minutes>] [--dry-run] [--no-wait] [--format <format>]",
        options: ServeRootOptions.options + [
            OptionSpec("--keep", value: "N", "How many of the newest releases to keep"),
            OptionSpec("--grace", value: "MINUTES", "Also keep every release that was live in the last MINUTES (pages opened on it keep their files; default 0)"),
            OptionSpec("--dry-run", "List the releases that would be removed, and remove nothing"),
            ServeRootOptions.noWait,
            ServeRootOptions.format,
        ],
        run: runPrune)

    static let nginxConf = Command(
        name: "nginx-conf",
        abstract: "Print an nginx server block that serves this root safely.",
        usage: "(--env <name> | --root <dir>) [--listen <addr:port>]",
        options: ServeRootOptions.options + [OptionSpec("--listen", value: "ADDR:PORT", "Where nginx listens (default 127.0.0.1:8080)")],
        run: runNginxConf)

    static func format(_ arguments: ParsedArguments) throws -> Bool {
        switch arguments.value("--format") ?? "text" {
        case "text": return false
        case "json": return true
        case let other: throw UsageError("Unknown format '\(other)'; use text or json")
        }
    }

    static func runStatus(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        let json = try format(arguments)
        var targets: [(root: () throws -> any ReleaseStore, name: String, selector: String)] = []
        if arguments.value("--env") == nil && arguments.value("--root") == nil {
            // Bare status: every environment ratecard.yaml names.
            let environments = try Environments.all(from: invocation.directory)
            guard !environments.isEmpty else { throw UsageError("ratecard.yaml names no environments; pass --root <dir>") }
            for environment in environments {
                targets.append(({ try environment.target() }, environment.name, "--env \(environment.name)"))
            }
        } else {
            let (root, _, name) = try ServeRootOptions.resolve(arguments, invocation)
            targets.append(({ root }, name, arguments.value("--env").map { "--env \($0)" } ?? "--root \(root.displayName)"))
        }
        var objects: [String: JSON] = [:]
        var texts: [String] = []
        var failed = false
        for (target, name, selector) in targets {
            do {
                let root = try target()
                var (object, text) = try status(of: root, name: name, selector: selector, asOf: Day.todayInSeoul(now: invocation.now), invocation)
                // The release each supported app version loads (bridge-lines.json).
                if let (apps, appsText) = BridgeGate.status(root: root, apps: ServeRootOptions.apps(of: name, invocation)), case .object(var fields) = object {
                    fields["apps"] = apps
                    object = .object(fields)
                    text += appsText
                }
                objects[name] = object
                texts.append(targets.count > 1 ? "== \(name) ==\n" + text : text)
            } catch {
                // One broken environment does not hide the others: each says what it can.
                guard targets.count > 1 else { throw error }
                failed = true
                invocation.console.err("Error: \(name): \(error)\n")
                objects[name] = .object(["environment": .string(name), "error": .string("\(error)")])
                texts.append("== \(name) ==\nerror:     \(error)\n")
            }
        }
        if json {
            let single = targets.count == 1 && (arguments.value("--env") != nil || arguments.value("--root") != nil)
            invocation.console.out((single ? objects.values.first! : JSON.object(["environments": .object(objects)])).serialized() + "\n")
        } else {
            invocation.console.out(texts.joined(separator: "\n"))
        }
        return failed ? RatecardCLI.ExitCode.failure : RatecardCLI.ExitCode.ok
    }

    /// One environment's status: what is live, since when (Asia/Seoul), who approved it, whether
    /// it verifies, and when scheduled content makes it stale.
    static func status(of root: any ReleaseStore, name: String, selector: String, asOf: Day, _ invocation: Invocation) throws -> (JSON, String) {
        guard let live = try root.live() else { return nothingPublished(name, invocation) }
        let info = try root.info(of: live)
        let journal = try root.journalLog.state()
        for warning in journal.warnings { invocation.console.err("warning: \(name): \(warning)\n") }
        let since = journal.activations(of: live).last
        let approval = journal.publications[live]?.approval?.reason
        // A constant number of reads: the live version.json against the seal journaled when every
        // file was verified (`ratecard verify` checks the files themselves).
        let drift = try (root.sealProblems(of: live) ?? ["no seal in the journal (published before seals); run 'ratecard verify'"]) + BridgeLines.servedStaleness(root: root)
        let staleFrom = info.staleFrom.flatMap(Day.init)
        let freshness: String
        switch staleFrom {
        case nil: freshness = "nothing scheduled after \(info.asOf)"
        case let day? where day <= asOf: freshness = "STALE since \(day) (something scheduled took effect); run 'ratecard publish \(selector) --if-stale'"
        case let day?: freshness = "until \(day.adding(days: -1)) (something scheduled takes effect on \(day); 'ratecard publish \(selector) --if-stale' that day)"
        }
        let object = JSON.object([
            "environment": .string(name), "live": .string(live), "since": since.map { .string($0.time) } ?? .null,
            "activated_by": since.map { .string($0.action.rawValue) } ?? .null,
            "activated_by_user": since?.user.map(JSON.string) ?? .null, "activation_message": since?.message.map(JSON.string) ?? .null,
            "activated_from": since?.from.map(JSON.string) ?? .null,
            "commit": info.sourceCommit.map { .string($0.hex) } ?? .null, "bundle_id": .string(info.bundleID),
            "as_of": .string(info.asOf), "published_at": .string(info.publishedAt), "author": .string(info.author),
            "message": .string(info.message), "approval": approval.map(JSON.string) ?? .null, "files": .int(info.files.count),
            "stale_from": staleFrom.map { .string($0.description) } ?? .null, "stale": .bool(staleFrom.map { $0 <= asOf } ?? false),
            "verified": .bool(drift.isEmpty), "drift": .array(drift.map(JSON.string)),
        ])
        var text = """
            live:      \(live)
            since:     \(since.map { Timestamp.seoul($0.time) } ?? "unknown") (\(since.map(Self.activation) ?? "not in the journal"))
            commit:    \(info.sourceCommit?.hex ?? "none")
            bundle:    \(info.bundleID) (as of \(info.asOf), \(info.files.count) files)
            current:   \(freshness)
            author:    \(info.author)
            message:   \(info.message)

            """
        if let approval { text += "approved:  \(approval)\n" }
        text += "verified:  \(drift.isEmpty ? "yes (version.json is as published; 'ratecard verify' checks every file)" : "NO: " + drift.prefix(5).joined(separator: "; "))\n"
        return (object, text)
    }

    /// How a release was made live, as `status` says it: `publish`, `rollback by kim: wrong band`.
    static func activation(_ activation: JournalState.Activation) -> String {
        guard activation.action != .publish else { return activation.action.rawValue }
        var text = activation.action.rawValue
        if let user = activation.user { text += " by \(user)" }
        if let from = activation.from { text += " from \(from)" }
        if let message = activation.message, !message.isEmpty { text += ": \(message)" }
        return text
    }

    /// What happened to a release after it was published, oldest first, as the journal's state
    /// keeps it: each time a promote, rollback or recovery made it live (who, why), and each
    /// rollback that left it (who, why, whether it marked it bad).
    static func history(of release: String, _ journal: JournalState) -> [(text: String, json: JSON)] {
        journal.activations.compactMap { activation -> (String, JSON)? in
            let when = Timestamp.seoul(activation.time)
            let by = activation.user.map { " by \($0)" } ?? ""
            let why = activation.message.flatMap { $0.isEmpty ? nil : ": \($0)" } ?? ""
            var json: [String: JSON] = [
                "time": .string(activation.time), "action": .string(activation.action.rawValue), "user": activation.user.map(JSON.string) ?? .null,
                "message": activation.message.map(JSON.string) ?? .null,
            ]
            if activation.release == release, activation.action != .publish {
                json["event"] = .string("made_live")
                let how: String
                switch activation.action {
                case .promote: how = "promoted"
                case .rollback: how = "made live by a rollback from \(activation.from ?? "?")"
                default: how = "made live by \(activation.action.rawValue)"
                }
                if let from = activation.from { json["from"] = .string(from) }
                return ("\(how) \(when)\(by)\(why)", .object(json))
            }
            if activation.action == .rollback, activation.from == release {
                let marked = activation.marksBad ?? true
                json.merge(["event": .string("rolled_back_from"), "to": .string(activation.release), "marks_bad": .bool(marked)]) { $1 }
                return ("rolled back to \(activation.release) \(when)\(by)\(marked ? " (marked bad)" : "")\(why)", .object(json))
            }
            return nil
        }
    }

    /// Before the first publish there is nothing to report, and nothing is wrong.
    static func nothingPublished(_ name: String, _ invocation: Invocation) -> (JSON, String) {
        let text = invocation.messages.localize("Nothing has been published to \(name) yet") + ".\n"
        return (JSON.object(["environment": .string(name), "live": .null, "published": .bool(false)]), text)
    }

    static func runReleases(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        let json = try format(arguments)
        let root = try ServeRootOptions.existing(arguments, invocation)
        if let name = arguments.value("--clear-bad") {
            guard let reason = arguments.value("-m"), !reason.isEmpty else { throw UsageError("'--clear-bad' needs '-m <reason>'") }
            let id = try RollbackCommand.resolve(name, in: root)
            try ReleaseHistory(root: root).clearBad(id, reason: reason, wait: !arguments.has("--no-wait"))
            invocation.console.out(json ? JSON.object(["cleared": .string(id)]).serialized() + "\n" : "Cleared the bad mark of \(id).\n")
            return RatecardCLI.ExitCode.ok
        }
        let live = try root.pointer()
        // Only shown: a damaged line is reported and the rest listed (a rollback or prune refuses it).
        let journal = try root.journalLog.state()
        for warning in journal.warnings { invocation.console.err("warning: \(warning)\n") }
        let bad = journal.badReleases(live: live)
        var rows: [JSON] = []
        var text = ""
        for id in try root.releaseIDs().reversed() {
            let info = try? root.info(of: id)
            let activated = journal.activations(of: id).map(\.time)
            let approval = journal.publications[id]?.approval?.reason
            var marks: [String] = []
            if id == live { marks.append("live") }
            if bad.contains(id) { marks.append("bad") }
            rows.append(
                .object([
                    "id": .string(id), "commit": info?.sourceCommit.map { .string($0.hex) } ?? .null,
                    "bundle_id": info.map { .string($0.bundleID) } ?? .null, "author": .string(info?.author ?? ""),
                    "user": .string(info?.user ?? ""), "published_at": .string(info?.publishedAt ?? ""),
                    "message": .string(info?.message ?? ""), "activated": .array(activated.map(JSON.string)),
                    "live": .bool(id == live), "bad": .bool(bad.contains(id)), "approval": approval.map(JSON.string) ?? .null,
                ]))
            let commit = String((info?.sourceCommit?.hex ?? "none").prefix(7))
            let approved = approval.map { "  (approved: \($0))" } ?? ""
            text +=
                "\(id)  \(commit)  \(Timestamp.seoul(info?.publishedAt ?? ""))  \(info?.author ?? "")  \(info?.message ?? "")\(approved)\(marks.isEmpty ? "" : "  [" + marks.joined(separator: ", ") + "]")\n"
            let history = Self.history(of: id, journal)
            for event in history { text += "    " + event.text + "\n" }
            if case .object(var fields) = rows[rows.count - 1] {
                fields["history"] = .array(history.map(\.json))
                rows[rows.count - 1] = .object(fields)
            }
        }
        invocation.console.out(json ? JSON.object(["releases": .array(rows)]).serialized() + "\n" : (text.isEmpty ? "No releases yet.\n" : text))
        return RatecardCLI.ExitCode.ok
    }

    static func runVerify(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        let json = try format(arguments)
        let root = try ServeRootOptions.existing(arguments, invocation)
        guard let live = try root.live() else { throw ConflictError("nothing is live in \(root.displayName)") }
        let drift = try root.drift(of: live, deep: arguments.has("--deep")) + BridgeLines.servedStaleness(root: root)
        let files = try root.info(of: live).files.count
        if json {
            invocation.console.out(
                JSON.object([
                    "release": .string(live), "ok": .bool(drift.isEmpty),
                    "files": .int(files),
                    "problems": .array(drift.map(JSON.string)),
                ]).serialized() + "\n")
            return drift.isEmpty ? RatecardCLI.ExitCode.ok : RatecardCLI.ExitCode.invalid
        }
        if drift.isEmpty {
            invocation.console.out("ok: release \(live) matches its \(files) listed files\n")
            return RatecardCLI.ExitCode.ok
        }
        invocation.console.out(drift.map { "\(live): \($0)\n" }.joined() + "drift: \(drift.count) problem\(drift.count == 1 ? "" : "s") in release \(live)\n")
        return RatecardCLI.ExitCode.invalid
    }

    static func runPrune(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        guard let text = arguments.value("--keep"), let keep = Int(text), keep >= 0 else { throw UsageError("'--keep' needs a whole number of releases") }
        let json = try format(arguments)
        let dryRun = arguments.has("--dry-run")
        let root = try ServeRootOptions.existing(arguments, invocation)
        var grace = 0
        if let text = arguments.value("--grace") {
            guard let minutes = Int(text), minutes >= 0 else { throw UsageError("'--grace' needs a whole number of minutes") }
            grace = minutes
        }
        let pruned = try ReleaseHistory(root: root).prune(keep: keep, graceMinutes: grace, wait: !arguments.has("--no-wait"), dryRun: dryRun)
        let removed = pruned.releases
        if json {
            invocation.console.out(
                JSON.object([
                    "dry_run": .bool(dryRun), "keep": .int(keep), "grace_minutes": .int(grace), (dryRun ? "would_remove" : "removed"): .array(removed.map(JSON.string)),
                    "kept": .array(try root.releaseIDs().filter { !removed.contains($0) }.map(JSON.string)),
                    "objects": .int(pruned.objects), "bytes": .int(pruned.bytes),
                ]).serialized() + "\n")
            return RatecardCLI.ExitCode.ok
        }
        let plural = removed.count == 1 ? "" : "s"
        let objects = "\(pruned.objects) object\(pruned.objects == 1 ? "" : "s") no kept release names (\(pruned.bytes) bytes)"
        if removed.isEmpty && pruned.objects == 0 {
            invocation.console.out("Nothing to prune.\n")
        } else if dryRun {
            let releases = removed.isEmpty ? "" : "Would remove \(removed.count) release\(plural): \(removed.joined(separator: ", ")). "
            invocation.console.out(releases + (pruned.objects == 0 ? "" : "Would delete \(objects). ") + "Nothing was changed.\n")
        } else {
            let releases = removed.isEmpty ? "" : "Removed \(removed.count) release\(plural): \(removed.joined(separator: ", "))\n"
            invocation.console.out(releases + (pruned.objects == 0 ? "" : "Deleted \(objects)\n"))
        }
        return RatecardCLI.ExitCode.ok
    }

    static func runNginxConf(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        let (root, _) = try ServeRootOptions.folder(arguments, invocation)
        try FileSystem.makeDirectories(root.path)
        invocation.console.out(NginxConfig.serverBlock(root: try FileSystem.realPath(root.path), listen: arguments.value("--listen") ?? "127.0.0.1:8080"))
        return RatecardCLI.ExitCode.ok
    }
}
