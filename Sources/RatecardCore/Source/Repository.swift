internal import CGit2
import Foundation
import Glibc
import RatecardSupport

/// An open git repository.
///
/// Owns its `git_repository`. Not `Sendable` and not thread-safe: open one per operation and
/// use it from one thread (libgit2's objects and its error slot are per-thread).
public final class Repository {
    private let handle: OpaquePointer

    private init(handle: OpaquePointer) {
        self.handle = handle
    }

    deinit { git_repository_free(handle) }

    // MARK: - Opening

    /// Opens the repository that holds `path`, searching upwards as git does.
    public static func discover(from path: String) throws(GitError) -> Repository {
        LibGit2.ensureInitialized()
        var found = git_buf()
        defer { git_buf_dispose(&found) }
        try check("git_repository_discover", git_repository_discover(&found, path, 0, nil))
        let gitDir = String(cString: found.ptr)
        return try open(at: gitDir)
    }

    /// Opens the repository at `path` (a work tree, a `.git` folder or a bare repository).
    public static func open(at path: String) throws(GitError) -> Repository {
        LibGit2.ensureInitialized()
        var out: OpaquePointer?
        try check("git_repository_open", git_repository_open(&out, path))
        return Repository(handle: out!)
    }

    /// Creates an empty repository with `main` as its initial branch.
    public static func create(at path: String, bare: Bool = false) throws(GitError) -> Repository {
        LibGit2.ensureInitialized()
        var options = git_repository_init_options()
        try check(
            "git_repository_init_options_init",
            git_repository_init_options_init(&options, UInt32(GIT_REPOSITORY_INIT_OPTIONS_VERSION)))
        options.flags = GIT_REPOSITORY_INIT_MKPATH.rawValue | (bare ? GIT_REPOSITORY_INIT_BARE.rawValue : 0)
        var out: OpaquePointer?
        let result = "main".withCString { head in
            options.initial_head = head
            return git_repository_init_ext(&out, path, &options)
        }
        try check("git_repository_init_ext", result)
        return Repository(handle: out!)
    }

    /// Clones `source` (a path or URL) into `path`; `bare` leaves out the work tree.
    public static func clone(from source: String, to path: String, bare: Bool) throws(GitError) -> Repository {
        LibGit2.ensureInitialized()
        var options = git_clone_options()
        try check("git_clone_options_init", git_clone_options_init(&options, UInt32(GIT_CLONE_OPTIONS_VERSION)))
        options.bare = bare ? 1 : 0
        var out: OpaquePointer?
        try check("git_clone", git_clone(&out, source, path, &options))
        return Repository(handle: out!)
    }

    /// The work tree folder (with a trailing slash stripped), or nil for a bare repository.
    public var workdir: String? {
        guard let raw = git_repository_workdir(handle) else { return nil }
        var path = String(cString: raw)
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }

    /// Makes `path` the work tree (git's `GIT_WORK_TREE`).
    public func setWorkdir(_ path: String) throws(GitError) {
        try Repository.check("git_repository_set_workdir", git_repository_set_workdir(handle, path, 0))
    }

    /// The `.git` folder (or the bare repository folder).
    public var gitDir: String {
        var path = String(cString: git_repository_path(handle))
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }

    /// The folder holding the refs and objects: `gitDir`, or for a linked work tree the main
    /// repository's `.git` folder.
    public var commonDir: String {
        var path = String(cString: git_repository_commondir(handle))
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }

    // MARK: - Revisions

    /// Resolves a revision (`HEAD`, a branch, a tag, a hex id, `main~3`) to a commit id.
    public func resolveCommit(_ revision: String) throws(GitError) -> ObjectID {
        var object: OpaquePointer?
        try Repository.check("git_revparse_single", git_revparse_single(&object, handle, revision))
        defer { git_object_free(object) }
        var commit: OpaquePointer?
        try Repository.check("git_object_peel", git_object_peel(&commit, object, GIT_OBJECT_COMMIT))
        defer { git_object_free(commit) }
        return ObjectID(git_object_id(commit)!.pointee)
    }

    /// The short names of the branches (local and remote-tracking, `origin/main`) and tags,
    /// sorted: what a revision a person types is most often meant to be.
    public func referenceNames() throws(GitError) -> [String] {
        var list = git_strarray()
        try Repository.check("git_reference_list", git_reference_list(&list, handle))
        defer { git_strarray_dispose(&list) }
        var names: [String] = []
        for index in 0..<list.count {
            guard let raw = list.strings[index] else { continue }
            let name = String(cString: raw)
            for prefix in ["refs/heads/", "refs/tags/", "refs/remotes/"] where name.hasPrefix(prefix) {
                names.append(String(name.dropFirst(prefix.count)))
            }
        }
        return names.filter { !$0.hasSuffix("/HEAD") }.sorted()
    }

