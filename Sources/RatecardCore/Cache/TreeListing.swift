import RatecardSupport

/// A commit's entries below a folder, kept in the build cache by the commit's id (a commit
/// never changes): a warm check of the work tree lists HEAD, its history rules' base, from the
/// cache instead of walking thousands of tree entries in the object store.
package enum TreeListing {
    /// `repository.treeEntries(commit:under:)`, from `cache` when it holds them.
    package static func entries(_ repository: Repository, commit: ObjectID, under prefix: String, cache: BuildCache?) throws -> [TreeEntry]? {
        let key = BuildCache.Key("tree-entries", [commit.hex, prefix])
        if let cache, let payload = cache.read(key), let kept = decode(payload) { return kept }
        let entries = try repository.treeEntries(commit: commit, under: prefix)
        cache?.write(key, encode(entries))
        return entries
    }

    static func encode(_ entries: [TreeEntry]?) -> [UInt8] {
        var record = CacheRecord()
        guard let entries else {
            record.append(-1)
            return record.bytes
        }
        record.append(entries.count)
        for entry in entries {
            record.append(entry.path)
            record.append(entry.kind == .file ? 0 : entry.kind == .symlink ? 1 : 2)
            record.append(entry.id?.hex ?? "")
        }
        return record.bytes
    }

    /// The entries (`.some(nil)`: no such folder), or nil when the payload is not a whole one.
    static func decode(_ payload: [UInt8]) -> [TreeEntry]?? {
        var reader = CacheRecord.Reader(payload)
        guard let count = reader.int(), count >= -1, count <= payload.count / 24 else { return nil }
        if count == -1 { return reader.atEnd ? .some(nil) : nil }
        var entries: [TreeEntry] = []
        entries.reserveCapacity(count)
        for _ in 0..<count {
            guard let path = reader.string(), let kind = reader.int(), (0...2).contains(kind), let id = reader.string() else { return nil }
            entries.append(TreeEntry(path: path, kind: kind == 0 ? .file : kind == 1 ? .symlink : .submodule, id: id.isEmpty ? nil : ObjectID(hex: id)))
        }
        return reader.atEnd ? .some(entries) : nil
    }
}
