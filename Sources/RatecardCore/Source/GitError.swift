import RatecardSupport

/// A libgit2 call that failed: which function, its code and libgit2's message.
public struct GitError: ErrorText, Sendable, Equatable, CustomStringConvertible {
    public var function: String
    public var code: Int32
    public var message: String

    public init(function: String, code: Int32, message: String) {
        self.function = function
        self.code = code
        self.message = message
    }

    public var description: String { "\(function) failed (\(code)): \(message)" }

    /// What failed, in English and Korean (libgit2's own message is kept as it is).
    public var text: Message {
        Message("\(function) failed (\(code)): \(message)", ko: "git 작업 \(function)이(가) 실패했습니다 (\(code)): \(message)")
    }
}
