import Glibc
import RatecardSupport

/// Content read from a folder on disk (the default: what an editor has changed).
///
/// Symlinks are listed as symlinks (`lstat`), and a folder holding its own `.git` is listed
/// as a submodule; neither is entered. Dot-files are skipped.
public struct WorkingTreeSource: ContentSource, Sendable {
    /// The content folder on disk.
    public var root: String
    public var contentRoot: ContentRoot
    /// The blob ids an earlier run recorded for unchanged files (`WorkTreeStamps`); nil reads
    /// and hashes every file.
    public var stamps: WorkTreeStamps?

    public init(root: String, contentRoot: ContentRoot, stamps: WorkTreeStamps? = nil) {
        self.root = root
        self.contentRoot = contentRoot
        self.stamps = stamps
    }

    public func entries() throws -> [TreeEntry] {
        // The top two levels listed here, the folders below them walked on `Workers.count`
        // threads: a content tree is thousands of folders three and four deep
        // (products/<partner>/<product>/rates), and one thread listing them all took 55 ms.
        var result: [TreeEntry] = []
        var below: [Listed] = []
        // The top folder, open for the walk: the stamps' checks look paths up from it.
        let base = stamps == nil ? -1 : open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { if base >= 0 { close(base) } }
        try walk(relative: "", into: &result, levels: 2, below: &below, base: base)
        let walked = ParallelMap.map(below, threshold: 16) { folder in
            Result { () throws -> [TreeEntry] in
                var entries: [TreeEntry] = []
                var none: [Listed] = []
                try walk(relative: folder.relative, listed: folder.names, into: &entries, below: &none, base: base)
                return entries
            }
        }
        for part in walked { result += try part.get() }
        return result.sorted { $0.path < $1.path }
    }

    public func read(_ entry: TreeEntry) throws -> [UInt8] {
        try FileSystem.readFile(root + "/" + entry.path)
    }

    public func size(_ entry: TreeEntry) throws -> Int {
        try FileSystem.size(ofFileAt: root + "/" + entry.path)
    }

