internal import CShims
import Glibc

/// Crash-safe writing: files are complete before anyone can see them.
public enum DurableFiles {
    /// Writes `bytes` to a new file at `path` (which must not exist) and fsyncs it.
    public static func create(_ path: String, _ bytes: [UInt8], sync: Bool = true, mode: mode_t = 0o644) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw FileSystem.failure("open", path) }
        defer { close(fd) }
        try FileSystem.writeAll(fd, bytes, path: path)
        if sync, fsync(fd) != 0 { throw FileSystem.failure("fsync", path) }
    }

    /// Swaps two existing paths in one step (`renameat2` with `RENAME_EXCHANGE`); false (errno
    /// set) when the file system cannot.
    public static func exchange(_ first: String, _ second: String) -> Bool {
        cshims_exchange_paths(first, second) == 0
    }

    /// Replaces `path` atomically: write a temp file beside it, fsync, rename over, fsync the folder.
    public static func replace(_ path: String, _ bytes: [UInt8]) throws {
        let temporary = path + ".tmp-\(getpid())"
        unlink(temporary)
        do {
            try create(temporary, bytes)
            guard rename(temporary, path) == 0 else { throw FileSystem.failure("rename", path) }
        } catch {
            unlink(temporary)
            throw error
        }
        try syncDirectory(parent(of: path))
    }

    /// fsyncs a file written earlier (without `sync`).
    public static func syncFile(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystem.failure("open", path) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw FileSystem.failure("fsync", path) }
    }

    /// fsyncs a folder, making the names in it (creations, renames) durable.
    public static func syncDirectory(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystem.failure("open", path) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw FileSystem.failure("fsync", path) }
    }

    /// Up to how many files are flushed with an fsync each rather than one `syncFilesystem`.
    public static let fewFiles = 32

    /// Flushes the whole filesystem holding `path` (one call instead of an fsync per file).
    public static func syncFilesystem(of path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystem.failure("open", path) }
        defer { close(fd) }
        guard cshims_syncfs(fd) == 0 else { throw FileSystem.failure("syncfs", path) }
    }

    public static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    public static func name(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
