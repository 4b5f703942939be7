import RatecardSupport

/// Where the content is: its folder on disk (if any), its git repository (if any) and the
/// content root's path inside that repository's tree.
public struct ContentLocation {
    /// The folder holding `ratecard.yaml`, or nil when only a (bare) repository was found.
    public var contentDir: String?
    public var repository: Repository?
    /// The content root in the repository's tree, as the work tree has it. Nil when it must
    /// be found in each commit's tree (a bare repository) or there is no repository.
    public var contentRoot: ContentRoot?

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
                        return ContentLocation(contentDir: nil, repository: repository, contentRoot: nil)
                    }
                    throw OperationalError(
                        "no ratecard.yaml in \(start) or any folder above it; run inside the content folder or pass -C DIR",
                        ko: "\(start)와(과) 그 위의 어느 폴더에도 ratecard.yaml이 없습니다; 콘텐츠 폴더 안에서 실행하거나 -C DIR을 주세요")
                }
                throw OperationalError(
                    "no ratecard.yaml in \(start) or any folder above it, and no git repository; run inside a content repo or pass -C DIR",
                    ko: "\(start)와(과) 그 위의 어느 폴더에도 ratecard.yaml이 없고 git 저장소도 없습니다; 콘텐츠 저장소 안에서 실행하거나 -C DIR을 주세요")
            }
            folder = slash == folder.startIndex ? "/" : String(folder[..<slash])
        }
        guard let repository = try? Repository.discover(from: folder), repository.workdir != nil else {
            return ContentLocation(contentDir: folder, repository: nil, contentRoot: nil)
        }
        return ContentLocation(contentDir: folder, repository: repository, contentRoot: contentRoot(of: folder, in: repository))
    }

    /// The content folder's path below `repository`'s work tree ("" for the work tree's top,
    /// nil when the folder is not inside it).
    static func contentRoot(of folder: String, in repository: Repository) -> ContentRoot? {
        guard let workdir = repository.workdir else { return nil }
        let root = (try? FileSystem.realPath(workdir)) ?? workdir
        if folder == root { return .repositoryRoot }
        guard folder.hasPrefix(root + "/") else { return nil }
        return ContentRoot(treePath: String(folder.dropFirst(root.count + 1)))
    }

    /// The repository, or an error saying that this needs one.
    public func requireRepository() throws -> Repository {
        guard let repository else {
            throw OperationalError(
                "\(contentDir ?? "this folder") is not inside a git repository; run 'ratecard init' or 'git init' first",
                ko: "\(contentDir ?? "이 폴더")은(는) git 저장소 안에 있지 않습니다; 먼저 'ratecard init'이나 'git init'을 실행하세요")
        }
        return repository
    }

    /// The content root inside `commit`'s tree: the known root, or the shallowest folder holding `ratecard.yaml`.
    public func contentRoot(in commit: ObjectID) throws -> ContentRoot {
        if let contentRoot { return contentRoot }
        let repository = try requireRepository()
        let entries = try repository.treeEntries(commit: commit, under: "") ?? []
        let candidates = entries.filter { $0.path == "ratecard.yaml" || $0.path.hasSuffix("/ratecard.yaml") }
            .map { String($0.path.dropLast("ratecard.yaml".count).dropLast()) }
            .sorted { ($0.split(separator: "/").count, $0) < ($1.split(separator: "/").count, $1) }
        guard let best = candidates.first else {
            throw OperationalError("commit \(commit.short) holds no ratecard.yaml", ko: "커밋 \(commit.short)에 ratecard.yaml이 없습니다")
        }
        return ContentRoot(treePath: best)
    }

    /// A source reading `commit`'s tree.
    public func source(for commit: ObjectID) throws -> CommitSource {
        CommitSource(repository: try requireRepository(), commit: commit, contentRoot: try contentRoot(in: commit))
    }

    /// Content files (relative to the content root) that differ from HEAD in the work tree or
    /// the index, from git's status with its stat cache (no file is parsed). Dot-files are not
    /// content and are left out, as every source leaves them out.
    public func uncommittedContentFiles() throws -> [String] {
        let repository = try requireRepository()
        guard let contentRoot else { return [] }
        return try repository.uncommittedPaths(under: contentRoot.treePath).compactMap { path in
            guard let relative = contentRoot.relative(path) else { return nil }
            return relative.split(separator: "/").contains { $0.hasPrefix(".") } ? nil : relative
        }
    }

    /// `uncommittedContentFiles()` on a thread of its own, with its own handle on the repository
    /// (libgit2 wants one per thread): the check walks the whole work tree, which costs more than
    /// building a rate update, so the two run side by side. Join it before anything is written.
    public func uncommittedContentFilesInBackground() throws -> Background<[String]> {
        let repository = try requireRepository()
        let path = repository.workdir ?? repository.gitDir
        let (folder, root) = (contentDir, contentRoot)
        return Background {
            try ContentLocation(contentDir: folder, repository: Repository.open(at: path), contentRoot: root).uncommittedContentFiles()
        }
    }

    /// A source reading the content folder on disk.
    public func workingTree() throws -> WorkingTreeSource {
        guard let contentDir else {
            throw OperationalError("this is a bare repository with no work tree; pass --rev REV to read a commit", ko: "작업 트리가 없는 bare 저장소입니다; 커밋을 읽으려면 --rev REV를 주세요")
        }
        return WorkingTreeSource(root: contentDir, contentRoot: contentRoot ?? .repositoryRoot)
    }
}
