import Foundation
import Glibc
import RatecardCore
import RatecardSupport
import Synchronization

/// Writes a file tree into a folder all at once: staged beside it, flushed, then swapped into
/// place. On failure nothing is left behind, and an existing folder is untouched.
public enum BundleWriter {
    /// Writes `files` (relative path -> bytes) as the folder `destination`.
    ///
    /// An existing `destination` must be empty or hold an earlier build (`data/manifest.json`);
    /// it is replaced only after the new tree is complete, in one step. A file of the earlier
    /// build whose bytes equal the new file's (at the same path, or where the earlier build
    /// listed the same sha256: data files move with the bundle id) is the same file in the new
    /// tree (a second name of it), not written again: a build after a small edit writes (and
    /// flushes) only what the edit changed.
    ///
    /// The tree the folder held before the earlier build is kept beside it (`.<name>.spare`)
    /// and made the next tree in place: its names of files that did not change are already the
    /// earlier build's files, so only what changed is linked, written or removed there (not
    /// thousands of names made and the old tree removed). Nothing in it is trusted: a name is
    /// kept only when it is the earlier build's file, which has no other name; anything else in
    /// it is removed or replaced.
    ///
    /// With a build cache, what the last build left in `destination` is known without reading
    /// it (`OutputRecord`: each file's sha256, inode, size and times): an earlier file still
    /// exactly as recorded, in a real folder of the earlier tree, is taken without being read;
    /// any other is read and compared (or written anew). `manifest` gives the new files' sha256.
    /// `extraTrees` (a web build) are copied in first, and no spare is kept.
    ///
    /// `cached`: files whose bytes the build cache holds (`BundleBuilder.Output.cached`), read
    /// from it only when written or compared; one that does not read back whole throws
    /// `CachedFileUnreadable` (build it again without naming cached files).
    public static func write(
        _ files: [String: [UInt8]], to destination: String, extraTrees: [String] = [], manifest: BundleManifest? = nil, cache: BuildCache? = nil,
        cached: [String: BuildCache.Key] = [:]
    ) throws {
        let parent = DurableFiles.parent(of: destination)
        let name = DurableFiles.name(of: destination)
        var earlier: String?
        if FileSystem.exists(destination) {
            guard FileSystem.isDirectory(destination) else {
                throw ConflictError("\(destination) exists and is not a folder; choose another --out", ko: "\(destination)은(는) 이미 있고 폴더가 아닙니다; 다른 --out을 고르세요")
            }
            let entries = try FileSystem.listDirectory(destination)
            if !entries.isEmpty && !FileSystem.exists(destination + "/" + BundleLayout.manifest) {
                throw ConflictError(
                    "\(destination) is not empty and holds no earlier build (no \(BundleLayout.manifest)); refusing to replace it",
                    ko: "\(destination)은(는) 비어 있지 않고 이전 빌드도 아닙니다 (\(BundleLayout.manifest) 없음); 바꾸지 않습니다")
            }
            if !entries.isEmpty { earlier = destination }
        }
        do {
            try FileSystem.makeDirectories(parent)
        } catch {
            let why = Message.of(error)
            throw OperationalError("cannot create the output folder: \(why)", ko: "출력 폴더를 만들 수 없습니다: \(why)")
        }
        let staging = "\(parent)/.\(name).staging-\(getpid())"
        let spare = "\(parent)/.\(name).spare"
        let keepsSpare = extraTrees.isEmpty
        try? FileSystem.removeTree(staging)
        // The new files' sha256: the manifest lists all but itself and the entry document.
        let sums = manifest.map { Dictionary($0.files.map { ($0.path, $0.sha256) }, uniquingKeysWith: { first, _ in first }) } ?? [:]
        let paths = (Array(files.keys) + Array(cached.keys)).sorted()
        /// A file's bytes: given, or read from the build cache (checked as it is read).
        let bytes = { @Sendable (path: String) throws -> [UInt8] in
            if let given = files[path] { return given }
            guard let key = cached[path], let read = cache?.read(key) else { throw CachedFileUnreadable(path: path) }
            return read
        }
        let stamps = Stamps(count: paths.count)
        var earlierRecord: OutputRecord?
        do {
            // The spare, claimed by a rename (of two processes, one gets it), and only a folder.
            var claimed = false
            if keepsSpare, earlier != nil, FileSystem.isDirectory(spare), rename(spare, staging) == 0 {
                var info = stat()
                claimed = lstat(staging, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR && info.st_uid == geteuid()
                if !claimed { try FileSystem.removeTree(staging) }
            }
            if !claimed { try FileSystem.makeDirectories(staging) }
            for tree in extraTrees { try FileSystem.copyTree(from: tree, to: staging) }
            // The earlier tree as the kernel resolves it: a file is taken only from inside it.
            let earlier = earlier.flatMap { try? FileSystem.realPath($0) }
            let record = earlier.flatMap { earlier in cache.flatMap { OutputRecord.read(earlier, from: $0) } }
            earlierRecord = record
            let moved = earlier.map { movedFiles(from: $0, to: files, sums: sums, record: record) } ?? [:]
            // The earlier tree's folders that are folders (not links), for the files a record vouches for.
            let folders = earlier.map { earlier in record == nil ? [] : realFolders(in: earlier, of: paths.map { moved[$0] ?? $0 }) } ?? []
            Trace.mark("write: the earlier build (\(record == nil ? "no record" : "recorded"), \(claimed ? "its spare" : "no spare"))")
            // The folders whose names change, and the files written: flushed one by one when few.
            let touched = Touched()
            if claimed, let manifest, renameDataFolder(in: staging, to: BundleLayout.dataFolder(manifest.bundleID)) { touched.folder("data") }
            let present = claimed ? try prune(staging, keeping: Set(paths), touched: touched) : []
            for folder in try ParallelWrite.makeFolders(for: paths, in: staging, existing: present) {
                touched.folder(folder)
                touched.folder(DurableFiles.parent(of: folder))
            }
            Trace.mark("write: folders")
            let counts = Counts()
            // Creating thousands of files is mostly kernel time; two threads, each its own files.
            try ParallelWrite.each(paths) { path in
                let target = staging + "/" + path
                var here = stat()
                let there = present.contains(path) && lstat(target, &here) == 0 && here.st_mode & S_IFMT == S_IFREG
                if let earlier {
                    let relative = moved[path] ?? path
                    let source = earlier + "/" + relative
                    var info = stat()
                    if lstat(source, &info) == 0 {
                        // The file already has this tree's name (the spare's): that is its one other name.
                        let shared = there && here.st_ino == info.st_ino && here.st_dev == info.st_dev
                        let names = shared ? 2 : 1
                        let stamp = record?.files[relative]
                        let sum = try stamp.map { _ in try sums[path] ?? SHA256.hex(bytes(path)) }
                        let vouched =
                            stamp != nil && stamp!.content == sum && Int(info.st_nlink) == names && folders.contains(DurableFiles.parent(of: relative))
                            && OutputRecord.stamp(info, sha256: stamp!.content) == stamp
                        // A recorded file whose bytes differ is not read: it is written anew.
                        let differs = stamp != nil && stamp!.content != sum
                        if try vouched || (!differs && unchanged(source, bytes(path), inside: earlier, names: names)) {
                            if shared {
                                counts.kept()
                                return stamps.set(path, here)
                            }
                            if there { unlink(target) }
                            touched.folder(DurableFiles.parent(of: path))
                            if link(source, target) == 0 {
                                counts.linked()
                                return stamps.stamp(path, target)
                            }
                        }
                    }
                }
                if there { unlink(target) }
                // A bundle file replaces a web build file of the same path.
                let content = try bytes(path)
                if (try? DurableFiles.create(target, content, sync: false)) == nil {
                    try? FileSystem.removeTree(target)
                    try DurableFiles.create(target, content, sync: false)
                }
                counts.written()
                touched.file(path)
                stamps.stamp(path, target)
            }
            Trace.mark("write: files (\(counts.summary) of \(paths.count))")
            if claimed, let (files, folders) = touched.few(DurableFiles.fewFiles * 4) {
                // Each new file and each folder whose names changed (all else is the earlier
                // build's, flushed then): a file system's sync would flush every process's writes.
                try ParallelWrite.each(files + folders.map { $0 + "/" }) { path in
                    if path.hasSuffix("/") { try DurableFiles.syncDirectory(staging + "/" + String(path.dropLast())) } else { try DurableFiles.syncFile(staging + "/" + path) }
                }
            } else {
                try DurableFiles.syncFilesystem(of: staging)
            }
            Trace.mark("write: synced")
            if FileSystem.exists(destination) {
                if keepsSpare && DurableFiles.exchange(staging, destination) {
                    try DurableFiles.syncDirectory(parent)
                    // The tree just replaced (at the staging name now) is the next build's spare.
                    if rename(staging, spare) != 0 { try? removeTree(staging) }
                } else {
                    let old = "\(parent)/.\(name).old-\(getpid())"
                    guard rename(destination, old) == 0 else { throw FileSystem.failure("rename", destination) }
                    guard rename(staging, destination) == 0 else {
                        let failure = FileSystem.failure("rename", staging)
                        rename(old, destination)
                        throw failure
                    }
                    try DurableFiles.syncDirectory(parent)
                    try? removeTree(old)
                }
            } else {
                guard rename(staging, destination) == 0 else { throw FileSystem.failure("rename", staging) }
                try DurableFiles.syncDirectory(parent)
            }
            Trace.mark("write: replaced")
        } catch {
            try? FileSystem.removeTree(staging)
            throw error
        }
        // What this build left, for the next one.
        if let cache, let real = try? FileSystem.realPath(destination) {
            var record = OutputRecord()
            record.files.reserveCapacity(paths.count)
            for path in paths {
                guard let info = stamps.info(path), let sum = sums[path] ?? files[path].map({ SHA256.hex($0) }), let stamp = OutputRecord.stamp(info, sha256: sum) else { continue }
                record.files[path] = stamp
            }
            // The same record (a build that changed nothing in the folder) is not kept again.
            if record != earlierRecord { record.write(real, to: cache) }
            Trace.mark("write: recorded")
        }
    }

    /// A file named by its build cache entry did not read back whole (the cache was damaged
    /// since the build looked it up): nothing was replaced.
    public struct CachedFileUnreadable: Error {
        public var path: String
    }

    /// The new tree's files as they were left (their `stat`), by path.
    private final class Stamps: @unchecked Sendable {
        private let lock = Mutex<Void>(())
        private var infos: [String: stat] = [:]

        init(count: Int) { infos.reserveCapacity(count) }

        func set(_ path: String, _ info: stat) { lock.withLock { _ in infos[path] = info } }

        func stamp(_ path: String, _ target: String) {
            var info = stat()
            if lstat(target, &info) == 0 { set(path, info) }
        }

        func info(_ path: String) -> stat? { lock.withLock { _ in infos[path] } }
    }

    /// Renames the spare's data folder (`data/<bundle id>/` of the build before the last) to the
    /// new one's, so its files are at the paths the new build names them by.
    @discardableResult
    static func renameDataFolder(in root: String, to folder: String) -> Bool {
        let target = root + "/" + (folder.hasSuffix("/") ? String(folder.dropLast()) : folder)
        let data = DurableFiles.parent(of: target)
        guard !FileSystem.exists(target), let names = try? WorkingTreeSource.list(data) else { return false }
        guard let old = names.first(where: { $0.kind == .directory }) else { return false }
        return rename(data + "/" + old.name, target) == 0
    }

    /// Removes from the tree at `root` every name that is not a plain file of `keeping` or a
    /// folder above one (links, other files, other folders); returns the files and folders left.
    /// The folders of one depth are listed on two threads (hundreds of partners' folders).
    static func prune(_ root: String, keeping files: Set<String>, touched: Touched) throws -> Set<String> {
        var wanted: Set<String> = []
        for path in files {
            var folder = DurableFiles.parent(of: path)
            while folder != "." && wanted.insert(folder).inserted { folder = DurableFiles.parent(of: folder) }
        }
        let folders = wanted
        var left: Set<String> = []
        var level = [""]
        while !level.isEmpty {
            let pruned = ParallelMap.map(level, threshold: 16) { relative in
                Result { () throws -> (kept: [String], below: [String]) in
                    var kept: [String] = []
                    var below: [String] = []
                    let folder = relative.isEmpty ? root : root + "/" + relative
                    for (name, kind) in try WorkingTreeSource.list(folder) {
                        let path = relative.isEmpty ? name : relative + "/" + name
                        if kind == .directory && folders.contains(path) {
                            kept.append(path)
                            below.append(path)
                        } else if kind == .file && files.contains(path) {
                            kept.append(path)
                        } else if kind == .directory {
                            try removeTree(folder + "/" + name)
                            touched.folder(relative.isEmpty ? "." : relative)
                        } else if unlink(folder + "/" + name) != 0 && errno != ENOENT {
                            throw FileSystem.failure("unlink", folder + "/" + name)
                        } else {
                            touched.folder(relative.isEmpty ? "." : relative)
                        }
                    }
                    return (kept, below)
                }
            }
            level = []
            for result in pruned {
                let (kept, below) = try result.get()
                left.formUnion(kept)
                level += below
            }
        }
        return left
    }

    /// The folders (relative, `.` for the top) whose names a build changed, and the files it wrote.
    final class Touched: Sendable {
        private let state = Mutex<(folders: Set<String>, files: [String])>(([], []))
        func folder(_ path: String) { state.withLock { _ = $0.folders.insert(path) } }
        func file(_ path: String) {
            state.withLock {
                $0.files.append(path)
                $0.folders.insert(DurableFiles.parent(of: path))
            }
        }

        /// The files and folders, when there are at most `most` of them.
        func few(_ most: Int) -> (files: [String], folders: [String])? {
            state.withLock { $0.files.count + $0.folders.count <= most ? ($0.files, $0.folders.sorted()) : nil }
        }
    }

    /// Counts the files kept, linked and written.
    private final class Counts: Sendable {
        private let values = Mutex<(kept: Int, linked: Int, written: Int)>((0, 0, 0))
        func kept() { values.withLock { $0.kept += 1 } }
        func linked() { values.withLock { $0.linked += 1 } }
        func written() { values.withLock { $0.written += 1 } }
        var summary: String { values.withLock { "\($0.kept) kept, \($0.linked) linked, \($0.written) written" } }
    }

    /// The folders (relative, `.` for the top) of `paths` under `root` that are folders of that
    /// tree, each folder above them one too: a path through a symlinked folder leads elsewhere.
    static func realFolders(in root: String, of paths: [String]) -> Set<String> {
        var wanted: Set<String> = []
        for path in paths {
            var folder = DurableFiles.parent(of: path)
            while folder != "." && wanted.insert(folder).inserted { folder = DurableFiles.parent(of: folder) }
        }
        var real: Set<String> = ["."]
        // Shallowest first: a folder counts only when the one above it does.
        for folder in wanted.sorted(by: { $0.utf8.count < $1.utf8.count }) {
            var info = stat()
            guard real.contains(DurableFiles.parent(of: folder)), lstat(root + "/" + folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { continue }
            real.insert(folder)
        }
        return real
    }

    /// Removes a tree without following links: each folder listed once by descriptor, the kind
    /// of each name from the listing (no `lstat` per file).
    static func removeTree(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return }
            return try FileSystem.removeTree(path)
        }
        try removeContents(of: fd, path: path)
        guard rmdir(path) == 0 else { throw FileSystem.failure("rmdir", path) }
    }

