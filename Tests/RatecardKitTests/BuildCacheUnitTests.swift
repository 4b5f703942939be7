import Foundation
import Glibc
import RatecardKit
import Testing

/// The build cache's store: what one process writes the next reads, whole packs only, damage
/// is a miss, many packs are merged and the total stays within the bound.
@Suite struct BuildCacheUnitTests {
    func payload(_ number: Int, size: Int = 100) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ number) }
    }

    @Test func whatOneProcessWritesTheNextReadsAndDamageIsAMiss() throws {
        try withTemporaryDirectory { directory in
            let first = BuildCache(folder: directory, limit: 1 << 30)
            for number in 0..<50 { first.write(BuildCache.Key("test", ["\(number)"]), payload(number)) }
            // Pending entries are read back before they are written.
            #expect(first.read(BuildCache.Key("test", ["7"])) == payload(7))
            #expect(!FileSystem.exists(directory + "/v1/packs"))
            first.finish()
            let second = BuildCache(folder: directory, limit: 1 << 30)
            for number in 0..<50 { #expect(second.read(BuildCache.Key("test", ["\(number)"])) == payload(number)) }
            #expect(second.read(BuildCache.Key("test", ["50"])) == nil)
            #expect(second.read(BuildCache.Key("other", ["7"])) == nil)
            #expect(try FileSystem.listDirectory(directory + "/v1/tmp").isEmpty)

            // One payload byte changed: that entry is a miss, the others are read.
            let pack = directory + "/v1/packs/" + (try #require(try FileSystem.listDirectory(directory + "/v1/packs").first))
            var bytes = try FileSystem.readFile(pack)
            bytes[bytes.count - 150] ^= 1
            try FileSystem.writeFile(pack, bytes)
            let third = BuildCache(folder: directory, limit: 1 << 30)
            let found = (0..<50).filter { third.read(BuildCache.Key("test", ["\($0)"])) != nil }
            #expect(found.count == 49)
            // An index changed, or a pack cut short: no entry of it is read.
            bytes[20] ^= 1
            try FileSystem.writeFile(pack, bytes)
            #expect((0..<50).allSatisfy { BuildCache(folder: directory, limit: 1 << 30).read(BuildCache.Key("test", ["\($0)"])) == nil })
            bytes[20] ^= 1
            try FileSystem.writeFile(pack, Array(bytes.prefix(bytes.count / 2)))
            let fourth = BuildCache(folder: directory, limit: 1 << 30)
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
                let cache = BuildCache(folder: directory, limit: limit)
                for number in 0..<10 { cache.write(BuildCache.Key("test", ["\(process)", "\(number)"]), payload(process * 100 + number, size: 4096)) }
                cache.finish()
                let packs = try FileSystem.listDirectory(directory + "/v1/packs")
                let total = try packs.reduce(0) { $0 + (try FileSystem.readFile(directory + "/v1/packs/" + $1).count) }
                #expect(packs.count <= 13, "\(packs.count) packs")
                #expect(total <= limit + 64 << 10, "\(total) bytes")
            }
            // The newest entries are the ones kept.
            let cache = BuildCache(folder: directory, limit: limit)
            #expect((0..<10).allSatisfy { cache.read(BuildCache.Key("test", ["19", "\($0)"])) == payload(1900 + $0, size: 4096) })
            #expect((0..<10).allSatisfy { cache.read(BuildCache.Key("test", ["0", "\($0)"])) == nil })
        }
    }

    @Test func twoProcessesWritingTheSameEntriesAtOnceLeaveThemReadable() throws {
        try withTemporaryDirectory { directory in
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                let cache = BuildCache(folder: directory, limit: 1 << 30)
                for number in 0..<200 { cache.write(BuildCache.Key("test", ["\(number)"]), payload(number)) }
                cache.finish()
            }
            let cache = BuildCache(folder: directory, limit: 1 << 30)
            #expect((0..<200).allSatisfy { cache.read(BuildCache.Key("test", ["\($0)"])) == payload($0) })
        }
    }
}
