import RatecardKit

/// One subcommand: its help and what it runs.
public struct Command: Sendable {
    public var name: String
    public var abstract: String
    /// The usage line after `ratecard NAME`.
    public var usage: String
    public var options: [OptionSpec]
    public var positionals: ClosedRange<Int>
    /// More help, shown below the options.
    public var discussion: String
    /// Words the first positional argument takes (`hook install`, `completion bash`), for completion.
    public var actions: [String]
    public var run: @Sendable (ParsedArguments, Invocation) throws -> Int32

    public init(
        name: String, abstract: String, usage: String, options: [OptionSpec], positionals: ClosedRange<Int> = 0...0,
        discussion: String = "", actions: [String] = [],
        run: @escaping @Sendable (ParsedArguments, Invocation) throws -> Int32
    ) {
        self.name = name
        self.abstract = abstract
        self.usage = usage
        self.options = options + Command.global
        self.positionals = positionals
        self.discussion = discussion
        self.actions = actions
        self.run = run
    }

    static let directory = OptionSpec("-C", value: "DIR", "Run as if started in DIR")
    static let language = OptionSpec("--lang", value: "LANG", "Language of messages: en or ko (default: from LC_ALL, LC_MESSAGES or LANG; English otherwise)")
    static let help = OptionSpec("--help", short: "-h", "Show help information")
    /// The options every command takes.
    static let global = [directory, language, help]

    /// Command lines to copy, each with what it does (`# ...`), shown last in its help.
    public var examples: [String] { CommandExamples.of(name) }

    /// The usage line after `ratecard NAME`: the written one, with any of the command's own
    /// options it leaves out appended, so that it always lists every option.
    public var usageLine: String {
        let missing = ownOptions.filter { option in
            !usage.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "-") }).contains { $0 == option.name }
        }
        let extra = missing.map { option in "[\(option.name)\(option.value.map { " <\($0.lowercased())>" } ?? "")]" }
        return ([usage] + extra).filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// The options only this command takes (what its usage line lists).
    public var ownOptions: [OptionSpec] { options.filter { option in !Command.global.contains { $0.name == option.name } } }

    /// `OVERVIEW: / USAGE: / OPTIONS:` help text, as swift-argument-parser lays it out.
    public var helpText: String { helpText(.en) }

    /// The help text in `language`: in Korean the headings, the overview, what each option does
    /// and the discussion are Korean (`CommandHelpKorean`); the usage line, the option names and
    /// the examples stay as typed.
    public func helpText(_ language: Language) -> String {
        let korean = language == .ko ? CommandHelpKorean.of(name) : nil
        let heading = { (en: String, ko: String) in korean == nil ? en : ko }
        var text = "\(heading("OVERVIEW", "개요")): \(korean?.abstract ?? abstract)\n\n\(heading("USAGE", "사용법")): ratecard \(name) \(usageLine)\n\n"
        text += "\(heading("OPTIONS", "옵션")):\n"
        let labels = options.map { option -> String in
            var label = option.short.map { "\($0), " } ?? ""
            label += option.name
            if let value = option.value { label += " <\(value.lowercased())>" }
            return label
        }
        let width = (labels.map(\.count).max() ?? 0) + 2
        for (label, option) in zip(labels, options) {
            let help = korean == nil ? option.help : CommandHelpKorean.option(option.name, of: name) ?? option.help
            text += "  " + label + String(repeating: " ", count: width - label.count) + help + "\n"
        }
        if !discussion.isEmpty { text += "\n" + (korean.map { $0.discussion ?? discussion } ?? discussion) + "\n" }
        if !examples.isEmpty {
            text += "\n\(heading("EXAMPLES", "예")):\n" + examples.map { "  " + $0 + "\n" }.joined()
        }
        return text + "\n" + RatecardCLI.ExitCode.helpSection(korean == nil ? .en : .ko)
    }
}

/// What a running command can use: its console and the folder it runs in.
public struct Invocation {
    public var console: Console
    public var directory: String
    /// Seconds since the epoch, read once (the only clock a command uses).
    public var now: Double
    /// The language of messages.
    public var messages: Messages
    /// The run's caches (`RATECARD_CACHE`, `RATECARD_CACHE_DIR`, `RATECARD_CACHE_MAX_MB`),
    /// given to what loads, checks and renders.
    public var caches: Caches
    /// The process environment (`PATH`, the locale), as the command line was given it.
    public var environment: [String: String]
    /// ratecard.yaml, read the first time the command asks for it and never again.
    private let settingsOnce = SettingsOnce()

    public init(
        console: Console, directory: String, now: Double, messages: Messages = .english, caches: Caches, environment: [String: String] = ProcessEnvironment.current
    ) {
        self.console = console
        self.directory = directory
        self.now = now
        self.messages = messages
        self.caches = caches
        self.environment = environment
    }

    /// `message` on stdout, in the chosen language.
    func out(_ message: Message) { console.out(messages(message)) }

    /// `message` on stderr, in the chosen language.
    func err(_ message: Message) { console.err(messages(message)) }

    /// `Error: message` on stderr (the word in colour on a terminal).
    func error(_ message: Message) {
        let label = messages(Messages.error)
        console.err((console.decoratesErr ? "\u{1B}[1;31m\(label)\u{1B}[0m" : label) + ": " + messages(message) + "\n")
    }

    /// `warning: message` on stderr.
    func warning(_ message: Message) { console.err(messages.warning(message)) }

    /// ratecard.yaml of the content found from `directory` (read once per command), or nil
    /// when no content folder is found; throws when the file is there but does not read.
    func settings() throws -> ServiceSettings? {
        try settingsOnce.settings(from: directory)
    }

    /// Like `settings()`, but the content folder must be there (`--env` names an environment of it).
    func requiredSettings() throws -> ServiceSettings {
        try settingsOnce.required(from: directory)
    }

    /// How a validation report is printed to stdout here: in the chosen language, and
    /// decorated (source line, caret, colour) when stdout is a terminal.
    func reportStyle(_ location: ContentLocation?, commit: ObjectID? = nil) -> ReportStyle {
        var style = ReportStyle(messages: messages, decorated: console.decoratesOut)
        guard style.decorated, let location else { return style }
        // Source lines come only from regular files within the size limits: a file refused for
        // its size (or a symlink to /dev/zero) is never read to show a line of it.
        let limit = max(SourceText.maxBytes, AssetRules.maxBytes)
        style.source = { path in
            if let commit, let repository = location.repository {
                return repository.file(at: path, in: commit, maxBytes: limit).map { String(decoding: $0, as: UTF8.self) }
            }
            let full = (location.repository?.workdir ?? location.contentDir ?? "") + "/" + path
            guard (try? FileSystem.kind(ofItemAt: full)) == .file, let size = try? FileSystem.size(ofFileAt: full), size <= limit else { return nil }
            return (try? FileSystem.readFile(full)).map { String(decoding: $0, as: UTF8.self) }
        }
        return style
    }
}
