import RatecardOutput
import RatecardSupport

/// What a serve root's checks read from its files.
enum LocalFiles {
    /// Whether the file at `path` has the size and hash `file` lists.
    static func matches(_ path: String, _ file: BundleManifest.File) -> Bool {
        guard let bytes = try? FileSystem.readFile(path) else { return false }
        return bytes.count == file.size && SHA256.hex(bytes) == file.sha256
    }
}
