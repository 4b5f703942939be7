import RatecardSupport

/// The commit `git commit` is making, as it tells its pre-commit hook through the environment:
/// the repository (`GIT_DIR`, set for a linked work tree, whose `.git` is a file, or by
/// `git --git-dir`; `GIT_WORK_TREE`) and the index the commit is made from (`GIT_INDEX_FILE`:
/// `.git/index` for a plain commit, a temporary index for `commit -a`, `commit <paths>`,
/// `commit -p` and `commit --amend -a`). Relative paths are read as git reads them: `GIT_DIR`
/// and `GIT_WORK_TREE` against the current folder, `GIT_INDEX_FILE` against the top of the
/// work tree. Without these variables (run by hand) it is the repository found from the
/// content folder and its own index.
public struct StagedCommit {
    public var location: ContentLocation
    /// The index file to read (absolute), or nil for the repository's own.
    public var indexFile: String?

    public static func find(from directory: String, environment: [String: String], currentDirectory: String) throws -> StagedCommit {
        var location = try ContentLocation.find(from: directory)
        func absolute(_ path: String, against base: String) -> String { path.hasPrefix("/") ? path : base + "/" + path }
        if let gitDir = environment["GIT_DIR"], !gitDir.isEmpty {
            let repository = try Repository.open(at: absolute(gitDir, against: currentDirectory))
            if let workTree = environment["GIT_WORK_TREE"], !workTree.isEmpty {
                try repository.setWorkdir(absolute(workTree, against: currentDirectory))
            }
            guard let folder = location.contentDir, let root = ContentLocation.contentRoot(of: folder, in: repository) else {
                throw OperationalError(
                    "the content folder \(location.contentDir ?? directory) is not inside the work tree of GIT_DIR (\(gitDir))",
                    ko: "콘텐츠 폴더 \(location.contentDir ?? directory)이(가) GIT_DIR(\(gitDir))의 작업 트리 안에 있지 않습니다")
            }
            location = ContentLocation(contentDir: folder, repository: repository, contentRoot: root)
        }
        guard let indexFile = environment["GIT_INDEX_FILE"], !indexFile.isEmpty else { return StagedCommit(location: location, indexFile: nil) }
        guard let workdir = location.repository?.workdir else {
            throw OperationalError("GIT_INDEX_FILE is set but there is no work tree to read it against", ko: "GIT_INDEX_FILE이 있지만 그 경로의 기준이 될 작업 트리가 없습니다")
        }
        let path = absolute(indexFile, against: workdir)
        // libgit2 opens a missing index as an empty one: that would judge an empty commit.
        guard FileSystem.exists(path) else {
            throw OperationalError(
                "the index git named in GIT_INDEX_FILE (\(indexFile)) does not exist: \(path)",
                ko: "GIT_INDEX_FILE에 적힌 인덱스(\(indexFile))가 없습니다: \(path)")
        }
        return StagedCommit(location: location, indexFile: path)
    }
}