    /// One open: the size comes from `fstat` on the open file (the file read is the file
    /// measured), and a file over `limit` is not read.
    public func read(_ entry: TreeEntry, limit: Int) throws -> (bytes: [UInt8]?, size: Int) {
        let path = root + "/" + entry.path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystem.failure("open", path) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileSystem.failure("fstat", path) }
        guard Int(info.st_size) <= limit else { return (nil, Int(info.st_size)) }
        let bytes = try FileSystem.readAll(fd, path: path)
        return (bytes, bytes.count)
    }

    /// A file's blob id, and its bytes when they had to be read for it: a file the stamps
    /// vouch for is not read (nil bytes); any other is read (as `read(_:limit:)`) and hashed,
    /// and noted for the next run. Nil bytes and id: the file is over `limit`.
    package func readIdentified(_ entry: TreeEntry, limit: Int) throws -> (bytes: [UInt8]?, size: Int, id: ObjectID?) {
        let path = root + "/" + entry.path
        if let stamps, let id = stamps.id(of: entry.path, at: path) { return (nil, 0, id) }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystem.failure("open", path) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileSystem.failure("fstat", path) }
        guard Int(info.st_size) <= limit else { return (nil, Int(info.st_size), nil) }
        let bytes = try FileSystem.readAll(fd, path: path)
        let id = Repository.blobID(of: bytes)
        // Only a file that was not changed while it was read (its size is what was read).
        if let stamps, bytes.count == Int(info.st_size) { stamps.note(entry.path, info, id: id) }
        return (bytes, bytes.count, id)
    }

    /// A folder listed, not yet walked.
    private struct Listed: Sendable {
        var relative: String
        var names: [(name: String, kind: FileSystem.Kind)]
    }

    /// Lists one folder and what is below it. The kind of each name comes from the folder's
    /// own listing (`d_type`), so the walk costs one `opendir` per folder and no `lstat` per
    /// file; a file system that does not fill it in (`DT_UNKNOWN`) is asked with `lstat`. A
    /// folder holding `.git` is listed as a submodule and not entered.
    /// `listed`: the folder's names, when the caller has listed them (each folder is listed once).
    /// `levels`: how many levels of folders to enter here; the folders past them are put in
    /// `below` with their names, for the caller to walk.
    private func walk(
        relative: String, listed: [(name: String, kind: FileSystem.Kind)]? = nil, into result: inout [TreeEntry], levels: Int = .max, below: inout [Listed],
        base: Int32
    ) throws {
        let folder = relative.isEmpty ? root : root + "/" + relative
        for (name, kind) in try listed ?? Self.list(folder, stamps: stamps, relative: relative, base: base) where !name.hasPrefix(".") {
            let path = relative.isEmpty ? name : relative + "/" + name
            switch kind {
            case .symlink:
                result.append(TreeEntry(path: path, kind: .symlink, id: nil))
            case .directory:
                let inner = try Self.list(root + "/" + path, stamps: stamps, relative: path, base: base)
                if inner.contains(where: { $0.name == ".git" }) {
                    result.append(TreeEntry(path: path, kind: .submodule, id: nil))
                } else if levels <= 1 {
                    below.append(Listed(relative: path, names: inner))
                } else {
                    try walk(relative: path, listed: inner, into: &result, levels: levels - 1, below: &below, base: base)
                }
            case .file:
                result.append(TreeEntry(path: path, kind: .file, id: nil))
            case .other:
                break
            }
        }
    }

    /// The names in a folder (not `.` or `..`) with their kinds, the final component not followed.
    /// With `stamps`, each file's stat data is checked against them here, by name in the open
    /// folder (`relative`: the folder's path in the tree): one path component to look up, where
    /// the check when the file is loaded walked its whole path again.
    ///
    /// A folder the stamps hold a listing of, still as recorded, is not read: its names are the
    /// recorded ones, and its files are checked by their paths. A folder that is read has its
    /// `stat` taken first (a change while it is read makes the recorded one differ), and is
    /// noted for the next run.
    /// `base`: the top folder of the tree, open (`relative` is looked up from it), or -1.
    package static func list(_ folder: String, stamps: WorkTreeStamps? = nil, relative: String = "", base: Int32 = -1) throws -> [(name: String, kind: FileSystem.Kind)] {
        var folderInfo = stat()
        if let stamps, base >= 0, fstatat(base, relative.isEmpty ? "." : relative, &folderInfo, AT_SYMLINK_NOFOLLOW) == 0,
            let names = stamps.listing(of: relative, folderInfo)
        {
            for (name, kind) in names where kind == .file && !name.hasPrefix(".") {
                let path = relative.isEmpty ? name : relative + "/" + name
                var info = stat()
                if fstatat(base, path, &info, AT_SYMLINK_NOFOLLOW) == 0 { stamps.vouch(path, info) }
            }
            return names
        }
        guard let dir = opendir(folder) else { throw FileSystem.failure("opendir", folder) }
        defer { closedir(dir) }
        let noted = stamps != nil && fstat(dirfd(dir), &folderInfo) == 0
        var names: [(name: String, kind: FileSystem.Kind)] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name != "." && name != ".." else { continue }
            let kind: FileSystem.Kind
            switch Int32(entry.pointee.d_type) {
            case Int32(DT_REG):
                kind = .file
                var info = stat()
                if let stamps, !name.hasPrefix("."), fstatat(dirfd(dir), name, &info, AT_SYMLINK_NOFOLLOW) == 0 {
                    stamps.vouch(relative.isEmpty ? name : relative + "/" + name, info)
                }
            case Int32(DT_DIR): kind = .directory
            case Int32(DT_LNK): kind = .symlink
            case Int32(DT_UNKNOWN): kind = try FileSystem.kind(ofItemAt: folder + "/" + name)
            default: kind = .other
            }
            names.append((name, kind))
        }
        if noted { stamps?.note(folder: relative, folderInfo, names: names) }
        return names
    }
}
