import Foundation
import Glibc
import RatecardKit
import Synchronization
import Testing

@testable import RatecardCore

/// A warning no test expects: recorded as an issue.
let unexpectedWarning: @Sendable (Message) -> Void = { Issue.record("unexpected warning: \($0)") }

/// The warnings a cache gave.
final class Warnings: Sendable {
    private let list = Mutex<[String]>([])
    var all: [String] { list.withLock { $0 } }
    var sink: @Sendable (Message) -> Void { { message in self.list.withLock { $0.append(message.english) } } }
}

/// The build cache's store: what one process writes the next reads, whole packs only, damage
/// is a miss, many packs are merged and the total stays within the bound.
@Suite struct BuildCacheUnitTests {
    func payload(_ number: Int, size: Int = 100) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ number) }
    }

    @Test func whatOneProcessWritesTheNextReadsAndDamageIsAMiss() throws {
        try withTemporaryDirectory { directory in
            let first = BuildCache(folder: directory, limit: 1 << 30, warn: unexpectedWarning)
            for number in 0..<50 { first.write(BuildCache.Key("test", ["\(number)"]), payload(number)) }
            // Pending entries are read back before they are written.
            #expect(first.read(BuildCache.Key("test", ["7"])) == payload(7))
            #expect(try FileSystem.listDirectory(directory + "/v1/packs").isEmpty)
            first.finish()
            let second = BuildCache(folder: directory, limit: 1 << 30, warn: unexpectedWarning)
            for number in 0..<50 { #expect(second.read(BuildCache.Key("test", ["\(number)"])) == payload(number)) }
            #expect(second.read(BuildCache.Key("test", ["50"])) == nil)
            #expect(second.read(BuildCache.Key("other", ["7"])) == nil)
            #expect(try FileSystem.listDirectory(directory + "/v1/tmp").isEmpty)

            // One payload byte changed: that entry is a miss, the others are read.
            let pack = directory + "/v1/packs/" + (try #require(try FileSystem.listDirectory(directory + "/v1/packs").first))
            var bytes = try FileSystem.readFile(pack)
            bytes[bytes.count - 150] ^= 1
            try FileSystem.writeFile(pack, bytes)
            let third = BuildCache(folder: directory, limit: 1 << 30, warn: unexpectedWarning)
            let found = (0..<50).filter { third.read(BuildCache.Key("test", ["\($0)"])) != nil }
            #expect(found.count == 49)
            // An index changed, or a pack cut short: no entry of it is read.
            bytes[20] ^= 1
            try FileSystem.writeFile(pack, bytes)
            #expect((0..<50).allSatisfy { BuildCache(folder: directory, limit: 1 << 30, warn: unexpectedWarning).read(BuildCache.Key("test", ["\($0)"])) == nil })
            bytes[20] ^= 1
            try FileSystem.writeFile(pack, Array(bytes.prefix(bytes.count / 2)))
            let fourth = BuildCache(folder: directory, limit: 1 << 30, warn: unexpectedWarning)
            let whole = (0..<50).filter { fourth.read(BuildCache.Key("test", ["\($0)"])) == payload($0) }
            let wrong = (0..<50).filter { number in fourth.read(BuildCache.Key("test", ["\(number)"])).map { $0 != payload(number) } ?? false }
            #expect(wrong.isEmpty && whole.count < 50)
        }
    }

    @Test func manyPacksAreMergedAndTheTotalStaysWithinTheBound() throws {
        try withTemporaryDirectory { directory in
            let limit = 256 << 10
            // Twenty processes, each writing 40 KB of new entries.
            for process in 0..<20 {
                let cache = BuildCache(folder: directory, limit: limit, warn: unexpectedWarning)
                for number in 0..<10 { cache.write(BuildCache.Key("test", ["\(process)", "\(number)"]), payload(process * 100 + number, size: 4096)) }
                cache.finish()
                let packs = try FileSystem.listDirectory(directory + "/v1/packs")
                let total = try packs.reduce(0) { $0 + (try FileSystem.readFile(directory + "/v1/packs/" + $1).count) }
                #expect(packs.count <= 13, "\(packs.count) packs")
                #expect(total <= limit + 64 << 10, "\(total) bytes")
            }
            // The newest entries are the ones kept.
            let cache = BuildCache(folder: directory, limit: limit, warn: unexpectedWarning)
            #expect((0..<10).allSatisfy { cache.read(BuildCache.Key("test", ["19", "\($0)"])) == payload(1900 + $0, size: 4096) })
            #expect((0..<10).allSatisfy { cache.read(BuildCache.Key("test", ["0", "\($0)"])) == nil })
        }
    }

    /// A large pack (a cold build's) is not copied again to merge the small ones written after
    /// it: they are merged into one, newer than it, and every entry reads back as last written,
    /// those the small ones wrote again over the large one's included. Once the small ones are
    /// not small beside it, all are merged into one.
    @Test func smallPacksAreMergedWithoutTheLargeOne() throws {
        try withTemporaryDirectory { directory in
            let packs = directory + "/v1/packs"
            let first = BuildCache(folder: directory, limit: 1 << 30, warn: unexpectedWarning)
            for number in 0..<200 { first.write(BuildCache.Key("test", ["\(number)"]), payload(number, size: 4096)) }
            first.finish()
            let large = try #require(try FileSystem.listDirectory(packs).first)
            var expected = Dictionary(uniqueKeysWithValues: (0..<200).map { ($0, payload($0, size: 4096)) })
            for process in 1...BuildCache.mergeAbove {
                let cache = BuildCache(folder: directory, limit: 1 << 30, warn: unexpectedWarning)
                // An entry of the large pack written again, and a new one.
                cache.write(BuildCache.Key("test", ["\(process)"]), payload(1000 + process, size: 512))
                cache.write(BuildCache.Key("test", ["\(500 + process)"]), payload(500 + process, size: 512))
                expected[process] = payload(1000 + process, size: 512)
                expected[500 + process] = payload(500 + process, size: 512)
                cache.finish()
            }
            let merged = try FileSystem.listDirectory(packs)
            #expect(merged.count == 2 && merged.contains(large), "\(merged)")
            let reader = BuildCache(folder: directory, limit: 1 << 30, warn: unexpectedWarning)
            #expect(expected.allSatisfy { reader.read(BuildCache.Key("test", ["\($0.key)"])) == $0.value })
            // Newer packs as large as half the large one: everything merged into one.
            for process in 0..<BuildCache.mergeAbove - 1 {
                let cache = BuildCache(folder: directory, limit: 1 << 30, warn: unexpectedWarning)
                for number in 0..<8 {
                    let key = BuildCache.Key("test", ["big", "\(process)", "\(number)"])
                    cache.write(key, payload(process * 10 + number, size: 8192))
                }
                cache.finish()
            }
            let whole = try FileSystem.listDirectory(packs)
            #expect(whole.count == 1 && !whole.contains(large), "\(whole)")
            let last = BuildCache(folder: directory, limit: 1 << 30, warn: unexpectedWarning)
            #expect(expected.allSatisfy { last.read(BuildCache.Key("test", ["\($0.key)"])) == $0.value })
        }
    }

    /// A process reads (which lists the packs) before it writes and ends (which lists them
    /// again to merge): the second listing sees every pack too.
    @Test func processesThatReadBeforeTheyWriteStillMergeThePacks() throws {
        try withTemporaryDirectory { directory in
            for process in 0..<20 {
                let cache = BuildCache(folder: directory, limit: 1 << 30, warn: unexpectedWarning)
                #expect(cache.read(BuildCache.Key("test", ["\(process)", "0"])) == nil)
                if process > 0 { #expect(cache.read(BuildCache.Key("test", ["\(process - 1)", "0"])) == payload(process - 1)) }
                cache.write(BuildCache.Key("test", ["\(process)", "0"]), payload(process))
                cache.finish()
                let packs = try FileSystem.listDirectory(directory + "/v1/packs")
                #expect(packs.count <= BuildCache.mergeAbove + 1, "\(packs.count) packs")
            }
        }
    }

    /// Threads of one process reading at once (as the content loader does) all find what an
    /// earlier process wrote.
    @Test func threadsReadingAtOnceFindEveryEntry() throws {
        try withTemporaryDirectory { directory in
            for part in 0..<3 {
                let writer = BuildCache(folder: directory, limit: 1 << 30, warn: unexpectedWarning)
                for number in part * 100..<part * 100 + 100 { writer.write(BuildCache.Key("test", ["\(number)"]), payload(number)) }
                writer.finish()
            }
            for _ in 0..<5 {
                let cache = BuildCache(folder: directory, limit: 1 << 30, warn: unexpectedWarning)
                let missed = Mutex(0)
                DispatchQueue.concurrentPerform(iterations: 8) { thread in
                    for number in stride(from: thread, to: 300, by: 8) where cache.read(BuildCache.Key("test", ["\(number)"])) != payload(number) {
                        missed.withLock { $0 += 1 }
                    }
                }
                #expect(missed.withLock { $0 } == 0)
            }
        }
    }

    @Test func twoProcessesWritingTheSameEntriesAtOnceLeaveThemReadable() throws {
        try withTemporaryDirectory { directory in
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                let cache = BuildCache(folder: directory, limit: 1 << 30, warn: unexpectedWarning)
                for number in 0..<200 { cache.write(BuildCache.Key("test", ["\(number)"]), payload(number)) }
                cache.finish()
            }
            let cache = BuildCache(folder: directory, limit: 1 << 30, warn: unexpectedWarning)
            #expect((0..<200).allSatisfy { cache.read(BuildCache.Key("test", ["\($0)"])) == payload($0) })
        }
    }

    /// A cache in `directory` that writes a few entries and ends, with its warnings.
    func use(_ directory: String, read: Int = 3) -> (found: Int, warnings: [String]) {
        let warnings = Warnings()
        let cache = BuildCache(folder: directory, limit: 1 << 30, warn: warnings.sink)
        let found = (0..<read).filter { cache.read(BuildCache.Key("test", ["\($0)"])) != nil }.count
        for number in 0..<read { cache.write(BuildCache.Key("test", ["\(number)"]), payload(number)) }
        cache.finish()
        return (found, warnings.all)
    }

    @Test func aCacheFolderAnotherUserCanChangeIsNotUsed() throws {
        try withTemporaryDirectory { directory in
            let elsewhere = directory + "/elsewhere"
            try FileSystem.makeDirectories(elsewhere, mode: 0o700)
            let cases: [(String, (String) throws -> Void, String)] = [
                ("owned by another user", { chown($0, 65534, 65534) }, " is owned by another user (uid 65534); "),
                ("writable by others", { chmod($0, 0o1777) }, " is writable by group or others (mode 1777); "),
                ("writable by its group", { chmod($0, 0o770) }, " is writable by group or others (mode 770); "),
                (
                    "a symlink",
                    {
                        try FileSystem.removeTree($0)
                        try #require(symlink(elsewhere, $0) == 0)
                    }, " is a symbolic link; "
                ),
                (
                    "a file",
                    {
                        try FileSystem.removeTree($0)
                        try FileSystem.writeFile($0, [])
                    }, " is not a folder; "
                ),
            ]
            for (number, (what, change, reason)) in cases.enumerated() {
                for inner in ["", "/v1", "/v1/packs", "/v1/tmp"] {
                    let root = directory + "/cache-\(number)-\(inner.count)"
                    // A cache in use: its entries are read.
                    #expect(use(root).warnings.isEmpty)
                    #expect(use(root).found == 3)
                    try change(root + inner)
                    let before = try FileSystem.listDirectory(elsewhere)
                    let (found, warnings) = use(root)
                    #expect(found == 0, "\(what) \(inner)")
                    #expect(warnings == ["build cache not used: \(root + inner)\(reason)set RATECARD_CACHE_DIR to a folder only you can write, or remove this one"], "\(what) \(inner)")
                    #expect(try FileSystem.listDirectory(elsewhere) == before, "\(what) \(inner)")
                }
            }
            // A folder that does not exist is made, for this user alone.
            #expect(use(directory + "/new/cache").warnings.isEmpty)
            var info = stat()
            #expect(stat(directory + "/new/cache/v1", &info) == 0 && info.st_mode & 0o777 == 0o700)
        }
    }

    @Test func onlyAKeyOfThisUsersWithMode0600AndOneLinkIsRead() throws {
        try withTemporaryDirectory { directory in
            let root = directory + "/cache"
            let key = root + "/v1/key"
            #expect(use(root).warnings.isEmpty)
            var info = stat()
            #expect(lstat(key, &info) == 0 && info.st_mode & 0o7777 == 0o600 && info.st_size == 32 && info.st_nlink == 1 && info.st_uid == geteuid())
            let secret = try FileSystem.readFile(key)
            let cases: [(String, () throws -> Void, String)] = [
                ("mode 0644", { chmod(key, 0o644) }, " has mode 644, not 600; "),
                ("another user's", { chown(key, 65534, 65534) }, " is owned by another user (uid 65534); "),
                ("two links", { try #require(link(key, directory + "/copy") == 0) }, " has 2 links, not 1; "),
                ("short", { try FileSystem.writeFile(key, Array(secret.prefix(31))) }, " is not 32 bytes long; "),
                (
                    "a symlink",
                    {
                        try FileSystem.removeTree(key)
                        try FileSystem.writeFile(directory + "/copy", secret, mode: 0o600)
                        try #require(symlink(directory + "/copy", key) == 0)
                    }, " is a symbolic link; "
                ),
                (
                    "a folder",
                    {
                        try FileSystem.removeTree(key)
                        try FileSystem.makeDirectories(key, mode: 0o700)
                    }, " is not a regular file; "
                ),
            ]
            for (what, change, reason) in cases {
                try change()
                let (found, warnings) = use(root)
                #expect(found == 0, "\(what)")
                #expect(warnings == ["build cache not used: \(key)\(reason)set RATECARD_CACHE_DIR to a folder only you can write, or remove this one"], "\(what)")
                // Never replaced by a new key.
                #expect(try FileSystem.kind(ofItemAt: key) != .file || FileSystem.readFile(key).prefix(31) == secret.prefix(31), "\(what)")
                try FileSystem.removeTree(key)
                try? FileSystem.removeTree(directory + "/copy")
                try FileSystem.writeFile(key, secret, mode: 0o600)
                chmod(key, 0o600)
                #expect(use(root) == (3, []) as (Int, [String]), "\(what), restored")
            }
            // A key removed: a new one is made, and the packs signed with the old one are misses.
            try FileSystem.removeTree(key)
            #expect(use(root) == (0, []) as (Int, [String]))
            #expect(try FileSystem.readFile(key) != secret)
        }
    }

    @Test func aPackNotSignedWithThisUsersKeyIsAMiss() throws {
        try withTemporaryDirectory { directory in
            #expect(use(directory).warnings.isEmpty)
            let packs = directory + "/v1/packs"
            for name in try FileSystem.listDirectory(packs) { try FileSystem.removeTree(packs + "/" + name) }
            // The same entries, signed with another key: a whole pack, whose signature fails.
            let entries = (0..<3).map { (BuildCache.Key("test", ["\($0)"]), payload($0)) }
            let forged = Pack.encode(entries, secret: try #require(SHA256.randomBytes(32)))
            try FileSystem.writeFile(packs + "/" + SHA256.hex(forged).prefix(24) + ".pack", forged, mode: 0o600)
            #expect(use(directory, read: 3).found == 0)
            // Signed with this user's key, the same bytes are read.
            let signed = Pack.encode(entries, secret: try FileSystem.readFile(directory + "/v1/key"))
            try FileSystem.writeFile(packs + "/" + SHA256.hex(signed).prefix(24) + ".pack", signed, mode: 0o600)
            #expect(use(directory, read: 3).found == 3)
        }
    }

    @Test func theCleanupDeletesOnlyTheCachesOwnOldTemporaryFiles() throws {
        try withTemporaryDirectory { directory in
            #expect(use(directory).warnings.isEmpty)
            let tmp = directory + "/v1/tmp"
            let outside = directory + "/outside"
            try FileSystem.makeDirectories(outside)
            let ownOld = ["123-0123456789abcdef01234567.pack", "key-77-0badf00d"]
            let kept = ["123-0123456789abcdef01234567.pack.bak", "notes.txt", "key-77", "key-77-0badf00", "x-0123456789abcdef01234567.pack", "123-0123456789ABCDEF01234567.pack"]
            for name in ownOld + kept + ["fresh"] { try FileSystem.writeFile(tmp + "/" + name, []) }
            try FileSystem.writeFile(tmp + "/456-0123456789abcdef01234567.pack", [])
            try FileSystem.writeFile(outside + "/target", [])
            // A symlink with a temporary file's name: the link goes, never what it points to.
            try #require(symlink(outside + "/target", tmp + "/789-0123456789abcdef01234567.pack") == 0)
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            var old = [timespec(tv_sec: now.tv_sec - 7200, tv_nsec: 0), timespec(tv_sec: now.tv_sec - 7200, tv_nsec: 0)]
            for name in ownOld + kept + ["789-0123456789abcdef01234567.pack"] { utimensat(AT_FDCWD, tmp + "/" + name, &old, AT_SYMLINK_NOFOLLOW) }
            utimensat(AT_FDCWD, outside + "/target", &old, 0)
            // Only a process that wrote cleans up: new entries.
            let cache = BuildCache(folder: directory, limit: 1 << 30, warn: unexpectedWarning)
            cache.write(BuildCache.Key("test", ["new"]), payload(9))
            cache.finish()
            #expect(try FileSystem.listDirectory(tmp) == (kept + ["456-0123456789abcdef01234567.pack", "fresh"]).sorted())
            #expect(FileSystem.exists(outside + "/target"))
        }
    }

    /// A run uses the caches it is given and no other: one given a build cache fills it, the
    /// next run given the same folder reads every entry (it writes nothing), and a run given
    /// none builds the same bundle.
    @Test func aRunUsesTheCachesItIsGiven() throws {
        try withTemporaryDirectory { directory in
            let content = directory + "/content"
            try Fixtures.makeBaseRepository(at: content)
            func build(_ caches: Caches) throws -> [String: [UInt8]] {
                defer { caches.finish() }
                guard case .built(let output, _) = try BundleRun(location: try ContentLocation.find(from: content), asOf: fixtureDay, caches: caches).render(revision: nil) else {
                    throw OperationalError("the fixture content is invalid")
                }
                return output.files
            }
            let cold = try build(Caches())
            #expect(!FileSystem.exists(directory + "/cache"))
            // Past the moment in which the work tree's files are too new to be recorded
            // (`WorkTreeStamps.settle`), so the first run records them all.
            usleep(useconds_t(WorkTreeStamps.settle / 1000 * 2))
            #expect(try build(Caches(build: BuildCache(folder: directory + "/cache", limit: 1 << 30, warn: unexpectedWarning))) == cold)
            let packs = directory + "/cache/v1/packs"
            func listing() throws -> [String: Int] {
                var times: [String: Int] = [:]
                for name in try FileSystem.listDirectory(packs) {
                    var info = stat()
                    if lstat(packs + "/" + name, &info) == 0 { times[name] = info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec }
                }
                return times
            }
            let written = try listing()
            #expect(written.count == 1)
            #expect(try build(Caches(build: BuildCache(folder: directory + "/cache", limit: 1 << 30, warn: unexpectedWarning))) == cold)
            #expect(try listing() == written)
        }
    }

    /// The work tree's stamps are checked when its folders are listed: an unchanged file is
    /// taken by its recorded blob id without being read, in the top folder and five folders
    /// down; a file whose bytes changed with its size and times kept (its change time moved) is
    /// read and hashed, and so is a file replaced by another with the same bytes (another inode).
    @Test func theListingTakesUnchangedFilesByTheirStampsAndReadsChangedOnes() throws {
        try withTemporaryDirectory { directory in
            let root = directory + "/tree"
            let files = ["top.md": "top\n", "a/b/c/d/deep.yaml": "deep: 1\n", "a/b/c/d/other.yaml": "other: 1\n", "a/near.yaml": "near: 1\n"]
            for (path, text) in files {
                try FileSystem.makeDirectories(DurableFiles.parent(of: root + "/" + path))
                try FileSystem.writeFile(root + "/" + path, Array(text.utf8))
            }
            usleep(useconds_t(WorkTreeStamps.settle / 1000 * 2))
            /// Each file's id, and whether it was read for it (not taken by its stamp), in a run of its own.
            func load() throws -> [String: (id: ObjectID, read: Bool)] {
                let cache = BuildCache(folder: directory + "/cache", limit: 1 << 30, warn: unexpectedWarning)
                let stamps = try #require(WorkTreeStamps(root: root, cache: cache))
                let source = WorkingTreeSource(root: root, contentRoot: .repositoryRoot, stamps: stamps)
                var found: [String: (id: ObjectID, read: Bool)] = [:]
                for entry in try source.entries() {
                    let (bytes, _, id) = try source.readIdentified(entry, limit: 1 << 20)
                    found[entry.path] = (try #require(id), bytes != nil)
                }
                stamps.save()
                cache.finish()
                return found
            }
            let first = try load()
            #expect(first.values.allSatisfy { $0.read })
            #expect(Set(first.keys) == Set(files.keys))
            let second = try load()
            #expect(second.values.allSatisfy { !$0.read })
            #expect(second.mapValues { $0.id } == first.mapValues { $0.id })
            try GitSourceTests.changeOneByteKeepingTimes(root + "/a/b/c/d/deep.yaml")
            try FileSystem.writeFile(root + "/a/near.copy", try FileSystem.readFile(root + "/a/near.yaml"))
            #expect(rename(root + "/a/near.copy", root + "/a/near.yaml") == 0)
            let third = try load()
            #expect(third.filter { $0.value.read }.keys.sorted() == ["a/b/c/d/deep.yaml", "a/near.yaml"])
            #expect(third["a/b/c/d/deep.yaml"]?.id == Repository.blobID(of: try FileSystem.readFile(root + "/a/b/c/d/deep.yaml")))
            #expect(third["a/b/c/d/deep.yaml"]?.id != first["a/b/c/d/deep.yaml"]?.id)
            #expect(third["a/near.yaml"]?.id == first["a/near.yaml"]?.id)
        }
    }

    /// A stamp record after a few changes is its base and the changes since, read back as the
    /// stamps the last run kept; the changes build up over runs, and past an eighth of the base
    /// a new base is written whole (the changes of the old one are not applied to it).
    @Test func aStampRecordKeepsFewChangesBesideItsBase() throws {
        try withTemporaryDirectory { directory in
            let key = BuildCache.Key("stamp-record-test", [directory])
            func stamp(_ n: Int) -> FileStamp { FileStamp(content: "id-\(n)", size: n, device: 1, inode: UInt64(n), modified: n, changed: n) }
            /// What a run reads: the base with the changes applied, the number of base stamps, and the record.
            func read() -> (stamps: [String: FileStamp], base: Int, record: StampRecord) {
                let cache = BuildCache(folder: directory + "/cache", limit: 1 << 30, warn: unexpectedWarning)
                let (record, base) = StampRecord.read(key, from: cache)
                var stamps = Dictionary(base ?? [], uniquingKeysWith: { _, last in last })
                for (path, stamp) in record.changed { stamps[path] = stamp }
                for path in record.removed { stamps[path] = nil }
                return (stamps, base?.count ?? 0, record)
            }
            /// A run that changes `changed` and drops `removed` from what it read.
            func run(changed: [String: FileStamp], removed: [String]) -> [String: FileStamp] {
                let cache = BuildCache(folder: directory + "/cache", limit: 1 << 30, warn: unexpectedWarning)
                var (stamps, _, record) = read()
                for (path, value) in changed { stamps[path] = value }
                for path in removed { stamps[path] = nil }
                let whole = stamps
                record.keep(changed: changed, removed: removed, to: cache) { whole }
                cache.finish()
                return whole
            }
            #expect(read().stamps.isEmpty && read().base == 0)
            var expected = run(changed: Dictionary(uniqueKeysWithValues: (0..<1000).map { ("f\($0)", stamp($0)) }), removed: [])
            #expect(read().stamps == expected && read().base == 1000 && read().record.changed.isEmpty)
            // A few changes: the base stays, the changes build up (a path changed again, a new
            // path, paths dropped, a dropped path written again).
            expected = run(changed: ["f1": stamp(5001), "new": stamp(5002)], removed: ["f2", "f3"])
            #expect(read().stamps == expected && read().base == 1000)
            expected = run(changed: ["f1": stamp(5003), "f2": stamp(5004)], removed: ["new", "f4"])
            let kept = read()
            #expect(kept.stamps == expected && kept.base == 1000)
            #expect(kept.record.changed.keys.sorted() == ["f1", "f2"] && kept.record.removed == ["new", "f3", "f4"])
            // Past an eighth of the base: a new base, whole, and no changes.
            expected = run(changed: Dictionary(uniqueKeysWithValues: (0..<200).map { ("g\($0)", stamp($0)) }), removed: [])
            #expect(read().stamps == expected && read().base == expected.count && read().record.changed.isEmpty && read().record.removed.isEmpty)
            // Changes made against another base are not applied.
            expected = run(changed: ["h": stamp(7)], removed: [])
            #expect(read().stamps == expected && !read().record.changed.isEmpty)
            let cache = BuildCache(folder: directory + "/cache", limit: 1 << 30, warn: unexpectedWarning)
            var stale = StampRecord(key: key)
            stale.keep(changed: [:], removed: [], to: cache) { ["only": stamp(1)] }
            cache.finish()
            #expect(read().stamps == ["only": stamp(1)])
            #expect(StampRecord.decodeChanges(Array("x".utf8), base: Array(repeating: 0, count: 32)) == nil)
        }
    }

    /// A folder still as the last run listed it is not listed again: its recorded names are
    /// the walk's. A file added, removed or renamed, a subfolder made, a file replaced by a
    /// folder of its name: each changes the folder's times, and the walk lists it again and
    /// finds what a walk without stamps finds.
    @Test func aFolderListedBeforeIsTakenByItsStampUntilItChanges() throws {
        try withTemporaryDirectory { directory in
            let root = directory + "/tree"
            for (path, text) in ["top.md": "top\n", "a/b/c/deep.yaml": "deep: 1\n", "a/b/c/other.yaml": "other: 1\n", "a/near.yaml": "near: 1\n", ".hidden/x": "x\n"] {
                try FileSystem.makeDirectories(DurableFiles.parent(of: root + "/" + path))
                try FileSystem.writeFile(root + "/" + path, Array(text.utf8))
            }
            try FileSystem.makeDirectories(root + "/empty")
            #expect(symlink("top.md", root + "/a/link") == 0)
            /// The walk with the stamps of the last run, and how many folders it took by them.
            func walk() throws -> (entries: [TreeEntry], folders: Int) {
                let cache = BuildCache(folder: directory + "/cache", limit: 1 << 30, warn: unexpectedWarning)
                let stamps = try #require(WorkTreeStamps(root: root, cache: cache))
                let entries = try WorkingTreeSource(root: root, contentRoot: .repositoryRoot, stamps: stamps).entries()
                let taken = stamps.foldersTaken
                stamps.save()
                cache.finish()
                return (entries, taken)
            }
            func unstamped() throws -> [TreeEntry] { try WorkingTreeSource(root: root, contentRoot: .repositoryRoot).entries() }
            /// Past the moment in which a folder changed is too new to be recorded.
            func settle() { usleep(useconds_t(WorkTreeStamps.settle / 1000 * 2)) }
            settle()
            let first = try walk()
            #expect(first.entries == (try unstamped()) && first.folders == 0)
            // The top folder, a, a/b, a/b/c, empty (the hidden folder is not walked).
            let second = try walk()
            #expect(second.entries == first.entries && second.folders == 5)
            let changes: [(String, () throws -> Void)] = [
                ("a file added", { try FileSystem.writeFile(root + "/a/b/c/new.yaml", Array("new: 1\n".utf8)) }),
                ("a file removed", { #expect(unlink(root + "/a/near.yaml") == 0) }),
                ("a file renamed", { #expect(rename(root + "/a/b/c/other.yaml", root + "/a/b/c/renamed.yaml") == 0) }),
                ("a folder made", { try FileSystem.makeDirectories(root + "/empty/inner") }),
                (
                    "a file replaced by a folder",
                    {
                        #expect(unlink(root + "/top.md") == 0)
                        try FileSystem.makeDirectories(root + "/top.md")
                        try FileSystem.writeFile(root + "/top.md/inside.md", Array("inside\n".utf8))
                    }
                ),
            ]
            for (change, make) in changes {
                try make()
                let walked = try walk()
                #expect(walked.entries == (try unstamped()), "\(change)")
                settle()
                _ = try walk()
                let again = try walk()
                #expect(again.entries == (try unstamped()) && again.folders > 0, "\(change)")
            }
        }
    }

    /// A folder's recorded listing reads back as it was written; a damaged one is no listing.
    @Test func aFolderListingReadsBackAsWritten() {
        let names: [(name: String, kind: FileSystem.Kind)] = [("a.yaml", .file), ("rates", .directory), ("link", .symlink), ("fifo", .other), ("이름 with space", .file)]
        let decoded = WorkTreeStamps.names(WorkTreeStamps.content(names))
        #expect(decoded?.map(\.name) == names.map(\.name) && decoded?.map(\.kind) == names.map(\.kind))
        #expect(WorkTreeStamps.names(WorkTreeStamps.content([]))?.isEmpty == true)
        #expect(WorkTreeStamps.names("fa") == nil)
        #expect(WorkTreeStamps.names("xa\0") == nil)
        #expect(WorkTreeStamps.names("f\0") == nil)
    }

    /// A commit's listing kept in the cache is the listing, also for a folder it does not have.
    @Test func aKeptTreeListingIsTheListing() throws {
        try withTemporaryDirectory { directory in
            let content = directory + "/content"
            try Fixtures.makeBaseRepository(at: content)
            let repository = try Repository.discover(from: content)
            let head = try #require(try repository.headCommit())
            let listed = try repository.treeEntries(commit: head, under: "")
            #expect((listed?.count ?? 0) > 10)
            let cache = BuildCache(folder: directory + "/cache", limit: 1 << 30, warn: unexpectedWarning)
            for _ in 0..<2 {
                #expect(try TreeListing.entries(repository, commit: head, under: "", cache: cache) == listed)
                #expect(try TreeListing.entries(repository, commit: head, under: "no-such-folder", cache: cache) == nil)
            }
            #expect(TreeListing.decode(TreeListing.encode(listed)) == .some(listed))
            #expect(TreeListing.decode(TreeListing.encode(nil)) == .some(nil))
            #expect(TreeListing.decode(Array(TreeListing.encode(listed).dropLast())) == nil)
        }
    }
}
