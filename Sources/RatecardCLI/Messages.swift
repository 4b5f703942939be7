import RatecardKit

extension Language {
    /// `--lang` when given (`en` or `ko`), else the locale of messages from the environment:
    /// `LC_ALL`, then `LC_MESSAGES`, then `LANG`, as POSIX orders them; Korean when it starts with `ko`.
    static func resolve(argument: String?, environment: [String: String]) throws(UsageError) -> Language {
        if let argument {
            guard let language = Language(rawValue: argument.lowercased()) else {
                let known = allCases.map(\.rawValue).joined(separator: ", ")
                var error = UsageError("Unknown language '\(argument)'; use one of: \(known)", ko: "알 수 없는 언어 '\(argument)'; 다음 중 하나를 쓰세요: \(known)")
                // A misspelt code (`kr`), or a longer name of one (`korean`, `ko_KR`).
                let codes = allCases.map(\.rawValue)
                let word = argument.lowercased()
                let longer = codes.filter { word.hasPrefix($0) }
                error.message = error.message.then(
                    longer.isEmpty ? Suggestion.didYouMean(word, in: codes) : Message("did you mean '\(longer[0])'?", ko: "혹시 '\(longer[0])'을(를) 뜻했습니까?"))
                throw error
            }
            return language
        }
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            guard let value = environment[name], !value.isEmpty else { continue }
            return value.hasPrefix("ko") ? .ko : .en
        }
        return .en
    }
}

/// The language a command speaks in, and the few texts every command shares.
///
/// Every text a person reads is a `Message`, made in both languages where it is decided (next
/// to the check or the step it reports on); this picks the one to print. Rule ids, paths,
/// field names and values are the same in both.
public struct Messages: Sendable {
    public var language: Language

    public init(_ language: Language) { self.language = language }

    public static let english = Messages(.en)

    /// `message` in this language.
    public func callAsFunction(_ message: Message) -> String { message.text(language) }

    /// The word before a message on stderr.
    static let error = Message("Error", ko: "오류")
    static let warning = Message("warning", ko: "경고")
    static let usage = Message("Usage", ko: "사용법")

    /// The pointer to `--help` under a usage error.
    func seeHelp(_ command: String) -> String {
        self(Message("See '\(command) --help' for more information.", ko: "자세한 내용은 '\(command) --help'를 보세요."))
    }

    /// `warning: ...` on stderr, as every command prints one.
    func warning(_ message: Message) -> String {
        self(Messages.warning) + ": " + self(message) + "\n"
    }

    /// `2 errors, 1 warning in 180 files` (+ commits for a range, + what a later commit fixed, +
    /// the rules that could not run, or were skipped on request).
    func summary(errors: Int, warnings: Int, files: Int, commits: Int, parsed: Int, fixed: Int, unrun: Int = 0, skipped: Bool = false) -> String {
        func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
        switch language {
        case .en:
            var text = "\(count(errors, "error")), \(count(warnings, "warning")) in \(count(files, "file"))"
            if commits > 0 { text += " across \(count(commits, "commit")) (\(count(parsed, "file")) parsed)" }
            if fixed > 0 { text += "; \(fixed) fixed later in the range" }
            if unrun > 0 { text += skipped ? "; \(count(unrun, "rule")) skipped (--allow-shallow)" : "; \(count(unrun, "rule")) could not run" }
            return text
        case .ko:
            var text = "오류 \(errors)개, 경고 \(warnings)개 (파일 \(files)개"
            if commits > 0 { text += ", 커밋 \(commits)개, 읽은 파일 \(parsed)개" }
            text += ")"
            if fixed > 0 { text += "; 범위 안에서 나중에 고쳐진 문제 \(fixed)개" }
            if unrun > 0 { text += skipped ? "; 건너뛴 규칙 \(unrun)개 (--allow-shallow)" : "; 실행하지 못한 규칙 \(unrun)개" }
            return text
        }
    }
}
