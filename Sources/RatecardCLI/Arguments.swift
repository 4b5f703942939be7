import RatecardKit

/// One option a command accepts: `--name VALUE` (when `value` is set) or a `--name` flag.
public struct OptionSpec: Sendable {
    public var name: String
    public var short: String?
    public var value: String?
    public var help: String

    public init(_ name: String, short: String? = nil, value: String? = nil, _ help: String) {
        self.name = name
        self.short = short
        self.value = value
        self.help = help
    }
}

/// What was given on the command line, checked against a command's options.
public struct ParsedArguments: Sendable, Equatable {
    public var values: [String: String] = [:]
    public var flags: Set<String> = []
    public var positionals: [String] = []
    /// Every value of an option given more than once (`--signing-key A --signing-key B`), in order.
    public var repeated: [String: [String]] = [:]

    public func value(_ name: String) -> String? { values[name] }
    public func values(_ name: String) -> [String] { repeated[name] ?? [] }
    public func has(_ flag: String) -> Bool { flags.contains(flag) }

    /// Parses `arguments` (without the command name): `--opt value`, `--opt=value`, `-x value`,
    /// `--flag`, and `--` to end options. Pure: no I/O.
    public static func parse(_ arguments: [String], options: [OptionSpec], positionals range: ClosedRange<Int>) throws(UsageError) -> ParsedArguments {
        var result = ParsedArguments()
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
                result.positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            var name = argument
            var inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            guard let spec = options.first(where: { $0.name == name || ($0.short != nil && $0.short == name) }) else {
                var error = UsageError("Unknown option '\(name)'", ko: "알 수 없는 옵션 '\(name)'")
                error.message = error.message.then(suggestion(for: name, in: options))
                throw error
            }
            if let placeholder = spec.value {
                if let inline {
                    result.values[spec.name] = inline
                    result.repeated[spec.name, default: []].append(inline)
                } else if index < arguments.count {
                    result.values[spec.name] = arguments[index]
                    result.repeated[spec.name, default: []].append(arguments[index])
                    index += 1
                } else {
                    throw UsageError("Missing value for '\(spec.name) <\(placeholder.lowercased())>'", ko: "'\(spec.name) <\(placeholder.lowercased())>'에 값이 없습니다")
                }
            } else {
                if inline != nil { throw UsageError("'\(spec.name)' takes no value", ko: "'\(spec.name)'에는 값을 줄 수 없습니다") }
                result.flags.insert(spec.name)
            }
        }
        if result.positionals.count < range.lowerBound {
            throw range.lowerBound == 1
                ? UsageError("Missing expected argument", ko: "필요한 인자가 없습니다") : UsageError("Missing expected arguments", ko: "필요한 인자가 없습니다")
        }
        if result.positionals.count > range.upperBound {
            throw UsageError("Unexpected argument '\(result.positionals[range.upperBound])'", ko: "예상하지 못한 인자 '\(result.positionals[range.upperBound])'")
        }
        return result
    }

    /// The long words one-letter options stand for, as git and most tools spell them: what a
    /// user who types the long form means (`--message` is `-m`).
    static let longWords = ["-m": ["message", "msg"], "-C": ["directory", "dir"], "-h": ["help"]]

    /// "did you mean ...?" for an unknown option: the options whose long spelling is close to
    /// it (`--limt`: `--limit`; `--mesage`: `-m`), or for an unknown one-letter option the long
    /// options it begins (`-e`: `--env`); nil when none is close.
    static func suggestion(for name: String, in options: [OptionSpec]) -> Message? {
        let word = String(name.drop { $0 == "-" })
        guard !word.isEmpty else { return nil }
        // Each option under every spelling it may be meant by: its long name, the long word a
        // one-letter option stands for.
        var spellings: [String: String] = [:]
        for option in options {
            for form in [option.name, option.short].compactMap({ $0 }) {
                if form.hasPrefix("--") { spellings[String(form.dropFirst(2))] = spellings[String(form.dropFirst(2))] ?? option.name }
                for long in longWords[form] ?? [] { spellings[long] = spellings[long] ?? option.name }
            }
        }
        let meant: [String]
        if !name.hasPrefix("--"), word.count == 1 {
            meant = options.filter { $0.name.hasPrefix("--" + word) }.map(\.name).sorted()
        } else if let exact = spellings[word] {
            // The right word with the wrong dashes (`-limit`), or the long form of `-m`.
            meant = [exact]
        } else {
            meant = Suggestion.nearest(word, in: Array(spellings.keys)).compactMap { spellings[$0] }
        }
        var seen: Set<String> = []
        let unique = meant.filter { seen.insert($0).inserted }.prefix(3)
        guard !unique.isEmpty else { return nil }
        let quoted = unique.map { "'\($0)'" }
        return Message("did you mean \(quoted.joined(separator: " or "))?", ko: "혹시 \(quoted.joined(separator: " 또는 "))을(를) 뜻했습니까?")
    }
}
