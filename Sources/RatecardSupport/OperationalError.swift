// The errors a command can end with, by cause; each cause has its exit code (DESIGN.md,
// `RatecardCLI.ExitCode.table`): a usage error is the command line's own (`UsageError`, 2).

/// A failure of the machinery rather than of the content: I/O, permissions, git, object
/// storage, a check that could not run. Exit code 4.
public struct OperationalError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

/// Refused for what the input is: a gate refused it, or what was to be made live no longer
/// matches what was published (drift). Exit code 1.
public struct RefusedError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

/// Refused for the state of the target: the lock is held, live is not what was expected, the
/// release asked for is marked bad or already live, there is nothing to act on (nothing to roll
/// back to, nothing live), a folder to write is not empty. Exit code 3.
public struct ConflictError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
