import RatecardSupport

/// Content read straight from a commit's tree through libgit2: no checkout, works in a bare clone.
public struct CommitSource: RepositoryBlobSource {
    public let repository: Repository
    public let commit: ObjectID
    public let contentRoot: ContentRoot

    public init(repository: Repository, commit: ObjectID, contentRoot: ContentRoot) {
        self.repository = repository
        self.commit = commit
        self.contentRoot = contentRoot
    }

    public func entries() throws -> [TreeEntry] {
        guard let entries = try repository.treeEntries(commit: commit, under: contentRoot.treePath) else {
            throw OperationalError("commit \(commit.short) has no folder '\(contentRoot.treePath)' holding the content", ko: "커밋 \(commit.short)에 콘텐츠가 있는 폴더 '\(contentRoot.treePath)'이(가) 없습니다")
        }
        return filtered(entries)
    }

    /// The entries below the folders `descending` accepts (content-relative paths), e.g. all but
    /// the rate tables of products that did not change.
    package func entries(descending: (String) -> Bool) throws -> [TreeEntry] {
        guard let entries = try repository.treeEntries(commit: commit, under: contentRoot.treePath, descending: descending) else {
            throw OperationalError("commit \(commit.short) has no folder '\(contentRoot.treePath)' holding the content", ko: "커밋 \(commit.short)에 콘텐츠가 있는 폴더 '\(contentRoot.treePath)'이(가) 없습니다")
        }
        return filtered(entries)
    }

    /// Drops dot-files and dot-folders, as the work tree source does.
    package func filtered(_ entries: [TreeEntry]) -> [TreeEntry] {
        // For an ASCII path, a component starts with "." exactly when the path does or holds
        // "/." (checked on bytes, without splitting 11,600 paths into substrings).
        entries.filter { entry in
            var previous: UInt8 = 0x2F
            for byte in entry.path.utf8 {
                if byte >= 0x80 { return !entry.path.split(separator: "/").contains { $0.hasPrefix(".") } }
                if byte == 0x2E && previous == 0x2F { return false }
                previous = byte
            }
            return true
        }.sorted { $0.path < $1.path }
    }
}
