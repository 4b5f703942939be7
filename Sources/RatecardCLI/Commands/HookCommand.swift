import Glibc
import RatecardKit

/// `ratecard hook install`: a git pre-commit hook that validates what is staged.
enum HookCommand {
    static let command = Command(
        name: "hook",
        abstract: "Install a git pre-commit hook that validates the staged content and blocks bad commits.",
        usage: "install",
        options: [],
        positionals: 1...1,
        run: run)

    static func run(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        guard arguments.positionals[0] == "install" else { throw UsageError("Unknown hook action '\(arguments.positionals[0])'; use 'install'") }
        let location = try ContentLocation.find(from: invocation.directory)
        let repository = try location.requireRepository()
        guard let contentDir = location.contentDir else { throw OperationalError("hook install needs a work tree") }
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { throw FileSystem.failure("readlink", "/proc/self/exe") }
        let binary = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let hooks = repository.gitDir + "/hooks"
        try FileSystem.makeDirectories(hooks)
        let hook = hooks + "/pre-commit"
        if FileSystem.exists(hook) {
            let existing = String(decoding: try FileSystem.readFile(hook), as: UTF8.self)
            guard existing.contains("ratecard hook install") else {
                throw OperationalError("\(hook) already exists and was not written by ratecard; merge it by hand")
            }
        }
        let script = """
            #!/bin/sh
            # Written by 'ratecard hook install': validate what is staged; errors block the commit.
            exec '\(binary)' -C '\(contentDir)' validate --staged

            """
        try DurableFiles.replace(hook, Array(script.utf8))
        chmod(hook, 0o755)
        invocation.console.out("Installed \(hook): commits now run 'ratecard validate --staged'.\n")
        return RatecardCLI.ExitCode.ok
    }
}
