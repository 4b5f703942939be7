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
    /// The recorded stamps, and the slot of each path among them.
    private let recorded: [Stamp]
    private let slots: [String: Int]
    private let started: Int
    /// One flag per recorded stamp, set when that file was found as recorded: each slot is
    /// written by the one thread that checked its file, so the two loading threads share no lock.
    private nonisolated(unsafe) let vouchedSlots: UnsafeMutableBufferPointer<Bool>
    /// Files read and hashed this run (few after an edit).
    private let noted = Mutex<[String: Stamp]>([:])
    private let vouched = Atomic<Int>(0)

    /// The stamps kept for the folder `root` (any form of its path), or nil when `cache` is nil.
    public init?(root: String, cache: BuildCache?) {
        guard let cache, let real = try? FileSystem.realPath(root) else { return nil }
        self.cache = cache
        key = BuildCache.Key("work-tree-stamps", [real])
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        started = now.tv_sec * 1_000_000_000 + now.tv_nsec
        let stamps = cache.read(key).flatMap(FileStamp.decodeList) ?? []
        var recorded: [Stamp] = []
        var slots: [String: Int] = [:]
        recorded.reserveCapacity(stamps.count)
        slots.reserveCapacity(stamps.count)
        for (path, stamp) in stamps {
            // A path listed twice (a record is written from a dictionary: never) keeps its last.
            if let slot = slots.updateValue(recorded.count, forKey: path) {
                slots[path] = slot
                recorded[slot] = stamp
                continue
            }
            recorded.append(stamp)
        }
        self.recorded = recorded
        self.slots = slots
        vouchedSlots = .allocate(capacity: recorded.count)
        vouchedSlots.initialize(repeating: false)
    }

    deinit { vouchedSlots.deallocate() }

    /// The recorded blob id of the file at `path` (`relative` in the tree) when the file is
    /// still the one recorded (found so by the listing, `vouch`, or by its `lstat` now); nil
    /// when it must be read.
    func id(of relative: String, at path: String) -> ObjectID? {
        guard let slot = slots[relative] else { return nil }
        let stamp = recorded[slot]
        if vouchedSlots[slot] { return ObjectID(hex: stamp.content) }
        var info = stat()
        guard lstat(path, &info) == 0, stamp.matches(info) else { return nil }
        return mark(slot, info)
    }

    /// Checks the file `relative` against its stamp with `info`, its stat data as the folder's
    /// listing found it (the tree is walked before its files are loaded, on the thread that
    /// lists the file's folder).
    func vouch(_ relative: String, _ info: stat) {
        guard let slot = slots[relative], recorded[slot].matches(info) else { return }
        _ = mark(slot, info)
    }

    /// Counted once however often the file is asked about.
    private func mark(_ slot: Int, _ info: stat) -> ObjectID? {
        guard info.st_mode & S_IFMT == S_IFREG else { return nil }
        if !vouchedSlots[slot] {
            vouchedSlots[slot] = true
            vouched.add(1, ordering: .relaxed)
        }
        return ObjectID(hex: recorded[slot].content)
    }

    /// Notes that the file `relative`, as `info` describes it, was read and hashed to `id`.
    func note(_ relative: String, _ info: stat, id: ObjectID) {
        let stamp = Stamp(info, content: id.hex)
        guard stamp.modified < started - Self.settle, stamp.changed < started - Self.settle else { return }
        noted.withLock { $0[relative] = stamp }
    }

    /// Keeps what this run read for the next (with the run's other new cache entries), when it
    /// differs from what was recorded: the stamps of the files found as recorded, and of those
    /// read and hashed.
    public func save() {
        let noted = noted.withLock { $0 }
        let vouched = vouched.load(ordering: .relaxed)
        Trace.note("load: \(vouched) files taken by their stamps, \(vouched + noted.count) recorded")
        // Every recorded file found as recorded, none read anew: the record holds.
        guard vouched != recorded.count || !noted.isEmpty else { return }
        var stamps = noted
        stamps.reserveCapacity(vouched + noted.count)
        for (path, slot) in slots where vouchedSlots[slot] { stamps[path] = recorded[slot] }
        cache.write(key, FileStamp.encode(stamps))
    }
}
