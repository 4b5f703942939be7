import RatecardSupport

/// Content as staged in git's index: what the next commit will hold (for the pre-commit hook).
public struct IndexSource: RepositoryBlobSource {
    public let repository: Repository
    public let contentRoot: ContentRoot
    /// The index file the commit is made from when it is not the repository's own (an
    /// absolute path; see `StagedCommit`), else nil.
    public let indexFile: String?

    public init(repository: Repository, contentRoot: ContentRoot, indexFile: String? = nil) {
        self.repository = repository
        self.contentRoot = contentRoot
        self.indexFile = indexFile
    }

    public func entries() throws -> [TreeEntry] {
        try repository.indexEntries(under: contentRoot.treePath, indexFile: indexFile)
            .filter { !$0.path.split(separator: "/").contains { $0.hasPrefix(".") } }
            .sorted { $0.path < $1.path }
    }
}
