import RatecardKit

/// `ratecard log`: who changed one thing, when, and since when it has been live.
enum LogCommand {
    static let command = Command(
        name: "log",
        abstract: "The history of one partner, product or terms document, with the releases that shipped it.",
        usage: "(--partner <id> | --product <partner/product> | --terms <id>) [--env <name> | --root <dir>] [--format <format>] [--as-of <date>]",
        options: ServeRootOptions.options + [
            OptionSpec("--partner", value: "ID", "A partner id"),
            OptionSpec("--product", value: "KEY", "A product as <partner-id>/<product-id>"),
            OptionSpec("--terms", value: "ID", "A terms document id"),
            OptionSpec("--format", value: "FORMAT", "text (default) or json"),
            OptionSpec("--as-of", value: "DATE", "The date that decides which rate tables are compared (default: today)"),
        ],
        run: run)

    static func run(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        let subjects: [ChangeHistory.Subject] = [
            arguments.value("--partner").map { .partner($0) }, arguments.value("--product").map { .product($0) },
            arguments.value("--terms").map { .terms($0) },
        ].compactMap { $0 }
        guard subjects.count == 1, let subject = subjects.first else {
            throw UsageError("Name exactly one of '--partner', '--product' or '--terms'", ko: "'--partner', '--product', '--terms' 중 정확히 하나를 주세요")
        }
        let json = try ServeRootCommands.format(arguments)
        var root: (any ReleaseStore)?
        if arguments.value("--env") != nil || arguments.value("--root") != nil {
            root = try ServeRootOptions.resolve(arguments, invocation).store
        }
        let location = try ContentLocation.find(from: invocation.directory)
        let asOf = try invocation.asOf(arguments)
        // A product is <partner>/<product>: anything else names no product (and would match
        // every product of a partner by its folder), so it is checked first.
        if case .product(let key) = subject, key.split(separator: "/").count != 2 {
            try requireKnown(subject, location: location, asOf: asOf, caches: invocation.caches)
        }
        let events = try ChangeHistory.events(of: subject, location: location, asOf: asOf, root: root, caches: invocation.caches)
        if events.isEmpty { try requireKnown(subject, location: location, asOf: asOf, caches: invocation.caches) }
        if json {
            invocation.console.out(
                JSON.object([
                    "events": .array(
                        events.map { event in
                            .object([
                                "commit": .string(event.commit.id.hex), "author": .string("\(event.commit.authorName) <\(event.commit.authorEmail)>"),
                                "time": .string(Timestamp.format(seconds: Int(event.commit.time))), "message": .string(event.commit.summary),
                                "changes": .array(event.changes.map { .string(DiffFormatter.describe($0).1.english) }),
                                "releases": .array(event.releases.map { .object($0.fields) }),
                                "live_now": event.liveNow.map(JSON.bool) ?? .null, "rollouts": .array(event.rollouts.map { .object($0.fields) }),
                            ])
                        })
                ]).serialized() + "\n")
            return RatecardCLI.ExitCode.ok
        }
        var text = ""
        for event in events {
            text +=
                "\(event.commit.id.short)  \(Timestamp.seoul(Timestamp.format(seconds: Int(event.commit.time))))  \(event.commit.authorName) <\(event.commit.authorEmail)>  \(event.commit.summary)\n"
            for change in event.changes { text += "    \(invocation.messages(DiffFormatter.describe(change).1))\n" }
            for (index, entry) in event.releases.enumerated() {
                let (when, release, how) = (Timestamp.seoul(entry.time), entry.activated ?? "?", Self.how(entry))
                if index % 2 == 1 {
                    // The change left live.
                    if entry.action == .rollback {
                        let (from, message) = (entry.from ?? "?", entry.message ?? "")
                        text += invocation.messages(
                            entry.rollsForward
                                ? Message("    rolled forward from \(from) at \(when): \(message)\n", ko: "    \(when)에 \(from)에서 앞으로 되돌림: \(message)\n")
                                : Message("    rolled back from \(from) at \(when): \(message)\n", ko: "    \(when)에 \(from)에서 롤백됨: \(message)\n"))
                    } else {
                        text += invocation.messages(
                            Message(
                                "    left live at \(when): release \(release) made live (\(how)), without it\n",
                                ko: "    \(when)에 라이브에서 빠짐: 이 변경이 없는 릴리스 \(release)이(가) 라이브가 됨 (\(how))\n"))
                    }
                } else if index == 0 {
                    text += invocation.messages(Message("    live in release \(release) since \(when) (\(how))\n", ko: "    \(when)부터 릴리스 \(release)에서 라이브 (\(how))\n"))
                } else {
                    text += invocation.messages(Message("    live again in release \(release) since \(when) (\(how))\n", ko: "    \(when)부터 릴리스 \(release)에서 다시 라이브 (\(how))\n"))
                }
            }
            for entry in event.rollouts { text += invocation.messages(Self.rollout(entry)) }
            let live = event.live ?? "?"
            switch (event.liveNow, event.releases.isEmpty) {
            case (nil, _): break
            case (false?, true): text += invocation.messages(Message("    not live yet\n", ko: "    아직 라이브가 아님\n"))
            case (true?, _): text += invocation.messages(Message("    live now (release \(live))\n", ko: "    지금 라이브 (릴리스 \(live))\n"))
            case (false?, false):
                let now = event.live ?? "none"
                text += invocation.messages(Message("    not live now (live: \(now))\n", ko: "    지금은 라이브가 아님 (라이브: \(now == "none" ? "없음" : now))\n"))
            }
        }
        invocation.console.out(text.isEmpty ? invocation.messages(Message("No commits changed it.\n", ko: "이것을 바꾼 커밋이 없습니다.\n")) : text)
        return RatecardCLI.ExitCode.ok
    }

