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
        discussion: """
            The hook runs 'ratecard validate --staged' on the content folder. It finds ratecard through $RATECARD,
            then on PATH, then (when this ratecard lives inside the repository) at the same path relative to the
            repository, so the hook keeps working after a rebuild, a move or a fresh clone; it never records an
            absolute build path.
            """,
        actions: ["install"],
        run: run)

    static func run(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        guard arguments.positionals[0] == "install" else {
            let action = arguments.positionals[0]
            throw UsageError("Unknown hook action '\(action)'; use 'install'", ko: "알 수 없는 hook 동작 '\(action)'; 'install'을 쓰세요")
        }
        let location = try ContentLocation.find(from: invocation.directory)
        let repository = try location.requireRepository()
        guard let contentRoot = location.contentRoot, let workdir = repository.workdir else { throw OperationalError("hook install needs a work tree", ko: "hook install에는 작업 트리가 필요합니다") }
        let hooks = repository.gitDir + "/hooks"
        try FileSystem.makeDirectories(hooks)
        let hook = hooks + "/pre-commit"
        if FileSystem.exists(hook) {
            let existing = String(decoding: try FileSystem.readFile(hook), as: UTF8.self)
            guard existing.contains("ratecard hook install") else {
                throw ConflictError("\(hook) already exists and was not written by ratecard; merge it by hand", ko: "\(hook)이(가) 이미 있고 ratecard가 쓴 것이 아닙니다; 손으로 합치세요")
            }
        }
        let script = Self.script(contentPrefix: contentRoot.treePath, inRepository: try binaryInside(workdir))
        try DurableFiles.replace(hook, Array(script.utf8))
        chmod(hook, 0o755)
        invocation.out(
            Message("Installed \(hook): commits now run 'ratecard validate --staged'.\n", ko: "\(hook)을(를) 설치했습니다: 이제 커밋할 때마다 'ratecard validate --staged'를 실행합니다.\n"))
        return RatecardCLI.ExitCode.ok
    }

    /// This executable's path relative to the work tree `root`, when it lives inside it.
    static func binaryInside(_ root: String) throws -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let binary = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let top = (try? FileSystem.realPath(root)) ?? root
        guard binary.hasPrefix(top + "/") else { return nil }
        return String(binary.dropFirst(top.count + 1))
    }

    /// The hook: paths are relative to the top of the work tree, each quoted for sh.
    static func script(contentPrefix: String, inRepository binary: String?) -> String {
        let content = contentPrefix.isEmpty ? "\"$top\"" : "\"$top\"/\(quote(contentPrefix))"
        var find = """
            if [ -n "${RATECARD:-}" ]; then
                ratecard=$RATECARD
            elif command -v ratecard >/dev/null 2>&1; then
                ratecard=ratecard

            """
        if let binary {
            find += """
                elif [ -x "$top"/\(quote(binary)) ]; then
                    ratecard="$top"/\(quote(binary))

                """
        }
        find += """
            else
                case "${LC_ALL:-${LC_MESSAGES:-${LANG:-}}}" in
                    ko*) echo "pre-commit: PATH에서 ratecard를 찾지 못했습니다; 설치하거나 RATECARD에 그 경로를 지정하세요" >&2 ;;
                    *) echo "pre-commit: ratecard was not found on PATH; install it, or set RATECARD to its path" >&2 ;;
                esac
                exit 1
            fi

            """
        return """
            #!/bin/sh
            # Written by 'ratecard hook install': validate what is staged; errors block the commit.
            # ratecard is found through $RATECARD, then PATH\(binary == nil ? "" : ", then its place in this repository").
            top=$(git rev-parse --show-toplevel) || exit 1
            \(find)exec "$ratecard" -C \(content) validate --staged

            """
    }

    /// `text` as one sh word in single quotes (a quote inside becomes `'\''`).
    static func quote(_ text: String) -> String {
        "'" + text.replacingAll("'", "'\\''") + "'"
    }
}
