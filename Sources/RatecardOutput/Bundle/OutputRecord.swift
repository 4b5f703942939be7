import Glibc
import RatecardCore
import RatecardSupport

/// What the last build wrote into an output folder (`--out`), kept in the build cache: each
/// file's sha256 and the file as the build left it (inode, size, change and modification
/// times to the nanosecond). A later build into the same folder takes a file whose bytes it
/// would write again from the folder only when the file is still exactly that one: a plain
/// file of mode 0644, the same inode, size and times, with no name but those the writer knows. A file anyone changed,
/// replaced, renamed in or gave another name since (each changes one of those) is read and
/// compared, or written anew; so is every file when there is no record (no build cache, another
/// folder, a record that does not decode).
package struct OutputRecord: Equatable {
    /// One file as the build left it.
    package struct Stamp: Equatable {
        var sha256: String
        var size: Int
        var device: UInt64
        var inode: UInt64
        var modified: Int
        var changed: Int

        /// The stamp of a plain file of mode 0644 (what a build writes) holding bytes of `sha256`.
        init?(_ info: stat, sha256: String) {
            guard info.st_mode & S_IFMT == S_IFREG, info.st_mode & 0o7777 == 0o644 else { return nil }
            self.sha256 = sha256
            size = Int(info.st_size)
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            modified = info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec
            changed = info.st_ctim.tv_sec * 1_000_000_000 + info.st_ctim.tv_nsec
        }

        init(sha256: String, size: Int, device: UInt64, inode: UInt64, modified: Int, changed: Int) {
            self.sha256 = sha256
            self.size = size
            self.device = device
            self.inode = inode
            self.modified = modified
            self.changed = changed
        }

        /// Whether the file `info` describes is still this one.
        func matches(_ info: stat) -> Bool {
            Stamp(info, sha256: sha256) == self
        }
    }

    /// By path relative to the folder.
    package var files: [String: Stamp] = [:]

    package init(files: [String: Stamp] = [:]) { self.files = files }

    /// The cache key of the record of the folder at `realPath` (its absolute, link-free path).
    static func key(_ realPath: String) -> BuildCache.Key { BuildCache.Key("output-record", [realPath]) }

    /// The record the cache holds for the folder at `realPath`, if a whole one.
    static func read(_ realPath: String, from cache: BuildCache) -> OutputRecord? {
        guard let payload = cache.read(key(realPath)) else { return nil }
        var reader = CacheRecord.Reader(payload)
        guard let count = reader.int(), count >= 0, count <= payload.count / 56 else { return nil }
        var record = OutputRecord()
        record.files.reserveCapacity(count)
        for _ in 0..<count {
            guard let path = reader.string(), let sha256 = reader.string(), let size = reader.int(), let device = reader.int(), let inode = reader.int(),
                let modified = reader.int(), let changed = reader.int()
            else { return nil }
            record.files[path] = Stamp(
                sha256: sha256, size: size, device: UInt64(bitPattern: Int64(device)), inode: UInt64(bitPattern: Int64(inode)), modified: modified, changed: changed)
        }
        return reader.atEnd ? record : nil
    }

    /// Keeps this record for the folder at `realPath` (written with the run's other new entries).
    func write(_ realPath: String, to cache: BuildCache) {
        var record = CacheRecord()
        record.append(files.count)
        for (path, stamp) in files.sorted(by: { $0.key < $1.key }) {
            record.append(path)
            record.append(stamp.sha256)
            record.append(stamp.size)
            record.append(Int(Int64(bitPattern: stamp.device)))
            record.append(Int(Int64(bitPattern: stamp.inode)))
            record.append(stamp.modified)
            record.append(stamp.changed)
        }
        cache.write(Self.key(realPath), record.bytes)
    }
}
