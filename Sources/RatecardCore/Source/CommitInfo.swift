/// Facts about one commit, copied out of libgit2.
public struct CommitInfo: Sendable, Equatable {
    public var id: ObjectID
    public var parents: [ObjectID]
    public var authorName: String
    public var authorEmail: String
    /// Seconds since the epoch.
    public var time: Int64
    public var timeOffsetMinutes: Int
    public var message: String

    /// The first line of the message.
    public var summary: String {
        String(message.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }
}

/// Who a commit is by. A nil `time` means now.
public struct Signature: Sendable, Equatable {
    public var name: String
    public var email: String
    public var time: Int64?
    public var offsetMinutes: Int

    public init(name: String, email: String, time: Int64? = nil, offsetMinutes: Int = 0) {
        self.name = name
        self.email = email
        self.time = time
        self.offsetMinutes = offsetMinutes
    }
}
