import Glibc
import RatecardSupport

/// A file as a run found it, and what its bytes were: inode, size, change and modification
/// times to the nanosecond, and `content` (a blob id or a sha256, as the record's owner names
/// it). A file still exactly as stamped holds the same bytes: any write changes its change time
/// (which no program can set back), a replaced file has another inode. Kept in the build cache
/// by the work tree's stamps (`WorkTreeStamps`) and by the output folder's record.
package struct FileStamp: Equatable, Sendable {
    package var content: String
    package var size: Int
    package var device: UInt64
    package var inode: UInt64
    package var modified: Int
    package var changed: Int

    package init(_ info: stat, content: String) {
        self.content = content
        size = Int(info.st_size)
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        modified = info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec
        changed = info.st_ctim.tv_sec * 1_000_000_000 + info.st_ctim.tv_nsec
    }

    package init(content: String, size: Int, device: UInt64, inode: UInt64, modified: Int, changed: Int) {
        self.content = content
        self.size = size
        self.device = device
        self.inode = inode
        self.modified = modified
        self.changed = changed
    }

    /// Whether the file `info` describes is still this one.
    package func matches(_ info: stat) -> Bool { FileStamp(info, content: content) == self }

    /// Stamps by path as a cache record: a count, then each path and stamp.
    package static func encode(_ stamps: [String: FileStamp]) -> [UInt8] {
        var record = CacheRecord()
        append(stamps, to: &record)
        return record.bytes
    }

    /// Appends `stamps`, sorted by path, as `encode` writes them.
    static func append(_ stamps: [String: FileStamp], to record: inout CacheRecord) {
        record.append(stamps.count)
        for (path, stamp) in stamps.sorted(by: { $0.key < $1.key }) {
            record.append(path)
            record.append(stamp.content)
            record.append(stamp.size)
            record.append(Int(Int64(bitPattern: stamp.device)))
            record.append(Int(Int64(bitPattern: stamp.inode)))
            record.append(stamp.modified)
            record.append(stamp.changed)
        }
    }

    /// The stamps a record holds, or nil when it is not a whole one.
    package static func decode(_ payload: [UInt8]) -> [String: FileStamp]? {
        decodeList(payload).map { Dictionary($0, uniquingKeysWith: { _, last in last }) }
    }

    /// `decode` as the record lists them, by path (for a caller that indexes them its own way:
    /// no dictionary of 11,600 paths made only to be read through once).
    package static func decodeList(_ payload: [UInt8]) -> [(path: String, stamp: FileStamp)]? {
        var reader = CacheRecord.Reader(payload)
        guard let stamps = read(from: &reader), reader.atEnd else { return nil }
        return stamps
    }

    /// Reads what `append` wrote, or nil when the bytes do not hold it.
    static func read(from reader: inout CacheRecord.Reader) -> [(path: String, stamp: FileStamp)]? {
        guard let count = reader.int(), count >= 0, count <= reader.bytes.count / 56 else { return nil }
        var stamps: [(path: String, stamp: FileStamp)] = []
        stamps.reserveCapacity(count)
        for _ in 0..<count {
            guard let path = reader.string(), let content = reader.string(), let size = reader.int(), let device = reader.int(), let inode = reader.int(),
                let modified = reader.int(), let changed = reader.int()
            else { return nil }
            stamps.append(
                (
                    path,
                    FileStamp(
                        content: content, size: size, device: UInt64(bitPattern: Int64(device)), inode: UInt64(bitPattern: Int64(inode)), modified: modified,
                        changed: changed)
                ))
        }
        return stamps
    }
}

/// Stamps by path kept in the build cache as a whole list (the base) and, under a second key,
/// the changes made since: the paths stamped anew and the paths dropped, tied to the base by its
/// sha256. A run that found a few files changed among thousands writes those few, not the whole
/// list again; the base is written anew, whole, once the changes pass an eighth of it. Changes
/// whose base is not the one read (another process wrote a new base since) are not applied.
package struct StampRecord: Sendable {
    package let key: BuildCache.Key
    /// The base's sha256, when there is one.
    private var baseSHA256: [UInt8]?
    private var baseCount = 0
    /// The changes since the base, as read (and as `keep` adds to them).
    package private(set) var changed: [String: FileStamp] = [:]
    package private(set) var removed: Set<String> = []

    /// The record under `key`: its base list, as written (apply `changed` and `removed` to
    /// it), nil when the cache holds no whole one.
    package static func read(_ key: BuildCache.Key, from cache: BuildCache) -> (record: StampRecord, base: [(path: String, stamp: FileStamp)]?) {
        var record = StampRecord(key: key)
        guard let (payload, sha256) = cache.readChecked(key), let base = FileStamp.decodeList(payload) else { return (record, nil) }
        record.baseSHA256 = sha256
        record.baseCount = base.count
        if let changes = cache.read(record.changesKey), let (changed, removed) = Self.decodeChanges(changes, base: sha256) {
            record.changed = changed
            record.removed = removed
        }
        return (record, base)
    }

    package init(key: BuildCache.Key) { self.key = key }

    private var changesKey: BuildCache.Key {
        var builder = BuildCache.Key.Builder("stamp-changes")
        builder.append(key: key)
        return builder.key
    }

    /// Keeps what changed since the record was read: `changed` stamped anew, `removed` gone.
    /// `whole` gives every stamp the record holds now, for when a new base is due.
    package mutating func keep(changed: [String: FileStamp], removed: some Sequence<String>, to cache: BuildCache, whole: () -> [String: FileStamp]) {
        for (path, stamp) in changed {
            self.changed[path] = stamp
            self.removed.remove(path)
        }
        for path in removed {
            self.changed[path] = nil
            self.removed.insert(path)
        }
        guard let baseSHA256, self.changed.count + self.removed.count <= Swift.max(64, baseCount / 8) else {
            let stamps = whole()
            let payload = FileStamp.encode(stamps)
            cache.write(key, payload)
            baseSHA256 = SHA256.digest(payload)
            baseCount = stamps.count
            self.changed = [:]
            self.removed = []
            return
        }
        var record = CacheRecord()
        record.append(SHA256.hex(digest: baseSHA256))
        record.append(self.removed.count)
        for path in self.removed.sorted() { record.append(path) }
        FileStamp.append(self.changed, to: &record)
        cache.write(changesKey, record.bytes)
    }

    /// The changes a record holds when it was made against the base of `sha256`.
    static func decodeChanges(_ payload: [UInt8], base sha256: [UInt8]) -> (changed: [String: FileStamp], removed: Set<String>)? {
        var reader = CacheRecord.Reader(payload)
        guard reader.string() == SHA256.hex(digest: sha256), let count = reader.int(), count >= 0, count <= payload.count / 8 else { return nil }
        var removed: Set<String> = []
        for _ in 0..<count {
            guard let path = reader.string() else { return nil }
            removed.insert(path)
        }
        guard let changed = FileStamp.read(from: &reader), reader.atEnd else { return nil }
        return (Dictionary(changed, uniquingKeysWith: { _, last in last }), removed)
    }
}
