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
    /// Folder (relative to the content root, "" for the root) -> its stamp when recorded.
    package var folders: [String: Stamp]

    /// Each recorded folder's recorded subfolders.
    package var children: [String: [String]] {
        var children: [String: [String]] = [:]
        for path in folders.keys where !path.isEmpty {
            let parent = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""
            children[parent, default: []].append(path)
        }
        return children
    }

    /// The recorded stamp of `folder`, when the folder still has it, it is old enough to trust
    /// and the index tracks as many files in it (`tracked`) as it held.
    package func trusted(_ folder: String, now stamp: Stamp, tracked: Int) -> Stamp? {
        guard let recorded = folders[folder], recorded.mtime == stamp.mtime, recorded.ctime == stamp.ctime,
            recorded.inode == stamp.inode, recorded.files == tracked, recorded.mtime < walkStart - Self.margin
        else { return nil }
        return recorded
    }

    package static func nanoseconds(_ time: timespec) -> Int { time.tv_sec * 1_000_000_000 + time.tv_nsec }

    package static func realTime() -> Int {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return nanoseconds(spec)
    }

    /// The record in `gitDir`, when it was taken for this content root.
    package static func load(gitDir: String, prefix: String) -> CleanFolders? {
        guard let bytes = try? FileSystem.readFile(gitDir + "/" + fileName) else { return nil }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 3, lines[0] == header, lines[1] == "prefix " + prefix,
            lines[2].hasPrefix("walk "), let start = Int(lines[2].dropFirst(5))
        else { return nil }
        var folders: [String: Stamp] = [:]
        for line in lines.dropFirst(3) where !line.isEmpty {
            let fields = line.split(separator: " ", maxSplits: 4, omittingEmptySubsequences: false)
            guard fields.count == 5, let mtime = Int(fields[0]), let ctime = Int(fields[1]), let inode = UInt64(fields[2]),
                let files = Int(fields[3])
            else { return nil }
            let path = fields[4] == "." ? "" : String(fields[4])
            folders[path] = Stamp(mtime: mtime, ctime: ctime, inode: inode, files: files)
        }
        return CleanFolders(prefix: prefix, walkStart: start, folders: folders)
    }

    /// Replaces the record (a temp file renamed over it; no fsync: a cache).
    package func write(gitDir: String) {
        var text = "\(Self.header)\nprefix \(prefix)\nwalk \(walkStart)\n"
        for (path, stamp) in folders.sorted(by: { $0.key < $1.key }) {
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
