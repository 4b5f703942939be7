/// A failure of the machinery rather than of the content: I/O, permissions, git. Exit code 4.
public struct OperationalError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

/// A conflict with another actor: the lock is held, or live is not what was expected. Exit code 3.
public struct ConflictError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
