import Glibc
import RatecardOutput
import RatecardSupport

/// `.ratecard/verified`: the stat data of every file of the newest release, taken after it was
/// published (every file was hash-checked or read back then), with its sha256.
///
/// Publishing hard-links unchanged files only after checking that the source still has the
/// hash its release lists; re-hashing tens of megabytes each time is most of the cost of a
/// small publish. A file whose inode, size, mtime and ctime are what was recorded cannot have
/// been written since: any write, chmod or new link moves its ctime, which no one can set back
/// (an inode number reused for a new file gets a new ctime too). So a match stands in for the
/// hash, git's own stat shortcut for its index. Recorded after the links are made, because a
/// link moves the ctime; a file not in the record, or not matching, is hashed as before.
/// A missing or unreadable record only makes the next publish hash everything.
public struct VerifiedFiles: Sendable {
    struct Stamp: Hashable, Sendable {
        var inode: UInt64
        var size: Int
        var mtime: Int
        var ctime: Int
        var sha256: String
    }

    public static let fileName = ".ratecard/verified"

    private let stamps: [UInt64: Stamp]
    /// Lines the record was read from (later lines stand for the same inode: it grows by appends).
    let lines: Int

    init(stamps: [UInt64: Stamp], lines: Int = 0) {
        self.stamps = stamps
        self.lines = lines
    }

    /// The record of a serve root; empty when there is none or it cannot be read.
    public static func load(root: String) -> VerifiedFiles {
        let path = root + "/" + fileName
        guard let bytes = try? StateFiles.read(DurableFiles.parent(of: path), DurableFiles.name(of: path)) else {
            return VerifiedFiles(stamps: [:])
        }
        var stamps: [UInt64: Stamp] = [:]
        stamps.reserveCapacity(bytes.count / 100)
        // "<inode> <size> <mtime> <ctime> <sha256>" per line, read field by field from the bytes
        // (thousands of lines, every publish); a line that does not read is skipped.
        var index = 0
        var lines = 0
        func number() -> Int? {
            var value = 0
            var digits = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39, digits < 19 {
                value = value * 10 + Int(bytes[index] - 0x30)
                digits += 1
                index += 1
            }
            guard digits > 0, index < bytes.count, bytes[index] == 0x20 else { return nil }
            index += 1
            return value
        }
        while index < bytes.count {
            let start = index
            if let inode = number(), let size = number(), let mtime = number(), let ctime = number() {
                let hashStart = index
                while index < bytes.count, bytes[index] != 0x0A { index += 1 }
                if index - hashStart == 64 {
                    let stamp = Stamp(inode: UInt64(inode), size: size, mtime: mtime, ctime: ctime, sha256: String(decoding: bytes[hashStart..<index], as: UTF8.self))
                    stamps[stamp.inode] = stamp
                }
            }
            if index == start { index += 1 }
            while index < bytes.count, bytes[index] != 0x0A { index += 1 }
            index += 1
            lines += 1
        }
        return VerifiedFiles(stamps: stamps, lines: lines)
    }

    /// Whether the file at `path` is, by its stat data, still the recorded file with `file`'s hash.
    public func vouches(for path: String, as file: BundleManifest.File) -> Bool {
        guard let stamp = Self.stamp(path, sha256: file.sha256) else { return false }
        return vouches(for: stamp, size: file.size)
    }

    /// Whether a file's stat data, taken now, are what was recorded for it, with that hash and size.
    func vouches(for stamp: Stamp, size: Int) -> Bool {
        guard let recorded = stamps[stamp.inode] else { return false }
        return recorded == stamp && stamp.size == size
    }

    /// `vouches(for:as:)`, else the file is read and hashed.
    public func matches(_ path: String, _ file: BundleManifest.File) -> Bool {
        vouches(for: path, as: file) || LocalFiles.matches(path, file)
    }

    /// Records the files of `folder` (relative path -> listed file) as they are now.
    static func record(_ files: [BundleManifest.File], in folder: String, root: String) throws {
        try record(files.map { (folder + "/" + $0.path, $0) }, root: root)
    }

