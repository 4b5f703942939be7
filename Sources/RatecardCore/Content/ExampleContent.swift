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
            throw OperationalError("this ratecard cannot tell where its executable is, so not where the example content is; set RATECARD_EXAMPLE to a folder holding it")
        }
        let binFolder = DurableFiles.parent(of: executable)
        var candidates = [DurableFiles.parent(of: binFolder) + "/share/ratecard/content"]
        var folder = binFolder
        while folder.hasPrefix("/"), folder != "/" {
            candidates.append(folder + "/content")
            folder = DurableFiles.parent(of: folder)
        }
        guard let found = candidates.first(where: { FileSystem.exists($0 + "/ratecard.yaml") }) else {
            throw OperationalError("the example content is neither installed beside \(executable) (share/ratecard/content) nor in a checkout holding it; set RATECARD_EXAMPLE to a folder holding it")
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
            throw OperationalError("the example web build is not at \(folder) (beside the example content)")
        }
        return folder
    }
}