    /// The commit HEAD points at, or nil when the branch has no commits yet.
    public func headCommit() throws(GitError) -> ObjectID? {
        var oid = git_oid()
        let result = git_reference_name_to_id(&oid, handle, "HEAD")
        if result == GIT_ENOTFOUND.rawValue || result == GIT_EUNBORNBRANCH.rawValue { return nil }
        try Repository.check("git_reference_name_to_id", result)
        return ObjectID(oid)
    }

    /// Facts about one commit, copied out of libgit2.
    public func commitInfo(_ id: ObjectID) throws(GitError) -> CommitInfo {
        let commit = try lookupCommit(id)
        defer { git_commit_free(commit) }
        let author = git_commit_author(commit)!.pointee
        let message = git_commit_message(commit).map { String(cString: $0) } ?? ""
        var parents: [ObjectID] = []
        for index in 0..<git_commit_parentcount(commit) {
            parents.append(ObjectID(git_commit_parent_id(commit, index)!.pointee))
        }
        return CommitInfo(
            id: id,
            parents: parents,
            authorName: String(cString: author.name),
            authorEmail: String(cString: author.email),
            time: Int64(author.when.time),
            timeOffsetMinutes: Int(author.when.offset),
            message: message)
    }

    /// Whether this is a shallow clone (`git clone --depth N`): commits at its edge name
    /// parents that were never fetched.
    public var isShallow: Bool { git_repository_is_shallow(handle) == 1 }

    /// Whether the object database holds `id` (false for the missing parents of a shallow clone).
    public func hasObject(_ id: ObjectID) -> Bool {
        var odb: OpaquePointer?
        guard git_repository_odb(&odb, handle) == 0, let odb else { return false }
        defer { git_odb_free(odb) }
        var oid = id.raw
        return git_odb_exists(odb, &oid) == 1
    }

    /// The bytes of the file at `path` (relative to the repository root) in `commit`, or nil
    /// when the commit has no file there.
    /// A regular file of `commit` up to `maxBytes`, or nil (missing, not a regular file, or
    /// larger: its size is read from the object header, so a huge blob is never inflated).
    public func file(at path: String, in commit: ObjectID, maxBytes: Int = Int.max) -> [UInt8]? {
        guard let commitObject = try? lookupCommit(commit) else { return nil }
        defer { git_commit_free(commitObject) }
        var tree: OpaquePointer?
        guard git_commit_tree(&tree, commitObject) == 0 else { return nil }
        defer { git_tree_free(tree) }
        var entry: OpaquePointer?
        guard git_tree_entry_bypath(&entry, tree, path) == 0 else { return nil }
        defer { git_tree_entry_free(entry) }
        let mode = git_tree_entry_filemode(entry)
        guard mode == GIT_FILEMODE_BLOB || mode == GIT_FILEMODE_BLOB_EXECUTABLE, let raw = git_tree_entry_id(entry) else { return nil }
        let id = ObjectID(raw.pointee)
        guard let size = try? blobSize(id), size <= maxBytes else { return nil }
        return try? blob(id)
    }

    /// The commits reachable from `tip` but not from `base`, oldest first (like `git rev-list --reverse base..tip`).
    /// In a shallow clone the walk stops at the commits it did not fetch: a range needs only
    /// its own commits and the parent of the first, not the history behind `base`.
    public func commits(from base: ObjectID?, to tip: ObjectID) throws(GitError) -> [ObjectID] {
        do throws(GitError) {
            return try revwalk(from: base, to: tip)
        } catch {
            guard error.code == GIT_ENOTFOUND.rawValue && isShallow else { throw error }
            return try presentCommits(from: base, to: tip)
        }
    }

    /// `commits(from:to:)` over the commits present, for a shallow clone, whose missing
    /// parents libgit2's walk fails on when it hides `base`'s ancestors: those ancestors that
    /// are here are left out, the walk from `tip` stops at them and at missing commits, and
    /// the rest comes parents first (a depth-first post-order).
    private func presentCommits(from base: ObjectID?, to tip: ObjectID) throws(GitError) -> [ObjectID] {
        var hidden: Set<ObjectID> = []
        var pending = base.map { [$0] } ?? []
        while let id = pending.popLast() {
            guard !hidden.contains(id), hasObject(id) else { continue }
            hidden.insert(id)
            pending += try commitInfo(id).parents
        }
        var order: [ObjectID] = []
        var visited: Set<ObjectID> = []
        var stack: [(id: ObjectID, done: Bool)] = [(tip, false)]
        while let (id, done) = stack.popLast() {
            if done {
                order.append(id)
                continue
            }
            guard !visited.contains(id), !hidden.contains(id), hasObject(id) else { continue }
            visited.insert(id)
            stack.append((id, true))
            for parent in try commitInfo(id).parents.reversed() { stack.append((parent, false)) }
        }
        return order
    }

