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
        guard ["text", "json", "markdown"].contains(format) else { throw UsageError("Unknown format '\(format)'; use text, json or markdown") }
        var asOf = try invocation.asOf(arguments)
        let location = try ContentLocation.find(from: invocation.directory)
        var from: String?
        var to: String?
        var title: String
        var oldAsOf: Day?
        if arguments.value("--env") != nil || arguments.value("--root") != nil {
            guard arguments.positionals.isEmpty else { throw UsageError("revisions and --env/--root cannot be used together") }
            let (root, _, name) = try ServeRootOptions.resolve(arguments, invocation)
            let live = try liveSide(root, name: name)
            // What is live shows the tables in force on its own date, as publish --dry-run compares.
            oldAsOf = live.asOf
            from = live.commit
            to = "HEAD"
            title = "\(name) (live \(live.release)) -> HEAD"
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
            title = "\(from ?? "work tree") -> \(to ?? "work tree")"
            // An environment name stands for what is live there, as of its own date.
            let environments = (try? Environments.all(from: invocation.directory)) ?? []
            if let name = from, let environment = environments.first(where: { $0.name == name }) {
                let live = try liveSide(try environment.target(), name: name)
                from = live.commit
                oldAsOf = live.asOf
                title = title.replacingOccurrences(of: name + " ->", with: "\(name) (live \(live.release)) ->")
            }
            if let name = to, let environment = environments.first(where: { $0.name == name }) {
                let live = try liveSide(try environment.target(), name: name)
                to = live.commit
                if arguments.value("--as-of") == nil, let day = live.asOf { asOf = day }
                title = title.replacingOccurrences(of: "-> " + name, with: "-> \(name) (live \(live.release))")
            }
        }
        let run = ValidationRun(location: location, context: ValidationContext(asOf: asOf), caches: invocation.caches)
        let diff = SemanticDiff.between(try run.content(at: from), try run.content(at: to), asOf: asOf, oldAsOf: oldAsOf)
        switch format {
        case "json": invocation.console.out(DiffFormatter.json(diff).serialized() + "\n")
        case "markdown": invocation.console.out(DiffFormatter.markdown(diff, title: title))
        default: invocation.console.out(DiffFormatter.text(diff, title: title, colour: invocation.console.outIsTerminal))
        }
        return RatecardCLI.ExitCode.ok
    }

    /// The live release of an environment: its id, source commit and as-of date.
    static func liveSide(_ root: any ReleaseStore, name: String) throws -> (release: String, commit: String, asOf: Day?) {
        guard let live = try root.live() else { throw ConflictError("nothing is live in \(name) yet") }
        let info = try root.info(of: live)
        guard let commit = info.sourceCommit else {
            throw ConflictError("live release \(live) was built from an uncommitted work tree; name revisions instead")
        }
        return (live, commit.hex, Day(info.asOf))
    }
}
