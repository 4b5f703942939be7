import RatecardKit

/// `ratecard diff`: what changed, in the words of the people who decide.
enum DiffCommand {
    static let command = Command(
        name: "diff",
        abstract: "Show a semantic diff: partners, products, rate bands, terms versions, legal limits.",
        usage: "[<a> [<b>]] [--env <name> | --root <dir>] [--format <format>] [--as-of <date>]",
        options: ServeRootOptions.options + [
            OptionSpec("--format", value: "FORMAT", "text (default), json or markdown (for a pull-request comment)"),
            OptionSpec("--as-of", value: "DATE", "The date that decides which rate tables are compared (default: today in Asia/Seoul)"),
        ],
        positionals: 0...2,
        discussion:
            "No revisions: HEAD against the work tree, or with --env/--root what is live against HEAD.\nOne revision: it against the work tree. Two: the first against the second.\nAn environment name as a revision stands for what is live there (diff staging production).",
        run: run)

    static func run(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        let format = arguments.value("--format") ?? "text"
        guard ["text", "json", "markdown"].contains(format) else {
            throw UsageError("Unknown format '\(format)'; use text, json or markdown", ko: "알 수 없는 형식 '\(format)'; 'text', 'json', 'markdown' 중 하나를 쓰세요")
        }
        var asOf = try invocation.asOf(arguments)
        let location = try ContentLocation.find(from: invocation.directory)
        var from: String?
        var to: String?
        var title: Message
        var oldAsOf: Day?
        if arguments.value("--env") != nil || arguments.value("--root") != nil {
            guard arguments.positionals.isEmpty else {
                throw UsageError("revisions and --env/--root cannot be used together", ko: "리비전과 --env/--root는 함께 쓸 수 없습니다")
            }
            let destination = try ServeRootOptions.resolve(arguments, invocation)
            let (root, name) = (destination.store, destination.name)
            let live = try liveSide(root, name: name)
            // What is live shows the tables in force on its own date, as publish --dry-run compares.
            oldAsOf = live.asOf
            from = live.commit
            to = "HEAD"
            title = Message("\(name) (live \(live.release)) -> HEAD", ko: "\(name) (라이브 \(live.release)) -> HEAD")
        } else {
            switch arguments.positionals.count {
            case 0:
                from = "HEAD"
                to = nil
            case 1:
                from = arguments.positionals[0]
                to = nil
            default:
                from = arguments.positionals[0]
                to = arguments.positionals[1]
            }
            // Each side: a revision as given, the work tree, or an environment's live release.
            func side(_ revision: String?) -> Message {
                revision.map { .verbatim($0) } ?? Message("work tree", ko: "작업 트리")
            }
            func live(_ name: String, _ release: String) -> Message {
                Message("\(name) (live \(release))", ko: "\(name) (라이브 \(release))")
            }
            var left = side(from)
            var right = side(to)
            // An environment name stands for what is live there, as of its own date.
            let environments = (try? invocation.settings())?.environments ?? []
            // A typo is a usage error naming the nearest revisions and environments, before
            // any live release is looked up.
            let check = ValidationRun(location: location, context: ValidationContext(asOf: asOf), caches: invocation.caches)
            for name in [from, to].compactMap({ $0 }) where !environments.contains(where: { $0.name == name }) {
                _ = try check.commit(of: name, alsoAccepted: environments.map(\.name))
            }
            if let name = from, let environment = environments.first(where: { $0.name == name }) {
                let side = try liveSide(try environment.store(), name: name)
                from = side.commit
                oldAsOf = side.asOf
                left = live(name, side.release)
            }
            if let name = to, let environment = environments.first(where: { $0.name == name }) {
                let side = try liveSide(try environment.store(), name: name)
                to = side.commit
                if arguments.value("--as-of") == nil, let day = side.asOf { asOf = day }
                right = live(name, side.release)
            }
            title = left + .verbatim(" -> ") + right
        }
        let run = ValidationRun(location: location, context: ValidationContext(asOf: asOf), caches: invocation.caches)
        let diff = SemanticDiff.between(try run.content(at: from), try run.content(at: to), asOf: asOf, oldAsOf: oldAsOf)
        switch format {
        case "json": invocation.console.out(DiffFormatter.json(diff).serialized() + "\n")
        case "markdown": invocation.console.out(DiffFormatter.markdown(diff, title: title, language: invocation.messages.language))
        default: invocation.console.out(DiffFormatter.text(diff, title: title, colour: invocation.console.outIsTerminal, language: invocation.messages.language))
        }
        return RatecardCLI.ExitCode.ok
    }

    /// The live release of an environment: its id, source commit and as-of date.
    static func liveSide(_ root: any ReleaseStore, name: String) throws -> (release: String, commit: String, asOf: Day?) {
        guard let live = try root.live() else { throw ConflictError("nothing is live in \(name) yet", ko: "\(name)에는 아직 라이브인 것이 없습니다") }
        let info = try root.info(of: live)
        guard let commit = info.sourceCommit else {
            throw ConflictError(
                "live release \(live) was built from an uncommitted work tree; name revisions instead", ko: "라이브 릴리스 \(live)은(는) 커밋하지 않은 작업 트리에서 빌드되었습니다; 대신 리비전을 지정하세요")
        }
        return (live, commit.hex, Day(info.asOf))
    }
}
