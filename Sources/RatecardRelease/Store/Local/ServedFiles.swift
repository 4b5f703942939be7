import Glibc
import RatecardSupport

/// Opens what a `ServedRoute` names in a serve root, read-only and by descriptor, as the nginx
/// block's `disable_symlinks` has it: the root folder is opened once, `current` is read on every
/// request (a publish or rollback shows at once), and below it every folder and file is opened
/// with `O_NOFOLLOW` relative to its parent, so no symlink and no `..` leads out. The one link
/// followed is a release's `terms` link to its page set, and only in the form ratecard writes
/// (`../../pages/<32 hex>/terms`), opened the same way from the root. A file is handed back
/// open, to be sent a chunk at a time.
public final class ServedFiles: Sendable {
    private let root: Int32
    public let path: String

    public init(root path: String) throws {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystem.failure("open", path) }
        root = fd
        self.path = path
    }

    deinit { close(root) }

    /// A regular file opened for sending; its descriptor is closed with it.
    public final class File {
        public let descriptor: Int32
        public let size: Int
        /// The name that gives its Content-Type.
        public let name: String

        /// Takes over `descriptor`, an open regular file of `size` bytes.
        public init(descriptor: Int32, size: Int, name: String) {
            self.descriptor = descriptor
            self.size = size
            self.name = name
        }

        deinit { close(descriptor) }
    }

    /// What a request finds.
    public enum Found {
        case file(File)
        /// Nothing there (404).
        case missing
        /// A folder without index.html, or a symlink, where nginx's static handler answers 403.
        case forbidden
        /// A folder named without its `/` (a 301 to the folder).
        case folder
    }

    /// The release `current` names now, nil when there is none (or it is not `releases/<id>`).
    public func live() -> String? {
        guard let target = Self.readLink(root, "current"), target.hasPrefix("releases/") else { return nil }
        let id = String(target.dropFirst("releases/".count))
        return Self.isName(id) ? id : nil
    }

    /// What `source` names.
    public func find(_ source: ServedRoute.Source) -> Found {
        switch source {
        case .none: return .missing
        case .bridgeLines: return Self.regularFile(root, "bridge-lines.json")
        case .liveStatement: return Self.regularFile(root, "live.json")
        case .object(let name):
            guard case .folder(let objects) = Self.entry(root, "objects") else { return .missing }
            defer { close(objects) }
            return Self.regularFile(objects, name)
        case .live(let path, let folder, let index, let terms):
            guard let id = live() else { return .missing }
            return findLive(release: id, path: path, folder: folder, index: index, terms: terms)
        case .release(let path, let folder, let terms):
            return findKept(path: path, folder: folder, terms: terms)
        }
    }

    /// nginx's `try_files $uri` (and `$uri/index.html` with `index`) in the live release: a
    /// regular file or nothing; a path that names a folder gives its index.html or nothing.
    private func findLive(release id: String, path: [String], folder named: Bool, index: Bool, terms: Bool) -> Found {
        guard case .folder(let releases) = Self.entry(root, "releases") else { return .missing }
        defer { close(releases) }
        guard case .folder(var folder) = Self.entry(releases, id) else { return .missing }
        defer { close(folder) }
        var rest = path[...]
        if terms, rest.first == "terms" {
            guard let pages = termsFolder(of: folder) else { return .missing }
            close(folder)
            folder = pages
            rest = rest.dropFirst()
        }
        while rest.count > (named ? 0 : 1) {
            guard case .folder(let next) = Self.entry(folder, rest.removeFirst()) else { return .missing }
            close(folder)
            folder = next
        }
        if !named, let name = rest.first {
            switch Self.entry(folder, name) {
            case .file(let fd, let size): return .file(File(descriptor: fd, size: size, name: name))
            case .folder(let inner) where index:
                defer { close(inner) }
                return Self.regularFile(inner, "index.html")
            case .folder(let inner):
                close(inner)
                return .missing
            default: return .missing
            }
        }
        return index ? Self.regularFile(folder, "index.html") : .missing
    }

    /// nginx's static and index handlers below `releases/` (the `/r/` locations, an alias
    /// without `try_files`): a regular file; a folder named without its `/` is `.folder`; a
    /// folder path gives its index.html, else 403 when the folder is there; a symlink named, or
    /// a file or folder that may not be opened, is 403 (a symlink on the way is 404). `terms`: `path` is `<id>/terms/...` and the release's terms
    /// link is followed.
    private func findKept(path: [String], folder named: Bool, terms: Bool) -> Found {
        guard case .folder(var folder) = Self.entry(root, "releases") else { return .missing }
        defer { close(folder) }
        var rest = path[...]
        if terms, rest.count >= 2 {
            guard case .folder(let release) = Self.entry(folder, rest.removeFirst()) else { return .missing }
            defer { close(release) }
            rest = rest.dropFirst()
            guard let pages = termsFolder(of: release) else { return .missing }
            close(folder)
            folder = pages
        }
        while rest.count > (named ? 0 : 1) {
            switch Self.entry(folder, rest.removeFirst()) {
            case .folder(let next):
                close(folder)
                folder = next
            case .forbidden: return named ? .missing : .forbidden
            default: return .missing
            }
        }
        if !named, let name = rest.first {
            switch Self.entry(folder, name) {
            case .file(let fd, let size): return .file(File(descriptor: fd, size: size, name: name))
            case .folder(let inner):
                close(inner)
                return .folder
            case .symlink, .forbidden: return .forbidden
            case .missing: return .missing
            }
        }
        if case .file(let file) = Self.regularFile(folder, "index.html") { return .file(file) }
        return .forbidden
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

    /// What `name` in `parent` is, opened without following a symlink: a regular file (with
    /// its size) or a folder, open; a symlink; one that may not be opened; or nothing that can
    /// be served (absent, a dot-file, a FIFO, a socket, a device).
    enum Entry {
        case file(descriptor: Int32, size: Int)
        case folder(Int32)
        case symlink
        case forbidden
        case missing
    }

    static func entry(_ parent: Int32, _ name: String) -> Entry {
        guard isName(name) else { return .missing }
        // O_NONBLOCK: opening a FIFO does not wait for a writer (it is refused below).
        let fd = openat(parent, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            switch errno {
            case ELOOP: return .symlink
            case EACCES: return .forbidden
            default: return .missing
            }
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            close(fd)
            return .missing
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file(descriptor: fd, size: Int(info.st_size))
        case S_IFDIR: return .folder(fd)
        default:
            close(fd)
            return .missing
        }
    }

    /// The regular file `name` in `parent`, never through a symlink; anything else is missing.
    static func regularFile(_ parent: Int32, _ name: String) -> Found {
        switch entry(parent, name) {
        case .file(let fd, let size): return .file(File(descriptor: fd, size: size, name: name))
        case .folder(let fd):
            close(fd)
            return .missing
        default: return .missing
        }
    }

    /// The folder `name` in `parent`, never through a symlink.
    static func openFolder(_ parent: Int32, _ name: String) -> Int32? {
        switch entry(parent, name) {
        case .folder(let fd): return fd
        case .file(let fd, _):
            close(fd)
            return nil
        default: return nil
        }
    }

    /// The target of the symlink `name` in `parent`.
    static func readLink(_ parent: Int32, _ name: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlinkat(parent, name, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
