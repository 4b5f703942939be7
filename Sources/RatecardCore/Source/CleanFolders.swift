import Glibc
import RatecardSupport

/// The folders of the work tree that held only tracked files when the dirty check last found the
/// content clean, with their stat data and how many files they held (git's untracked cache, in
/// a file of ratecard's own in the git folder): a folder whose times and inode are what was
/// recorded has the same entries (adding, removing or renaming one moves its mtime), so its
/// listing need not be read again, as long as the index still tracks as many files in it (every
/// tracked file is checked to be on disk, so as many tracked as there are means all of them).
/// That survives commits, which rewrite the index. A folder changed within a few milliseconds
/// of the walk that recorded it is read again (times come from a coarse clock). A cache: lost
/// or unreadable, every folder is read.
package struct CleanFolders: Sendable {
    package struct Stamp: Equatable, Sendable {
        package var mtime: Int
        package var ctime: Int
        package var inode: UInt64
        /// Tracked files directly in the folder.
        package var files: Int
    }

    package static let fileName = "ratecard-clean-folders"
    package static let header = "ratecard clean folders 1"
    /// How long before the recording walk started a folder must have last changed to be trusted.
    package static let margin = 50_000_000

    package var prefix: String
    /// When the recording walk started (ns of the real-time clock, as file times are).
    package var walkStart: Int
    /// Each folder (relative to the content root, "" for the root) with its stamp when recorded.
    package var recorded: [(path: String, stamp: Stamp)]

    package init(prefix: String, walkStart: Int, folders: [String: Stamp]) {
        self.init(prefix: prefix, walkStart: walkStart, recorded: folders.map { ($0.key, $0.value) })
    }

    package init(prefix: String, walkStart: Int, recorded: [(path: String, stamp: Stamp)]) {
        self.prefix = prefix
        self.walkStart = walkStart
        self.recorded = recorded
    }

    /// Folder -> its stamp when recorded.
    package var folders: [String: Stamp] { Dictionary(recorded, uniquingKeysWith: { first, _ in first }) }

    /// Each recorded folder's recorded subfolders.
    package var children: [String: [String]] {
        var children: [String: [String]] = [:]
        for (path, _) in recorded where !path.isEmpty { children[Self.parent(of: path), default: []].append(path) }
        return children
    }

    /// Whether the work tree below `root` is as recorded, every file in it tracked, without
    /// reading a listing: every recorded folder is trusted (`trusts`) with as many tracked files
    /// as it held, and they hold all `total` tracked files. (A folder made since moved its
    /// parent's mtime; a file added, removed or renamed moved its own folder's.)
    package func unchanged(below root: FileSystem.Folder, trackedIn: [String: Int], total: Int) -> Bool {
        guard recorded.reduce(0, { $0 + $1.stamp.files }) == total else { return false }
        let walkStart = walkStart
        let trusted = ParallelMap.map(recorded) { path, stamp -> Bool in
            var info = stat()
            return root.lstat(path.isEmpty ? "." : path, &info) && (info.st_mode & S_IFMT) == S_IFDIR
                && Self.trusts(stamp, now: Self.stamp(info), tracked: trackedIn[path] ?? 0, walkStart: walkStart)
        }
        return trusted.allSatisfy { $0 }
    }

    /// A folder's stamp from its stat data (`files` zero: counted by whoever reads the listing).
    package static func stamp(_ info: stat) -> Stamp {
        Stamp(mtime: nanoseconds(info.st_mtim), ctime: nanoseconds(info.st_ctim), inode: UInt64(info.st_ino), files: 0)
    }

    /// The folder that holds `path` ("" for the root).
    package static func parent(of path: String) -> String {
        path.utf8.lastIndex(of: UInt8(ascii: "/")).map { String(path[..<$0]) } ?? ""
    }

    /// Whether a folder recorded with `recorded` still has it (`now`), it is old enough to trust
    /// and the index tracks as many files in it (`tracked`) as it held.
    package static func trusts(_ recorded: Stamp, now stamp: Stamp, tracked: Int, walkStart: Int) -> Bool {
        recorded.mtime == stamp.mtime && recorded.ctime == stamp.ctime && recorded.inode == stamp.inode && recorded.files == tracked
            && recorded.mtime < walkStart - margin
    }

    package static func nanoseconds(_ time: timespec) -> Int { time.tv_sec * 1_000_000_000 + time.tv_nsec }

    package static func realTime() -> Int {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return nanoseconds(spec)
    }

    /// The record in `gitDir`, when it was taken for this content root. (Read as bytes: the
    /// record of a large work tree has thousands of lines, and it is read on every publish.)
    package static func load(gitDir: String, prefix: String) -> CleanFolders? {
        guard let bytes = try? FileSystem.readFile(gitDir + "/" + fileName) else { return nil }
        return bytes.withUnsafeBufferPointer { buffer -> CleanFolders? in
            var reader = LineReader(bytes: buffer)
            guard let first = reader.line(), String(decoding: first, as: UTF8.self) == header,
                let second = reader.line(), String(decoding: second, as: UTF8.self) == "prefix " + prefix,
                let third = reader.line(), third.starts(with: "walk ".utf8), let start = LineReader.integer(third.dropFirst(5))
            else { return nil }
            var folders: [(path: String, stamp: Stamp)] = []
            while let line = reader.line() {
                if line.isEmpty { continue }
                var fields = LineReader.Fields(line: line)
                guard let mtime = fields.integer(), let ctime = fields.integer(), let inode = fields.integer(), inode >= 0, let files = fields.integer(),
                    !fields.rest.isEmpty
                else { return nil }
                let name = String(decoding: fields.rest, as: UTF8.self)
                folders.append((name == "." ? "" : name, Stamp(mtime: mtime, ctime: ctime, inode: UInt64(inode), files: files)))
            }
            return CleanFolders(prefix: prefix, walkStart: start, recorded: folders)
        }
    }

    /// Lines of a byte buffer, and space-separated decimal fields of a line.
    private struct LineReader {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        /// The next line without its line break; nil after the last.
        mutating func line() -> Slice<UnsafeBufferPointer<UInt8>>? {
            guard position < bytes.count else { return nil }
            let start = position
            while position < bytes.count, bytes[position] != UInt8(ascii: "\n") { position += 1 }
            let line = bytes[start..<position]
            position += 1
            return line
        }

        /// The decimal number (a leading `-` allowed) that is the whole of `digits`; nil when it
        /// is not one or does not fit.
        static func integer(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> Int? {
            let negative = digits.first == UInt8(ascii: "-")
            let digits = negative ? digits.dropFirst() : digits
            guard !digits.isEmpty else { return nil }
            var value = 0
            for byte in digits {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                let (times, overflow) = value.multipliedReportingOverflow(by: 10)
                let (sum, carry) = times.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
                guard !overflow, !carry else { return nil }
                value = sum
            }
            return negative ? -value : value
        }

        struct Fields {
            var rest: Slice<UnsafeBufferPointer<UInt8>>

            init(line: Slice<UnsafeBufferPointer<UInt8>>) { rest = line }

            /// The next field as a number, consuming it and the space after it.
            mutating func integer() -> Int? {
                guard let space = rest.firstIndex(of: UInt8(ascii: " ")), let value = LineReader.integer(rest[rest.startIndex..<space]) else { return nil }
                rest = rest[(space + 1)...]
                return value
            }
        }
    }

    /// Replaces the record (a temp file renamed over it; no fsync: a cache).
    package func write(gitDir: String) {
        var text = "\(Self.header)\nprefix \(prefix)\nwalk \(walkStart)\n"
        for (path, stamp) in recorded.sorted(by: { $0.path < $1.path }) {
            // A name with a line break cannot be recorded: no record, every folder read next time.
            guard !path.contains("\n"), path != "." else { return }
            text += "\(stamp.mtime) \(stamp.ctime) \(stamp.inode) \(stamp.files) \(path.isEmpty ? "." : path)\n"
        }
        let temporary = gitDir + "/." + Self.fileName + ".tmp-\(getpid())"
        unlink(temporary)
        guard (try? DurableFiles.create(temporary, Array(text.utf8), sync: false)) != nil else { return }
        if rename(temporary, gitDir + "/" + Self.fileName) != 0 { unlink(temporary) }
    }
}
