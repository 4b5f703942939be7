import RatecardKit

/// `ratecard rollout`: widen, narrow, complete or halt the staged rollout `publish --rollout` began.
enum RolloutCommand {
    static let command = Command(
        name: "rollout",
        abstract: "Change the staged rollout in progress: its share of installs, make it live for everyone, or halt it.",
        usage: "(--env <name> | --root <dir>) (--percent <n> | --complete | --halt [--keep-good]) -m <why> [--no-wait] [--format <format>]",
        options: ServeRootOptions.options + [
            OptionSpec("--percent", value: "N", "The share of installs that load the release being rolled out, 1-99 (a widened share keeps every install that had it)"),
            OptionSpec("--complete", "Make the release live for everyone: the pointer flip, journaled like a publish"),
            OptionSpec("--halt", "End the rollout: no install loads its release any more; it is marked bad unless --keep-good"),
            OptionSpec("--keep-good", "With --halt, do not mark the release bad"),
            OptionSpec("-m", value: "WHY", "Why (required): recorded in the journal"),
            ServeRootOptions.noWait,
            ServeRootOptions.format,
            SigningKeys.option,
        ],
        discussion: """
            'ratecard publish --rollout PCT' publishes a release and leaves live where it was: live.json names, per
            bridge line, the release everyone loads and the release being rolled out with its share. An install is
            in the share when sha256(<install id>\\n<rollout id>) falls below it, so the same phone keeps its answer
            and a wider share keeps every phone that had it. Probe what a phone gets with
            'ratecard fetch URL --bridge N --install-id ID'. Exit 3 when no rollout is in progress.
            """,
        run: run)

    /// A whole percent 1-99 given with `option`, nil when the option is absent (else exit 2).
    static func percent(_ arguments: ParsedArguments, _ option: String) throws -> Int? {
        guard let text = arguments.value(option) else { return nil }
        guard let value = Int(text), Rollouts.percents.contains(value) else {
            throw UsageError(
                "\(option) '\(text)' is not a share of installs: a whole percent from 1 to 99 (100 is 'ratecard rollout --complete')",
                ko: "\(option) '\(text)'은(는) 설치 비율이 아닙니다: 1에서 99 사이의 정수 퍼센트여야 합니다 (100은 'ratecard rollout --complete')")
        }
        return value
    }

    static func run(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        let json = try ServeRootCommands.format(arguments)
        let percent = try percent(arguments, "--percent")
        let chosen = [percent != nil, arguments.has("--complete"), arguments.has("--halt")].filter { $0 }.count
        guard chosen == 1 else {
            throw UsageError("give exactly one of --percent N, --complete or --halt", ko: "--percent N, --complete, --halt 중 하나만 주세요")
        }
        if arguments.has("--keep-good") && !arguments.has("--halt") {
            throw UsageError("'--keep-good' goes with '--halt'", ko: "'--keep-good'는 '--halt'와 함께 씁니다")
        }
        let reason = arguments.value("-m") ?? ""
        guard !reason.isEmpty else {
            throw UsageError("Missing expected option '-m <why>': say why, for the journal", ko: "'-m <why>' 옵션이 필요합니다: 저널에 남길 사유를 쓰세요")
        }
        let change: RolloutFlow.Change = percent.map { .percent($0) } ?? (arguments.has("--complete") ? .complete : .halt(keepGood: arguments.has("--keep-good")))
        let root = try ServeRootOptions.existing(arguments, invocation)
        let console = invocation.console
        let messages = invocation.messages
        let changed = try RolloutFlow(store: root, change: change, message: reason, wait: !arguments.has("--no-wait")).run { event in
            switch event {
            case .waiting(let text): console.err(messages(text) + "\n")
            case .warning(let warning): invocation.warning(warning)
            case .liveDiff, .approved: break
            }
        }
        let done = changed.rollout
        if json {
            let outcome =
                switch change {
                case .percent: "share_changed"
                case .complete: "completed"
                case .halt: "halted"
                }
            var fields: [String: JSON] = [
                "release": .string(done.release), "rollout_id": .string(done.rolloutID), "share_bp_before": .int(done.before), "share_bp": .int(done.after),
                "live": done.live.map(JSON.string) ?? .null, "marked_bad": .bool(done.markedBad),
                "outcome": .string(outcome),
            ]
            if let usage = changed.storage { fields["storage"] = usage }
            console.out(JSON.object(fields).serialized() + "\n")
            return RatecardCLI.ExitCode.ok
        }
        let (place, release) = (root.displayName, done.release)
        let (before, after) = (Rollouts.share(done.before), Rollouts.share(done.after))
        switch change {
        case .percent:
            invocation.out(
                Message(
                    "Rollout of \(release) in \(place): \(before) -> \(after) of installs.\n",
                    ko: "\(place)의 \(release) 단계적 배포: 설치의 \(before) -> \(after).\n"))
        case .complete:
            invocation.out(
                Message(
                    "Completed the rollout of \(release) in \(place): it is live for everyone (was \(before) of installs).\n",
                    ko: "\(place)에서 \(release)의 단계적 배포를 완료했습니다: 이제 모두에게 라이브입니다 (전에는 설치의 \(before)).\n"))
        case .halt:
            let mark =
                done.markedBad
                ? Message("\(release) is marked bad", ko: "\(release)에는 불량 표시를 붙였습니다")
                : Message("\(release) is not marked bad (--keep-good)", ko: "\(release)에는 불량 표시를 붙이지 않았습니다 (--keep-good)")
            invocation.out(
                Message(
                    "Halted the rollout of \(release) in \(place) (was \(before) of installs): every install loads \(done.live ?? "none") again; \(mark).\n",
                    ko: "\(place)에서 \(release)의 단계적 배포를 중단했습니다 (전에는 설치의 \(before)): 모든 설치가 다시 \(done.live ?? "없음")을(를) 불러옵니다; \(mark).\n"))
        }
        return RatecardCLI.ExitCode.ok
    }

