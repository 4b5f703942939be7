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
    /// A file's stamp; its content is the file's blob id.
    typealias Stamp = FileStamp

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
        recorded = cache.read(key).flatMap(FileStamp.decode) ?? [:]
    }

    /// The recorded blob id of the file at `path` (`relative` in the tree) when the file is
    /// still the one recorded; nil when it must be read.
    func id(of relative: String, at path: String) -> ObjectID? {
        guard let stamp = recorded[relative] else { return nil }
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, stamp.matches(info) else { return nil }
        seen.withLock { $0[relative] = stamp }
        vouched.add(1, ordering: .relaxed)
        return ObjectID(hex: stamp.content)
    }

    /// Notes that the file `relative`, as `info` describes it, was read and hashed to `id`.
    func note(_ relative: String, _ info: stat, id: ObjectID) {
        let stamp = Stamp(info, content: id.hex)
        guard stamp.modified < started - Self.settle, stamp.changed < started - Self.settle else { return }
        seen.withLock { $0[relative] = stamp }
    }

    /// Keeps what this run read for the next (with the run's other new cache entries), when it
    /// differs from what was recorded.
    public func save() {
        let stamps = seen.withLock { $0 }
        Trace.note("load: \(vouched.load(ordering: .relaxed)) files taken by their stamps, \(stamps.count) recorded")
        guard stamps != recorded else { return }
        cache.write(key, FileStamp.encode(stamps))
    }
}
