internal import CShims
import Glibc
import RatecardSupport

/// The build cache's folders, opened by descriptor, and the key its packs are signed with.
///
/// The cache is used only when only this user can change it: its folder (`root`) and the
/// folders in it (`v1`, `v1/packs`, `v1/tmp`) are opened without following a symlink, each must
/// be owned by this user and writable by no one else, and everything after that goes through
/// their descriptors (`openat`, `renameat`, `unlinkat`), so nothing outside them is ever read,
/// written or deleted whatever is renamed meanwhile. The key (`v1/key`, 32 random bytes) is made
/// with O_EXCL and mode 0600 and read only when it is a regular file of this user's with mode
/// 0600 and one link; anything else makes the cache unusable, never replaced.
final class CacheFolder: Sendable {
    /// `v1/packs` and `v1/tmp`.
    let packs: Int32
    let tmp: Int32
    /// The HMAC-SHA256 key packs are signed with.
    let secret: [UInt8]

    private init(packs: Int32, tmp: Int32, secret: [UInt8]) {
        self.packs = packs
        self.tmp = tmp
        self.secret = secret
    }

    deinit {
        close(packs)
        close(tmp)
    }

    /// Why a cache folder is not used: the path and what is wrong with it.
    struct Unusable: Error, Equatable {
        var path: String
        var reason: Message

        var message: Message {
            Message(
                "build cache not used: \(path) \(reason); set RATECARD_CACHE_DIR to a folder only you can write, or remove this one",
                ko: "빌드 캐시를 쓰지 않습니다 (\(path)): \(reason); RATECARD_CACHE_DIR에 본인만 쓸 수 있는 폴더를 지정하거나 이 경로를 지우세요")
        }
    }

    /// The cache in `root` (created with mode 0700 when missing, with its parents).
    static func open(root: String) throws(Unusable) -> CacheFolder {
        var root = root
        while root.count > 1 && root.hasSuffix("/") { root.removeLast() }
        // The folders above `root` are the user's choice (a symlinked ~/.cache is theirs);
        // `root` itself and everything in it are opened without following a symlink.
        let parent = DurableFiles.parent(of: root)
        let name = DurableFiles.name(of: root)
        try? FileSystem.makeDirectories(parent, mode: 0o700)
        let above = Glibc.open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard above >= 0 else {
            throw Unusable(path: parent, reason: Message("cannot be opened: \(String(cString: strerror(errno)))", ko: "열 수 없습니다: \(FileSystem.errnoKorean[errno] ?? String(cString: strerror(errno)))"))
        }
        defer { close(above) }
        let top = try folder(name, in: above, shown: root)
        defer { close(top) }
        let format = try folder(BuildCache.format, in: top, shown: root + "/" + BuildCache.format)
        defer { close(format) }
        let packs = try folder("packs", in: format, shown: root + "/" + BuildCache.format + "/packs")
        let tmp: Int32
        do {
            tmp = try folder("tmp", in: format, shown: root + "/" + BuildCache.format + "/tmp")
        } catch {
            close(packs)
            throw error
        }
        do {
            let secret = try key(in: format, tmp: tmp, shown: root + "/" + BuildCache.format + "/key")
            return CacheFolder(packs: packs, tmp: tmp, secret: secret)
        } catch {
            close(packs)
            close(tmp)
            throw error
        }
    }

