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
        guard let message = arguments.value("-m"), !message.isEmpty else {
            throw UsageError("Missing expected option '-m <msg>': the commit message, saying what changed and why", ko: "'-m <msg>' 옵션이 필요합니다: 무엇을 왜 바꿨는지 적는 커밋 메시지입니다")
        }
        let location = try ContentLocation.find(from: invocation.directory)
        let repository = try location.requireRepository()
        guard let contentRoot = location.contentRoot else { throw OperationalError("save needs a work tree", ko: "save에는 작업 트리가 필요합니다") }
        let author: Signature
        if let text = arguments.value("--author") {
            let shape = UsageError("'--author' must look like \"Name <email>\"", ko: "'--author'는 \"이름 <email>\" 형식이어야 합니다")
            guard let open = text.firstIndex(of: "<"), text.hasSuffix(">") else { throw shape }
            let name = text[..<open].split(separator: " ").joined(separator: " ")
            let email = String(text[text.index(after: open)..<text.index(before: text.endIndex)])
            guard !name.isEmpty, email.contains("@") else { throw shape }
            author = Signature(name: name, email: email)
        } else if let configured = repository.configuredSignature() {
            author = configured
        } else {
            throw UsageError(
                "no author: pass --author \"Name <email>\" or set git config user.name and user.email",
                ko: "작성자가 없습니다: --author \"이름 <email>\"을 주거나 git config user.name과 user.email을 설정하세요")
        }
        let asOf = try invocation.asOf(arguments)
        let run = ValidationRun(location: location, context: ValidationContext(asOf: asOf), caches: invocation.caches)
        let snapshot = try run.snapshot(revision: nil)
        let style = invocation.reportStyle(location)
        if snapshot.report.hasErrors {
            invocation.console.out(ReportFormat.text.render(snapshot.report, version: RatecardCLI.version, style: style))
            invocation.error(Message("the content is invalid; nothing was committed", ko: "콘텐츠에 오류가 있어 아무것도 커밋하지 않았습니다"))
            return RatecardCLI.ExitCode.invalid
        }
        guard snapshot.dirty else {
            invocation.out(Message("Nothing to save: the content is the same as HEAD.\n", ko: "저장할 것이 없습니다: 콘텐츠가 HEAD와 같습니다.\n"))
            return RatecardCLI.ExitCode.ok
        }
        // Warnings do not block a save, but the person saving should see them.
        let warnings = snapshot.report.diagnostics.filter { $0.severity == .warning }
        if !warnings.isEmpty {
            var text = invocation.messages(Message("Warnings (they do not block the save):", ko: "경고 (저장을 막지는 않습니다):")) + "\n"
            var cache: [String: [Substring]] = [:]
            for warning in warnings {
                text += TextReport.line(warning, style: style) + "\n" + (style.snippet(warning.path, warning.mark, cache: &cache) ?? "")
            }
            invocation.console.out(text)
        }
        if let head = snapshot.commit {
            let before = try run.content(at: head.hex)
            invocation.console.out(
                DiffFormatter.text(
                    SemanticDiff.between(before, snapshot.content, asOf: asOf), title: Message("Saving", ko: "저장할 변경"), colour: invocation.console.outIsTerminal,
                    language: invocation.messages.language))
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
        invocation.out(
            Message(
                "Saved commit \(commit.short) by \(author.name) <\(author.email)>: \(message)\n",
                ko: "커밋 \(commit.short)을(를) 저장했습니다 (작성자 \(author.name) <\(author.email)>): \(message)\n"))
        return RatecardCLI.ExitCode.ok
    }
}
