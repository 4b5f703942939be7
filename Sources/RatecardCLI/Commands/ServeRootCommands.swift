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
        usage: "(--env <name> | --root <dir>) [--limit <n>] [--format <format>] [--clear-bad <id> -m <reason>] [--no-wait]",
        options: ServeRootOptions.options + [
            OptionSpec("--limit", value: "N", "Show the newest N releases (default 50; 0: all)"),
            ServeRootOptions.format,
            OptionSpec("--clear-bad", value: "ID", "Clear a release's bad mark (journaled), so a bare rollback may choose it again"),
            OptionSpec("-m", value: "REASON", "Why the mark is cleared (required with --clear-bad)"),
            ServeRootOptions.noWait,
            SigningKeys.option,
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
            SigningKeys.option,
        ],
        run: runPrune)

    static let repair = Command(
        name: "repair",
        abstract: "Rewrite what follows the pointer (bridge-lines.json, a bucket's index.html) and restore missing entry files of releases.",
        usage: "(--env <name> | --root <dir>) [--no-wait] [--format <format>]",
        options: ServeRootOptions.options + [ServeRootOptions.noWait, ServeRootOptions.format, SigningKeys.option],
        run: runRepair)

    static func runRepair(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        let json = try format(arguments)
        let root = try ServeRootOptions.existing(arguments, invocation)
        let outcome = try RepairFlow(store: root, wait: !arguments.has("--no-wait")).run()
        let (repaired, stale) = (outcome.repaired, outcome.stale)
        if json {
            invocation.console.out(
                JSON.object([
                    "live": repaired.live.map(JSON.string) ?? .null, "restored": .object(repaired.restored.mapValues { .array($0.map(JSON.string)) }),
                    "unrestorable": .object(repaired.lost.mapValues { .array($0.map(JSON.string)) }), "stale": .array(stale.map { JSON.string($0.english) }),
                ]).serialized() + "\n")
        } else {
            var text = Message.verbatim("")
            for (id, paths) in repaired.restored.sorted(by: { $0.key < $1.key }) {
                text += Message("Restored \(paths.count) entry files of \(id)\n", ko: "\(id)의 엔트리 파일 \(paths.count)개를 되살렸습니다\n")
            }
            let live = repaired.live ?? "none"
            text += Message("What is served follows the pointer (live: \(live)).\n", ko: "서빙되는 상태 파일이 포인터를 따릅니다 (라이브: \(live)).\n")
            invocation.out(text)
        }
        for (id, paths) in repaired.lost.sorted(by: { $0.key < $1.key }) {
            let names = paths.prefix(5).joined(separator: ", ") + (paths.count > 5 ? ", ..." : "")
            invocation.error(
                Message(
                    "release \(id): \(paths.count) entry files could not be restored, their objects are missing or changed too (\(names)); the rest was repaired. "
                        + "If it is live, make another release live ('ratecard rollback --to <id>'), then publish again",
                    ko: "릴리스 \(id): 엔트리 파일 \(paths.count)개는 오브젝트도 없거나 바뀌어 되살리지 못했고 (\(names)) 나머지는 고쳤습니다. 라이브이면 다른 릴리스를 라이브로 만든 다음('ratecard rollback --to <id>') 다시 게시하세요"))
        }
        // Files that cannot be restored leave a release that does not match its version.json (1).
        if !repaired.lost.isEmpty { return RatecardCLI.ExitCode.invalid }
        return stale.isEmpty ? RatecardCLI.ExitCode.ok : RatecardCLI.ExitCode.failure
    }

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
        case let other: throw UsageError("Unknown format '\(other)'; use text or json", ko: "알 수 없는 형식 '\(other)'; text나 json을 쓰세요")
        }
    }

    static func runStatus(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        let json = try format(arguments)
        var targets: [(destination: () throws -> Destination, name: String, selector: String)] = []
        if arguments.value("--env") == nil && arguments.value("--root") == nil {
            // Bare status: every environment ratecard.yaml names.
            let environments = try invocation.requiredSettings().environments
            guard !environments.isEmpty else {
                throw UsageError("ratecard.yaml names no environments; pass --root <dir>", ko: "ratecard.yaml에 환경이 하나도 없습니다; --root <dir>을 주세요")
            }
            for environment in environments {
                targets.append(({ Destination(environment, store: try environment.store()) }, environment.name, "--env \(environment.name)"))
            }
        } else {
            let destination = try ServeRootOptions.resolve(arguments, invocation)
            let root = destination.store
            targets.append(({ destination }, destination.name, arguments.value("--env").map { "--env \($0)" } ?? "--root \(root.displayName)"))
        }
        var objects: [String: JSON] = [:]
        var texts: [String] = []
        var failed = false
        for (target, name, selector) in targets {
            do {
                let destination = try target()
                var (object, text) = try status(of: destination, selector: selector, asOf: Day.todayInSeoul(now: invocation.now), invocation)
                // The release each supported app version loads (bridge-lines.json).
                let apps = StatusFlow(destination: destination, selector: selector).apps()
                if !apps.isEmpty, case .object(var fields) = object {
                    var byApp: [String: JSON] = [:]
                    var appsText = Message("apps:\n", ko: "앱:\n")
                    for (app, release) in apps {
                        byApp[app.name] = .object(["bridge": .int(app.bridge), "release": release.map(JSON.string) ?? .null])
                        let gets = release.map { Message("release \($0)", ko: "릴리스 \($0)") } ?? Message("no release it can run", ko: "실행할 수 있는 릴리스 없음")
                        appsText += Message("  \(app.name) (bridge \(app.bridge)): \(gets)\n", ko: "  \(app.name) (브리지 \(app.bridge)): \(gets)\n")
                    }
                    fields["apps"] = .object(byApp)
                    object = .object(fields)
                    text += invocation.messages(appsText)
                }
                objects[name] = object
                texts.append(targets.count > 1 ? "== \(name) ==\n" + text : text)
            } catch {
                // One broken environment does not hide the others: each says what it can.
                guard targets.count > 1 else { throw error }
                failed = true
                let why = Message.of(error)
                invocation.error(.verbatim("\(name): ") + why)
                objects[name] = .object(["environment": .string(name), "error": .string("\(error)")])
                texts.append("== \(name) ==\n" + invocation.messages(Message("error:     \(why)\n", ko: "오류:      \(why)\n")))
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

    /// One environment's status (`StatusFlow`) as JSON and as text: what is live, since when
    /// (Asia/Seoul), who approved it, whether it verifies, and when scheduled content makes it stale.
    static func status(of destination: Destination, selector: String, asOf: Day, _ invocation: Invocation) throws -> (JSON, String) {
        let name = destination.name
        guard let status = try StatusFlow(destination: destination, selector: selector).run(asOf: asOf, now: Int(invocation.now)) else {
            return nothingPublished(name, invocation)
        }
        for warning in status.warnings { invocation.warning(warning) }
        let (live, info, since, approval, drift) = (status.live, status.info, status.since, status.approval, status.drift)
        let staleFrom = status.freshness.staleFrom
        let freshness = Self.freshness(status.freshness, info: info, selector: selector)
        let statement = StatementSummary(status.statement, environment: status.statementEnvironment)
        let reviewDays = ReviewsEnding.days(invocation)
        let reviews = ReviewsEnding.row(info, asOf: asOf, days: reviewDays)
        // The release being rolled out: when it goes stale (a scheduled refresh halts the
        // rollout that day) and the reviews it shows that end soon.
        var rolloutJSON = RolloutCommand.json(status.journal, live: live)
        var rolloutRows: [(Message, Message)] = []
        if let (rolled, rolledFreshness) = status.rollout, case .object(var fields) = rolloutJSON {
            let rolledReviews = ReviewsEnding.row(rolled, asOf: asOf, days: reviewDays)
            fields["stale_from"] = rolledFreshness.staleFrom.map { .string($0.description) } ?? .null
            fields["stale"] = .bool(rolledFreshness.isStale)
            fields["reviews_ending"] = rolledReviews.0
            rolloutJSON = .object(fields)
            let halts = Message(
                " (a scheduled refresh halts the rollout that day)", ko: " (그날 예약된 변경을 반영하면서 단계적 배포를 중단합니다)")
            rolloutRows.append(
                (
                    Message("rollout current", ko: "배포 최신 여부"),
                    .verbatim("\(rolled.id): ") + Self.freshness(rolledFreshness, info: rolled, selector: selector)
                        + (rolledFreshness.staleFrom == nil ? .verbatim("") : halts)
                ))
            if case .array(let ending) = rolledReviews.0, !ending.isEmpty {
                rolloutRows.append((Message("rollout reviews", ko: "배포 심의"), .verbatim("\(rolled.id): ") + rolledReviews.1))
            }
        }
        let object = JSON.object([
            "environment": .string(name), "live": .string(live), "since": since.map { .string($0.time) } ?? .null,
            "activated_by": since.map { .string($0.action.rawValue) } ?? .null,
            "activated_by_user": since?.user.map(JSON.string) ?? .null, "activation_message": since?.message.map(JSON.string) ?? .null,
            "activated_from": since?.from.map(JSON.string) ?? .null,
            "commit": info.sourceCommit.map { .string($0.hex) } ?? .null, "bundle_id": .string(info.bundleID),
            "as_of": .string(info.asOf), "published_at": .string(info.publishedAt), "author": .string(info.author),
            "message": .string(info.message), "approval": approval.map(JSON.string) ?? .null, "files": .int(info.files.count),
            "stale_from": staleFrom.map { .string($0.description) } ?? .null, "stale": .bool(status.freshness.isStale),
            // What was checked: the seal of version.json (`verify` checks the files).
            "checked": .string("version.json seal"), "seal_ok": .bool(drift.isEmpty), "drift": .array(drift.map { JSON.string($0.english) }),
            "reviews_ending": reviews.0,
            "statement": statement.json,
            "rollout": rolloutJSON,
        ])
        let when = since.map { Timestamp.seoul($0.time) }
        let how = since.map(Self.activation) ?? Message("not in the journal", ko: "저널에 없음")
        var rows: [(Message, Message)] = [
            (Message("live", ko: "라이브"), .verbatim(live)),
            (Message("since", ko: "시작"), (when.map { .verbatim($0) } ?? Message("unknown", ko: "알 수 없음")) + .verbatim(" (") + how + .verbatim(")")),
            (Message("commit", ko: "커밋"), info.sourceCommit.map { .verbatim($0.hex) } ?? Message("none", ko: "없음")),
            (
                Message("bundle", ko: "번들"),
                Message(
                    "\(info.bundleID) (as of \(info.asOf), \(info.files.count) files)", ko: "\(info.bundleID) (기준일 \(info.asOf), 파일 \(info.files.count)개)")
            ),
            (Message("current", ko: "최신 여부"), freshness),
            (Message("reviews", ko: "심의"), reviews.1),
            (Message("author", ko: "작성자"), .verbatim(info.author)),
            (Message("message", ko: "메시지"), .verbatim(info.message)),
        ]
        if let approval { rows.append((Message("approved", ko: "승인"), .verbatim(approval))) }
        if let rollout = RolloutCommand.statusRow(status.journal, live: live) { rows.append(rollout) }
        rows += rolloutRows
        rows.append((Message("signing", ko: "서명"), statement.text))
        if let warning = statement.warning { invocation.warning(.verbatim("\(name): ") + warning) }
        let problems = drift.prefix(5).joined(separator: "; ")
        // Named for what it checks: the seal of version.json, not the files (`verify` re-hashes those).
        rows.append(
            (
                Message("manifest", ko: "파일 목록"),
                drift.isEmpty
                    ? Message(
                        "version.json is as published (its seal); the files themselves were not checked here: 'ratecard verify' checks every file",
                        ko: "version.json이 게시한 그대로입니다 (봉인 확인). 파일 자체는 여기서 확인하지 않았습니다. 모든 파일은 'ratecard verify'로 확인하세요")
                    : Message("NO: \(problems)", ko: "아니요: \(problems)")
            ))
        // Labels padded to one column, counting a Hangul syllable as two cells.
        let labels = rows.map { invocation.messages($0.0) + ":" }
        let width = labels.map(Self.cells).max() ?? 0
        var text = ""
        for (label, row) in zip(labels, rows) {
            text += label + String(repeating: " ", count: width - Self.cells(label) + 2) + invocation.messages(row.1) + "\n"
        }
        return (object, text)
    }

    /// A release's freshness as `status` words it, with the command that refreshes it.
    static func freshness(_ freshness: Freshness, info: ReleaseInfo, selector: String) -> Message {
        switch freshness {
        case .nothingScheduled: return Message("nothing scheduled after \(info.asOf)", ko: "\(info.asOf) 이후에 시행 예정인 것 없음")
        case .stale(let day):
            return Message(
                "STALE since \(day) (something scheduled took effect); run 'ratecard publish \(selector) --if-stale'",
                ko: "\(day)부터 오래됨 (시행 예정이던 것이 시행되었습니다); 'ratecard publish \(selector) --if-stale'을 실행하세요")
        case .current(let day):
            return Message(
                "until \(day.adding(days: -1)) (something scheduled takes effect on \(day); 'ratecard publish \(selector) --if-stale' that day)",
                ko: "\(day.adding(days: -1))까지 (\(day)에 시행 예정인 것이 있습니다; 그날 'ratecard publish \(selector) --if-stale'을 실행하세요)")
        }
    }

    /// How many terminal cells `text` takes: a wide character (Hangul) two, the rest one.
    static func cells(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { $0 + (ReportStyle.isWide($1) ? 2 : 1) }
    }

    /// An action of the journal in words: `publish`, `rollback`, `roll forward` (a rollback to a
    /// newer release), `promote`, `recover`.
    static func actionName(_ action: Journal.Action, forward: Bool) -> Message {
        switch action {
        case .publish: return Message("publish", ko: "게시")
        case .promote: return Message("promote", ko: "승격")
        case .rollback where forward: return Message("roll forward", ko: "앞으로 되돌림")
        case .rollback: return Message("rollback", ko: "롤백")
        case .recover: return Message("recover", ko: "복구")
        case .rolloutComplete: return Message("rollout completed", ko: "단계적 배포 완료")
        default: return .verbatim(action.rawValue)
        }
    }

    /// How a release was made live, as `status` says it: `publish`, `rollback by kim from
    /// 000002: wrong band`, `roll forward by kim from 000001: it was fine`.
    static func activation(_ activation: JournalState.Activation) -> Message {
        let action = actionName(activation.action, forward: activation.rollsForward)
        guard activation.action != .publish else { return action }
        var text = action
        if let user = activation.user { text += Message(" by \(user)", ko: ", 실행한 사람: \(user)") }
        if let from = activation.from { text = Message("\(text) from \(from)", ko: "\(from)에서 \(text)") }
        if let message = activation.message, !message.isEmpty { text += .verbatim(": \(message)") }
        return text
    }

    /// What happened to a release after it was published, oldest first, as the journal's state
    /// keeps it: each time a promote, rollback (or roll forward) or recovery made it live (who,
    /// why), each rollback that left it (who, why, whether it marked it bad), and each time its
    /// bad mark was cleared (who, why).
    static func history(of release: String, _ journal: JournalState) -> [(text: Message, json: JSON)] {
        // Ordered as journaled: activation number n at 2n+1, a mark cleared after n activations at 2n.
        let first = journal.activationsRecorded - journal.activations.count
        var events: [(order: Int, text: Message, json: JSON)] = zip(first..., journal.activations).compactMap {
            number, activation -> (order: Int, text: Message, json: JSON)? in
            let when = Timestamp.seoul(activation.time)
            let by = activation.user.map { Message(" by \($0)", ko: ", 실행한 사람: \($0)") } ?? .verbatim("")
            let why = Message.verbatim(activation.message.flatMap { $0.isEmpty ? nil : ": \($0)" } ?? "")
            let forward = activation.rollsForward
            var json: [String: JSON] = [
                "time": .string(activation.time), "action": .string(activation.action.rawValue), "user": activation.user.map(JSON.string) ?? .null,
                "message": activation.message.map(JSON.string) ?? .null,
            ]
            if activation.action == .rollback { json["direction"] = .string(forward ? "forward" : "back") }
            if activation.release == release, activation.action != .publish {
                json["event"] = .string("made_live")
                let how: Message
                switch activation.action {
                case .promote: how = Message("promoted", ko: "승격됨")
                case .rollback:
                    let from = activation.from ?? "?"
                    how =
                        forward
                        ? Message("made live by a roll forward from \(from)", ko: "\(from)에서 앞으로 되돌려 라이브가 됨")
                        : Message("made live by a rollback from \(from)", ko: "\(from)에서 롤백해 라이브가 됨")
                default:
                    let action = actionName(activation.action, forward: false)
                    how = Message("made live by \(action)", ko: "\(action)(으)로 라이브가 됨")
                }
                if let from = activation.from { json["from"] = .string(from) }
                return (2 * number + 1, how + .verbatim(" \(when)") + by + why, .object(json))
            }
            if activation.action == .rollback, activation.from == release {
                let marked = activation.marksBad ?? true
                json.merge(["event": .string(forward ? "rolled_forward_from" : "rolled_back_from"), "to": .string(activation.release), "marks_bad": .bool(marked)]) { $1 }
                let to = activation.release
                let mark = marked ? Message(" (marked bad)", ko: ", 불량 표시") : .verbatim("")
                let how = forward ? Message("rolled forward to \(to)", ko: "\(to)(으)로 앞으로 되돌림") : Message("rolled back to \(to)", ko: "\(to)(으)로 롤백됨")
                return (2 * number + 1, how + .verbatim(" \(when)") + by + mark + why, .object(json))
            }
            return nil
        }
        for clearance in journal.clearances(of: release) {
            let by = clearance.user.map { Message(" by \($0)", ko: ", 실행한 사람: \($0)") } ?? .verbatim("")
            let why = Message.verbatim(clearance.message.flatMap { $0.isEmpty ? nil : ": \($0)" } ?? "")
            let json = JSON.object([
                "event": .string("bad_mark_cleared"), "action": .string(Journal.Action.clearBad.rawValue), "time": .string(clearance.time),
                "user": clearance.user.map(JSON.string) ?? .null, "message": clearance.message.map(JSON.string) ?? .null,
            ])
            let at = events.firstIndex { $0.order > 2 * clearance.after } ?? events.endIndex
            events.insert((2 * clearance.after, Message("bad mark cleared", ko: "불량 표시 지움") + .verbatim(" \(Timestamp.seoul(clearance.time))") + by + why, json), at: at)
        }
        return events.map { ($0.text, $0.json) }
    }

    /// Before the first publish there is nothing to report, and nothing is wrong.
    static func nothingPublished(_ name: String, _ invocation: Invocation) -> (JSON, String) {
        let text = invocation.messages(Message("Nothing has been published to \(name) yet.\n", ko: "\(name)에는 아직 게시된 것이 없습니다.\n"))
        return (JSON.object(["environment": .string(name), "live": .null, "published": .bool(false)]), text)
    }

    static func runReleases(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        let json = try format(arguments)
        let root = try ServeRootOptions.existing(arguments, invocation)
        if let name = arguments.value("--clear-bad") {
            guard let reason = arguments.value("-m"), !reason.isEmpty else {
                throw UsageError("'--clear-bad' needs '-m <reason>': say why, for the journal", ko: "'--clear-bad'에는 '-m <reason>'이 필요합니다: 저널에 남길 사유를 쓰세요")
            }
            let id = try RollbackCommand.resolve(name, in: root)
            try ClearBadFlow(store: root, release: id, reason: reason, wait: !arguments.has("--no-wait")).run()
            if json {
                invocation.console.out(JSON.object(["cleared": .string(id)]).serialized() + "\n")
            } else {
                invocation.out(Message("Cleared the bad mark of \(id).\n", ko: "\(id)의 불량 표시를 지웠습니다.\n"))
            }
            return RatecardCLI.ExitCode.ok
        }
        let limitText = arguments.value("--limit") ?? "50"
        guard let limit = Int(limitText), limit >= 0 else {
            throw UsageError(
                "'--limit' is how many of the newest releases to show, a whole number (0: all), not '\(limitText)'",
                ko: "'--limit'은 보여 줄 최신 릴리스의 수로, 정수여야 합니다 (0: 모두; 지금 값: '\(limitText)')")
        }
        // Only shown: a damaged line is reported and the rest listed (a rollback or prune refuses it).
        let listed = try ReleasesFlow(store: root, limit: limit).run { event in
            if case .warning(let warning) = event { invocation.warning(warning) }
        }
        let (live, journal, shown, total) = (listed.live, listed.journal, listed.shown, listed.total)
        let bad = journal.badReleases(live: live)
        var rows: [JSON] = []
        var text = ""
        for (id, info) in shown {
            let activated = journal.activations(of: id).map(\.time)
            let approval = journal.publications[id]?.approval?.reason
            var marks: [Message] = []
            if id == live { marks.append(Message("live", ko: "라이브")) }
            if bad.contains(id) { marks.append(Message("bad", ko: "불량 표시")) }
            if let rollout = RolloutCommand.inProgress(journal, live: live), rollout.release == id {
                marks.append(Message("rolling out to \(Rollouts.share(rollout.share))", ko: "설치의 \(Rollouts.share(rollout.share))에 단계적 배포 중"))
            }
            rows.append(
                .object([
                    "id": .string(id), "commit": info?.sourceCommit.map { .string($0.hex) } ?? .null,
                    "bundle_id": info.map { .string($0.bundleID) } ?? .null, "author": .string(info?.author ?? ""),
                    "user": .string(info?.user ?? ""), "published_at": .string(info?.publishedAt ?? ""),
                    "message": .string(info?.message ?? ""), "activated": .array(activated.map(JSON.string)),
                    "live": .bool(id == live), "bad": .bool(bad.contains(id)), "approval": approval.map(JSON.string) ?? .null,
                ]))
            let commit = String((info?.sourceCommit?.hex ?? "none").prefix(7))
            let approved = approval.map { invocation.messages(Message("  (approved: \($0))", ko: "  (승인: \($0))")) } ?? ""
            let marked = marks.isEmpty ? "" : "  [" + invocation.messages(marks.joined(separator: ", ")) + "]"
            text += "\(id)  \(commit)  \(Timestamp.seoul(info?.publishedAt ?? ""))  \(info?.author ?? "")  \(info?.message ?? "")\(approved)\(marked)\n"
            let history = Self.history(of: id, journal)
            for event in history { text += "    " + invocation.messages(event.text) + "\n" }
            let rollouts = journal.rolloutHistory(of: id).map(RolloutCommand.event)
            for event in rollouts { text += "    " + invocation.messages(event.text) + "\n" }
            if case .object(var fields) = rows[rows.count - 1] {
                fields["history"] = .array(history.map(\.json))
                fields["rollouts"] = .array(rollouts.map(\.json))
                rows[rows.count - 1] = .object(fields)
            }
        }
        if json {
            invocation.console.out(JSON.object(["releases": .array(rows), "total": .int(total)]).serialized() + "\n")
        } else {
            let more = total - shown.count
            if more > 0 { text += invocation.messages(Message("... \(more) older (--limit \(total) shows all)\n", ko: "... 이전 릴리스 \(more)개 더 있음 (--limit \(total)로 모두 볼 수 있습니다)\n")) }
            invocation.console.out(text.isEmpty ? invocation.messages(Message("No releases yet.\n", ko: "아직 릴리스가 없습니다.\n")) : text)
        }
        return RatecardCLI.ExitCode.ok
    }

    static func runVerify(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        let json = try format(arguments)
        let root = try ServeRootOptions.existing(arguments, invocation)
        let verified = try VerifyFlow(store: root, deep: arguments.has("--deep")).run(now: Int(invocation.now))
        let (live, drift, files) = (verified.live, verified.drift, verified.files)
        let statement = StatementSummary(verified.statement, environment: verified.environment)
        if json {
            invocation.console.out(
                JSON.object([
                    "release": .string(live), "ok": .bool(drift.isEmpty),
                    "files": .int(files),
                    "problems": .array(drift.map { JSON.string($0.english) }),
                    "statement": statement.json,
                ]).serialized() + "\n")
            return drift.isEmpty ? RatecardCLI.ExitCode.ok : RatecardCLI.ExitCode.invalid
        }
        invocation.out(.verbatim("live.json: ") + statement.text + .verbatim("\n"))
        if let warning = statement.warning { invocation.warning(warning) }
        if drift.isEmpty {
            invocation.out(Message("ok: release \(live) matches its \(files) listed files\n", ko: "정상: 릴리스 \(live)이(가) 목록의 파일 \(files)개와 모두 맞습니다\n"))
            return RatecardCLI.ExitCode.ok
        }
        let count = drift.count
        invocation.out(
            drift.map { Message.verbatim("\(live): ") + $0 + .verbatim("\n") }.joined(separator: "")
                + Message("drift: \(count) problem\(count == 1 ? "" : "s") in release \(live)\n", ko: "불일치: 릴리스 \(live)에서 문제 \(count)개\n"))
        return RatecardCLI.ExitCode.invalid
    }

    static func runPrune(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        guard let text = arguments.value("--keep") else {
            throw UsageError(
                "Missing expected option '--keep <n>': how many of the newest releases to keep (the live one and the newest good one before it are always kept)",
                ko: "'--keep <n>' 옵션이 필요합니다: 남겨 둘 최신 릴리스의 수입니다 (라이브 릴리스와 그 전의 가장 최근 정상 릴리스는 언제나 남깁니다)")
        }
        guard let keep = Int(text), keep >= 0 else {
            throw UsageError(
                "'--keep' is how many of the newest releases to keep, a whole number (0 or more), not '\(text)'",
                ko: "'--keep'은 남겨 둘 최신 릴리스의 수로, 0 이상의 정수여야 합니다 (지금 값: '\(text)')")
        }
        let json = try format(arguments)
        let dryRun = arguments.has("--dry-run")
        let root = try ServeRootOptions.existing(arguments, invocation)
        var grace = 0
        if let text = arguments.value("--grace") {
            guard let minutes = Int(text), minutes >= 0 else {
                throw UsageError("'--grace' needs a whole number of minutes, not '\(text)'", ko: "'--grace'에는 분 단위 정수를 써야 합니다 (지금 값: '\(text)')")
            }
            grace = minutes
        }
        let outcome = try PruneFlow(store: root, keep: keep, graceMinutes: grace, wait: !arguments.has("--no-wait"), dryRun: dryRun).run()
        let (pruned, removed) = (outcome.pruned, outcome.pruned.releases)
        if json {
            invocation.console.out(
                JSON.object([
                    "dry_run": .bool(dryRun), "keep": .int(keep), "grace_minutes": .int(grace), (dryRun ? "would_remove" : "removed"): .array(removed.map(JSON.string)),
                    "kept": .array(outcome.kept.map(JSON.string)),
                    "objects": .int(pruned.objects), "bytes": .int(pruned.bytes),
                ]).serialized() + "\n")
            return RatecardCLI.ExitCode.ok
        }
        let plural = removed.count == 1 ? "" : "s"
        let list = removed.joined(separator: ", ")
        let (count, objectCount, bytes) = (removed.count, pruned.objects, pruned.bytes)
        let objects = Message(
            "\(objectCount) object\(objectCount == 1 ? "" : "s") no kept release names (\(bytes) bytes)", ko: "남긴 어느 릴리스도 쓰지 않는 오브젝트 \(objectCount)개 (\(bytes)바이트)")
        if removed.isEmpty && pruned.objects == 0 {
            invocation.out(Message("Nothing to prune.\n", ko: "정리할 것이 없습니다.\n"))
        } else if dryRun {
            var text = Message.verbatim("")
            if !removed.isEmpty { text += Message("Would remove \(count) release\(plural): \(list). ", ko: "릴리스 \(count)개를 지우게 됩니다: \(list). ") }
            if pruned.objects > 0 { text += Message("Would delete \(objects). ", ko: "\(objects)을(를) 지우게 됩니다. ") }
            invocation.out(text + Message("Nothing was changed.\n", ko: "아무것도 바꾸지 않았습니다.\n"))
        } else {
            var text = Message.verbatim("")
            if !removed.isEmpty { text += Message("Removed \(count) release\(plural): \(list)\n", ko: "릴리스 \(count)개를 지웠습니다: \(list)\n") }
            if pruned.objects > 0 { text += Message("Deleted \(objects)\n", ko: "\(objects)을(를) 지웠습니다\n") }
            invocation.out(text)
        }
        return RatecardCLI.ExitCode.ok
    }

    static func runNginxConf(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        let (path, _) = try ServeRootOptions.folder(arguments, invocation)
        try FileSystem.makeDirectories(path)
        invocation.console.out(NginxConfig.serverBlock(root: try FileSystem.realPath(path), listen: arguments.value("--listen") ?? "127.0.0.1:8080"))
        return RatecardCLI.ExitCode.ok
    }
}

/// What `status` and `verify` say of live.json: its sequence, signers and expiry, and a warning
/// when a signed statement expires within `LiveStatements.warnDays` days (apps refuse it after).
struct StatementSummary {
    var json: JSON
    var text: Message
    var warning: Message?

    /// `summary` of the statement of environment `selector` (nil: there is none).
    init(_ summary: LiveStatements.Summary?, environment selector: String) {
        guard let summary else {
            json = .null
            text = Message("none (written by the next publish, rollback, promote, prune or sign)", ko: "없음 (다음 publish, rollback, promote, prune, sign이 씁니다)")
            return
        }
        json = .object([
            "sequence": .int(summary.sequence), "signers": .array(summary.signers.map(JSON.string)), "signed_at": .string(summary.signedAt),
            "expires_at": summary.expiresAt.map(JSON.string) ?? .null,
        ])
        let sequence = summary.sequence
        guard let expires = summary.expiresAt, let left = summary.expiresIn else {
            text = Message("sequence \(sequence), unsigned (no signing: in ratecard.yaml)", ko: "순번 \(sequence), 서명 없음 (ratecard.yaml에 signing: 없음)")
            return
        }
        let signers = summary.signers.isEmpty ? "nobody" : summary.signers.joined(separator: ", ")
        text = Message(
            "sequence \(sequence), signed by \(signers), expires \(expires)", ko: "순번 \(sequence), 서명 \(summary.signers.isEmpty ? "없음" : signers), 만료 \(expires)")
        if left <= 0 {
            warning = Message(
                "live.json expired at \(expires): apps with the loader refuse it and keep their last good release; run 'ratecard sign --env \(selector)'",
                ko: "live.json이 \(expires)에 만료되었습니다: 로더가 있는 앱은 이를 거부하고 마지막 정상 릴리스를 씁니다; 'ratecard sign --env \(selector)'을 실행하세요")
        } else if left < LiveStatements.warnDays * 86400 {
            let hours = left / 3600
            warning = Message(
                "live.json expires at \(expires) (in \(hours) hours); after that apps with the loader refuse it: run 'ratecard sign --env \(selector)' (daily, beside 'publish --if-stale')",
                ko: "live.json이 \(expires)에 만료됩니다 (\(hours)시간 뒤); 그 뒤에는 로더가 있는 앱이 이를 거부합니다: 'ratecard sign --env \(selector)'을 실행하세요 (매일, 'publish --if-stale' 옆에서)")
        }
    }
}
