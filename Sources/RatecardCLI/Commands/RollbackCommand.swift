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
            SigningKeys.option,
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
        guard dryRun || !reason.isEmpty else {
            throw UsageError("Missing expected option '-m <reason>': say why, for the journal", ko: "'-m <reason>' 옵션이 필요합니다: 저널에 남길 사유를 쓰세요")
        }
        let root = try ServeRootOptions.existing(arguments, invocation)
        if arguments.has("--mark-bad") && arguments.value("--to") == nil {
            throw UsageError(
                "'--mark-bad' goes with '--to <id>' (a bare rollback always marks the release it leaves bad)",
                ko: "'--mark-bad'는 '--to <id>'와 함께 씁니다 (--to 없는 롤백은 떠나는 릴리스에 언제나 불량 표시를 붙입니다)")
        }
        let target = try arguments.value("--to").map { try resolve($0, in: root) }
        var request = RollbackFlow.Request(to: target, reason: reason)
        request.expectLive = arguments.value("--expect-live")
        request.wait = !arguments.has("--no-wait")
        request.verify = arguments.has("--verify")
        request.force = arguments.has("--force")
        request.markBad = target == nil || arguments.has("--mark-bad")
        request.dryRun = dryRun
        let outcome = try RollbackFlow(store: root, request: request).run { event in
            if case .warning(let warning) = event { invocation.warning(warning) }
        }
        let (done, warnings) = (outcome.rollback, outcome.warnings)
        let forward = sequence(done.to) > sequence(done.from)
        if let halted = done.haltedRollout, !json {
            invocation.out(
                dryRun
                    ? Message("Would halt the rollout of \(halted) first (not marked bad).\n", ko: "먼저 \(halted)의 단계적 배포를 중단합니다 (불량 표시는 붙이지 않습니다).\n")
                    : Message("Halted the rollout of \(halted) first (not marked bad).\n", ko: "먼저 \(halted)의 단계적 배포를 중단했습니다 (불량 표시는 붙이지 않았습니다).\n"))
        }
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
                "halted_rollout": done.haltedRollout.map(JSON.string) ?? .null,
            ]
            if let usage = outcome.storage { fields["storage"] = usage }
            if !warnings.isEmpty { fields["warnings"] = .array(warnings.map { .string($0.english) }) }
            invocation.console.out(JSON.object(fields).serialized() + "\n")
            return RatecardCLI.ExitCode.ok
        }
        let checked =
            switch done.check {
            case .sealed: Message("its version.json matches the hash journaled at publish", ko: "version.json이 게시할 때 저널에 기록된 해시와 맞습니다")
            case .rehashed(let files): Message("all \(files) files re-hashed against its version.json", ko: "파일 \(files)개를 모두 version.json과 대조해 다시 해시했습니다")
            }
        let (place, from, to) = (root.displayName, done.from, done.to)
        let cleared = done.targetWasBad ? Message("; \(to)'s bad mark is cleared", ko: "; \(to)의 불량 표시는 지웠습니다") : .verbatim("")
        if dryRun {
            let (rolled, rolledKo) = forward ? ("forward", "앞으로 되돌립니다") : ("back", "롤백합니다")
            let mark =
                done.markedBad
                ? Message("\(from) would be marked bad", ko: "\(from)에는 불량 표시가 붙습니다")
                : Message("\(from) would not be marked bad (--to without --mark-bad)", ko: "\(from)에는 불량 표시가 붙지 않습니다 (--mark-bad 없는 --to)")
            invocation.out(
                Message(
                    "Would roll \(rolled) \(place) from \(from) to \(to) (\(checked)); \(mark). Nothing was changed.\n",
                    ko: "\(place)을(를) \(from)에서 \(to)(으)로 \(rolledKo) (\(checked)); \(mark). 아무것도 바꾸지 않았습니다.\n"))
        } else {
            let mark =
                done.markedBad
                ? Message("\(from) is marked bad", ko: "\(from)에는 불량 표시를 붙였습니다")
                : Message("\(from) is not marked bad (--to without --mark-bad)", ko: "\(from)에는 불량 표시를 붙이지 않았습니다 (--mark-bad 없는 --to)")
            let (rolledDone, rolledDoneKo) = forward ? ("forward", "앞으로 되돌렸습니다") : ("back", "롤백했습니다")

            invocation.out(
                Message(
                    "Rolled \(rolledDone) \(place) from \(from) to \(to) (\(checked)); \(mark)\(cleared).\n",
                    ko: "\(place)을(를) \(from)에서 \(to)(으)로 \(rolledDoneKo) (\(checked)); \(mark)\(cleared).\n"))
        }
        return RatecardCLI.ExitCode.ok
    }

    /// A release id's sequence number (`000042-...`: 42).
    static func sequence(_ id: String) -> Int { Int(id.prefix { $0.isNumber }) ?? 0 }

    /// A release named on the command line: an id, a unique prefix, or a sequence number.
    static func resolve(_ text: String, in root: any ReleaseStore) throws -> String {
        try ReleaseNames.resolve(text, in: root)
    }
}
