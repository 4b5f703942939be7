import Glibc
import RatecardSupport
import Synchronization

/// The blob ids of a work tree's files as an earlier run read them, with each file's inode,
/// size and change and modification times (to the nanosecond), kept in the build cache: a file
/// still exactly as recorded has the id recorded, and is not read and hashed again (what git's
/// index does with its stat data). Any write to a file changes its change time (which no
/// program can set back), a replaced file has another inode: either makes it a miss, read and
/// hashed as before.
///
/// A file changed within the last moments before a run read it is not recorded (the "racy"
/// case git knows): a write in the same clock tick after the read could leave every field equal.
/// Only a file whose times are older than the run's start by more than a tick is recorded, so
/// a change after the read always shows.
public final class WorkTreeStamps: Sendable {
    struct Stamp: Equatable {
        var size: Int
        var device: UInt64
        var inode: UInt64
        var modified: Int
        var changed: Int
        var id: String

        init(_ info: stat, id: String) {
            size = Int(info.st_size)
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            modified = info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec
            changed = info.st_ctim.tv_sec * 1_000_000_000 + info.st_ctim.tv_nsec
            self.id = id
        }

        init(size: Int, device: UInt64, inode: UInt64, modified: Int, changed: Int, id: String) {
            self.size = size
            self.device = device
            self.inode = inode
            self.modified = modified
            self.changed = changed
            self.id = id
        }
    }

    /// How much older than the run's start a file's times must be to be recorded (nanoseconds):
    /// more than the file system's clock tick, which lags the wall clock by up to one.
    package static let settle = 100_000_000

    private let cache: BuildCache
    private let key: BuildCache.Key
    private let recorded: [String: Stamp]
    private let started: Int
    private let seen = Mutex<[String: Stamp]>([:])
    private let vouched = Atomic<Int>(0)

    /// The stamps kept for the folder `root` (any form of its path), or nil when `cache` is nil.
    public init?(root: String, cache: BuildCache?) {
        guard let cache, let real = try? FileSystem.realPath(root) else { return nil }
        self.cache = cache
        key = BuildCache.Key("work-tree-stamps", [real])
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        started = now.tv_sec * 1_000_000_000 + now.tv_nsec
        recorded = cache.read(key).flatMap(Self.decode) ?? [:]
    }

    /// The recorded blob id of the file at `path` (`relative` in the tree) when the file is
    /// still the one recorded; nil when it must be read.
    func id(of relative: String, at path: String) -> ObjectID? {
        guard let stamp = recorded[relative] else { return nil }
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, Stamp(info, id: stamp.id) == stamp else { return nil }
        seen.withLock { $0[relative] = stamp }
        vouched.add(1, ordering: .relaxed)
        return ObjectID(hex: stamp.id)
    }

    /// Notes that the file `relative`, as `info` describes it, was read and hashed to `id`.
    func note(_ relative: String, _ info: stat, id: ObjectID) {
        let stamp = Stamp(info, id: id.hex)
        guard stamp.modified < started - Self.settle, stamp.changed < started - Self.settle else { return }
        seen.withLock { $0[relative] = stamp }
    }

    /// Keeps what this run read for the next (with the run's other new cache entries), when it
    /// differs from what was recorded.
    public func save() {
        let stamps = seen.withLock { $0 }
        Trace.note("load: \(vouched.load(ordering: .relaxed)) files taken by their stamps, \(stamps.count) recorded")
        guard stamps != recorded else { return }
        var record = CacheRecord()
        record.append(stamps.count)
        for (path, stamp) in stamps.sorted(by: { $0.key < $1.key }) {
            record.append(path)
            record.append(stamp.id)
            record.append(stamp.size)
            record.append(Int(Int64(bitPattern: stamp.device)))
            record.append(Int(Int64(bitPattern: stamp.inode)))
            record.append(stamp.modified)
            record.append(stamp.changed)
        }
        cache.write(key, record.bytes)
    }

    private static func decode(_ payload: [UInt8]) -> [String: Stamp]? {
        var reader = CacheRecord.Reader(payload)
        guard let count = reader.int(), count >= 0, count <= payload.count / 56 else { return nil }
        var stamps: [String: Stamp] = [:]
        stamps.reserveCapacity(count)
        for _ in 0..<count {
            guard let path = reader.string(), let id = reader.string(), let size = reader.int(), let device = reader.int(), let inode = reader.int(),
                let modified = reader.int(), let changed = reader.int()
            else { return nil }
            stamps[path] = Stamp(
                size: size, device: UInt64(bitPattern: Int64(device)), inode: UInt64(bitPattern: Int64(inode)), modified: modified, changed: changed, id: id)
        }
        return reader.atEnd ? stamps : nil
    }
}
