import RatecardSupport

/// A file that could not be read as strict YAML: the rule it breaks and where.
public struct YAMLError: ErrorText, Sendable, Equatable, CustomStringConvertible {
    public var rule: String
    public var mark: SourceMark
    public var message: Message

    public init(rule: String, mark: SourceMark, message: Message) {
        self.rule = rule
        self.mark = mark
        self.message = message
    }

    public var description: String { "\(mark): \(rule): \(message)" }

    public var text: Message { .verbatim("\(mark): \(rule): ") + message }
}