    private func revwalk(from base: ObjectID?, to tip: ObjectID) throws(GitError) -> [ObjectID] {
        var walk: OpaquePointer?
        try Repository.check("git_revwalk_new", git_revwalk_new(&walk, handle))
        defer { git_revwalk_free(walk) }
        try Repository.check(
            "git_revwalk_sorting",
            git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL.rawValue | GIT_SORT_REVERSE.rawValue))
        var tipOID = tip.raw
        try Repository.check("git_revwalk_push", git_revwalk_push(walk, &tipOID))
        if let base {
            var baseOID = base.raw
            try Repository.check("git_revwalk_hide", git_revwalk_hide(walk, &baseOID))
        }
        var result: [ObjectID] = []
        var oid = git_oid()
        while true {
            let step = git_revwalk_next(&oid, walk)
            if step == GIT_ITEROVER.rawValue { break }
            try Repository.check("git_revwalk_next", step)
            result.append(ObjectID(oid))
        }
        return result
    }

    // MARK: - Trees and blobs

    /// Every entry below `prefix` in the commit's tree, recursively, with paths relative to `prefix`.
    ///
    /// Symlinks and submodules are listed (never followed) so that callers can refuse them.
    /// Returns nil when `prefix` does not exist in that commit.
    public func treeEntries(commit id: ObjectID, under prefix: String, descending: (String) -> Bool = { _ in true }) throws(GitError) -> [TreeEntry]? {
        let commit = try lookupCommit(id)
        defer { git_commit_free(commit) }
        var root: OpaquePointer?
        try Repository.check("git_commit_tree", git_commit_tree(&root, commit))
        defer { git_tree_free(root) }
        var start = root
        var subtree: OpaquePointer?
        defer { if subtree != nil { git_tree_free(subtree) } }
        if !prefix.isEmpty {
            var entry: OpaquePointer?
            let found = git_tree_entry_bypath(&entry, root, prefix)
            if found == GIT_ENOTFOUND.rawValue { return nil }
            try Repository.check("git_tree_entry_bypath", found)
            defer { git_tree_entry_free(entry) }
            guard git_tree_entry_type(entry) == GIT_OBJECT_TREE else { return nil }
            try Repository.check("git_tree_lookup", git_tree_lookup(&subtree, handle, git_tree_entry_id(entry)))
            start = subtree
        }
        var entries: [TreeEntry] = []
        try collect(tree: start!, path: "", into: &entries, descending: descending)
        return entries
    }

    /// `descending(folder)` decides whether a folder's entries are listed (path relative to the prefix).
    private func collect(tree: OpaquePointer, path: String, into entries: inout [TreeEntry], descending: (String) -> Bool) throws(GitError) {
        for index in 0..<git_tree_entrycount(tree) {
            let entry = git_tree_entry_byindex(tree, index)
            let name = String(cString: git_tree_entry_name(entry))
            let full = path.isEmpty ? name : "\(path)/\(name)"
            let oid = ObjectID(git_tree_entry_id(entry)!.pointee)
            switch git_tree_entry_filemode(entry) {
            case GIT_FILEMODE_TREE:
                guard descending(full) else { continue }
                var child: OpaquePointer?
                try Repository.check("git_tree_lookup", git_tree_lookup(&child, handle, git_tree_entry_id(entry)))
                defer { git_tree_free(child) }
                try collect(tree: child!, path: full, into: &entries, descending: descending)
            case GIT_FILEMODE_LINK:
                entries.append(TreeEntry(path: full, kind: .symlink, id: oid))
            case GIT_FILEMODE_COMMIT:
                entries.append(TreeEntry(path: full, kind: .submodule, id: oid))
            default:
                entries.append(TreeEntry(path: full, kind: .file, id: oid))
            }
        }
    }

    /// The bytes of a blob.
    public func blob(_ id: ObjectID) throws(GitError) -> [UInt8] {
        var blob: OpaquePointer?
        var oid = id.raw
        try Repository.check("git_blob_lookup", git_blob_lookup(&blob, handle, &oid))
        defer { git_blob_free(blob) }
        let size = Int(git_blob_rawsize(blob))
        guard size > 0, let raw = git_blob_rawcontent(blob) else { return [] }
        return Array(UnsafeRawBufferPointer(start: raw, count: size))
    }

    /// The size of a blob from its object header, without inflating it (a 2 GB blob is refused
    /// by its size, not read to find it out).
    public func blobSize(_ id: ObjectID) throws(GitError) -> Int {
        var odb: OpaquePointer?
        try Repository.check("git_repository_odb", git_repository_odb(&odb, handle))
        defer { git_odb_free(odb) }
        var oid = id.raw
        var length = 0
        var type = GIT_OBJECT_ANY
        try Repository.check("git_odb_read_header", git_odb_read_header(&length, &type, odb, &oid))
        return length
    }

    /// The entries of the index (what is staged) below `prefix`, paths relative to it: the
    /// repository's own index, or the index file at `indexFile` (an absolute path: the
    /// temporary index `git commit -a`, `git commit <paths>` and `git commit -p` make and name
    /// in `GIT_INDEX_FILE` for the pre-commit hook).
    public func indexEntries(under prefix: String, indexFile: String? = nil) throws(GitError) -> [TreeEntry] {
        var index: OpaquePointer?
        if let indexFile {
            try Repository.check("git_index_open", git_index_open(&index, indexFile))
        } else {
            try Repository.check("git_repository_index", git_repository_index(&index, handle))
        }
        defer { git_index_free(index) }
        try Repository.check("git_index_read", git_index_read(index, 0))
        let start = prefix.isEmpty ? "" : prefix + "/"
        var entries: [TreeEntry] = []
        for position in 0..<git_index_entrycount(index) {
            guard let entry = git_index_get_byindex(index, position) else { continue }
            let path = String(cString: entry.pointee.path)
            guard path.hasPrefix(start) else { continue }
            let relative = String(path.dropFirst(start.count))
            let kind: TreeEntry.Kind
            switch entry.pointee.mode {
            case UInt32(GIT_FILEMODE_LINK.rawValue): kind = .symlink
            case UInt32(GIT_FILEMODE_COMMIT.rawValue): kind = .submodule
            default: kind = .file
            }
            entries.append(TreeEntry(path: relative, kind: kind, id: ObjectID(entry.pointee.id)))
        }
        return entries
    }

    /// Paths below `prefix` (relative to the work tree) whose work-tree or staged state differs
    /// from HEAD: edited, staged, deleted, renamed or untracked files (ignored ones are not).
    /// Uses the index's stat cache, so an unchanged tree costs a stat per file, not a read.
    public func uncommittedPaths(under prefix: String) throws(GitError) -> [String] {
        if try cleanByStat(under: prefix) { return [] }
        return try statusPaths(under: prefix)
    }

    /// Git's own shortcut, decided in a fraction of libgit2's work-tree walk: true when the index
    /// equals HEAD below `prefix`, every index entry there has a regular work-tree file with the
    /// stat data recorded (size, mtime, ctime, inode, executable bit), or else (a few entries at
    /// most, racily clean or restamped) the contents of the blob the index names, and no other
    /// file is there. False means "not certain" and the caller asks git's status, never "dirty".
    public func cleanByStat(under prefix: String) throws(GitError) -> Bool {
        guard workdir != nil else { return false }
        var indexStat = stat()
        guard stat(gitDir + "/index", &indexStat) == 0 else { return false }
        var index: OpaquePointer?
        try Repository.check("git_repository_index", git_repository_index(&index, handle))
        defer { git_index_free(index) }
        try Repository.check("git_index_read", git_index_read(index, 0))
        if !indexTreeIsHead(index) {
            var options = git_status_options()
            try Repository.check("git_status_options_init", git_status_options_init(&options, UInt32(GIT_STATUS_OPTIONS_VERSION)))
            options.show = GIT_STATUS_SHOW_INDEX_ONLY
            let staged = try withStrArray(prefix.isEmpty ? [] : [prefix]) { (pathspec) throws(GitError) -> Int in
                if !prefix.isEmpty { options.pathspec = pathspec }
                var list: OpaquePointer?
                try Repository.check("git_status_list_new", git_status_list_new(&list, handle, &options))
                defer { git_status_list_free(list) }
                return git_status_list_entrycount(list)
            }
            guard staged == 0 else { return false }
        }
        Trace.mark("dirty check: index against HEAD")
        guard let workdir else { return false }
        // Entries below the prefix, their paths read where the index holds them (no String each:
        // this runs on every publish over every file).
        let start = Array((prefix.isEmpty ? "" : prefix + "/").utf8)
        let startText = start.map { CChar(bitPattern: $0) }
        var entries: [IndexEntry] = []
        entries.reserveCapacity(git_index_entrycount(index))
        for position in 0..<git_index_entrycount(index) {
            guard let entry = git_index_get_byindex(index, position)?.pointee, let path = entry.path else { return false }
            guard start.isEmpty || strncmp(path, startText, start.count) == 0 else { continue }
            entries.append(IndexEntry(path: path, mode: entry.mode, size: entry.file_size, inode: entry.ino, mtime: entry.mtime, ctime: entry.ctime, id: entry.id))
        }
        // Each file looked up by its path from the work tree's folder, open for the check, on
        // two threads: the path the index holds, relative to that folder, is the one looked up
        // (no string made per file). A lookup by the absolute path walked the folders above the
        // work tree for every file, and opening each folder to look its files up by name cost
        // two calls per folder for 1.7 files each: 48 ms for 11,600 files, against 30.
        guard let tree = try? FileSystem.Folder(workdir) else { return false }
        let indexTime = indexStat.st_mtim
        let listed = entries
        let chunks = stride(from: 0, to: entries.count, by: 512).map { $0..<min($0 + 512, entries.count) }
        let unchanged = ParallelMap.map(chunks, threshold: 2) { chunk -> [Bool] in
            chunk.map { index -> Bool in
                let entry = listed[index]
                var info = stat()
                return fstatat(tree.descriptor, entry.path, &info, AT_SYMLINK_NOFOLLOW) == 0
                    && (info.st_mode & S_IFMT) == S_IFREG
                    && (entry.mode == 0o100644 || entry.mode == 0o100755)
                    && (info.st_mode & 0o100 != 0) == (entry.mode == 0o100755)
                    && UInt32(truncatingIfNeeded: info.st_size) == entry.size
                    && UInt32(truncatingIfNeeded: info.st_ino) == entry.inode
                    && Self.same(entry.mtime, info.st_mtim) && Self.same(entry.ctime, info.st_ctim)
                    && Self.olderThanIndex(entry.mtime, indexTime)
            }
        }.flatMap { $0 }
        // Entries whose stat data differ, or that are racily clean (written in the tick the index
        // was): git compares their contents, and so does this, when they are few. A file edited
        // and committed within the same second is such an entry (git records it with its size
        // zeroed), which is the everyday rate update; without this the whole work tree was
        // walked by libgit2's status (about 200 ms on 11,600 files).
        Trace.mark("dirty check: \(entries.count) index entries against their files")
        let uncertain = entries.indices.filter { !unchanged[$0] }
        guard uncertain.count <= 64 else { return false }
        for index in uncertain {
            let entry = entries[index]
            var info = stat()
            guard fstatat(tree.descriptor, entry.path, &info, AT_SYMLINK_NOFOLLOW) == 0, (info.st_mode & S_IFMT) == S_IFREG,
                entry.mode == 0o100644 || entry.mode == 0o100755, (info.st_mode & 0o100 != 0) == (entry.mode == 0o100755)
            else { return false }
            // The file's blob id as git would store it (with the repository's filters), against the index's.
            var id = git_oid()
            guard git_repository_hashfile(&id, handle, entry.path, GIT_OBJECT_BLOB, entry.path) == 0 else { return false }
            var recorded = entry.id
            guard git_oid_equal(&id, &recorded) != 0 else { return false }
        }
        // How many tracked files each folder holds (relative to the content root). The index is
        // sorted, so a folder's files mostly come together: a String is made per run, not per file.
        var trackedIn: [String: Int] = [:]
        var run: (folder: [UInt8], count: Int) = ([], 0)
        for entry in entries {
            let length = strlen(entry.path)
            let bytes = UnsafeRawBufferPointer(start: entry.path, count: length)
            // (Below the prefix: a file right in the content root has the folder "".)
            let end = max(bytes.lastIndex(of: UInt8(ascii: "/")) ?? 0, start.count)
            let folder = bytes[start.count..<end]
            if run.count > 0, run.folder.elementsEqual(folder) {
                run.count += 1
                continue
            }
            if run.count > 0 { trackedIn[String(decoding: run.folder, as: UTF8.self), default: 0] += run.count }
            run = (Array(folder), 1)
        }
        if run.count > 0 { trackedIn[String(decoding: run.folder, as: UTF8.self), default: 0] += run.count }
        // Untracked files: everything on disk below the prefix must be in the index. When every
        // folder is as the last clean walk recorded it (`CleanFolders`), no listing is read;
        // else the walk reads the folders that changed, the folders two levels down shared by
        // two threads.
        Trace.mark("dirty check: \(uncertain.count) racily clean or restamped entries hashed")
        let root = workdir + (prefix.isEmpty ? "" : "/" + prefix)
        guard let rootFolder = try? FileSystem.Folder(root) else { return false }
        let walkStart = CleanFolders.realTime()
        let cache = CleanFolders.load(gitDir: gitDir, prefix: prefix)
        if let cache, cache.unchanged(below: rootFolder, trackedIn: trackedIn, total: entries.count) {
            Trace.mark("dirty check: no untracked files (no folder changed)")
            return true
        }
        let tracked = Set(entries.map { String(cString: $0.path + start.count) })
        guard tracked.count == entries.count else { return false }
        let recorded = cache?.folders ?? [:]
        let walk = FolderWalk(
            root: root, folder: rootFolder, tracked: tracked, trackedIn: trackedIn, recorded: recorded, walkStart: cache?.walkStart ?? 0,
            children: cache?.children ?? [:])
        var top = FolderWalk.Result()
        var folders: [String] = []
        guard walk.onlyTracked("", depth: 2, into: &top, deeper: &folders) else { return false }
        let results = ParallelMap.map(folders, threshold: 16) { folder -> FolderWalk.Result? in
            var result = FolderWalk.Result()
            var none: [String] = []
            return walk.onlyTracked(folder, depth: .max, into: &result, deeper: &none) ? result : nil
        }
        var walked = top.files
        var seen = top.folders
        for result in results {
            guard let result else { return false }
            walked += result.files
            seen.merge(result.folders) { first, _ in first }
        }
        guard walked == tracked.count else { return false }
        if recorded != seen {
            CleanFolders(prefix: prefix, walkStart: walkStart, folders: seen).write(gitDir: gitDir)
        }
        Trace.mark("dirty check: no untracked files")
        return true
    }

    /// Whether the index holds HEAD's tree exactly. The tree the index would commit is read
    /// from the index's cached tree (git's TREE extension, which `git commit` leaves whole) at
    /// no cost, or else computed from the entries, its trees written to memory only (an
    /// in-memory object database over the repository's, never the repository itself). False
    /// when that cannot be said (the caller compares the index with HEAD file by file).
    private func indexTreeIsHead(_ index: OpaquePointer?) -> Bool {
        var head: OpaquePointer?
        guard git_revparse_single(&head, handle, "HEAD^{tree}") == 0, let head else { return false }
        defer { git_object_free(head) }
        var odb: OpaquePointer?
        guard git_odb_new(&odb) == 0 else { return false }
        defer { git_odb_free(odb) }
        var memory: UnsafeMutablePointer<git_odb_backend>?
        guard git_mempack_new(&memory) == 0 else { return false }
        // The database owns the backend once added.
        guard git_odb_add_backend(odb, memory, 999) == 0 else {
            memory?.pointee.free(memory)
            return false
        }
        guard git_odb_add_disk_alternate(odb, commonDir + "/objects") == 0 else { return false }
        var scratch: OpaquePointer?
        guard git_repository_wrap_odb(&scratch, odb) == 0 else { return false }
        defer { git_repository_free(scratch) }
        var tree = git_oid()
        guard git_index_write_tree_to(&tree, index, scratch) == 0 else { return false }
        return git_oid_equal(&tree, git_object_id(head)) != 0
    }

    /// What the dirty check compares of an index entry with the file on disk. (`path` points
    /// into the open index, which outlives every use, and is only read: shared by two threads.)
    private struct IndexEntry: @unchecked Sendable {
        var path: UnsafePointer<CChar>
        var mode: UInt32
        var size: UInt32
        var inode: UInt32
        var mtime: git_index_time
        var ctime: git_index_time
        /// The blob id the index records for it.
        var id: git_oid
    }

    /// The walk for untracked files below the content root.
    private struct FolderWalk: Sendable {
        let root: String
        let folder: FileSystem.Folder
        let tracked: Set<String>
        /// Folder -> how many tracked files are directly in it.
        let trackedIn: [String: Int]
        /// The last clean walk's folders (`CleanFolders`) and when it started.
        let recorded: [String: CleanFolders.Stamp]
        let walkStart: Int
        let children: [String: [String]]

        struct Result: Sendable {
            var files = 0
            /// Every folder walked, with its stamp (for the next walk's record).
            var folders: [String: CleanFolders.Stamp] = [:]
        }

        /// Walks `relative` counting files; false at the first entry that is not a tracked file
        /// or a folder (a `.git` folder is skipped, as git skips it). Folders `depth` levels down
        /// are not walked but added to `deeper`. A folder the cache vouches for is not read: its
        /// recorded files are counted and its recorded subfolders walked.
        func onlyTracked(_ relative: String, depth: Int, into result: inout Result, deeper: inout [String]) -> Bool {
            var info = stat()
            guard folder.lstat(relative.isEmpty ? "." : relative, &info), (info.st_mode & S_IFMT) == S_IFDIR else { return false }
            var stamp = CleanFolders.stamp(info)
            if let recorded = recorded[relative], CleanFolders.trusts(recorded, now: stamp, tracked: trackedIn[relative] ?? 0, walkStart: walkStart) {
                result.files += recorded.files
                result.folders[relative] = recorded
                for child in children[relative] ?? [] {
                    if depth <= 1 {
                        deeper.append(child)
                    } else {
                        guard onlyTracked(child, depth: depth - 1, into: &result, deeper: &deeper) else { return false }
                    }
                }
                return true
            }
            guard let listing = opendir(relative.isEmpty ? root : root + "/" + relative) else { return false }
            defer { closedir(listing) }
            while let entry = readdir(listing) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name == "." || name == ".." || (relative.isEmpty && name == ".git") { continue }
                let path = relative.isEmpty ? name : relative + "/" + name
                switch Int32(entry.pointee.d_type) {
                case Int32(DT_DIR):
                    if depth <= 1 {
                        deeper.append(path)
                    } else {
                        guard onlyTracked(path, depth: depth - 1, into: &result, deeper: &deeper) else { return false }
                    }
                case Int32(DT_REG):
                    guard tracked.contains(path) else { return false }
                    stamp.files += 1
                default:
                    return false
                }
            }
            result.files += stamp.files
            result.folders[relative] = stamp
            return true
        }
    }

    /// Not racily clean: recorded before the index was written. Without nanoseconds (git's
    /// default) a file of the index's own second may have changed after it was recorded.
    static func olderThanIndex(_ recorded: git_index_time, _ index: timespec) -> Bool {
        if recorded.nanoseconds == 0 { return Int(recorded.seconds) < index.tv_sec }
        return (Int(recorded.seconds), Int(recorded.nanoseconds)) < (index.tv_sec, index.tv_nsec)
    }

    /// Seconds equal, and nanoseconds too when the index recorded them (git itself may not).
    private static func same(_ recorded: git_index_time, _ actual: timespec) -> Bool {
        Int(recorded.seconds) == actual.tv_sec && (recorded.nanoseconds == 0 || Int(recorded.nanoseconds) == actual.tv_nsec)
    }

    /// libgit2's status below `prefix`: the exact answer.
    private func statusPaths(under prefix: String) throws(GitError) -> [String] {
        var options = git_status_options()
        try Repository.check("git_status_options_init", git_status_options_init(&options, UInt32(GIT_STATUS_OPTIONS_VERSION)))
        options.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR
        // Like `git status`, write refreshed stat data back to the index: files written in the
        // same second as the index are "racily clean" and would otherwise be re-hashed each time.
        options.flags =
            GIT_STATUS_OPT_INCLUDE_UNTRACKED.rawValue | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS.rawValue
            | GIT_STATUS_OPT_EXCLUDE_SUBMODULES.rawValue | GIT_STATUS_OPT_UPDATE_INDEX.rawValue
        return try withStrArray(prefix.isEmpty ? [] : [prefix]) { (pathspec) throws(GitError) -> [String] in
            if !prefix.isEmpty { options.pathspec = pathspec }
            var list: OpaquePointer?
            try Repository.check("git_status_list_new", git_status_list_new(&list, handle, &options))
            defer { git_status_list_free(list) }
            var paths: [String] = []
            for position in 0..<git_status_list_entrycount(list) {
                guard let entry = git_status_byindex(list, position), entry.pointee.status != GIT_STATUS_CURRENT else { continue }
                for delta in [entry.pointee.head_to_index, entry.pointee.index_to_workdir] {
                    guard let delta else { continue }
                    for file in [delta.pointee.old_file, delta.pointee.new_file] {
                        if let path = file.path.map({ String(cString: $0) }), !paths.contains(path) { paths.append(path) }
                    }
                }
            }
            return paths
        }
    }

    /// Whether `commit` is `ancestor` or descends from it.
    public func contains(_ ancestor: ObjectID, in commit: ObjectID) throws(GitError) -> Bool {
        if ancestor == commit { return true }
        var a = commit.raw
        var b = ancestor.raw
        let result = git_graph_descendant_of(handle, &a, &b)
        try Repository.check("git_graph_descendant_of", result)
        return result == 1
    }

    // MARK: - Writing

    /// Stages every change in the work tree below `paths` (adds, edits and deletions) and commits it on HEAD.
    ///
    /// - Returns: the new commit's id.
    @discardableResult
    public func commitAll(paths: [String] = ["*"], message: String, author: Signature) throws(GitError) -> ObjectID {
        var index: OpaquePointer?
        try Repository.check("git_repository_index", git_repository_index(&index, handle))
        defer { git_index_free(index) }
        try withStrArray(paths) { (array: inout git_strarray) throws(GitError) in
            try Repository.check("git_index_add_all", git_index_add_all(index, &array, 0, nil, nil))
            try Repository.check("git_index_update_all", git_index_update_all(index, &array, nil, nil))
        }
        try Repository.check("git_index_write", git_index_write(index))
        return try commitIndex(index!, message: message, author: author)
    }

    /// Stages exactly `paths` (relative to the work tree): present files are added, missing ones removed.
    public func stage(paths: [String]) throws(GitError) {
        var index: OpaquePointer?
        try Repository.check("git_repository_index", git_repository_index(&index, handle))
        defer { git_index_free(index) }
        let root = workdir ?? ""
        for path in paths {
            if FileSystem.exists(root + "/" + path) {
                try Repository.check("git_index_add_bypath", git_index_add_bypath(index, path))
            } else {
                let result = git_index_remove_bypath(index, path)
                try Repository.check("git_index_remove_bypath", result)
            }
        }
        try Repository.check("git_index_write", git_index_write(index))
    }

    /// Commits what the index holds now (nothing is added).
    @discardableResult
    public func commitStaged(message: String, author: Signature) throws(GitError) -> ObjectID {
        var index: OpaquePointer?
        try Repository.check("git_repository_index", git_repository_index(&index, handle))
        defer { git_index_free(index) }
        return try commitIndex(index!, message: message, author: author)
    }

    private func commitIndex(_ index: OpaquePointer, message: String, author: Signature) throws(GitError) -> ObjectID {
        var treeID = git_oid()
        try Repository.check("git_index_write_tree", git_index_write_tree(&treeID, index))
        var tree: OpaquePointer?
        try Repository.check("git_tree_lookup", git_tree_lookup(&tree, handle, &treeID))
        defer { git_tree_free(tree) }
        var signature: UnsafeMutablePointer<git_signature>?
        if let time = author.time {
            try Repository.check(
                "git_signature_new",
                git_signature_new(&signature, author.name, author.email, git_time_t(time), Int32(author.offsetMinutes)))
        } else {
            try Repository.check("git_signature_now", git_signature_now(&signature, author.name, author.email))
        }
        defer { git_signature_free(signature) }
        var parents: [OpaquePointer?] = []
        defer { for parent in parents { git_commit_free(parent) } }
        if let head = try headCommit() {
            parents.append(try lookupCommit(head))
        }
        var commitID = git_oid()
        let result = parents.withUnsafeMutableBufferPointer { buffer in
            git_commit_create(
                &commitID, handle, "HEAD", signature, signature, "UTF-8", message, tree,
                buffer.count, buffer.baseAddress)
        }
        try Repository.check("git_commit_create", result)
        return ObjectID(commitID)
    }

    /// The identity from git config (`user.name`, `user.email`), or nil when none is set.
    public func configuredSignature() -> Signature? {
        var signature: UnsafeMutablePointer<git_signature>?
        guard git_signature_default(&signature, handle) == 0, let signature else { return nil }
        defer { git_signature_free(signature) }
        return Signature(name: String(cString: signature.pointee.name), email: String(cString: signature.pointee.email))
    }

    // MARK: - Helpers

    private func lookupCommit(_ id: ObjectID) throws(GitError) -> OpaquePointer {
        var commit: OpaquePointer?
        var oid = id.raw
        try Repository.check("git_commit_lookup", git_commit_lookup(&commit, handle, &oid))
        return commit!
    }

    private func withStrArray<R>(_ strings: [String], _ body: (inout git_strarray) throws(GitError) -> R) throws(GitError) -> R {
        let pointers = strings.map { strdup($0) }
        defer { for pointer in pointers { free(pointer) } }
        var mutable = pointers
        return try mutable.withUnsafeMutableBufferPointer { (buffer) throws(GitError) -> R in
            var array = git_strarray(strings: buffer.baseAddress, count: buffer.count)
            return try body(&array)
        }
    }

    /// Reads libgit2's per-thread error right after a failing call.
    package static func check(_ function: String, _ result: Int32) throws(GitError) {
        guard result < 0 else { return }
        let message = git_error_last().flatMap { String(validatingCString: $0.pointee.message) } ?? "unknown libgit2 error"
        throw GitError(function: function, code: result, message: message)
    }
}

