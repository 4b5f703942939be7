/// Where the content is: its folder on disk (if any), its git repository (if any) and the
/// content root's path inside that repository's tree.
public struct ContentLocation {
    /// The folder holding `ratecard.yaml`, or nil when only a (bare) repository was found.
    public var contentDir: String?
    public var repository: Repository?
    /// The content root relative to the repository's work tree (`content`, or empty). Nil
    /// when it must be found in each commit's tree (a bare repository).
    public var treePrefix: String?

    /// Finds the content like git finds a repository: the nearest folder at or above `start`
    /// holding `ratecard.yaml`, and the nearest git repository at or above that.
    public static func find(from start: String) throws -> ContentLocation {
        let absolute = try FileSystem.realPath(start)
        var folder = absolute
        while true {
            if FileSystem.exists(folder + "/ratecard.yaml") { break }
            guard let slash = folder.lastIndex(of: "/"), folder != "/" else {
                // No content folder on disk: a bare clone still has the content in its commits.
                if let repository = try? Repository.discover(from: absolute) {
                    if repository.workdir == nil {
                        return ContentLocation(contentDir: nil, repository: repository, treePrefix: nil)
                    }
                    throw OperationalError("no ratecard.yaml in \(start) or any folder above it; run inside the content folder or pass -C DIR")
                }
                throw OperationalError("no ratecard.yaml in \(start) or any folder above it, and no git repository; run inside a content repo or pass -C DIR")
            }
            folder = slash == folder.startIndex ? "/" : String(folder[..<slash])
        }
        guard let repository = try? Repository.discover(from: folder), let workdir = repository.workdir else {
            return ContentLocation(contentDir: folder, repository: nil, treePrefix: nil)
        }
        let root = (try? FileSystem.realPath(workdir)) ?? workdir
        var prefix = ""
        if folder != root, folder.hasPrefix(root + "/") {
            prefix = String(folder.dropFirst(root.count + 1))
        }
        return ContentLocation(contentDir: folder, repository: repository, treePrefix: prefix)
    }

    /// The repository, or an error saying that this needs one.
    public func requireRepository() throws -> Repository {
        guard let repository else {
            throw OperationalError("\(contentDir ?? "this folder") is not inside a git repository; run 'ratecard init' or 'git init' first")
        }
        return repository
    }

    /// The content root inside `commit`'s tree: the known prefix, or the shallowest folder holding `ratecard.yaml`.
    public func treePrefix(in commit: ObjectID) throws -> String {
        if let treePrefix { return treePrefix }
        let repository = try requireRepository()
        let entries = try repository.treeEntries(commit: commit, under: "") ?? []
        let candidates = entries.filter { $0.path == "ratecard.yaml" || $0.path.hasSuffix("/ratecard.yaml") }
            .map { String($0.path.dropLast("ratecard.yaml".count).dropLast()) }
            .sorted { ($0.split(separator: "/").count, $0) < ($1.split(separator: "/").count, $1) }
        guard let best = candidates.first else {
            throw OperationalError("commit \(commit.short) holds no ratecard.yaml")
        }
        return best
    }

    /// A source reading `commit`'s tree.
    public func source(for commit: ObjectID) throws -> CommitSource {
        CommitSource(repository: try requireRepository(), commit: commit, treePrefix: try treePrefix(in: commit))
    }

    /// Content files (relative to the content root) that differ from HEAD in the work tree or
    /// the index, from git's status with its stat cache (no file is parsed). Dot-files are not
    /// content and are left out, as every source leaves them out.
    public func uncommittedContentFiles() throws -> [String] {
        let repository = try requireRepository()
        guard let prefix = treePrefix else { return [] }
        let start = prefix.isEmpty ? "" : prefix + "/"
        return try repository.uncommittedPaths(under: prefix).compactMap { path in
            guard path.hasPrefix(start) else { return nil }
            let relative = String(path.dropFirst(start.count))
            return relative.split(separator: "/").contains { $0.hasPrefix(".") } ? nil : relative
        }
    }

    /// `uncommittedContentFiles()` on a thread of its own, with its own handle on the repository
    /// (libgit2 wants one per thread): the check walks the whole work tree, which costs more than
    /// building a rate update, so the two run side by side. Join it before anything is written.
    public func uncommittedContentFilesInBackground() throws -> Background<[String]> {
        let repository = try requireRepository()
        let path = repository.workdir ?? repository.gitDir
        let (folder, prefix) = (contentDir, treePrefix)
        return Background {
            try ContentLocation(contentDir: folder, repository: Repository.open(at: path), treePrefix: prefix).uncommittedContentFiles()
        }
    }

    /// A source reading the content folder on disk.
    public func workingTree() throws -> WorkingTreeSource {
        guard let contentDir else {
            throw OperationalError("this is a bare repository with no work tree; pass --rev REV to read a commit")
        }
        let prefix = treePrefix.map { $0.isEmpty ? "" : $0 + "/" } ?? ""
        return WorkingTreeSource(root: contentDir, displayPrefix: prefix)
    }
}
