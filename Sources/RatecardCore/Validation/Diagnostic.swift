import RatecardSupport

/// One problem found in the content, at the value at fault.
public struct Diagnostic: Sendable, Equatable, Hashable {
    /// Path relative to the repository root.
    public var path: String
    public var mark: SourceMark
    public var rule: String
    public var severity: Rule.Severity
    /// What is wrong and what to do, in English and Korean.
    public var message: Message
    /// The commit that introduced the problem (`validate --range`), if known.
    public var commit: CommitStamp?
    /// The later commit of the range that fixed it (`validate --range`): history, not a
    /// problem at the range's end.
    public var fixedBy: CommitStamp?

    public init(path: String, mark: SourceMark, rule: Rule, message: Message) {
        self.path = path
        self.mark = mark
        self.rule = rule.id
        self.severity = rule.severity
        self.message = message
    }

    /// The identity of a problem across commits: the same rule at the same place with the same text.
    package var key: String { "\(path)\u{0}\(rule)\u{0}\(message.english)" }
}

/// A commit a problem is attributed to.
public struct CommitStamp: Sendable, Equatable, Hashable {
    public var id: ObjectID
    public var summary: String

    public init(id: ObjectID, summary: String) {
        self.id = id
        self.summary = summary
    }
}

extension Diagnostic: Comparable {
    public static func < (lhs: Diagnostic, rhs: Diagnostic) -> Bool {
        (lhs.path, lhs.mark, lhs.rule, lhs.message.english) < (rhs.path, rhs.mark, rhs.rule, rhs.message.english)
    }
}

private func < (lhs: (String, SourceMark, String, String), rhs: (String, SourceMark, String, String)) -> Bool {
    if lhs.0 != rhs.0 { return lhs.0 < rhs.0 }
    if lhs.1 != rhs.1 { return lhs.1 < rhs.1 }
    if lhs.2 != rhs.2 { return lhs.2 < rhs.2 }
    return lhs.3 < rhs.3
}
