import Glibc
import RatecardSupport

/// Files ratecard keeps under a serve root (`.ratecard/lock`, `journal.jsonl`, `verified`),
/// opened so that a symlink planted in their place is refused, never written through: the
/// folder with `O_NOFOLLOW | O_DIRECTORY`, the file with `O_NOFOLLOW` relative to it, and the
/// result checked, by its descriptor, to be a regular file with one link. A symlinked or
/// hard-linked lock or journal would otherwise let anyone who can write the serve root
/// overwrite or append to any file the publisher can write (a hard link is another name for
/// the same file: truncating the lock or appending to the journal writes to it).
public enum StateFiles {
    /// Opens `folder/name` with `flags` (plus `O_NOFOLLOW | O_CLOEXEC`). `create` makes the folder
    /// when it is missing. Returns -1 with `errno == ENOENT` only when the file does not exist and
    /// `flags` lacks `O_CREAT`.
    public static func open(_ folder: String, _ name: String, flags: Int32, mode: mode_t = 0o644) throws -> Int32 {
        if flags & O_CREAT != 0, !FileSystem.exists(folder) {
            guard mkdir(folder, 0o755) == 0 || errno == EEXIST else { throw FileSystem.failure("mkdir", folder) }
        }
        let directory = Glibc.open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard directory >= 0 else {
            let code = errno
            if code == ENOENT && flags & O_CREAT == 0 { return -1 }
            if code == ELOOP || code == ENOTDIR {
                throw OperationalError(
                    "\(folder) is not a folder (a symlink or a file is in its place); ratecard never writes through one. Remove it and run again",
                    ko: "\(folder)은(는) 폴더가 아닙니다 (그 자리에 심볼릭 링크나 파일이 있습니다); ratecard는 그런 것을 거쳐 쓰지 않습니다. 지우고 다시 실행하세요")
            }
            throw FileSystem.failure("open", folder, code: code)
        }
        defer { close(directory) }
        // O_NONBLOCK: a FIFO put in place of the file would block the open (and every read)
        // until someone writes to it; opened without blocking, it is refused below as not a
        // regular file. The flag is cleared once the file is known to be regular.
        let fd = openat(directory, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, mode)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT && flags & O_CREAT == 0 {
                errno = ENOENT
                return -1
            }
            if code == ELOOP {
                throw OperationalError(
                    "\(folder)/\(name) is a symlink; ratecard never writes through one (it could overwrite any file). Remove it and run again",
                    ko: "\(folder)/\(name)은(는) 심볼릭 링크입니다; ratecard는 링크를 거쳐 쓰지 않습니다 (아무 파일이나 덮어쓸 수 있기 때문입니다). 지우고 다시 실행하세요")
            }
            throw FileSystem.failure("open", folder + "/" + name, code: code)
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw notRegular(folder + "/" + name)
        }
        guard fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == 0 else {
            let failure = FileSystem.failure("fcntl", folder + "/" + name)
            close(fd)
            throw failure
        }
        guard info.st_nlink <= 1 else {
            close(fd)
            let path = "\(folder)/\(name)"
            throw OperationalError(
                "\(path) has \(info.st_nlink) hard links (another name is the same file); ratecard never writes through one (it could overwrite or append to that file); copy it and move the copy over it (cp -p \(path) \(path).own && mv \(path).own \(path)), or remove the other name, and run again",
                ko:
                    "\(path)에 하드 링크가 \(info.st_nlink)개 있습니다 (다른 이름도 같은 파일입니다); ratecard는 하드 링크를 거쳐 쓰지 않습니다 (그 다른 파일을 덮어쓰거나 뒤에 덧붙일 수 있기 때문입니다); 파일을 복사해 원래 이름으로 옮기거나(cp -p \(path) \(path).own && mv \(path).own \(path)) 다른 이름을 지운 다음 다시 실행하세요"
            )
        }
        return fd
    }

    /// The refusal of a state file that is not a regular file (a FIFO, a device, a socket, a
    /// folder): ratecard's own files are only ever regular files.
    static func notRegular(_ path: String) -> OperationalError {
        OperationalError(
            "\(path) is not a regular file (a FIFO, a device, a socket or a folder is in its place); ratecard keeps only regular files there. Remove it and run again",
            ko: "\(path)은(는) 일반 파일이 아닙니다 (그 자리에 FIFO, 장치, 소켓이나 폴더가 있습니다); ratecard는 그곳에 일반 파일만 둡니다. 지우고 다시 실행하세요")
    }

    /// A file of the serve root by its path, read whole, or nil when it does not exist: opened
    /// without blocking and refused unless it is a regular file (a FIFO in its place would hang
    /// the read forever).
    public static func readRegular(_ path: String) throws -> [UInt8]? {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw FileSystem.failure("open", path)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { throw notRegular(path) }
        guard fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == 0 else { throw FileSystem.failure("fcntl", path) }
        return try FileSystem.readAll(fd, path: path)
    }

    /// The whole file, or nil when it does not exist.
    public static func read(_ folder: String, _ name: String) throws -> [UInt8]? {
        let fd = try open(folder, name, flags: O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return try FileSystem.readAll(fd, path: folder + "/" + name)
    }

    /// Replaces `folder/name` atomically, through the folder's descriptor (a symlink put in place
    /// of the folder meanwhile is refused, not followed): a temp file beside it, fsync, renameat,
    /// fsync of the folder. Not `durable`: no fsync (a cache, which a crash may leave old or
    /// empty, never torn by the rename).
    public static func replace(_ folder: String, _ name: String, _ bytes: [UInt8], durable: Bool = true) throws {
        let directory = Glibc.open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard directory >= 0 else {
            let code = errno
            if code == ELOOP || code == ENOTDIR {
                throw OperationalError(
                    "\(folder) is not a folder (a symlink or a file is in its place); ratecard never writes through one. Remove it and run again",
                    ko: "\(folder)은(는) 폴더가 아닙니다 (그 자리에 심볼릭 링크나 파일이 있습니다); ratecard는 그런 것을 거쳐 쓰지 않습니다. 지우고 다시 실행하세요")
            }
            throw FileSystem.failure("open", folder, code: code)
        }
        defer { close(directory) }
        let temporary = ".\(name).tmp-\(getpid())"
        unlinkat(directory, temporary, 0)
        let fd = openat(directory, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FileSystem.failure("open", folder + "/" + temporary) }
        do {
            defer { close(fd) }
            try FileSystem.writeAll(fd, bytes, path: folder + "/" + temporary)
            guard !durable || fsync(fd) == 0 else { throw FileSystem.failure("fsync", folder + "/" + temporary) }
        } catch {
            unlinkat(directory, temporary, 0)
            throw error
        }
        guard renameat(directory, temporary, directory, name) == 0 else {
            let failure = FileSystem.failure("rename", folder + "/" + name)
            unlinkat(directory, temporary, 0)
            throw failure
        }
        guard !durable || fsync(directory) == 0 else { throw FileSystem.failure("fsync", folder) }
    }

    /// Checks that `path` is a real folder (or absent), not a symlink or a file in its place.
    public static func requireFolder(_ path: String, what: String) throws {
        guard FileSystem.exists(path) else { return }
        switch try FileSystem.kind(ofItemAt: path) {
        case .directory: return
        case .symlink:
            throw OperationalError(
                "\(path) is a symlink; \(what) must be a real folder inside the serve root. Remove the link and run again",
                ko: "\(path)은(는) 심볼릭 링크입니다; \(what)은(는) 서빙 루트 안의 실제 폴더여야 합니다. 링크를 지우고 다시 실행하세요")
        default:
            throw OperationalError(
                "\(path) is not a folder; \(what) must be a real folder inside the serve root. Move it aside and run again",
                ko: "\(path)은(는) 폴더가 아닙니다; \(what)은(는) 서빙 루트 안의 실제 폴더여야 합니다. 옮겨 두고 다시 실행하세요")
        }
    }
}
