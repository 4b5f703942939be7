/// A failure of the machinery rather than of the content: I/O, permissions, git. Exit code 4.
public struct OperationalError: ErrorText, Sendable, Equatable, CustomStringConvertible {
    public var message: Message

    public init(_ message: Message) { self.message = message }

    public init(_ english: String, ko korean: Korean) { self.message = Message(english, ko: korean) }

    public var description: String { message.english }

    public var text: Message { message }
}

/// A conflict with another actor: the lock is held, or live is not what was expected. Exit code 3.
public struct ConflictError: ErrorText, Sendable, Equatable, CustomStringConvertible {
    public var message: Message

    public init(_ message: Message) { self.message = message }

    public init(_ english: String, ko korean: Korean) { self.message = Message(english, ko: korean) }

    public var description: String { message.english }

    public var text: Message { message }
}
