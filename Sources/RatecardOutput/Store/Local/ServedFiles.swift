import Glibc
import RatecardSupport

/// Reads what a `ServedRoute` names from a serve root, read-only and by descriptor, as the nginx
/// block's `disable_symlinks` has it: the root folder is opened once, `current` is read on every
/// request (a publish or rollback shows at once), and below it every folder and file is opened
/// with `O_NOFOLLOW` relative to its parent, so no symlink and no `..` leads out. The one link
/// followed is a release's `terms` link to its page set, and only in the form ratecard writes
/// (`../../pages/<32 hex>/terms`), opened the same way from the root.
public final class ServedFiles: Sendable {
    private let root: Int32
    public let path: String

    /// Files larger than this are not served (no file of a release comes near it).
    static let maxBytes = 256 << 20

    public init(root path: String) throws {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystem.failure("open", path) }
        root = fd
        self.path = path
    }

    deinit { close(root) }

    /// The release `current` names now, nil when there is none (or it is not `releases/<id>`).
    public func live() -> String? {
        guard let target = Self.readLink(root, "current"), target.hasPrefix("releases/") else { return nil }
        let id = String(target.dropFirst("releases/".count))
        return Self.isName(id) ? id : nil
    }

    /// The bytes of what `source` names and the name that gives its Content-Type; nil when there
    /// is no such regular file (a 404).
    public func read(_ source: ServedRoute.Source) -> (bytes: [UInt8], name: String)? {
        switch source {
        case .none, .redirect: return nil
        case .bridgeLines: return Self.readFile(root, "bridge-lines.json").map { ($0, "bridge-lines.json") }
        case .object(let name):
            guard let objects = Self.openFolder(root, "objects") else { return nil }
            defer { close(objects) }
            return Self.readFile(objects, name).map { ($0, name) }
        case .live(let path, let index, let terms):
            guard let id = live() else { return nil }
            return read(release: id, path: path, index: index, terms: terms)
        case .release(let id, let path, let index, let terms):
            return read(release: id, path: path, index: index, terms: terms)
        }
    }

    private func read(release id: String, path: [String], index: Bool, terms: Bool) -> (bytes: [UInt8], name: String)? {
        guard Self.isName(id), path.allSatisfy(Self.isName), let releases = Self.openFolder(root, "releases") else { return nil }
        defer { close(releases) }
        guard var folder = Self.openFolder(releases, id) else { return nil }
        defer { close(folder) }
        var rest = path[...]
        if terms, rest.first == "terms" {
            guard let pages = termsFolder(of: folder) else { return nil }
            close(folder)
            folder = pages
            rest = rest.dropFirst()
        }
        while rest.count > 1 {
            guard let next = Self.openFolder(folder, rest.removeFirst()) else { return nil }
            close(folder)
            folder = next
        }
        guard let name = rest.first else {
            return index ? Self.readFile(folder, "index.html").map { ($0, "index.html") } : nil
        }
        if let bytes = Self.readFile(folder, name) { return (bytes, name) }
        // try_files $uri $uri/index.html: a folder's index page.
        guard index, let inner = Self.openFolder(folder, name) else { return nil }
        defer { close(inner) }
        return Self.readFile(inner, "index.html").map { ($0, "index.html") }
    }

    /// A release's terms pages: its `terms` folder, or the page set its `terms` link names.
    private func termsFolder(of release: Int32) -> Int32? {
        if let folder = Self.openFolder(release, "terms") { return folder }
        guard let target = Self.readLink(release, "terms") else { return nil }
        let parts = target.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0] == "..", parts[1] == "..", parts[2] == "pages", parts[4] == "terms", parts[3].count == 32,
            parts[3].allSatisfy(\.isHexDigit)
        else { return nil }
        guard let pages = Self.openFolder(root, "pages") else { return nil }
        defer { close(pages) }
        guard let set = Self.openFolder(pages, String(parts[3])) else { return nil }
        defer { close(set) }
        return Self.openFolder(set, "terms")
    }

    /// A name of one path component that can be opened: not empty, no `/`, not a dot-file.
    static func isName(_ name: String) -> Bool {
        !name.isEmpty && !name.hasPrefix(".") && !name.contains("/") && !name.contains("\0")
    }

    /// The folder `name` in `parent`, never through a symlink.
    static func openFolder(_ parent: Int32, _ name: String) -> Int32? {
        guard isName(name) else { return nil }
        let fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        return fd >= 0 ? fd : nil
    }

    /// The bytes of the regular file `name` in `parent`, never through a symlink.
    static func readFile(_ parent: Int32, _ name: String) -> [UInt8]? {
        guard isName(name) else { return nil }
        let fd = openat(parent, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, Int(info.st_size) <= maxBytes else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(offset)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            offset += count
        }
        return bytes
    }

    /// The target of the symlink `name` in `parent`.
    static func readLink(_ parent: Int32, _ name: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlinkat(parent, name, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
