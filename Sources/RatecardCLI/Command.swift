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
    public var run: @Sendable (ParsedArguments, Invocation) throws -> Int32

    public init(
        name: String, abstract: String, usage: String, options: [OptionSpec], positionals: ClosedRange<Int> = 0...0,
        discussion: String = "", run: @escaping @Sendable (ParsedArguments, Invocation) throws -> Int32
    ) {
        self.name = name
        self.abstract = abstract
        self.usage = usage
        self.options = options + [Command.directory, Command.help]
        self.positionals = positionals
        self.discussion = discussion
        self.run = run
    }

    static let directory = OptionSpec("-C", value: "DIR", "Run as if started in DIR")
    static let help = OptionSpec("--help", short: "-h", "Show help information")

    /// `OVERVIEW: / USAGE: / OPTIONS:` help text, as swift-argument-parser lays it out.
    public var helpText: String {
        var text = "OVERVIEW: \(abstract)\n\nUSAGE: ratecard \(name) \(usage)\n\nOPTIONS:\n"
        let labels = options.map { option -> String in
            var label = option.short.map { "\($0), " } ?? ""
            label += option.name
            if let value = option.value { label += " <\(value.lowercased())>" }
            return label
        }
        let width = (labels.map(\.count).max() ?? 0) + 2
        for (label, option) in zip(labels, options) {
            text += "  " + label + String(repeating: " ", count: width - label.count) + option.help + "\n"
        }
        if !discussion.isEmpty { text += "\n" + discussion + "\n" }
        return text
    }
}

/// What a running command can use: its console and the folder it runs in.
public struct Invocation {
    public var console: Console
    public var directory: String
    /// Seconds since the epoch, read once (the only clock a command uses).
    public var now: Double

    public init(console: Console, directory: String, now: Double) {
        self.console = console
        self.directory = directory
        self.now = now
    }
}
