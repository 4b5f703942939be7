import RatecardSupport

/// Where content files come from: a work tree or a commit.
public protocol ContentSource {
    /// The folder of the repository's tree the content is read from.
    var contentRoot: ContentRoot { get }
    /// Every file below the content root, with symlinks and submodules listed, not followed.
    func entries() throws -> [TreeEntry]
    /// The bytes of one file entry.
    func read(_ entry: TreeEntry) throws -> [UInt8]
    /// The size in bytes of one file entry, known without reading it (an object header or
    /// `stat`), so a file over the limits is refused before it is read.
    func size(_ entry: TreeEntry) throws -> Int
    /// The bytes of one file entry, or nil and its size when it is larger than `limit` (then
    /// it is not read).
    func read(_ entry: TreeEntry, limit: Int) throws -> (bytes: [UInt8]?, size: Int)
}

extension ContentSource {
    public func read(_ entry: TreeEntry, limit: Int) throws -> (bytes: [UInt8]?, size: Int) {
        let size = try size(entry)
        guard size <= limit else { return (nil, size) }
        let bytes = try read(entry)
        return (bytes, bytes.count)
    }
}

/// A source whose files are blobs of a git repository (a commit's tree, the index): read and
/// sized by blob id.
public protocol RepositoryBlobSource: ContentSource {
    var repository: Repository { get }
}

extension RepositoryBlobSource {
    public func read(_ entry: TreeEntry) throws -> [UInt8] {
        guard let id = entry.id else { throw OperationalError("\(entry.path) has no blob id", ko: "\(entry.path)에 blob id가 없습니다") }
        return try repository.blob(id)
    }

    public func size(_ entry: TreeEntry) throws -> Int {
        guard let id = entry.id else { throw OperationalError("\(entry.path) has no blob id", ko: "\(entry.path)에 blob id가 없습니다") }
        return try repository.blobSize(id)
    }
}
