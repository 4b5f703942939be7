import Glibc
import RatecardKit

/// How a person can run this ratecard from a shell: `ratecard` when that name on PATH is this
/// executable, else its full path (quoted for sh), with how to put its folder on PATH.
struct CommandName: Equatable {
    /// What to type.
    var typed: String
    /// This executable's folder when it is not on PATH (then `typed` is the full path).
    var folderOffPath: String?

    static func current(environment: [String: String]) -> CommandName {
        guard let executable = executablePath() else { return CommandName(typed: "ratecard", folderOffPath: nil) }
        let real = (try? FileSystem.realPath(executable)) ?? executable
        for folder in (environment["PATH"] ?? "").split(separator: ":", omittingEmptySubsequences: true) {
            let candidate = String(folder) + "/ratecard"
            guard access(candidate, X_OK) == 0 else { continue }
            // The first ratecard on PATH is the one a shell runs.
            if (try? FileSystem.realPath(candidate)) == real { return CommandName(typed: "ratecard", folderOffPath: nil) }
            break
        }
        return CommandName(typed: shellWord(executable), folderOffPath: DurableFiles.parent(of: executable))
    }

    /// `text` as one sh word: as it is when every character is safe, else in single quotes.
    static func shellWord(_ text: String) -> String {
        let safe = !text.isEmpty && text.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "/._-+:,@%=".unicodeScalars.contains($0)) }
        return safe ? text : HookCommand.quote(text)
    }

    /// `/proc/self/exe`, the executable running.
    static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// How to put this executable's folder on PATH, or nil when it is there.
    var pathHint: Message? {
        guard let folder = folderOffPath else { return nil }
        let export = "export PATH=\(CommandName.shellWord(folder)):\"$PATH\""
        return Message(
            "ratecard is not on PATH, so the line above names it by its path; to type just 'ratecard', run: \(export)",
            ko: "ratecard가 PATH에 없어 위 줄에서는 경로로 적었습니다; 'ratecard'만 입력해 쓰려면 다음을 실행하세요: \(export)")
    }
}
