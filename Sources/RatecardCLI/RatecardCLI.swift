import RatecardKit

/// The `ratecard` command line: a table of commands, parsing, help and exit codes.
public enum RatecardCLI {
    public static let version = "0.1.0"

    /// Every command, in the order `ratecard --help` lists them.
    public static let commands: [Command] = [
        InitCommand.command,
        ValidateCommand.command,
        RulesCommand.command,
        SchemaCommand.command,
        BuildCommand.command,
        PreviewCommand.command,
        DiffCommand.command,
        SaveCommand.command,
        LogCommand.command,
        ShowCommand.command,
        HookCommand.command,
        PublishCommand.command,
        PromoteCommand.command,
        RollbackCommand.command,
        RolloutCommand.command,
        SigningKeys.keys,
        SigningKeys.sign,
        ServeRootCommands.status,
        ServeRootCommands.releases,
        ServeRootCommands.verify,
        ServeRootCommands.prune,
        ServeRootCommands.repair,
        ServeRootCommands.nginxConf,
        ServeCommand.command,
        BridgeCommand.command,
        FetchCommand.command,
        GenerateCommand.command,
        VersionCommand.command,
        CompletionCommand.command,
    ]

    /// Exit codes (DESIGN.md): the contract scripts rely on, by cause. Errors carry their cause
    /// in their type: `RefusedError` (and a gate's refusal) 1, `UsageError` 2, `ConflictError` 3,
    /// `OperationalError` and anything else 4.
    public enum ExitCode {
        public static let ok: Int32 = 0
        /// Refused for what the input is.
        public static let invalid: Int32 = 1
        public static let usage: Int32 = 2
        /// Refused for the state of the target.
        public static let conflict: Int32 = 3
        /// Operational failure.
        public static let failure: Int32 = 4

        /// What each code means, in one place: every command's `--help` ends with it, and the
        /// README holds it as a table (a test keeps them the same).
        public static let table: [(code: Int32, meaning: String)] = [
            (ok, "ok"),
            (
                invalid,
                "refused for what the input is: content invalid, a gate refused it (approval, bridge, uncommitted changes, a date before the live release's), a release that no longer matches its version.json, or verify found drift"
            ),
            (usage, "usage error: an unknown command, option, environment, revision, release or key, or a value missing or malformed"),
            (
                conflict,
                "refused for the state of the target: the lock is held, live is not what --expect-live said, the rollback target is marked bad or already live, the bundle to publish or promote is a release's marked bad, nothing to roll back to (or nothing live to verify, diff, promote or serve), a staged rollout in progress (or none for rollout), a folder to write into is not empty"
            ),
            (
                failure,
                "operational failure: I/O (a file or folder missing or unreadable, disk full), permissions, git, object storage refused or unreachable, or a check that could not run (history rules in a shallow clone)"
            ),
        ]

        /// Said under the table.
        public static let note = "With 1, 3 and 4 the live release is unchanged."

        /// The table as `--help` shows it: each meaning wrapped under its code.
        public static var helpSection: String {
            var text = "EXIT CODES:\n"
            for (code, meaning) in table {
                var line = "  \(code)  "
                for word in meaning.split(separator: " ") {
                    if line.count + word.count + 1 > 100, !line.hasSuffix("  ") {
                        text += line + "\n"
                        line = "     "
                    }
                    line += (line.hasSuffix(" ") ? "" : " ") + word
                }
                text += line + "\n"
            }
            return text + "  " + note + "\n"
        }
    }

    /// Runs `ratecard` with `arguments` (without the program name) and returns the exit code.
    public static func run(_ arguments: [String], console: Console, directory: String, now: Double) -> Int32 {
        run(arguments, console: console, directory: directory, now: now, environment: ProcessEnvironment.current)
    }

