import Glibc
import RatecardSupport
import Synchronization

/// A persistent, content-addressed cache of build results: work that is a pure function of
/// file bytes (a terms body's advertising scan) or of a few files' blob ids (a terms page, a
/// product's data document) is kept between runs, so a build after an edit redoes only what
/// the edit touched.
///
/// Where it lives: `$RATECARD_CACHE_DIR`, else `$XDG_CACHE_HOME/ratecard`, else
/// `~/.cache/ratecard`; `RATECARD_CACHE=off` turns it off. Outside the content, so it never
/// shows in `git status`, never makes the work tree look dirty, serves `--rev` and bare clones
/// alike, and is shared by clones of the same content.
///
/// Entries are kept in pack files, not one file each: a process collects what it computed and
/// writes it as one pack when it ends (creating thousands of small files cost more kernel time
/// than the work they saved). A pack is never changed once it has its name.
///
/// What makes it safe to trust:
/// - it is used only when only this user can change it (`CacheFolder`): the folders are this
///   user's, writable by no one else, opened without following a symlink and worked through by
///   descriptor, and only the cache's own file names are ever deleted; otherwise the run warns
///   once and goes on uncached;
/// - every key hashes the build fingerprint (this executable and its parsing and rendering
///   libraries) with the exact inputs of the result, so another ratecard never reads an entry;
/// - a pack's index is signed with HMAC-SHA256 under a key only this user can read (`v1/key`,
///   mode 0600), and every entry carries the sha256 of its payload: an entry anyone else made
///   (a forged result, payloads swapped with their sums recomputed) is a miss, never a result;
/// - a pack is written to a temporary file and renamed into place, its checks made on every
///   read, so a torn or truncated pack yields misses too;
/// - it is bounded (`RATECARD_CACHE_MAX_MB`, default 256): a process that wrote a pack merges
///   the packs when there are many and drops the least recently used ones when over the bound;
/// - it may be deleted at any time; nothing else refers to it.
///
/// One is made per run (`Caches`) and given to what uses it; there is no process-wide one.
public final class BuildCache: Sendable {
    /// Packs live under a folder named for their format, so a new format never reads an old one.
    package static let format = "v1"
    /// More packs than this are merged into one by the next process that writes.
    package static let mergeAbove = 12

    /// `<root>/v1`.
    public let folder: String
    /// The folder given (`RATECARD_CACHE_DIR`).
    private let root: String
    /// The size above which the least recently used packs are removed.
    public let limit: Int
    /// Told once why the cache is not used, when it is not.
    private let warn: @Sendable (Message) -> Void

    private struct State {
        /// The folders once opened: nil before, `.some(nil)` when unusable.
        var store: CacheFolder??
        var pending: [(Key, [UInt8])] = []
        var pendingKeys: [Key: Int] = [:]
        var wrote = false
        /// The packs this process wrote: newer than any other, whatever their times say.
        var own: Set<String> = []
    }

    /// The packs as they were mapped on first use, and where each key's newest entry is: never
    /// changed once made, so reads look it up without a lock (thousands of reads on two
    /// threads at once).
    private final class Packed: Sendable {
        let packs: [Pack]
        let index: [Key: (pack: Int, entry: Int)]

        init(packs: [Pack], index: [Key: (pack: Int, entry: Int)]) {
            self.packs = packs
            self.index = index
        }
    }

    private let state = Mutex(State())
    /// Held while the packs are mapped, so that threads reading at once map them once.
    private let opening = Mutex<Packed?>(nil)
    /// Set (with release ordering) once `packed` holds the mapped packs.
    private let opened = Atomic<Bool>(false)
    /// Written once, under `opening`, before `opened` is set; read only after `opened` is seen set.
    private nonisolated(unsafe) var packed: Packed?
    /// Entries written by this process and not yet in a pack: a read takes the lock only when there are some.
    private let pendingCount = Atomic<Int>(0)
    private let hits = Atomic<Int>(0)

