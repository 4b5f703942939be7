import RatecardSupport

/// Content as staged in git's index: what the next commit will hold (for the pre-commit hook).
public struct IndexSource: RepositoryBlobSource {
    public let repository: Repository
    public let contentRoot: ContentRoot

    public init(repository: Repository, contentRoot: ContentRoot) {
        self.repository = repository
        self.contentRoot = contentRoot
    }

    public func entries() throws -> [TreeEntry] {
        try repository.indexEntries(under: contentRoot.treePath)
            .filter { !$0.path.split(separator: "/").contains { $0.hasPrefix(".") } }
            .sorted { $0.path < $1.path }
    }
}
