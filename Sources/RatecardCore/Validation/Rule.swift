import RatecardSupport

/// A validation rule: a stable id, a severity, what it checks and why it exists, in English and
/// Korean.
public struct Rule: Sendable, Hashable {
    public enum Severity: String, Sendable, Hashable, Comparable {
        case error
        case warning

        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs == .error && rhs == .warning }
    }

    public var id: String
    public var severity: Severity
    /// What the rule checks, in a few words.
    public var title: Message
    /// Why it exists, in one line (with the legal basis where there is one).
    public var rationale: Message

    /// A rule with its title and rationale in English, then (`ko:`) in Korean.
    public init(_ id: String, _ severity: Severity, _ title: String, _ rationale: String, ko koreanTitle: Korean, _ koreanRationale: Korean) {
        self.id = id
        self.severity = severity
        self.title = Message(title, ko: koreanTitle)
        self.rationale = Message(rationale, ko: koreanRationale)
    }
}

extension Rule {
    /// Every rule, in the order `ratecard rules` lists them.
    public static let all: [Rule] =
        FileRules.all + SchemaRules.all + ReferenceRules.all + AssetRules.all + CapRules.all + RangeRules.all
        + BandRules.all + DateRules.all + DisclosureRules.all + ProductDisclosureRules.all + StatisticRules.all + HistoryRules.all
        + BridgeRules.all

    /// Looks a rule up by id.
    public static func named(_ id: String) -> Rule? { all.first { $0.id == id } }
}
