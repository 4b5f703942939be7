import RatecardKit

/// `ratecard publish`: validate, build and stage a release, then swap it live atomically.
enum PublishCommand {
    static let command = Command(
        name: "publish",
        abstract: "Build a commit and make it live: staged beside the live release, swapped in one rename.",
        usage:
            "(--env <name> | --root <dir>) [--rev <rev>] [--web <dir> | --no-web] [--as-of <date>] [--expect-live <id>] [-m <msg>] [--dry-run] [--if-stale] [--approve <reason>] [--allow-shallow] [--force] [--rollout <pct>] [--no-wait] [--format <format>]",
        options: ServeRootOptions.options + [
            OptionSpec("--rev", value: "REV", "The commit to publish (default: HEAD; uncommitted content is refused)"),
            OptionSpec("--web", value: "DIR", "The web build folder (default: 'web' in ratecard.yaml, else ../site)"),
            OptionSpec("--no-web", "Publish the bundle alone, without a web build (the release serves data and pages only)"),
            OptionSpec("--as-of", value: "DATE", "The date that decides what is current (default: today in Asia/Seoul)"),
            OptionSpec("--expect-live", value: "ID", "Only swap if this release is live now (compare-and-swap; 'none' for an empty root)"),
            OptionSpec("-m", value: "MSG", "Why: recorded in the journal"),
            OptionSpec("--dry-run", "Print what would change (semantic diff, then files) and touch nothing"),
            OptionSpec(
                "--if-stale",
                "Only if something scheduled has taken effect since the live release (or the release being rolled out) was built: "
                    + "rebuild the live release's commit as of today, halting an open rollout first (for a daily timer)"),
            OptionSpec("--approve", value: "REASON", "Approve a risky change for a protected environment (recorded in the journal)"),
            OptionSpec("--allow-shallow", "Publish a commit whose parent is not in this shallow clone, its history rules skipped (else exit 4)"),
            ServeRootOptions.force,
            OptionSpec("--rollout", value: "PCT", "Reach this share of installs first (1-99 %), live unchanged for the rest; widen, complete or halt it with 'ratecard rollout'"),
            ServeRootOptions.noWait,
            ServeRootOptions.format,
            SigningKeys.option,
        ],
        discussion:
            "Publishing what is already live changes nothing and exits 0. A risky change to a protected environment (the first\nrelease there included) needs --approve; uncommitted content is refused (exit 1).",
        run: run)

