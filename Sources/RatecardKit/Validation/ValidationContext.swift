/// What a check needs besides the content: the date to judge "current" by.
public struct ValidationContext: Sendable {
    /// The date (Asia/Seoul) that decides which rate tables and terms versions are current.
    public var asOf: Day

    public init(asOf: Day) { self.asOf = asOf }
}