    /// Removes everything in the open folder `fd` (closed on return).
    private static func removeContents(of fd: Int32, path: String) throws {
        guard let dir = fdopendir(fd) else {
            close(fd)
            throw FileSystem.failure("fdopendir", path)
        }
        defer { closedir(dir) }
        var folders: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
            if name == "." || name == ".." { continue }
            if entry.pointee.d_type == UInt8(DT_DIR) {
                folders.append(name)
            } else if unlinkat(fd, name, 0) != 0 {
                // A folder the listing did not say was one (DT_UNKNOWN).
                guard errno == EISDIR else { throw FileSystem.failure("unlink", path + "/" + name) }
                folders.append(name)
            }
        }
        for name in folders {
            let inner = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard inner >= 0 else { throw FileSystem.failure("open", path + "/" + name) }
            try removeContents(of: inner, path: path + "/" + name)
            guard unlinkat(fd, name, AT_REMOVEDIR) == 0 else { throw FileSystem.failure("rmdir", path + "/" + name) }
        }
    }

    /// The earlier build's path of each new file that its manifest (or the record of it) lists
    /// with the same sha256 as the new manifest does under another path; the bytes are compared
    /// (or the record's stamp checked) before any is used.
    static func movedFiles(from earlier: String, to files: [String: [UInt8]], sums: [String: String] = [:], record: OutputRecord? = nil) -> [String: String] {
        var before: [(path: String, sha256: String)]
        if let record {
            before = record.files.map { ($0.key, $0.value.content) }
        } else {
            guard let old = try? FileSystem.readFile(earlier + "/" + BundleLayout.manifest), let (_, listed) = try? JSONReader.parseListingFiles(old) else { return [:] }
            before = listed.map { ($0.path, $0.sha256) }
        }
        var listed: [(path: String, sha256: String)]
        if !sums.isEmpty {
            listed = sums.map { ($0.key, $0.value) }
        } else {
            guard let new = files[BundleLayout.manifest], let (_, files) = try? JSONReader.parseListingFiles(new) else { return [:] }
            listed = files.map { ($0.path, $0.sha256) }
        }
        // Of two earlier files with the same bytes, the one whose path sorts last (in any order
        // they are listed in).
        var bySum: [String: String] = [:]
        for file in before where !Self.leavesTree(file.path) {
            if let taken = bySum[file.sha256], taken > file.path { continue }
            bySum[file.sha256] = file.path
        }
        var moved: [String: String] = [:]
        for file in listed {
            if let path = bySum[file.sha256], path != file.path { moved[file.path] = path }
        }
        return moved
    }

    /// Whether a recorded path is absolute or has a `..` component (looked for in the bytes: no
    /// array of components made for each of thousands of paths).
    static func leavesTree(_ path: String) -> Bool {
        path.hasPrefix("/") || path == ".." || path.hasPrefix("../") || path.hasSuffix("/..") || path.containsBytes("/../")
    }

    /// Whether `path` is a plain file of the earlier build at `root` (mode 0644, not a link, no
    /// other name than `names` counts, reached through no symlinked folder) holding exactly `bytes`, so the new tree
    /// can link it instead of writing it again. A file of another tree, planted in the earlier
    /// one through a link, is never shared with the new build: it is written anew.
    static func unchanged(_ path: String, _ bytes: [UInt8], inside root: String, names: Int = 1) -> Bool {
        guard let resolved = try? FileSystem.realPath(path), resolved.hasPrefix(root + "/") else { return false }
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_mode & 0o7777 == 0o644, info.st_nlink == names, Int(info.st_size) == bytes.count,
            let read = try? FileSystem.readAll(fd, path: path)
        else { return false }
        return read == bytes
    }
}

