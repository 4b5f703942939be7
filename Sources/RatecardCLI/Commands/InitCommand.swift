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
            throw ConflictError("\(arguments.positionals[0]) already exists and is not empty; choose a new folder")
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
        let repository = try Repository.create(at: target)
        let author = repository.configuredSignature() ?? Signature(name: "ratecard", email: "ratecard@localhost")
        let commit = try repository.commitAll(message: "Example content from ratecard init", author: author)
        invocation.console.out("Created a content repository in \(arguments.positionals[0]) (commit \(commit.short)).\nNext: cd \(arguments.positionals[0]) && ratecard validate\n")
        return RatecardCLI.ExitCode.ok
    }
}