    /// A cache in `root` (opened, and created when missing, on first use); `warn` is told once
    /// why it is not used when it is not.
    public init(folder root: String, limit: Int, warn: @escaping @Sendable (Message) -> Void) {
        folder = root + "/" + Self.format
        self.root = root
        self.limit = limit
        self.warn = warn
    }

    package convenience init?(environment: [String: String], warn: @escaping @Sendable (Message) -> Void) {
        if let setting = environment["RATECARD_CACHE"], ["off", "0", "no", "false"].contains(setting.lowercased()) { return nil }
        var root: String
        if let dir = environment["RATECARD_CACHE_DIR"], !dir.isEmpty {
            root = dir
        } else if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            root = xdg + "/ratecard"
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            root = home + "/.cache/ratecard"
        } else {
            return nil
        }
        if !root.hasPrefix("/") { root = FileSystem.currentDirectory() + "/" + root }
        let megabytes = environment["RATECARD_CACHE_MAX_MB"].flatMap { Int($0) }.map { max(1, $0) } ?? 256
        self.init(folder: root, limit: megabytes << 20, warn: warn)
    }

    /// A cache key: the sha256 of the build fingerprint, what kind of result it is and every
    /// input it depends on.
    public struct Key: Hashable, Sendable {
        package let words: (UInt64, UInt64, UInt64, UInt64)

        public init(_ kind: String, _ parts: [String]) {
            var builder = Builder(kind)
            for part in parts { builder.append(part) }
            self = builder.key
        }

        /// Builds a key part by part (each length-prefixed, so no two lists of parts give the
        /// same bytes) without making strings of them.
        public struct Builder: Sendable {
            private var bytes: [UInt8]

            /// What every key starts with: the cache format and the build fingerprint.
            private static let header: [UInt8] = {
                var builder = Builder(bytes: [])
                builder.append("ratecard-cache \(BuildCache.format)")
                builder.append(BuildFingerprint.value)
                return builder.bytes
            }()

            private init(bytes: [UInt8]) { self.bytes = bytes }

            public init(_ kind: String) {
                bytes = Self.header
                bytes.reserveCapacity(384)
                append(kind)
            }

            public mutating func append(_ part: String) {
                var part = part
                part.withUTF8 { utf8 in
                    withUnsafeBytes(of: UInt32(utf8.count).littleEndian) { bytes.append(contentsOf: $0) }
                    bytes.append(contentsOf: utf8)
                }
            }

            /// Another key (a unit's key within the key of what is made of it).
            public mutating func append(key: Key) {
                withUnsafeBytes(of: key.words) { bytes.append(contentsOf: $0) }
            }

            /// A file and its blob id.
            public mutating func append(file path: String, id: ObjectID) {
                append(path)
                bytes.append(contentsOf: id.hex.utf8)
            }

            public var key: Key { Key(digest: SHA256.digest(bytes)) }
        }

        /// The key of a 32-byte digest (read as four little-endian words, not byte by byte:
        /// every entry of every pack is keyed when the packs are opened).
        package init(digest: some Collection<UInt8>) {
            let bytes = Array(digest)
            precondition(bytes.count >= 32, "a key is a 32-byte digest")
            words = bytes.withUnsafeBytes { raw in
                func word(_ at: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
                return (word(0), word(8), word(16), word(24))
            }
        }

        package var digest: [UInt8] {
            var bytes: [UInt8] = []
            for word in [words.0, words.1, words.2, words.3] { for index in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: word >> (8 * index))) } }
            return bytes
        }

        public static func == (lhs: Key, rhs: Key) -> Bool { lhs.words == rhs.words }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(words.0)
            hasher.combine(words.1)
        }
    }

    /// The payload stored under `key`, if there is a whole one.
    public func read(_ key: Key) -> [UInt8]? {
        readChecked(key)?.payload
    }

    /// The payload stored under `key`, with its sha256 (checked as it was read: a caller that
    /// needs the hash of what it read does not hash it again).
    package func readChecked(_ key: Key) -> (payload: [UInt8], sha256: [UInt8])? {
        let packed = openPacks()
        if pendingCount.load(ordering: .acquiring) > 0,
            let payload = state.withLock({ state in state.pendingKeys[key].map { state.pending[$0].1 } })
        {
            return (payload, SHA256.digest(payload))
        }
        guard let place = packed.index[key] else { return nil }
        let pack = packed.packs[place.pack]
        guard let (payload, sha256) = pack.checkedPayload(place.entry), pack.key(place.entry) == key else { return nil }
        pack.touch()
        hits.add(1, ordering: .relaxed)
        return (payload, sha256)
    }

    /// What is stored under `key` as its pack's signed index names it, the payload not read:
    /// its sha256 and size (for a caller that finds those bytes already where they go, and
    /// reads them only if they are not; `read` checks them then).
    package func stored(_ key: Key) -> (sha256: [UInt8], size: Int)? {
        let packed = openPacks()
        if pendingCount.load(ordering: .acquiring) > 0,
            let payload = state.withLock({ state in state.pendingKeys[key].map { state.pending[$0].1 } })
        {
            return (SHA256.digest(payload), payload.count)
        }
        guard let place = packed.index[key] else { return nil }
        let pack = packed.packs[place.pack]
        guard pack.key(place.entry) == key, let stored = pack.stored(place.entry) else { return nil }
        pack.touch()
        return stored
    }

    /// Keeps `payload` under `key`; it is written with the process's other new entries.
    public func write(_ key: Key, _ payload: [UInt8]) {
        state.withLock { state in
            guard state.pendingKeys[key] == nil else { return }
            state.pendingKeys[key] = state.pending.count
            state.pending.append((key, payload))
            pendingCount.store(state.pending.count, ordering: .releasing)
        }
    }

    /// The payload under `key`, else `make()`'s, kept for next time.
    public func value(_ key: Key, _ make: () -> [UInt8]) -> [UInt8] {
        if let cached = read(key) { return cached }
        let made = make()
        write(key, made)
        return made
    }

    /// Writes the new entries as one pack (a temporary file renamed into place; no fsync: a
    /// pack a crash left short fails its checks).
    public func flush() {
        let entries = state.withLock { state -> [(Key, [UInt8])] in
            defer {
                state.pending = []
                state.pendingKeys = [:]
                pendingCount.store(0, ordering: .releasing)
            }
            if !state.pending.isEmpty { state.wrote = true }
            return state.pending
        }
        guard !entries.isEmpty, let store = store() else { return }
        if let name = write(pack: entries, in: store) { state.withLock { _ = $0.own.insert(name) } }
    }

    /// The cache's folders, opened on first use; nil (after one warning) when unusable.
    private func store() -> CacheFolder? {
        let (store, problem) = state.withLock { state -> (CacheFolder?, CacheFolder.Unusable?) in
            if let store = state.store { return (store, nil) }
            do throws(CacheFolder.Unusable) {
                let opened = try CacheFolder.open(root: root)
                state.store = .some(opened)
                return (opened, nil)
            } catch {
                state.store = .some(nil)
                return (nil, error)
            }
        }
        if let problem { warn(problem.message) }
        return store
    }

    /// Writes one pack; returns its file name.
    @discardableResult
    private func write(pack entries: [(Key, [UInt8])], in store: CacheFolder) -> String? {
        let bytes = Pack.encode(entries, secret: store.secret)
        // Named by its index's signature: unique for its entries.
        let sum = bytes[Pack.headerSize + entries.count * Pack.entrySize..<Pack.headerSize + entries.count * Pack.entrySize + 32]
        let name = String(SHA256.hex(digest: Array(sum)).prefix(24)) + ".pack"
        let temporary = "\(getpid())-\(name)"
        // A file a killed process of the same id left.
        unlinkat(store.tmp, temporary, 0)
        let fd = openat(store.tmp, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return nil }
        let written = (try? FileSystem.writeAll(fd, bytes, path: temporary)) != nil
        close(fd)
        guard written, renameat(store.tmp, temporary, store.packs, name) == 0 else {
            unlinkat(store.tmp, temporary, 0)
            return nil
        }
        return name
    }

    /// Ends the process's use: writes what is new, then keeps the cache within its bound. Only a
    /// process that wrote looks: when there are more than `mergeAbove` packs it merges the
    /// newer ones into one (all of them when they are not small beside the largest, or when
    /// the cache is over its bound: then the most recently used entries are kept, up to three
    /// quarters of the limit), and removes temporary files a killed process left (older than
    /// an hour).
    public func finish() {
        let (hits, new) = (hits.load(ordering: .relaxed), state.withLock { $0.pending.count })
        Trace.mark("cache: \(hits) entries read, \(new) new")
        flush()
        guard state.withLock({ $0.wrote }), let store = store() else { return }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        for name in CacheFolder.names(in: store.tmp, CacheFolder.isTemporary) {
            var info = stat()
            if fstatat(store.tmp, name, &info, AT_SYMLINK_NOFOLLOW) == 0, now.tv_sec - info.st_mtim.tv_sec > 3600 { unlinkat(store.tmp, name, 0) }
        }
        var packs: [(name: String, size: Int, time: Int)] = []
        for name in CacheFolder.names(in: store.packs, CacheFolder.isPack) {
            var info = stat()
            // To the nanosecond the file system keeps: packs written within one second are
            // still told apart, so the newest entries are the ones kept.
            if fstatat(store.packs, name, &info, AT_SYMLINK_NOFOLLOW) == 0 { packs.append((name, Int(info.st_size), info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec)) }
        }
        let total = packs.reduce(0) { $0 + $1.size }
        guard packs.count > Self.mergeAbove || total > limit else { return }
        // Newest first: their entries are kept first, up to three quarters of the limit.
        // This process's own packs first: a file time has the kernel's tick, and another
        // pack written within the same tick would otherwise tie with them.
        let own = state.withLock { $0.own }
        packs.sort { own.contains($0.name) != own.contains($1.name) ? own.contains($0.name) : $0.time > $1.time }
        // Within the bound, only the packs newer than the largest are merged, while together
        // they are less than half its size: the few entries each run adds are not copied with
        // the thousands kept from before (a whole merge of a build's cache took a quarter of a
        // second, every twelfth run). The merged pack is the newest, as its entries were.
        var merging = packs[...]
        if total <= limit, let largest = packs.indices.max(by: { packs[$0].size < packs[$1].size }), largest >= 2,
            packs.count - largest - 1 < Self.mergeAbove / 2, packs[..<largest].reduce(0, { $0 + $1.size }) * 2 < packs[largest].size
        {
            merging = packs[..<largest]
        }
        var kept: [(Key, [UInt8])] = []
        var keys: Set<Key> = []
        var size = 0
        for pack in merging {
            guard let opened = Pack.open(pack.name, in: store) else { continue }
            for entry in 0..<opened.count where size < limit / 4 * 3 {
                guard let payload = opened.payload(entry), keys.insert(opened.key(entry)).inserted else { continue }
                kept.append((opened.key(entry), payload))
                size += payload.count + Pack.entrySize
            }
        }
        let merged = kept.isEmpty ? nil : write(pack: kept, in: store)
        for pack in merging where pack.name != merged { unlinkat(store.packs, pack.name, 0) }
    }

    /// Maps every pack once, on first use; the packs and their index.
    private func openPacks() -> Packed {
        if opened.load(ordering: .acquiring), let packed { return packed }
        return opening.withLock { made in
            if let made { return made }
            var packs: [Pack] = []
            if let store = store() {
                // Newest first: of two entries under one key (the findings `KeptFindings` keeps
                // for a content, rewritten after each edit), the newer is the one read.
                var found: [(pack: Pack, time: Int)] = []
                for name in CacheFolder.names(in: store.packs, CacheFolder.isPack) {
                    var info = stat()
                    guard fstatat(store.packs, name, &info, AT_SYMLINK_NOFOLLOW) == 0, let pack = Pack.open(name, in: store) else { continue }
                    found.append((pack, info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec))
                }
                packs = found.sorted { $0.time > $1.time }.map(\.pack)
            }
            var index: [Key: (pack: Int, entry: Int)] = [:]
            index.reserveCapacity(packs.reduce(0) { $0 + $1.count })
            for (number, pack) in packs.enumerated() {
                for entry in 0..<pack.count where index[pack.key(entry)] == nil {
                    index[pack.key(entry)] = (number, entry)
                }
            }
            let opened = Packed(packs: packs, index: index)
            Trace.mark("cache: \(packs.count) packs opened, \(index.count) entries")
            made = opened
            packed = opened
            self.opened.store(true, ordering: .releasing)
            return opened
        }
    }
}

