import Glibc

/// Thin, throwing wrappers over the POSIX calls ratecard needs, with errno turned into messages.
public enum FileSystem {
    public enum Kind: Sendable, Equatable {
        case file
        case directory
        case symlink
        case other
    }

    /// The kind of the item at `path`, without following a final symlink.
    public static func kind(ofItemAt path: String) throws -> Kind {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw failure("lstat", path) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        case S_IFLNK: return .symlink
        default: return .other
        }
    }

    /// The size of the file at `path` (without following a final symlink).
    public static func size(ofFileAt path: String) throws -> Int {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw failure("lstat", path) }
        return Int(info.st_size)
    }

    /// An open folder, for looking up many names in it (`fstatat` relative to it walks one
    /// component instead of the whole path each time). Closed when released.
    package final class Folder: Sendable {
        package let descriptor: Int32

        package init(_ path: String) throws {
            descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard descriptor >= 0 else { throw FileSystem.failure("open", path) }
        }

        deinit { close(descriptor) }

        /// `lstat` of `relative` (a path below the folder); false when it fails (errno is set).
        package func lstat(_ relative: String, _ info: inout stat) -> Bool {
            fstatat(descriptor, relative, &info, AT_SYMLINK_NOFOLLOW) == 0
        }
    }

    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// Names in a folder (not `.` or `..`), sorted.
    public static func listDirectory(_ path: String) throws -> [String] { try listDirectory(path, prefix: "") }

    /// The names in a folder that begin with `prefix`, sorted. Names are compared as bytes
    /// before a String is made of them: a folder of thousands of objects is listed for the few
    /// hidden leftovers a crash can leave.
    public static func listDirectory(_ path: String, prefix: String) throws -> [String] {
        guard let dir = opendir(path) else { throw failure("opendir", path) }
        defer { closedir(dir) }
        let wanted = Array(prefix.utf8)
        var names: [String] = []
        while let entry = readdir(dir) {
            let name: String? = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                guard raw.count > wanted.count, memcmp(raw.baseAddress!, wanted, wanted.count) == 0 else { return nil }
                return String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if let name, name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    public static func readFile(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure("open", path) }
        defer { close(fd) }
        return try readAll(fd, path: path)
    }

    /// Reads an open file from its current offset to the end.
    public static func readAll(_ fd: Int32, path: String) throws -> [UInt8] {
        // Read straight into a buffer of the file's size (one more byte, so the read that
        // returns 0 needs no growth), left unfilled until read into; it grows if the file does.
        // Allocating and zeroing a 64 KiB chunk per file cost more than the reads for 11,600
        // small files, and zeroing the buffer first was a tenth of reading 2,000 terms files.
        var info = stat()
        let size = fstat(fd, &info) == 0 ? max(Int(info.st_size), 0) : 0
        /// Reads into `buffer` until it is full or the file ends; how much was read.
        func fill(_ buffer: UnsafeMutableBufferPointer<UInt8>) throws -> Int {
            var count = 0
            while count < buffer.count {
                let received = read(fd, buffer.baseAddress! + count, buffer.count - count)
                if received < 0 {
                    if errno == EINTR { continue }
                    throw failure("read", path)
                }
                if received == 0 { break }
                count += received
            }
            return count
        }
        var full = false
        var bytes = try [UInt8](unsafeUninitializedCapacity: size + 1) { buffer, initialized in
            initialized = try fill(buffer)
            full = initialized == buffer.count
        }
        // The file grew while it was read: on in chunks as large as what was read so far.
        while full {
            let more = try [UInt8](unsafeUninitializedCapacity: max(bytes.count, 4096)) { buffer, initialized in
                initialized = try fill(buffer)
                full = initialized == buffer.count
            }
            bytes += more
        }
        return bytes
    }

    /// Creates a folder and its parents.
    public static func makeDirectories(_ path: String, mode: mode_t = 0o755) throws {
        var current = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            current += "/" + part
            if mkdir(current, mode) != 0 {
                if errno != EEXIST { throw failure("mkdir", current) }
                if !isDirectory(current) { throw failure("mkdir", current, code: ENOTDIR) }
            }
        }
    }

    /// Writes a file in place (no fsync); for scratch files and tests.
    public static func writeFile(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o644) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard fd >= 0 else { throw failure("open", path) }
        defer { close(fd) }
        try writeAll(fd, bytes, path: path)
    }

    package static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw failure("write", path)
            }
            offset += written
        }
    }

    /// Removes a file or a folder tree; a missing path is not an error.
    public static func removeTree(_ path: String) throws {
        guard let kind = try? kind(ofItemAt: path) else { return }
        if kind == .directory {
            for name in try listDirectory(path) { try removeTree(path + "/" + name) }
            guard rmdir(path) == 0 else { throw failure("rmdir", path) }
        } else {
            guard unlink(path) == 0 || errno == ENOENT else { throw failure("unlink", path) }
        }
    }

    /// The absolute, symlink-free form of an existing path.
    public static func realPath(_ path: String) throws -> String {
        guard let resolved = realpath(path, nil) else { throw failure("realpath", path) }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    public static func currentDirectory() -> String {
        guard let cwd = getcwd(nil, 0) else { return "." }
        defer { free(cwd) }
        return String(cString: cwd)
    }

    /// An `OperationalError` naming the call, the path and errno's text.
    public static func failure(_ call: String, _ path: String, code: Int32 = errno) -> OperationalError {
        let text = String(cString: strerror(code))
        return OperationalError("\(call) \(path): \(text)", ko: "\(call) \(path) 실패: \(errnoKorean[code] ?? text)")
    }

    /// What the errors a file operation meets most often mean, in Korean (glibc's own
    /// translations are installed with a Korean locale only).
    public static let errnoKorean: [Int32: String] = [
        EPERM: "허용되지 않은 작업입니다", ENOENT: "그런 파일이나 폴더가 없습니다", EIO: "입출력 오류입니다", EACCES: "권한이 없습니다",
        EEXIST: "이미 있습니다", ENOTDIR: "폴더가 아닙니다", EISDIR: "폴더입니다", EINVAL: "잘못된 인자입니다", EMFILE: "열린 파일이 너무 많습니다",
        ENOSPC: "디스크 공간이 부족합니다", EROFS: "읽기 전용 파일 시스템입니다", EMLINK: "링크가 너무 많습니다", ENAMETOOLONG: "이름이 너무 깁니다",
        ENOTEMPTY: "폴더가 비어 있지 않습니다", ELOOP: "심볼릭 링크가 너무 많이 이어집니다", EXDEV: "다른 파일 시스템 사이의 링크입니다",
        EDQUOT: "디스크 할당량을 넘었습니다", EADDRINUSE: "주소가 이미 쓰이고 있습니다", ECONNREFUSED: "연결이 거부되었습니다", ETIMEDOUT: "시간이 초과되었습니다",
        EAGAIN: "잠시 사용할 수 없습니다", EBUSY: "사용 중입니다", ETXTBSY: "실행 중인 파일입니다", EFBIG: "파일이 너무 큽니다",
    ]
}

extension FileSystem {
    /// Copies regular files and folders from `source` into `destination` (created), skipping
    /// dot-files and refusing symlinks.
    public static func copyTree(from source: String, to destination: String) throws {
        try makeDirectories(destination)
        for name in try listDirectory(source) where !name.hasPrefix(".") {
            let from = source + "/" + name
            let to = destination + "/" + name
            switch try kind(ofItemAt: from) {
            case .directory: try copyTree(from: from, to: to)
            case .file: try writeFile(to, try readFile(from))
            case .symlink: throw OperationalError("\(from) is a symlink; refusing to copy it", ko: "\(from)은(는) 심볼릭 링크라서 복사하지 않습니다")
            case .other: break
            }
        }
    }
}