    /// A staged rollout of a release holding the change, as one line of its history.
    static func rollout(_ entry: Journal.Entry) -> Message {
        let (when, release) = (Timestamp.seoul(entry.time), entry.release ?? "?")
        let share = Rollouts.share(entry.fields["share_bp"]?.intValue ?? 0)
        let who = Message(" by \(entry.user ?? "?")", ko: ", 실행한 사람: \(entry.user ?? "?")") + .verbatim(": \(entry.message ?? "")\n")
        switch entry.action {
        case .rolloutStart:
            return Message("    rolled out to \(share) of installs in release \(release) at \(when)", ko: "    \(when)에 릴리스 \(release)(으)로 설치의 \(share)에 단계적 배포") + who
        case .rolloutPercent:
            return Message("    rollout of release \(release) set to \(share) at \(when)", ko: "    \(when)에 릴리스 \(release)의 배포 비율을 \(share)(으)로 바꿈") + who
        default:
            return Message("    rollout of release \(release) halted at \(when)", ko: "    \(when)에 릴리스 \(release)의 단계적 배포 중단") + who
        }
    }

    /// How an entry made its release live: `publish`, `rollback by kim: wrong band`,
    /// `roll forward by kim: it was fine`.
    static func how(_ entry: Journal.Entry) -> Message {
        let action = ServeRootCommands.actionName(entry.action, forward: entry.rollsForward)
        guard entry.action != .publish else { return action }
        var text = action
        if let user = entry.user { text += Message(" by \(user)", ko: ", 실행한 사람: \(user)") }
        if let message = entry.message, !message.isEmpty { text += .verbatim(": \(message)") }
        return text
    }

    /// A subject with no history must at least exist now; else it is a typo: a usage error
    /// naming the nearest ids.
    static func requireKnown(_ subject: ChangeHistory.Subject, location: ContentLocation, asOf: Day, caches: Caches) throws {
        let run = ValidationRun(location: location, context: ValidationContext(asOf: asOf), caches: caches)
        guard let content = try? run.content(at: location.contentDir == nil ? "HEAD" : nil) else { return }
        let (name, known): (String, [String])
        var message: Message
        switch subject {
        case .partner(let id):
            (name, known) = (id, content.partnerFiles.sorted())
            message = Message("no partner '\(id)' in the content", ko: "콘텐츠에 제휴사 '\(id)'이(가) 없습니다")
        case .product(let key):
            (name, known) = (key, content.productFiles.sorted())
            message = Message("no product '\(key)' in the content", ko: "콘텐츠에 상품 '\(key)'이(가) 없습니다")
        case .terms(let id):
            (name, known) = (id, content.documentIDs)
            message = Message("no terms document '\(id)' in the content", ko: "콘텐츠에 약관 문서 '\(id)'이(가) 없습니다")
        }
        guard !known.contains(name) else { return }
        // The id of another kind of thing, under the wrong option (`--product kbank` for a partner).
        let kinds: [(option: String, ids: [String])] = [("--partner", Array(content.partnerFiles)), ("--product", Array(content.productFiles)), ("--terms", content.documentIDs)]
        if let other = kinds.first(where: { $0.ids.contains(name) }) {
            let what = [
                "--partner": Message("a partner", ko: "제휴사"), "--product": Message("a product", ko: "상품"), "--terms": Message("a terms document", ko: "약관 문서"),
            ][other.option]!
            throw UsageError(
                message.then(
                    Message("'\(name)' is ", ko: "'\(name)'은(는) ") + what
                        + Message(": did you mean '\(other.option) \(name)'?", ko: "입니다: 혹시 '\(other.option) \(name)'을(를) 뜻했습니까?")))
        }
        if let hint = Suggestion.didYouMean(name, in: known) {
            message = message.then(hint)
        } else {
            let nearest = known.sorted { (Suggestion.distance(name, $0), $0) < (Suggestion.distance(name, $1), $1) }.prefix(3).joined(separator: ", ")
            if !nearest.isEmpty { message = message.then(Message("the nearest: \(nearest)", ko: "가장 가까운 것: \(nearest)")) }
        }
        throw UsageError(message)
    }
}
