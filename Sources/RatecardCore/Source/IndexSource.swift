import RatecardSupport

/// Content as staged in git's index: what the next commit will hold (for the pre-commit hook).
public struct IndexSource: ContentSource {
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

    public func read(_ entry: TreeEntry) throws -> [UInt8] {
        guard let id = entry.id else { throw OperationalError("\(entry.path) has no blob id") }
        return try repository.blob(id)
    }

    public func size(_ entry: TreeEntry) throws -> Int {
        guard let id = entry.id else { throw OperationalError("\(entry.path) has no blob id") }
        return try repository.blobSize(id)
    }
}