    static func run(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        let json = try ServeRootCommands.format(arguments)
        let destination = try ServeRootOptions.resolve(arguments, invocation)
        let (root, name) = (destination.store, destination.name)
        let location = try ContentLocation.find(from: invocation.directory)
        let web: PublishFlow.Web =
            try arguments.has("--no-web")
            ? .none
            : arguments.value("--web").map { .folder(RatecardCLI.resolve($0, against: invocation.directory)) } ?? .configured(try invocation.settings()?.config.web)
        var options = PublishFlow.Options(
            destination: destination, change: ServeRootOptions.change(arguments), asOf: try invocation.asOf(arguments), caches: invocation.caches,
            revision: arguments.value("--rev"), web: web)
        options.ifStale = arguments.has("--if-stale")
        options.asOfExplicit = arguments.value("--as-of") != nil
        options.allowShallow = arguments.has("--allow-shallow")
        options.rollout = try RolloutCommand.percent(arguments, "--rollout").map { $0 * 100 }
        if options.rollout != nil, options.ifStale {
            throw UsageError("--rollout and --if-stale cannot be combined", ko: "--rollout과 --if-stale은 함께 쓸 수 없습니다")
        }
        let console = invocation.console
        let messages = invocation.messages
        // Warnings after the flip: on stderr as they come, and in the JSON summary.
        var warnings: [Message] = []
        let result = try PublishFlow(location: location, options: options).run { event in
            switch event {
            case .waiting(let text): console.err(messages(text) + "\n")
            case .liveDiff(let diff):
                guard options.change.dryRun, !json else { return }
                switch diff {
                case .diff(let semantic):
                    let revision = options.revisionName
                    console.out(
                        DiffFormatter.text(
                            semantic, title: Message("\(name): live -> \(revision)", ko: "\(name): 라이브 -> \(revision)"), colour: console.outIsTerminal, language: messages.language))
                case .unknown(let reason): console.err(messages.warning(Message("no semantic diff: \(reason)", ko: "변경 내용을 비교하지 못했습니다: \(reason)")))
                case .nothingLive: break
                }
            case .approved(let approval):
                console.err(messages(Message("Approved risky change for \(name): \(approval.summary)", ko: "\(name)의 위험한 변경을 승인했습니다: \(approval.summary)")) + "\n")
            case .warning(let text):
                warnings.append(text)
                console.err(messages.warning(text))
            }
        }
        var summary: [String: JSON] = [
            "environment": .string(name), "bundle_id": result.bundleID.map(JSON.string) ?? .null,
            "commit": result.commit.map { .string($0.hex) } ?? .null, "built_onto_live": .bool(result.builtOntoLive != nil),
            "review_expired": .array(result.reviewsExpired.map { .string($0.key) }),
        ]
        for product in result.reviewsExpired { invocation.warning(ProductDisclosureRules.leftOut(product, on: options.asOf)) }
        if let halted = result.haltedRollout {
            summary["halted_rollout"] = .object([
                "release": .string(halted.release), "rollout_id": .string(halted.rolloutID), "marked_bad": .bool(false),
                "reason": .string("scheduled_refresh"), "stale_from": halted.staleSince.map { .string($0.description) } ?? .null,
                "live_stale_from": halted.liveStaleSince.map { .string($0.description) } ?? .null,
            ])
            if !json { invocation.out(Self.halted(halted, dryRun: options.change.dryRun)) }
        }
        switch result.outcome {
        case .current(let text):
            if json {
                console.out(JSON.object(["environment": .string(name), "outcome": .string("current")]).serialized() + "\n")
            } else {
                invocation.out(Message("\(name): \(text); nothing to do.\n", ko: "\(name): \(text); 할 일이 없습니다.\n"))
            }
            return RatecardCLI.ExitCode.ok
        case .uncommitted(let files):
            // Publish ships commits; `ratecard save` is how a content editor makes one.
            let named = files.prefix(3).joined(separator: ", ")
            let more = files.count > 3 ? files.count - 3 : 0
            invocation.error(
                Message(
                    "the content has uncommitted changes (\(named)\(more > 0 ? " and \(more) more" : "")); save them with 'ratecard save -m \"why\"' (it validates them and commits the content), then publish again, or pass --rev to publish a commit as it is",
                    ko: "콘텐츠에 커밋하지 않은 변경이 있습니다 (\(named)\(more > 0 ? " 외 \(more)개" : "")); 'ratecard save -m \"변경 이유\"'로 저장한 다음(검사하고 콘텐츠만 커밋합니다) 다시 게시하세요. 이미 있는 커밋을 그대로 게시하려면 --rev를 주세요"))
            return RatecardCLI.ExitCode.invalid
        case .bridge(let verdict):
            ServeRootOptions.report(verdict, invocation)
            return RatecardCLI.ExitCode.invalid
        case .invalid(let report):
            console.out((json ? ReportFormat.json : ReportFormat.text).render(report, version: RatecardCLI.version, style: ReportStyle(messages: messages)))
            invocation.error(Message("the content is invalid; nothing was published", ko: "콘텐츠에 오류가 있어 아무것도 게시하지 않았습니다"))
            return RatecardCLI.ExitCode.invalid
        case .dryRun(let plan, let live):
            summary.merge(["outcome": .string("dry_run"), "live": live.map(JSON.string) ?? .null, "changes": plan.counts]) { $1 }
            if let share = options.rollout { summary["rollout_share_bp"] = .int(share) }
            if json {
                console.out(JSON.object(summary).serialized() + "\n")
            } else {
                invocation.out(describe(plan, live: live, target: name, bundle: result.bundleID ?? ""))
                if let share = options.rollout {
                    invocation.out(
                        Message(
                            "(--rollout: it would reach \(Rollouts.share(share)) of installs first; live would stay for the rest)\n",
                            ko: "(--rollout: 먼저 설치의 \(Rollouts.share(share))에만 닿고, 나머지의 라이브는 그대로입니다)\n"))
                }
            }
        case .published(.alreadyLive(let id)):
            summary.merge(["outcome": .string("already_live"), "release": .string(id)]) { $1 }
            if !json {
                invocation.out(
                    Message("Already live on \(name): release \(id) serves this commit; nothing changed.\n", ko: "이미 \(name)에 라이브입니다: 릴리스 \(id)이(가) 이 커밋을 제공하고 있어 아무것도 바꾸지 않았습니다.\n"))
            }
        case .published(.published(let id, let previous, let plan, let bytes, let linked)):
            summary.merge([
                "outcome": .string("published"), "release": .string(id), "previous": previous.map(JSON.string) ?? .null,
                "changes": plan.counts, "bytes_written": .int(bytes), "files_linked": .int(linked),
            ]) { $1 }
            if let share = options.rollout {
                summary["outcome"] = .string("rollout_started")
                summary["rollout_share_bp"] = .int(share)
                summary["live"] = previous.map(JSON.string) ?? .null
            }
            if !json, let share = options.rollout {
                invocation.out(
                    Message(
                        "Published release \(id) to \(name) as a rollout to \(Rollouts.share(share)) of installs: \(plan.summary); wrote \(bytes) bytes of new objects. Live stays \(previous ?? "none") for the rest; widen it with 'ratecard rollout --percent N', or --complete / --halt.\n",
                        ko:
                            "릴리스 \(id)을(를) \(name)에 설치의 \(Rollouts.share(share))에만 단계적으로 게시했습니다. 바뀐 파일: \(plan.summary). 새로 저장한 파일 내용은 \(Self.grouped(bytes))바이트입니다. 나머지 설치의 라이브는 \(previous ?? "없음") 그대로입니다; 'ratecard rollout --percent N'으로 넓히거나 --complete / --halt 하세요.\n"
                    ))
            } else if !json {
                let how =
                    result.builtOntoLive.map {
                        Message(
                            "; built onto the live bundle: \($0.count) changed product(s) re-rendered, the rest reused",
                            ko: " 라이브 번들을 바탕으로, 바뀐 상품 \($0.count)개만 다시 만들고 나머지는 그대로 썼습니다.")
                    } ?? .verbatim("")
                let was = previous ?? "none"
                // In Korean without the store's words (objects, entry files): what was stored anew, and how many files the release serves at their paths.
                let (stored, files) = (Self.grouped(bytes), Self.grouped(linked))
                invocation.out(
                    Message(
                        "Published release \(id) to \(name) (was \(was)): \(plan.summary); wrote \(bytes) bytes of new objects, \(linked) entry files\(how).\n",
                        ko:
                            "릴리스 \(id)을(를) \(name)에 게시했습니다 (이전: \(previous ?? "없음")). 바뀐 파일: \(plan.summary). 새로 저장한 파일 내용은 \(stored)바이트입니다 (이미 저장된 내용은 다시 쓰지 않습니다). 경로로 바로 여는 파일 \(files)개를 이 릴리스에 연결했습니다.\(how)\n"
                    ))
                if !result.reviewsExpired.isEmpty {
                    let keys = result.reviewsExpired.map(\.key).joined(separator: ", ")
                    invocation.out(
                        Message(
                            "Left out (compliance review ended, shown as withdrawn): \(keys)\n", ko: "화면에서 뺀 상품 (준법감시인 심의 종료, 판매 중단처럼 표시): \(keys)\n"))
                }
            }
        }
        if json, case .published = result.outcome {
            if let usage = root.usage { summary["storage"] = usage }
            if !warnings.isEmpty { summary["warnings"] = .array(warnings.map { .string($0.english) }) }
            console.out(JSON.object(summary).serialized() + "\n")
        }
        return RatecardCLI.ExitCode.ok
    }