    /// The same, with the environment that decides the language of messages given.
    public static func run(_ arguments: [String], console: Console, directory: String, now: Double, environment: [String: String]) -> Int32 {
        var arguments = arguments
        var directory = directory
        // `--lang` may come anywhere before `--`: it decides how even a usage error is worded.
        let languageArgument = extractLanguage(&arguments)
        let messages: Messages
        switch Result(catching: { () throws(UsageError) in try Language.resolve(argument: languageArgument.value, environment: environment) }) {
        case .success(let language): messages = Messages(language)
        case .failure(let error):
            usageError(error, usage: "ratecard <command> [options]", help: "ratecard", console: console, messages: .english)
            return ExitCode.usage
        }
        if let error = languageArgument.error {
            usageError(error, usage: "ratecard <command> [options]", help: "ratecard", console: console, messages: messages)
            return ExitCode.usage
        }
        // `-C DIR` may also come before the command name, as with git.
        while arguments.count >= 2 && arguments[0] == "-C" {
            directory = resolve(arguments[1], against: directory)
            arguments.removeFirst(2)
        }
        guard let name = arguments.first else {
            usageError(
                UsageError("Missing expected command", ko: "명령이 없습니다"), usage: "ratecard <command> [options]", help: "ratecard", console: console, messages: messages)
            return ExitCode.usage
        }
        if name == "--help" || name == "-h" || name == "help" {
            if arguments.count > 1, let command = commands.first(where: { $0.name == arguments[1] }) {
                console.out(command.helpText(messages.language))
            } else {
                console.out(overview(messages.language))
            }
            return ExitCode.ok
        }
        if name == "--version" {
            console.out(VersionCommand.text)
            return ExitCode.ok
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            var error = UsageError("Unknown command '\(name)'", ko: "알 수 없는 명령 '\(name)'")
            error.message = error.message.then(Suggestion.didYouMean(name, in: commands.map(\.name)))
            usageError(error, usage: "ratecard <command> [options]", help: "ratecard", console: console, messages: messages)
            return ExitCode.usage
        }
        let rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            console.out(command.helpText(messages.language))
            return ExitCode.ok
        }
        let fail = { (text: Message) in
            let label = messages(Messages.error)
            console.err((console.decoratesErr ? "\u{1B}[1;31m\(label)\u{1B}[0m" : label) + ": " + messages(text) + "\n")
        }
        do {
            Trace.mark("\(command.name): started")
            let parsed = try ParsedArguments.parse(rest, options: command.options, positionals: command.positionals)
            if let dir = parsed.value("-C") { directory = resolve(dir, against: directory) }
            // The run's caches, made once; new build cache entries are written when it ends.
            let caches = Caches(environment: environment) { message in
                Console.standard().err(messages.warning(message))
            }
            defer {
                caches.finish()
                caches.keepUntilExit()
            }
            // Long work shows its progress on a terminal, never in a pipe or with JSON output.
            if Self.showsProgress.contains(command.name), console.decoratesErr, parsed.value("--format") != "json" {
                Progress.begin("ratecard \(command.name)")
            }
            defer { Progress.end() }
            return try command.run(parsed, Invocation(console: console, directory: directory, now: now, messages: messages, caches: caches, environment: environment))
        } catch let error as UsageError {
            usageError(error, usage: "ratecard \(command.name) \(command.usageLine)", help: "ratecard \(command.name)", console: console, messages: messages)
            return ExitCode.usage
        } catch let error as ApprovalGate.Refused {
            fail(error.text)
            return ExitCode.invalid
        } catch let error as RefusedError {
            fail(error.message)
            return ExitCode.invalid
        } catch let error as ConflictError {
            fail(error.message)
            return ExitCode.conflict
        } catch {
            fail(Message.of(error))
            return ExitCode.failure
        }
    }

    /// `Error: ...`, the usage line and a pointer to `--help`, on stderr.
    static func usageError(_ error: UsageError, usage: String, help: String, console: Console, messages: Messages) {
        let label = messages(Messages.error)
        let painted = console.decoratesErr ? "\u{1B}[1;31m\(label)\u{1B}[0m" : label
        console.err("\(painted): \(messages(error.message))\n\n\(messages(Messages.usage)): \(usage)\n  \(messages.seeHelp(help))\n")
    }

    /// Takes `--lang VALUE` / `--lang=VALUE` out of `arguments` (before a `--`).
    static func extractLanguage(_ arguments: inout [String]) -> (value: String?, error: UsageError?) {
        var value: String?
        var index = 0
        while index < arguments.count, arguments[index] != "--" {
            if arguments[index] == "--lang" {
                guard index + 1 < arguments.count else {
                    arguments.remove(at: index)
                    return (value, UsageError("Missing value for '--lang <lang>'", ko: "'--lang <lang>'에 값이 없습니다"))
                }
                value = arguments[index + 1]
                arguments.removeSubrange(index...index + 1)
            } else if arguments[index].hasPrefix("--lang=") {
                value = String(arguments[index].dropFirst("--lang=".count))
                arguments.remove(at: index)
            } else {
                index += 1
            }
        }
        return (value, nil)
    }

    /// The commands whose work can take seconds on a large content repository.
    static let showsProgress: Set<String> = ["build", "preview", "publish", "promote", "generate"]

    static var overview: String { overview(.en) }

    /// `ratecard --help` in `language` (the commands' overviews in Korean from `CommandHelpKorean`).
    static func overview(_ language: Language) -> String {
        let ko = language == .ko
        var text =
            ko
            ? "개요: git의 대출 비교 콘텐츠를 검사하고, 빌드하고, 게시합니다.\n\n사용법: ratecard [-C <dir>] [--lang <lang>] <command> [options]\n\n명령:\n"
            : "OVERVIEW: Validate, build and publish loan-comparison content from git.\n\nUSAGE: ratecard [-C <dir>] [--lang <lang>] <command> [options]\n\nCOMMANDS:\n"
        let width = (commands.map(\.name.count).max() ?? 0) + 2
        for command in commands {
            let abstract = ko ? CommandHelpKorean.of(command.name)?.abstract ?? command.abstract : command.abstract
            text += "  " + command.name + String(repeating: " ", count: width - command.name.count) + abstract + "\n"
        }
        text += ko ? "\n  명령의 옵션은 'ratecard <command> --help'에서 볼 수 있습니다.\n\n" : "\n  See 'ratecard <command> --help' for a command's options.\n\n"
        return text + ExitCode.helpSection(language)
    }

    static func resolve(_ path: String, against directory: String) -> String {
        path.hasPrefix("/") ? path : directory + "/" + path
    }
}

extension Invocation {
    /// `--as-of DATE`, or today in Asia/Seoul.
    func asOf(_ arguments: ParsedArguments) throws(UsageError) -> Day {
        guard let text = arguments.value("--as-of") else { return Day.todayInSeoul(now: now) }
        guard let day = Day(text) else { throw UsageError("'--as-of' must be a date like 2026-01-31, not '\(text)'", ko: "'--as-of'에는 2026-01-31 같은 날짜를 써야 합니다 (지금 값: '\(text)')") }
        return day
    }
}
