import RatecardKit

/// The `ratecard` command line: a table of commands, parsing, help and exit codes.
public enum RatecardCLI {
    public static let version = "0.1.0"

    /// Every command, in the order `ratecard --help` lists them.
    public static let commands: [Command] = [
        InitCommand.command,
        ValidateCommand.command,
        RulesCommand.command,
        BuildCommand.command,
        PreviewCommand.command,
        DiffCommand.command,
        SaveCommand.command,
        LogCommand.command,
        HookCommand.command,
        PublishCommand.command,
        PromoteCommand.command,
        RollbackCommand.command,
        ServeRootCommands.status,
        ServeRootCommands.releases,
        ServeRootCommands.verify,
        ServeRootCommands.prune,
        ServeRootCommands.nginxConf,
        GenerateCommand.command,
    ]

    /// Exit codes (DESIGN.md): the contract scripts rely on.
    public enum ExitCode {
        public static let ok: Int32 = 0
        public static let invalid: Int32 = 1
        public static let usage: Int32 = 2
        public static let conflict: Int32 = 3
        public static let failure: Int32 = 4
    }

    /// Runs `ratecard` with `arguments` (without the program name) and returns the exit code.
    public static func run(_ arguments: [String], console: Console, directory: String, now: Double) -> Int32 {
        var arguments = arguments
        var directory = directory
        // `-C DIR` may also come before the command name, as with git.
        while arguments.count >= 2 && arguments[0] == "-C" {
            directory = resolve(arguments[1], against: directory)
            arguments.removeFirst(2)
        }
        guard let name = arguments.first else {
            console.err("Error: Missing expected command\n\nUsage: ratecard <command> [options]\n  See 'ratecard --help' for more information.\n")
            return ExitCode.usage
        }
        if name == "--help" || name == "-h" || name == "help" {
            if arguments.count > 1, let command = commands.first(where: { $0.name == arguments[1] }) {
                console.out(command.helpText)
            } else {
                console.out(overview)
            }
            return ExitCode.ok
        }
        if name == "--version" {
            console.out("ratecard \(version)\n")
            return ExitCode.ok
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            console.err("Error: Unknown command '\(name)'\n\nUsage: ratecard <command> [options]\n  See 'ratecard --help' for more information.\n")
            return ExitCode.usage
        }
        let rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            console.out(command.helpText)
            return ExitCode.ok
        }
        do {
            let parsed = try ParsedArguments.parse(rest, options: command.options, positionals: command.positionals)
            if let dir = parsed.value("-C") { directory = resolve(dir, against: directory) }
            return try command.run(parsed, Invocation(console: console, directory: directory, now: now))
        } catch let error as UsageError {
            console.err("Error: \(error.message)\n\nUsage: ratecard \(command.name) \(command.usage)\n  See 'ratecard \(command.name) --help' for more information.\n")
            return ExitCode.usage
        } catch let error as ApprovalGate.Refused {
            console.err("Error: \(error.description)\n")
            return ExitCode.invalid
        } catch let error as ConflictError {
            console.err("Error: \(error.message)\n")
            return ExitCode.conflict
        } catch {
            console.err("Error: \(error)\n")
            return ExitCode.failure
        }
    }

    static var overview: String {
        var text = "OVERVIEW: Validate, build and publish loan-comparison content from git.\n\nUSAGE: ratecard [-C <dir>] <command> [options]\n\nCOMMANDS:\n"
        let width = (commands.map(\.name.count).max() ?? 0) + 2
        for command in commands {
            text += "  " + command.name + String(repeating: " ", count: width - command.name.count) + command.abstract + "\n"
        }
        text += "\n  See 'ratecard <command> --help' for a command's options.\n\nEXIT CODES:\n  0 ok, 1 content invalid, 2 usage error, 3 conflict (lock held or live changed), 4 operational failure\n"
        return text
    }

    static func resolve(_ path: String, against directory: String) -> String {
        path.hasPrefix("/") ? path : directory + "/" + path
    }
}

extension Invocation {
    /// `--as-of DATE`, or today in Asia/Seoul.
    func asOf(_ arguments: ParsedArguments) throws(UsageError) -> Day {
        guard let text = arguments.value("--as-of") else { return Day.todayInSeoul(now: now) }
        guard let day = Day(text) else { throw UsageError("'--as-of' must be a date like 2026-01-31, not '\(text)'") }
        return day
    }
}