    /// What `--if-stale` did first during a rollout: halted it (kept good) for the scheduled refresh.
    static func halted(_ halted: PublishFlow.HaltedRollout, dryRun: Bool) -> Message {
        let why: Message
        if let day = halted.staleSince {
            why = Message("release \(halted.release) is stale since \(day)", ko: "릴리스 \(halted.release)이(가) \(day)부터 오래된 상태입니다")
        } else {
            why = Message("the live release is stale since \(halted.liveStaleSince.map(\.description) ?? "?")", ko: "라이브 릴리스가 \(halted.liveStaleSince.map(\.description) ?? "?")부터 오래된 상태입니다")
        }
        let done =
            dryRun
            ? Message(
                "Would halt the rollout of \(halted.release) first, for the scheduled refresh (not marked bad; publish it again to roll it out anew): ",
                ko: "예약된 변경을 반영하려고 먼저 \(halted.release)의 단계적 배포를 중단합니다 (불량 표시는 붙이지 않습니다; 다시 배포하려면 새로 게시하세요): ")
            : Message(
                "Halted the rollout of \(halted.release) first, for the scheduled refresh (not marked bad; publish it again to roll it out anew): ",
                ko: "예약된 변경을 반영하려고 먼저 \(halted.release)의 단계적 배포를 중단했습니다 (불량 표시는 붙이지 않았습니다; 다시 배포하려면 새로 게시하세요): ")
        return done + why + .verbatim(".\n")
    }

    static func describe(_ plan: ReleasePlan, live: String?, target: String, bundle: String) -> Message {
        var text = Message(
            "Dry run: publishing bundle \(bundle) to \(target) (live: \(live ?? "none")) would change: \(plan.summary)\n",
            ko: "시험 실행: 번들 \(bundle)을(를) \(target)에 게시하면 (라이브: \(live ?? "없음")) 바뀌는 것: \(plan.summary)\n")
        var files = ""
        for path in plan.added { files += "  + \(path)\n" }
        for path in plan.changed { files += "  ~ \(path)\n" }
        for path in plan.removed { files += "  - \(path)\n" }
        text += .verbatim(files) + Message("Nothing was changed.\n", ko: "아무것도 바꾸지 않았습니다.\n")
        return text
    }

    /// A whole number with thousands separators: 603733 → 603,733.
    static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out += "," }
            out.append(digit)
        }
        return (number < 0 ? "-" : "") + out
    }
}
