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
        return record.bytes
    }

    /// The stamps a record holds, or nil when it is not a whole one.
    package static func decode(_ payload: [UInt8]) -> [String: FileStamp]? {
        decodeList(payload).map { Dictionary($0, uniquingKeysWith: { _, last in last }) }
    }

    /// `decode` as the record lists them, by path (for a caller that indexes them its own way:
    /// no dictionary of 11,600 paths made only to be read through once).
    package static func decodeList(_ payload: [UInt8]) -> [(path: String, stamp: FileStamp)]? {
        var reader = CacheRecord.Reader(payload)
        guard let count = reader.int(), count >= 0, count <= payload.count / 56 else { return nil }
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
        return reader.atEnd ? stamps : nil
    }
}