/// libgit2's global state: initialised once per process, never shut down.
package enum LibGit2 {
    package static let initialized: Void = {
        _ = git_libgit2_init()
        // The repositories we read are the user's own; do not refuse them for ownership.
        _ = cgit2_set_owner_validation(0)
        // Like git itself, do not re-hash every object read (SHA-1 with collision detection was
        // 7% of validating 11,600 files); zlib's checksum on every stored object still catches
        // corruption, and `git fsck` verifies ids.
        _ = cgit2_set_strict_hash_verification(0)
    }()

    package static func ensureInitialized() { _ = initialized }
}

extension ObjectID {
    init(_ oid: git_oid) {
        var copy = oid
        var chars = [CChar](repeating: 0, count: 40)
        git_oid_fmt(&chars, &copy)
        self.init(hex: String(decoding: chars.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    var raw: git_oid {
        var oid = git_oid()
        _ = git_oid_fromstr(&oid, hex)
        return oid
    }
}

extension Repository {
    /// Hashes bytes as a git blob (the id `git hash-object` would print), without writing it.
    public static func blobID(of bytes: [UInt8]) -> ObjectID {
        LibGit2.ensureInitialized()
        var oid = git_oid()
        bytes.withUnsafeBytes { raw in
            _ = git_odb_hash(&oid, raw.baseAddress, raw.count, GIT_OBJECT_BLOB)
        }
        return ObjectID(oid)
    }
}

extension GitError {
    /// The revision asked for names nothing: an unknown or malformed name, an ancestor past
    /// the root, an object that is not a commit. Not a failure of git or of the clone (though
    /// a shallow clone also answers "not found" for commits it did not fetch).
    public var namesNothing: Bool {
        [GIT_ENOTFOUND.rawValue, GIT_EINVALIDSPEC.rawValue, GIT_EAMBIGUOUS.rawValue, GIT_EPEEL.rawValue].contains(code)
    }
}
