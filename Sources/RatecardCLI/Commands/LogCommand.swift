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
        guard subjects.count == 1, let subject = subjects.first else { throw UsageError("Name exactly one of '--partner', '--product' or '--terms'") }
        let json = try ServeRootCommands.format(arguments)
        var root: (any ReleaseStore)?
        if arguments.value("--env") != nil || arguments.value("--root") != nil {
            root = try ServeRootOptions.resolve(arguments, invocation).root
        }
        let location = try ContentLocation.find(from: invocation.directory)
        let asOf = try invocation.asOf(arguments)
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
                                "changes": .array(event.changes.map { .string(DiffFormatter.describe($0).1) }),
                                "releases": .array(event.releases.map { .object($0.fields) }),
                                "live_now": event.liveNow.map(JSON.bool) ?? .null,
                            ])
                        })
                ]).serialized() + "\n")
            return RatecardCLI.ExitCode.ok
        }
        var text = ""
        for event in events {
            text +=
                "\(event.commit.id.short)  \(Timestamp.seoul(Timestamp.format(seconds: Int(event.commit.time))))  \(event.commit.authorName) <\(event.commit.authorEmail)>  \(event.commit.summary)\n"
            for change in event.changes { text += "    \(DiffFormatter.describe(change).1)\n" }
            for (index, entry) in event.releases.enumerated() {
                let when = Timestamp.seoul(entry.time)
                if index % 2 == 1 {
                    // The change left live.
                    if entry.action == .rollback {
                        text += "    rolled back from \(entry.from ?? "?") at \(when): \(entry.message ?? "")\n"
                    } else {
                        text += "    left live at \(when): release \(entry.activated ?? "?") made live (\(Self.how(entry))), without it\n"
                    }
                } else if index == 0 {
                    text += "    live in release \(entry.activated ?? "?") since \(when) (\(Self.how(entry)))\n"
                } else {
                    text += "    live again in release \(entry.activated ?? "?") since \(when) (\(Self.how(entry)))\n"
                }
            }
            switch (event.liveNow, event.releases.isEmpty) {
            case (nil, _): break
            case (false?, true): text += "    not live yet\n"
            case (true?, _): text += "    live now (release \(event.live ?? "?"))\n"
            case (false?, false): text += "    not live now (live: \(event.live ?? "none"))\n"
            }
        }
        invocation.console.out(text.isEmpty ? "No commits changed it.\n" : text)
        return RatecardCLI.ExitCode.ok
    }

    /// How an entry made its release live: `publish`, `rollback by kim: wrong band`.
    static func how(_ entry: Journal.Entry) -> String {
        guard entry.action != .publish else { return entry.action.rawValue }
        var text = entry.action.rawValue
        if let user = entry.user { text += " by \(user)" }
        if let message = entry.message, !message.isEmpty { text += ": \(message)" }
        return text
    }

    /// A subject with no history must at least exist now; else it is a typo: a usage error
    /// naming the nearest ids.
    static func requireKnown(_ subject: ChangeHistory.Subject, location: ContentLocation, asOf: Day, caches: Caches) throws {
        let run = ValidationRun(location: location, context: ValidationContext(asOf: asOf), caches: caches)
        guard let content = try? run.content(at: location.contentDir == nil ? "HEAD" : nil) else { return }
        let (name, what, known): (String, String, [String])
        switch subject {
        case .partner(let id): (name, what, known) = (id, "partner", content.partnerFiles.sorted())
        case .product(let key): (name, what, known) = (key, "product", content.productFiles.sorted())
        case .terms(let id): (name, what, known) = (id, "terms document", content.documentIDs)
        }
        guard !known.contains(name) else { return }
        var message = "no \(what) '\(name)' in the content"
        if let hint = Suggestion.didYouMean(name, in: known) {
            message += "; " + hint
        } else {
            let nearest = known.sorted { (Suggestion.distance(name, $0), $0) < (Suggestion.distance(name, $1), $1) }.prefix(3)
            if !nearest.isEmpty { message += "; the nearest: " + nearest.joined(separator: ", ") }
        }
        throw UsageError(message)
    }
}
