// The errors a command can end with, by cause; each cause has its exit code (DESIGN.md,
// `RatecardCLI.ExitCode.table`): a usage error is the command line's own (`UsageError`, 2).
// Each carries its text in English and Korean (`Message`), made where the error is thrown.

/// An error that is a message, in both languages; its type says its cause.
public protocol MessageError: ErrorText, Sendable, Equatable, CustomStringConvertible {
    var message: Message { get }
    init(_ message: Message)
}

extension MessageError {
    public init(_ english: String, ko korean: Korean) { self.init(Message(english, ko: korean)) }

    public var description: String { message.english }

    public var text: Message { message }
}

/// A usage error: a flag or argument the command does not accept, or a name given on the
/// command line that names nothing (a revision, an environment). Exit code 2.
public struct UsageError: MessageError {
    public var message: Message
    public init(_ message: Message) { self.message = message }
}

/// A failure of the machinery rather than of the content: I/O, permissions, git, object
/// storage, a check that could not run. Exit code 4.
public struct OperationalError: MessageError {
    public var message: Message
    public init(_ message: Message) { self.message = message }
}

/// Refused for what the input is: a gate refused it, or what was to be made live no longer
/// matches what was published (drift). Exit code 1.
public struct RefusedError: MessageError {
    public var message: Message
    public init(_ message: Message) { self.message = message }
}

/// Refused for the state of the target: the lock is held, live is not what was expected, the
/// release asked for is marked bad or already live, there is nothing to act on (nothing to roll
/// back to, nothing live), a folder to write is not empty. Exit code 3.
public struct ConflictError: MessageError {
    public var message: Message
    public init(_ message: Message) { self.message = message }
}