    /// The folder `name` in `parent` (made when missing), opened without following a symlink and
    /// checked: this user's, writable by no one else.
    private static func folder(_ name: String, in parent: Int32, shown: String) throws(Unusable) -> Int32 {
        if mkdirat(parent, name, 0o700) != 0 && errno != EEXIST {
            throw Unusable(
                path: shown, reason: Message("cannot be created: \(String(cString: strerror(errno)))", ko: "만들 수 없습니다: \(FileSystem.errnoKorean[errno] ?? String(cString: strerror(errno)))"))
        }
        let fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            let failure = errno
            var info = stat()
            if fstatat(parent, name, &info, AT_SYMLINK_NOFOLLOW) == 0 {
                if info.st_mode & S_IFMT == S_IFLNK { throw Unusable(path: shown, reason: Message("is a symbolic link", ko: "심볼릭 링크입니다")) }
                if info.st_mode & S_IFMT != S_IFDIR { throw Unusable(path: shown, reason: Message("is not a folder", ko: "폴더가 아닙니다")) }
            }
            throw Unusable(
                path: shown, reason: Message("cannot be opened: \(String(cString: strerror(failure)))", ko: "열 수 없습니다: \(FileSystem.errnoKorean[failure] ?? String(cString: strerror(failure)))"))
        }
        var info = stat()
        let problem: Message? =
            if fstat(fd, &info) != 0 {
                Message("cannot be opened: \(String(cString: strerror(errno)))", ko: "열 수 없습니다: \(FileSystem.errnoKorean[errno] ?? String(cString: strerror(errno)))")
            } else if info.st_uid != geteuid() {
                Message("is owned by another user (uid \(info.st_uid))", ko: "다른 사용자(uid \(info.st_uid))의 소유입니다")
            } else if info.st_mode & (S_IWGRP | S_IWOTH) != 0 {
                Message("is writable by group or others (mode \(String(info.st_mode & 0o7777, radix: 8)))", ko: "그룹이나 다른 사용자도 쓸 수 있습니다 (모드 \(String(info.st_mode & 0o7777, radix: 8)))")
            } else {
                nil
            }
        if let problem {
            close(fd)
            throw Unusable(path: shown, reason: problem)
        }
        return fd
    }

    /// The key in `folder`, made when there is none: written whole under a temporary name in
    /// `tmp`, then renamed into place only if no other process made one first (whose key is
    /// then read).
    private static func key(in folder: Int32, tmp: Int32, shown: String) throws(Unusable) -> [UInt8] {
        for _ in 0..<2 {
            let fd = openat(folder, "key", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            if fd >= 0 {
                defer { close(fd) }
                return try read(key: fd, shown: shown)
            }
            if errno == ELOOP { throw Unusable(path: shown, reason: Message("is a symbolic link", ko: "심볼릭 링크입니다")) }
            guard errno == ENOENT else {
                throw Unusable(
                    path: shown, reason: Message("cannot be opened: \(String(cString: strerror(errno)))", ko: "열 수 없습니다: \(FileSystem.errnoKorean[errno] ?? String(cString: strerror(errno)))"))
            }
            guard let secret = SHA256.randomBytes(32), let tag = SHA256.randomBytes(4) else {
                throw Unusable(path: shown, reason: Message("cannot be made: no random bytes", ko: "만들 수 없습니다: 난수를 얻지 못했습니다"))
            }
            let name = "key-\(getpid())-\(SHA256.hex(digest: tag))"
            let new = openat(tmp, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard new >= 0 else {
                throw Unusable(
                    path: shown, reason: Message("cannot be made: \(String(cString: strerror(errno)))", ko: "만들 수 없습니다: \(FileSystem.errnoKorean[errno] ?? String(cString: strerror(errno)))"))
            }
            var failure: Int32 = 0
            if (try? FileSystem.writeAll(new, secret, path: name)) == nil || fchmod(new, 0o600) != 0 || fsync(new) != 0 { failure = errno }
            close(new)
            if failure == 0 {
                if cshims_rename_noreplace(tmp, name, folder, "key") == 0 { return secret }
                failure = errno
            }
            unlinkat(tmp, name, 0)
            // EEXIST: another process made the key first; it is read on the next turn.
            guard failure == EEXIST else {
                throw Unusable(
                    path: shown, reason: Message("cannot be made: \(String(cString: strerror(failure)))", ko: "만들 수 없습니다: \(FileSystem.errnoKorean[failure] ?? String(cString: strerror(failure)))"))
            }
        }
        throw Unusable(path: shown, reason: Message("cannot be opened: it keeps changing", ko: "열 수 없습니다: 계속 바뀝니다"))
    }

    /// The key in open file `fd`, when it is one only this user could have written.
    private static func read(key fd: Int32, shown: String) throws(Unusable) -> [UInt8] {
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw Unusable(path: shown, reason: Message("cannot be read: \(String(cString: strerror(errno)))", ko: "읽을 수 없습니다: \(FileSystem.errnoKorean[errno] ?? String(cString: strerror(errno)))"))
        }
        if info.st_mode & S_IFMT != S_IFREG { throw Unusable(path: shown, reason: Message("is not a regular file", ko: "일반 파일이 아닙니다")) }
        if info.st_uid != geteuid() { throw Unusable(path: shown, reason: Message("is owned by another user (uid \(info.st_uid))", ko: "다른 사용자(uid \(info.st_uid))의 소유입니다")) }
        if info.st_mode & 0o7777 != 0o600 {
            throw Unusable(path: shown, reason: Message("has mode \(String(info.st_mode & 0o7777, radix: 8)), not 600", ko: "모드가 600이 아니라 \(String(info.st_mode & 0o7777, radix: 8))입니다"))
        }
        if info.st_nlink != 1 { throw Unusable(path: shown, reason: Message("has \(info.st_nlink) links, not 1", ko: "링크가 1개가 아니라 \(info.st_nlink)개입니다")) }
        if info.st_size != 32 { throw Unusable(path: shown, reason: Message("is not 32 bytes long", ko: "길이가 32바이트가 아닙니다")) }
        var secret = [UInt8](repeating: 0, count: 32)
        let count = secret.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 32, 0) }
        guard count == 32 else { throw Unusable(path: shown, reason: Message("is not 32 bytes long", ko: "길이가 32바이트가 아닙니다")) }
        return secret
    }

    /// The names in folder `fd` that `matches` accepts (no other name is ever opened or deleted).
    static func names(in fd: Int32, _ matches: (String) -> Bool) -> [String] {
        // The folder opened again, not `dup`ed: a duplicate shares the read position, so the
        // second listing of a process would start where the first ended and find nothing.
        let copy = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard copy >= 0 else { return [] }
        guard let dir = fdopendir(copy) else {
            close(copy)
            return []
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
            if matches(name) { names.append(name) }
        }
        return names.sorted()
    }

    /// A pack's name: 24 lowercase hex digits (from its index's checksum) and `.pack`.
    static func isPack(_ name: String) -> Bool {
        let utf8 = Array(name.utf8)
        return utf8.count == 29 && name.hasSuffix(".pack") && utf8[0..<24].allSatisfy(isHex)
    }

    /// A temporary file of a process: `<pid>-<pack name>` or `key-<pid>-<8 hex digits>`.
    static func isTemporary(_ name: String) -> Bool {
        let parts = name.split(separator: "-", omittingEmptySubsequences: false)
        if parts.count == 3 && parts[0] == "key" {
            return !parts[1].isEmpty && parts[1].utf8.allSatisfy(isDigit) && parts[2].utf8.count == 8 && parts[2].utf8.allSatisfy(isHex)
        }
        return parts.count == 2 && !parts[0].isEmpty && parts[0].utf8.allSatisfy(isDigit) && isPack(String(parts[1]))
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
    private static func isHex(_ byte: UInt8) -> Bool { isDigit(byte) || (byte >= 0x61 && byte <= 0x66) }
}