/// One pack file, mapped read-only:
/// `RCP2`, the entry count (8 bytes), per entry its key (32), payload offset (8), length (8)
/// and the payload's sha256 (32), the HMAC-SHA256 of all that under the user's key (32), then
/// the payloads.
package final class Pack: Sendable {
    package static let headerSize = 12
    package static let entrySize = 80
    package static let magic: [UInt8] = Array("RCP2".utf8)

    /// Read-only mapped memory, never written and unmapped only when the pack goes: safe to
    /// read from any thread, which the compiler cannot see through a raw pointer.
    private nonisolated(unsafe) let base: UnsafeRawPointer
    private let size: Int
    /// The open file, kept for `touch`.
    private let fd: Int32
    package let count: Int
    private let touched = Atomic<Bool>(false)

    private init(base: UnsafeRawPointer, size: Int, count: Int, fd: Int32) {
        self.base = base
        self.size = size
        self.count = count
        self.fd = fd
    }

    deinit {
        munmap(UnsafeMutableRawPointer(mutating: base), size)
        close(fd)
    }

    /// The pack `name` in the cache's packs folder, or nil when it is not a whole one signed
    /// with the cache's key.
    static func open(_ name: String, in store: CacheFolder) -> Pack? {
        open(at: store.packs, name, secret: store.secret)
    }

    /// The pack `name` in folder `folder`, or nil when it is not a whole one signed with `secret`
    /// (its index does not match its signature).
    package static func open(at folder: Int32, _ name: String, secret: [UInt8]) -> Pack? {
        let fd = openat(folder, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size >= headerSize + 32,
            let mapped = mmap(nil, Int(info.st_size), PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED
        else {
            close(fd)
            return nil
        }
        let size = Int(info.st_size)
        let base = UnsafeRawPointer(mapped)
        let bytes = UnsafeRawBufferPointer(start: base, count: size)
        let count = Int(Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: 4, as: Int64.self)))
        guard bytes[0..<4].elementsEqual(magic), count >= 0, count <= (size - headerSize - 32) / entrySize,
            SHA256.same(
                SHA256.hmac(key: secret, UnsafeRawBufferPointer(rebasing: bytes[0..<headerSize + count * entrySize])),
                UnsafeRawBufferPointer(rebasing: bytes[headerSize + count * entrySize..<headerSize + count * entrySize + 32]))
        else {
            munmap(mapped, size)
            close(fd)
            return nil
        }
        return Pack(base: base, size: size, count: count, fd: fd)
    }

    private func entry(_ number: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + Self.headerSize + number * Self.entrySize, count: Self.entrySize)
    }

    package func key(_ number: Int) -> BuildCache.Key {
        BuildCache.Key(digest: entry(number)[0..<32])
    }

    /// The payload of entry `number` when it lies within the file and matches its sha256.
    package func payload(_ number: Int) -> [UInt8]? {
        checkedPayload(number)?.payload
    }

    /// The sha256 and size the index gives entry `number`, when its payload lies within the
    /// file (not read: `checkedPayload` checks it).
    package func stored(_ number: Int) -> (sha256: [UInt8], size: Int)? {
        let entry = entry(number)
        let offset = Int(Int64(littleEndian: entry.loadUnaligned(fromByteOffset: 32, as: Int64.self)))
        let length = Int(Int64(littleEndian: entry.loadUnaligned(fromByteOffset: 40, as: Int64.self)))
        guard offset >= 0, length >= 0, offset <= size, length <= size - offset else { return nil }
        return (Array(entry[48..<80]), length)
    }

    /// The payload of entry `number` and its sha256, when it lies within the file and matches it.
    package func checkedPayload(_ number: Int) -> (payload: [UInt8], sha256: [UInt8])? {
        let entry = entry(number)
        let offset = Int(Int64(littleEndian: entry.loadUnaligned(fromByteOffset: 32, as: Int64.self)))
        let length = Int(Int64(littleEndian: entry.loadUnaligned(fromByteOffset: 40, as: Int64.self)))
        guard offset >= 0, length >= 0, offset <= size, length <= size - offset else { return nil }
        let payload = UnsafeRawBufferPointer(start: base + offset, count: length)
        let digest = SHA256.digest(payload)
        guard digest.elementsEqual(entry[48..<80]) else { return nil }
        return (Array(payload), digest)
    }

    /// Marks the pack as used now (once an hour at most): the least recently used go first.
    package func touch() {
        guard !touched.exchange(true, ordering: .relaxed) else { return }
        var info = stat()
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        if fstat(fd, &info) == 0, now.tv_sec - info.st_mtim.tv_sec > 3600 { futimens(fd, nil) }
    }

    package static func encode(_ entries: [(BuildCache.Key, [UInt8])], secret: [UInt8]) -> [UInt8] {
        var bytes = magic
        func append(_ value: Int) { withUnsafeBytes(of: Int64(value).littleEndian) { bytes.append(contentsOf: $0) } }
        append(entries.count)
        var offset = headerSize + entries.count * entrySize + 32
        for (key, payload) in entries {
            bytes.append(contentsOf: key.digest)
            append(offset)
            append(payload.count)
            bytes.append(contentsOf: SHA256.digest(payload))
            offset += payload.count
        }
        bytes.append(contentsOf: SHA256.hmac(key: secret, bytes))
        for (_, payload) in entries { bytes.append(contentsOf: payload) }
        return bytes
    }
}

/// Payloads as the cache stores them: integers and strings, length-prefixed.
package struct CacheRecord {
    package private(set) var bytes: [UInt8] = []

    package init() {}

    package mutating func append(_ value: Int) {
        withUnsafeBytes(of: Int64(value).littleEndian) { bytes.append(contentsOf: $0) }
    }

    package mutating func append(_ text: String) {
        append(text.utf8.count)
        bytes.append(contentsOf: text.utf8)
    }

    /// Reads a record back; every read is nil once the bytes run out or do not fit.
    package struct Reader {
        package let bytes: [UInt8]
        private var offset = 0

        package init(_ bytes: [UInt8]) { self.bytes = bytes }

        package var atEnd: Bool { offset == bytes.count }

        package mutating func int() -> Int? {
            guard offset + 8 <= bytes.count else { return nil }
            let at = offset
            offset += 8
            return Int(Int64(littleEndian: bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: at, as: Int64.self) }))
        }

        package mutating func string() -> String? {
            guard let count = int(), count >= 0, offset + count <= bytes.count else { return nil }
            defer { offset += count }
            return String(decoding: bytes[offset..<offset + count], as: UTF8.self)
        }
    }
}
