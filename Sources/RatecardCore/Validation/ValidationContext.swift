/// What a check needs besides the content: the date to judge "current" by.
public struct ValidationContext: Sendable {
    /// The date (Asia/Seoul) that decides which rate tables and terms versions are current.
    public var asOf: Day
    /// The day the change under check was made (a commit's date), when it is not the as-of
    /// date: a table dated before it was backdated (HIS-09), one dated after it was scheduled,
    /// whatever day the commit is validated on. Nil for the work tree: the as-of date.
    public var changeDay: Day?

    public init(asOf: Day, changeDay: Day? = nil) {
        self.asOf = asOf
        self.changeDay = changeDay
    }

    /// The context for checking one commit: its change was made on the commit's day.
    public func forCommit(_ info: CommitInfo) -> ValidationContext {
        ValidationContext(asOf: asOf, changeDay: Day.todayInSeoul(now: Double(info.time)))
    }
}