    /// Records objects (`folder/<name>`) as they are now; `known` (name -> stamp) stands for the
    /// lstat of an object whose stamp was taken when it was checked, in this run, and that has not
    /// been linked or written since.
    static func record(objects: [(name: String, file: BundleManifest.File)], in folder: String, root: String, known: [String: Stamp]) throws {
        var stamps: [Stamp?] = []
        stamps.reserveCapacity(objects.count)
        var unknown: [(index: Int, name: String, sha256: String)] = []
        for (index, object) in objects.enumerated() {
            let stamp = known[object.name]
            stamps.append(stamp)
            if stamp == nil { unknown.append((index, object.name, object.file.sha256)) }
        }
        // An lstat each for the others, on two threads.
        let directory = try FileSystem.Folder(folder)
        let taken = ParallelMap.map(unknown.map { ($0.name, $0.sha256) }) { name, sha256 -> Stamp? in
            var info = stat()
            return directory.lstat(name, &info) ? stamp(info, sha256: sha256) : nil
        }
        for (entry, stamp) in zip(unknown, taken) { stamps[entry.index] = stamp }
        try write(zip(objects.map(\.file), stamps).map { ($0, $1) }, root: root)
    }

    /// Records files by absolute path as they are now.
    static func record(_ files: [(path: String, file: BundleManifest.File)], root: String) throws {
        // An lstat each, on two threads.
        let stamps = ParallelMap.map(files.map { ($0.path, $0.file.sha256) }) { stamp($0.0, sha256: $0.1) }
        try write(zip(files.map(\.file), stamps).map { ($0, $1) }, root: root)
    }

    /// Adds to the end of the record the stamps of `objects` (name -> object), their stat data
    /// taken now.
    static func append(_ objects: [String: StoreItem], in folder: String, root: String) throws {
        let directory = try FileSystem.Folder(folder)
        let items = Array(objects.values)
        let taken = ParallelMap.map(items) { item -> Stamp? in
            guard case .object(let name) = item.key else { return nil }
            var info = stat()
            return directory.lstat(name, &info) ? stamp(info, sha256: item.sha256) : nil
        }
        let stamps = zip(items, taken).map { item, stamp in (file: BundleManifest.File(path: "", sha256: item.sha256, size: item.size), stamp: stamp) }
        let path = root + "/" + fileName
        let fd = try StateFiles.open(DurableFiles.parent(of: path), DurableFiles.name(of: path), flags: O_WRONLY | O_APPEND)
        guard fd >= 0 else { return }
        defer { close(fd) }
        // A cache: no fsync; a line torn by a crash does not read and is skipped.
        try FileSystem.writeAll(fd, text(stamps), path: path)
    }

    private static func write(_ stamps: [(file: BundleManifest.File, stamp: Stamp?)], root: String) throws {
        let path = root + "/" + fileName
        // A cache: a record lost in a crash makes the next publish hash, a stale one vouches for
        // nothing that changed since (its stat data would differ).
        try StateFiles.replace(DurableFiles.parent(of: path), DurableFiles.name(of: path), text(stamps), durable: false)
    }

    /// The record's lines for `stamps` (one per inode; a stamp whose size is not its file's, or
    /// that has no number the loader could read, is left out).
    private static func text(_ stamps: [(file: BundleManifest.File, stamp: Stamp?)]) -> [UInt8] {
        var text: [UInt8] = []
        text.reserveCapacity(stamps.count * 110)
        var written: Set<UInt64> = []
        for (file, stamp) in stamps {
            // (The loader reads unsigned fields: a stamp that has none to give is left out.)
            guard let stamp, stamp.size == file.size, stamp.inode <= UInt64(Int.max), stamp.mtime >= 0, stamp.ctime >= 0,
                written.insert(stamp.inode).inserted
            else { continue }
            Bytes.appendDecimal(Int(stamp.inode), to: &text)
            text.append(0x20)
            Bytes.appendDecimal(stamp.size, to: &text)
            text.append(0x20)
            Bytes.appendDecimal(stamp.mtime, to: &text)
            text.append(0x20)
            Bytes.appendDecimal(stamp.ctime, to: &text)
            text.append(0x20)
            text.append(contentsOf: stamp.sha256.utf8)
            text.append(0x0A)
        }
        return text
    }

    private static func stamp(_ path: String, sha256: String) -> Stamp? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return stamp(info, sha256: sha256)
    }

    /// The stamp of a file from its stat data; nil for anything but a regular file.
    static func stamp(_ info: stat, sha256: String) -> Stamp? {
        guard (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Stamp(
            inode: UInt64(info.st_ino), size: Int(info.st_size),
            mtime: info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec,
            ctime: info.st_ctim.tv_sec * 1_000_000_000 + info.st_ctim.tv_nsec, sha256: sha256)
    }
}
