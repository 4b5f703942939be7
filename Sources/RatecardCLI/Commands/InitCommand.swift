import RatecardKit

/// `ratecard init DIR`: a new content repository holding the example content, committed.
enum InitCommand {
    static let command = Command(
        name: "init",
        abstract: "Create a new content repository with the example content and a first commit.",
        usage: "<dir>",
        options: [],
        positionals: 1...1,
        discussion: "DIR must not exist yet, or be empty. The commit uses your git identity, or 'ratecard <ratecard@localhost>' when none is configured.",
        run: run)

    static func run(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        let target = RatecardCLI.resolve(arguments.positionals[0], against: invocation.directory)
        if FileSystem.exists(target), try !FileSystem.listDirectory(target).isEmpty {
            throw ConflictError("\(arguments.positionals[0]) already exists and is not empty; choose a new folder", ko: "\(arguments.positionals[0])이(가) 이미 있고 비어 있지 않습니다; 새 폴더를 고르세요")
        }
        let example = try ExampleContent.folder(environment: ProcessEnvironment.current)
        try FileSystem.copyTree(from: example, to: target)
        // The web app beside the content, named in ratecard.yaml, so preview and publish work at
        // once; the preview folder is never committed.
        let site = try ExampleContent.webBuild(besides: example)
        try FileSystem.copyTree(from: site, to: target + "/site")
        let config = target + "/ratecard.yaml"
        var text = String(decoding: try FileSystem.readFile(config), as: UTF8.self)
        if let line = text.split(separator: "\n", omittingEmptySubsequences: false).first(where: { $0.hasPrefix("web:") }) {
            text = text.replacingOccurrences(of: String(line), with: "web: site                       # the web app's build, inside this repository")
        } else {
            text += "web: site\n"
        }
        try FileSystem.writeFile(config, Array(text.utf8))
        try FileSystem.writeFile(target + "/.gitignore", Array(".preview/\n".utf8))
        // The editor's schemas, mapped for the YAML language server (docs/editing.md).
        try SchemaCommand.writeEditorSetup(in: target)
        let repository = try Repository.create(at: target)
        let author = repository.configuredSignature() ?? Signature(name: "ratecard", email: "ratecard@localhost")
        let commit = try repository.commitAll(
            message: invocation.messages(Message("Example content from ratecard init", ko: "ratecard init으로 만든 예제 콘텐츠")), author: author)
        // The next step names ratecard as a shell can run it: by its path when it is not on PATH.
        let folder = arguments.positionals[0]
        let name = CommandName.current(environment: invocation.environment)
        let next = "cd \(CommandName.shellWord(folder)) && \(name.typed) validate"
        invocation.out(
            Message(
                "Created a content repository in \(folder) (commit \(commit.short)).\nNext: \(next)\n",
                ko: "\(folder)에 콘텐츠 저장소를 만들었습니다 (커밋 \(commit.short)).\n다음 단계: \(next)\n"))
        if let hint = name.pathHint { invocation.out(hint + .verbatim("\n")) }
        return RatecardCLI.ExitCode.ok
    }
}