    // MARK: - What status and releases show of rollouts

    /// The rollout in progress (nil when none, or its release is live already).
    static func inProgress(_ journal: JournalState, live: String?) -> JournalState.Rollout? {
        journal.rollout.flatMap { $0.release == live ? nil : $0 }
    }

    /// `status --format json`'s `rollout`: the release, its id, share, who started it and when.
    static func json(_ journal: JournalState, live: String?) -> JSON {
        guard let rollout = inProgress(journal, live: live) else { return .null }
        let started = journal.rolloutHistory.last { $0.id == rollout.id && $0.action == .rolloutStart }
        return .object([
            "release": .string(rollout.release), "rollout_id": .string(rollout.id), "share_bp": .int(rollout.share),
            "started": started.map { .string($0.time) } ?? .null, "started_by": started?.user.map(JSON.string) ?? .null,
        ])
    }

    /// `status`'s row: the release being rolled out and its share.
    static func statusRow(_ journal: JournalState, live: String?) -> (Message, Message)? {
        guard let rollout = inProgress(journal, live: live) else { return nil }
        let share = Rollouts.share(rollout.share)
        return (
            Message("rollout", ko: "단계적 배포"),
            Message(
                "\(rollout.release) to \(share) of installs (rollout \(rollout.id)); 'ratecard rollout --percent N | --complete | --halt'",
                ko: "\(rollout.release)을(를) 설치의 \(share)에 배포 중 (배포 \(rollout.id)); 'ratecard rollout --percent N | --complete | --halt'")
        )
    }

    /// One rollout event as `releases` lists it under its release.
    static func event(_ event: JournalState.Rollout) -> (text: Message, json: JSON) {
        let (when, who, why) = (Timestamp.seoul(event.time), event.user ?? "?", event.message ?? "")
        let share = Rollouts.share(event.share)
        let text: Message
        switch event.action {
        case .rolloutStart:
            text = Message("\(when)  rollout started to \(share) by \(who): \(why)", ko: "\(when)  \(who)이(가) 설치의 \(share)에 단계적 배포 시작: \(why)")
        case .rolloutPercent:
            text = Message("\(when)  rollout share set to \(share) by \(who): \(why)", ko: "\(when)  \(who)이(가) 배포 비율을 \(share)(으)로 바꿈: \(why)")
        case .rolloutComplete:
            text = Message("\(when)  rollout completed (live for everyone) by \(who): \(why)", ko: "\(when)  \(who)이(가) 단계적 배포 완료 (모두에게 라이브): \(why)")
        default:
            let mark = event.marksBad == true ? Message(" (marked bad)", ko: ", 불량 표시") : .verbatim("")
            text = Message("\(when)  rollout halted by \(who)", ko: "\(when)  \(who)이(가) 단계적 배포 중단") + mark + .verbatim(": \(why)")
        }
        let json = JSON.object([
            "event": .string(event.action.rawValue), "time": .string(event.time), "user": event.user.map(JSON.string) ?? .null,
            "message": event.message.map(JSON.string) ?? .null, "rollout_id": .string(event.id), "share_bp": .int(event.share),
            "marks_bad": event.marksBad.map(JSON.bool) ?? .null,
        ])
        return (text, json)
    }
}
