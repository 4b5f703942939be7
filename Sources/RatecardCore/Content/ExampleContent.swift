import Glibc
import RatecardSupport

/// The example content that ships with ratecard (the project's own `content/` folder).
public enum ExampleContent {
    /// The folder holding the example content, found from where this executable is, never from
    /// where it was built: `RATECARD_EXAMPLE` if set; else `../share/ratecard/content` beside
    /// the executable's folder (an installed ratecard); else the `content/` folder of the
    /// checkout the executable lies in (a ratecard run from `.build/`, and the tests).
    public static func folder(environment: [String: String], executable: String? = currentExecutable()) throws -> String {
        if let configured = environment["RATECARD_EXAMPLE"], !configured.isEmpty {
            return configured
        }
        guard let executable else {
            throw OperationalError(
                "this ratecard cannot tell where its executable is, so not where the example content is; set RATECARD_EXAMPLE to a folder holding it",
                ko: "이 ratecard는 실행 파일의 위치를 알 수 없어 예제 콘텐츠도 찾을 수 없습니다; RATECARD_EXAMPLE에 예제 콘텐츠가 있는 폴더를 지정하세요")
        }
        let binFolder = DurableFiles.parent(of: executable)
        var candidates = [DurableFiles.parent(of: binFolder) + "/share/ratecard/content"]
        var folder = binFolder
        while folder.hasPrefix("/"), folder != "/" {
            candidates.append(folder + "/content")
            folder = DurableFiles.parent(of: folder)
        }
        guard let found = candidates.first(where: { FileSystem.exists($0 + "/ratecard.yaml") }) else {
            throw OperationalError(
                "the example content is neither installed beside \(executable) (share/ratecard/content) nor in a checkout holding it; set RATECARD_EXAMPLE to a folder holding it",
                ko: "예제 콘텐츠가 \(executable) 옆(share/ratecard/content)에도, 이 실행 파일이 있는 체크아웃에도 없습니다; RATECARD_EXAMPLE에 예제 콘텐츠가 있는 폴더를 지정하세요")
        }
        return found
    }

    /// The real path of the running executable, nil when it cannot be read.
    public static func currentExecutable() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The example web build: the `site/` folder beside the example content.
    public static func webBuild(besides content: String) throws -> String {
        let folder = DurableFiles.parent(of: content) + "/site"
        guard FileSystem.exists(folder + "/index.html") else {
            throw OperationalError("the example web build is not at \(folder) (beside the example content)", ko: "예제 웹 빌드가 \(folder)(예제 콘텐츠 옆)에 없습니다")
        }
        return folder
    }
}