/// Runs a throwing step for every item, on two threads when there are many (file creation).
package enum ParallelWrite {
    package static let threshold = 256

    package static func each(_ items: [String], _ step: @escaping @Sendable (String) throws -> Void) throws {
        guard items.count >= threshold else {
            for item in items { try step(item) }
            return
        }
        let failures = Failures()
        // Each thread takes one half of the (sorted) list, so the two mostly work in different
        // folders: creating files in one folder from two threads serializes on its lock.
        let half = (items.count + 1) / 2
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            for index in (worker == 0 ? 0..<half : half..<items.count) {
                do {
                    try step(items[index])
                } catch {
                    failures.record(error)
                    return
                }
            }
        }
        if let failure = failures.first { throw failure }
    }

    /// Makes the folders of every relative path under `root` (which exists), shallowest first,
    /// those of one depth on two threads (their parents exist by then). Returns them, sorted.
    @discardableResult
    package static func makeFolders(for paths: [String], in root: String, existing: Set<String> = []) throws -> [String] {
        var folders: Set<String> = []
        for path in paths {
            var folder = DurableFiles.parent(of: path)
            while folder != "." && folders.insert(folder).inserted { folder = DurableFiles.parent(of: folder) }
        }
        folders.subtract(existing)
        let byDepth = Dictionary(grouping: folders) { $0.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: "/") ? 1 : 0) } }
        for depth in byDepth.keys.sorted() {
            try each(byDepth[depth]!.sorted()) { folder in
                guard mkdir(root + "/" + folder, 0o755) == 0 || errno == EEXIST else { throw FileSystem.failure("mkdir", root + "/" + folder) }
            }
        }
        return folders.sorted()
    }

    private final class Failures: Sendable {
        private let errors = Mutex<[any Error]>([])

        func record(_ error: any Error) { errors.withLock { $0.append(error) } }

        var first: (any Error)? { errors.withLock { $0.first } }
    }
}
