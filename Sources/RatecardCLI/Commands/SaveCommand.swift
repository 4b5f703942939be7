import RatecardKit

/// `ratecard save`: validate the work tree, show what changed, and commit only the content.
enum SaveCommand {
    static let command = Command(
        name: "save",
        abstract: "Validate the content, show the semantic diff, and commit only the content changes.",
        usage: "-m <msg> [--author <\"name <email>\">] [--as-of <date>]",
        options: [
            OptionSpec("-m", value: "MSG", "The commit message (required)"),
            OptionSpec("--author", value: "AUTHOR", "\"Name <email>\" (default: git config user.name and user.email)"),
            OptionSpec("--as-of", value: "DATE", "The date that decides what is current (default: today in Asia/Seoul)"),
        ],
        discussion: "Invalid content is refused with exit 1 and no commit; warnings are printed and do not block the save.\nFiles outside the content folder are never committed.",
        run: run)

    static func run(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        guard let message = arguments.value("-m"), !message.isEmpty else { throw UsageError("Missing expected option '-m <msg>'") }
        let location = try ContentLocation.find(from: invocation.directory)
        let repository = try location.requireRepository()
        guard let contentRoot = location.contentRoot else { throw OperationalError("save needs a work tree") }
        let author: Signature
        if let text = arguments.value("--author") {
            guard let open = text.firstIndex(of: "<"), text.hasSuffix(">") else { throw UsageError("'--author' must look like \"Name <email>\"") }
            let name = text[..<open].split(separator: " ").joined(separator: " ")
            let email = String(text[text.index(after: open)..<text.index(before: text.endIndex)])
            guard !name.isEmpty, email.contains("@") else { throw UsageError("'--author' must look like \"Name <email>\"") }
            author = Signature(name: name, email: email)
        } else if let configured = repository.configuredSignature() {
            author = configured
        } else {
            throw UsageError("no author: pass --author \"Name <email>\" or set git config user.name and user.email")
        }
        let asOf = try invocation.asOf(arguments)
        let run = ValidationRun(location: location, context: ValidationContext(asOf: asOf), caches: invocation.caches)
        let snapshot = try run.snapshot(revision: nil)
        let style = invocation.reportStyle(location)
        if snapshot.report.hasErrors {
            invocation.console.out(ReportFormat.text.render(snapshot.report, version: RatecardCLI.version, style: style))
            invocation.console.err("Error: the content is invalid; nothing was committed\n")
            return RatecardCLI.ExitCode.invalid
        }
        guard snapshot.dirty else {
            invocation.console.out("Nothing to save: the content is the same as HEAD.\n")
            return RatecardCLI.ExitCode.ok
        }
        // Warnings do not block a save, but the person saving should see them.
        let warnings = snapshot.report.localized(invocation.messages).diagnostics.filter { $0.severity == .warning }
        if !warnings.isEmpty {
            var text = invocation.messages.word("Warnings (they do not block the save):") + "\n"
            var cache: [String: [Substring]] = [:]
            for warning in warnings {
                text += TextReport.line(warning, style: style) + "\n" + (style.snippet(warning.path, warning.mark, cache: &cache) ?? "")
            }
            invocation.console.out(text)
        }
        if let head = snapshot.commit {
            let before = try run.content(at: head.hex)
            invocation.console.out(DiffFormatter.text(SemanticDiff.between(before, snapshot.content, asOf: asOf), title: "Saving", colour: invocation.console.outIsTerminal))
        }
        // Stage exactly the content files: present ones, and committed ones that were deleted.
        var paths = Set(try snapshot.source.entries().map { contentRoot.path($0.path) })
        if let head = snapshot.commit, let committed = try repository.treeEntries(commit: head, under: contentRoot.treePath) {
            for entry in committed where !entry.path.split(separator: "/").contains(where: { $0.hasPrefix(".") }) {
                paths.insert(contentRoot.path(entry.path))
            }
        }
        try repository.stage(paths: paths.sorted())
        let commit = try repository.commitStaged(message: message, author: author)
        invocation.console.out("Saved commit \(commit.short) by \(author.name) <\(author.email)>: \(message)\n")
        return RatecardCLI.ExitCode.ok
    }
}
