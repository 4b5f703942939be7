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
///
/// Each folder's listing is kept the same way, under its path and a slash (the top folder's
/// is "/"), its names and their kinds as the stamp's content: a folder still exactly as
/// stamped holds the same names (adding, removing or renaming an entry changes the folder's
/// modification and change times), so it is not listed again (what git's untracked cache does).
public final class WorkTreeStamps: Sendable {
    /// A file's stamp; its content is the file's blob id.
    typealias Stamp = FileStamp

    /// How much older than the run's start a file's times must be to be recorded (nanoseconds):
    /// more than the file system's clock tick, which lags the wall clock by up to one.
    package static let settle = 100_000_000

    private let cache: BuildCache
    private let key: BuildCache.Key
    /// The record read, kept again by `save` with this run's changes.
    private let record: Mutex<StampRecord>
    /// The recorded stamps, and the slot of each path among them.
    private let recorded: [Stamp]
    private let slots: [String: Int]
    private let started: Int
    /// One flag per recorded stamp, set when that file was found as recorded: each slot is
    /// written by the one thread that checked its file, so the two loading threads share no lock.
    private nonisolated(unsafe) let vouchedSlots: UnsafeMutableBufferPointer<Bool>
    /// Files read and hashed this run (few after an edit).
    private let noted = Mutex<[String: Stamp]>([:])
    /// The recorded files and folders found as recorded.
    private let vouched = Atomic<Int>(0)
    private let vouchedFolders = Atomic<Int>(0)

    /// The stamps kept for the folder `root` (any form of its path), or nil when `cache` is nil.
    public init?(root: String, cache: BuildCache?) {
        guard let cache, let real = try? FileSystem.realPath(root) else { return nil }
        self.cache = cache
        key = BuildCache.Key("work-tree-stamps", [real])
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        started = now.tv_sec * 1_000_000_000 + now.tv_nsec
        let (record, base) = StampRecord.read(key, from: cache)
        let stamps = base ?? []
        var recorded: [Stamp] = []
        var slots: [String: Int] = [:]
        recorded.reserveCapacity(stamps.count + record.changed.count)
        slots.reserveCapacity(stamps.count + record.changed.count)
        func put(_ path: String, _ stamp: Stamp) {
            // A path listed twice (a record is written from a dictionary: never) keeps its last.
            if let slot = slots.updateValue(recorded.count, forKey: path) {
                slots[path] = slot
                recorded[slot] = stamp
                return
            }
            recorded.append(stamp)
        }
        for (path, stamp) in stamps { put(path, stamp) }
        for (path, stamp) in record.changed { put(path, stamp) }
        // A dropped path's stamp stays in `recorded`, in no slot: nothing finds it.
        for path in record.removed { slots[path] = nil }
        self.record = Mutex(record)
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
        note(relative, Stamp(info, content: id.hex))
    }

    private func note(_ key: String, _ stamp: Stamp) {
        guard stamp.modified < started - Self.settle, stamp.changed < started - Self.settle else { return }
        noted.withLock { $0[key] = stamp }
    }

    /// The names in the folder `relative` (its path in the tree, "" for the top) and their
    /// kinds, as recorded, when the folder `info` describes is still the one recorded; nil
    /// when it must be listed.
    func listing(of relative: String, _ info: stat) -> [(name: String, kind: FileSystem.Kind)]? {
        guard info.st_mode & S_IFMT == S_IFDIR, let slot = slots[relative + "/"], recorded[slot].matches(info),
            let names = Self.names(recorded[slot].content)
        else { return nil }
        if !vouchedSlots[slot] {
            vouchedSlots[slot] = true
            vouched.add(1, ordering: .relaxed)
            vouchedFolders.add(1, ordering: .relaxed)
        }
        return names
    }

    /// How many folders were taken by their recorded listing so far.
    package var foldersTaken: Int { vouchedFolders.load(ordering: .relaxed) }

    /// Notes that the folder `relative`, as `info` (taken before it was read) describes it,
    /// holds `names`.
    func note(folder relative: String, _ info: stat, names: [(name: String, kind: FileSystem.Kind)]) {
        note(relative + "/", Stamp(info, content: Self.content(names)))
    }

    /// A listing as a stamp's content: per name its kind's letter, the name and a NUL (which
    /// no name holds).
    static func content(_ names: [(name: String, kind: FileSystem.Kind)]) -> String {
        var content = ""
        for (name, kind) in names {
            switch kind {
            case .file: content += "f"
            case .directory: content += "d"
            case .symlink: content += "l"
            case .other: content += "o"
            }
            content += name
            content += "\0"
        }
        return content
    }

    /// The listing `content` holds, or nil when it is not one.
    static func names(_ content: String) -> [(name: String, kind: FileSystem.Kind)]? {
        var names: [(name: String, kind: FileSystem.Kind)] = []
        for entry in content.utf8.split(separator: 0, omittingEmptySubsequences: false).dropLast() {
            guard let letter = entry.first, entry.count > 1 else { return nil }
            let kind: FileSystem.Kind
            switch letter {
            case UInt8(ascii: "f"): kind = .file
            case UInt8(ascii: "d"): kind = .directory
            case UInt8(ascii: "l"): kind = .symlink
            case UInt8(ascii: "o"): kind = .other
            default: return nil
            }
            names.append((String(decoding: entry.dropFirst(), as: UTF8.self), kind))
        }
        guard content.utf8.last == 0 || content.isEmpty else { return nil }
        return names
    }

    /// Keeps what this run read for the next (with the run's other new cache entries), when it
    /// differs from what was recorded: the stamps of the files found as recorded, and of those
    /// read and hashed.
    public func save() {
        let noted = noted.withLock { $0 }
        let vouched = vouched.load(ordering: .relaxed)
        let folders = vouchedFolders.load(ordering: .relaxed)
        Trace.note("load: \(vouched - folders) files and \(folders) folders taken by their stamps, \(vouched + noted.count) recorded")
        // Every recorded file found as recorded, none read anew: the record holds.
        guard vouched != slots.count || !noted.isEmpty else { return }
        // What changed: the files read anew, and the recorded ones neither found nor read.
        let slots = slots
        let vouchedSlots = vouchedSlots
        let recorded = recorded
        let removed = slots.lazy.filter { !vouchedSlots[$0.value] && noted[$0.key] == nil }.map(\.key)
        record.withLock { record in
            record.keep(changed: noted, removed: removed, to: cache) {
                var stamps = noted
                stamps.reserveCapacity(vouched + noted.count)
                for (path, slot) in slots where vouchedSlots[slot] { stamps[path] = recorded[slot] }
                return stamps
            }
        }
    }
}
