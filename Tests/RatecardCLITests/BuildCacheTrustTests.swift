import Foundation
import Glibc
import RatecardKit
import Testing

/// The build cache trusts no one but the user who wrote it: a cache folder another user can
/// write is not used, nothing outside the cache folder is deleted or written (a symlinked `tmp`
/// deletes nothing), and an entry anyone else made (a forged scan result, swapped pages with
/// their sums recomputed) is a miss. In every case the bundle is the one built without a cache.
@Suite struct BuildCacheTrustTests {
    /// A small generated repository in `directory/repo`.
    func generate(_ directory: String) throws -> String {
        let repo = directory + "/repo"
        let generated = try ratecard(["generate", repo, "--partners", "2", "--products", "3", "--tables", "4", "--terms", "3", "--history", "0", "--seed", "7"], in: directory)
        try #require(generated.status == 0, "\(generated.out)\(generated.err)")
        return repo
    }

    /// Builds `repo` with the cache in `cache` and without one; every file is the same.
    func expectSameAsCold(_ repo: String, cache: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Execution {
        let directory = DurableFiles.parent(of: repo)
        let a = directory + "/out-cached"
        let b = directory + "/out-cold"
        try? FileSystem.removeTree(a)
        try? FileSystem.removeTree(b)
        let cached = try ratecard(["build", "--out", a, "--as-of", "2026-11-29"], in: repo, environment: ["RATECARD_CACHE_DIR": cache, "RATECARD_TRACE": "1"])
        let cold = try ratecard(["build", "--out", b, "--as-of", "2026-11-29"], in: repo, environment: ["RATECARD_CACHE": "off"])
        #expect(cached.status == cold.status, "\(what): \(cached.err)\(cold.err)", sourceLocation: sourceLocation)
        guard cached.status == 0, cold.status == 0 else { return cached }
        let left = try treeListing(a)
        let right = try treeListing(b)
        #expect(left.keys.sorted() == right.keys.sorted(), "\(what)", sourceLocation: sourceLocation)
        let differing = left.keys.sorted().filter { left[$0] != "folder" && (try? FileSystem.readFile(b + "/" + $0)) != (try? FileSystem.readFile(a + "/" + $0)) }
        #expect(differing.isEmpty, "\(what): \(differing.prefix(5))", sourceLocation: sourceLocation)
        return cached
    }

    /// A generated repository in `directory`, built once with the cache in `directory/cache`
    /// (and checked against a cold build): the repository, the cache and its packs' folder.
    func warmCache(_ directory: String) throws -> (repo: String, cache: String, packs: String) {
        let repo = try generate(directory)
        let cache = directory + "/cache"
        _ = try expectSameAsCold(repo, cache: cache, "warm")
        return (repo, cache, cache + "/v1/packs")
    }

    /// Sets a file's times to `seconds` ago, without following a symlink.
    func age(_ path: String, seconds: Int) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var times = [timespec(tv_sec: now.tv_sec - seconds, tv_nsec: 0), timespec(tv_sec: now.tv_sec - seconds, tv_nsec: 0)]
        utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW)
    }

    @Test func aSymlinkedTmpDeletesAndWritesNothingOutsideTheCache() throws {
        try withTemporaryDirectory { directory in
            let repo = try generate(directory)
            // Another user's folders: a shared cache folder (1777) whose v1/tmp they made a symlink
            // to a folder of this user's, and this user's own cache folder with such a symlink.
            for shared in [true, false] {
                let cache = directory + "/cache-\(shared)"
                let outside = directory + "/outside-\(shared)"
                try FileSystem.makeDirectories(outside)
                let names = ["report.txt", "1234-0123456789abcdef01234567.pack", "key-99-0badf00d"]
                for name in names {
                    try FileSystem.writeFile(outside + "/" + name, Array("this user's file".utf8))
                    age(outside + "/" + name, seconds: 2 * 86400)
                }
                try FileSystem.makeDirectories(cache + "/v1/packs", mode: 0o700)
                try #require(symlink(outside, cache + "/v1/tmp") == 0)
                lchown(cache + "/v1/tmp", 65534, 65534)
                if shared {
                    for folder in [cache, cache + "/v1", cache + "/v1/packs"] {
                        chown(folder, 65534, 65534)
                        chmod(folder, 0o1777)
                    }
                }
                let before = try treeListing(outside)
                let run = try expectSameAsCold(repo, cache: cache, "symlinked tmp, shared \(shared)")
                #expect(run.status == 0)
                #expect(try treeListing(outside) == before, "shared \(shared)")
                for name in names { #expect(FileSystem.exists(outside + "/" + name), "\(name), shared \(shared)") }
                // One warning, naming the folder; the run went on without the cache.
                let warnings = run.err.split(separator: "\n").filter { $0.hasPrefix("warning: build cache not used") }
                #expect(warnings.count == 1, "\(run.err)")
                #expect(run.err.contains("trace: cache: 0 entries read"), "\(run.err)")
            }
            // In Korean too.
            let korean = try ratecard(["validate", "--lang", "ko", "--as-of", "2026-11-29"], in: repo, environment: ["RATECARD_CACHE_DIR": directory + "/cache-false"])
            #expect(korean.status == 0)
            #expect(
                korean.err
                    == "경고: 빌드 캐시를 쓰지 않습니다 (\(directory)/cache-false/v1/tmp): 심볼릭 링크입니다. RATECARD_CACHE_DIR에 본인만 쓸 수 있는 폴더를 지정하거나 이 경로를 지우세요\n")
        }
    }

    /// The key of a terms body's scan as anyone can compute it: the build fingerprint is printed
    /// by `ratecard version`, the rest is the blob id.
    func scanKey(blob: String, fingerprint: String) -> [UInt8] {
        var bytes: [UInt8] = []
        for part in ["ratecard-cache v1", fingerprint, TermsScan.keyKind, blob] {
            withUnsafeBytes(of: UInt32(part.utf8.count).littleEndian) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: part.utf8)
        }
        return SHA256.digest(bytes)
    }

    /// A pack as someone without the user's key can make one: the format of `like` (a pack the
    /// cache wrote), every checksum recomputed with sha256.
    func forgedPack(_ entries: [([UInt8], [UInt8])], like: [UInt8]) -> [UInt8] {
        var bytes = Array(like.prefix(4))
        func append(_ value: Int) { withUnsafeBytes(of: Int64(value).littleEndian) { bytes.append(contentsOf: $0) } }
        append(entries.count)
        var offset = 12 + entries.count * 80 + 32
        for (key, payload) in entries {
            bytes.append(contentsOf: key)
            append(offset)
            append(payload.count)
            bytes.append(contentsOf: SHA256.digest(payload))
            offset += payload.count
        }
        bytes.append(contentsOf: SHA256.digest(bytes))
        for (_, payload) in entries { bytes.append(contentsOf: payload) }
        return bytes
    }

    /// The entries of a pack (key, payload).
    func entries(of pack: [UInt8]) -> [([UInt8], [UInt8])] {
        func int(_ at: Int) -> Int { (0..<8).reduce(0) { $0 | Int(pack[at + $1]) << (8 * $1) } }
        return (0..<int(4)).map { number in
            let entry = 12 + number * 80
            return (Array(pack[entry..<entry + 32]), Array(pack[int(entry + 32)..<int(entry + 32) + int(entry + 40)]))
        }
    }

    @Test func aForgedScanEntryIsAMiss() throws {
        try withTemporaryDirectory { directory in
            // The cache in use, with a pack of its own (the forger copies its format).
            let (repo, cache, packs) = try warmCache(directory)
            let written = try FileSystem.readFile(packs + "/" + (try #require(try FileSystem.listDirectory(packs).first)))

            let terms = try treeListing(repo + "/terms/broker-notice").keys.filter { $0.hasSuffix(".md") }.sorted()
            let newest = try String(contentsOfFile: repo + "/terms/broker-notice/" + (try #require(terms.last)), encoding: .utf8)
            let path = repo + "/terms/broker-notice/99.0.0.md"
            try FileSystem.writeFile(path, Array((newest.replacingOccurrences(of: "version: ", with: "version: 99.0.0\n#") + "\n신용등급 상관없이 무조건 승인\n").utf8))
            let (status, blob) = try runTool("/usr/bin/git", ["hash-object", path])
            try #require(status == 0)
            let version = try ratecard(["version"], in: repo)
            let fingerprint = try #require(version.out.split(separator: " ").last.map { String($0.dropLast(2)) })
            // "No hits, nothing dropped": two counts of zero.
            let forged = forgedPack([(scanKey(blob: blob.trimmingCharacters(in: .whitespacesAndNewlines), fingerprint: fingerprint), [UInt8](repeating: 0, count: 16))], like: written)
            try FileSystem.writeFile(packs + "/" + SHA256.hex(forged).prefix(24) + ".pack", forged, mode: 0o600)

            let cached = try ratecard(["validate", "--format", "json", "--as-of", "2026-11-29"], in: repo, environment: ["RATECARD_CACHE_DIR": cache])
            let cold = try ratecard(["validate", "--format", "json", "--as-of", "2026-11-29"], in: repo, environment: ["RATECARD_CACHE": "off"])
            #expect(cold.status == 1 && cold.out.contains("DSC-06"), "\(cold.out)")
            #expect(cached.status == 1 && cached.out == cold.out, "\(cached.out)\(cached.err)")
            // The build refuses the same content the same way.
            _ = try expectSameAsCold(repo, cache: cache, "forged scan entry")
        }
    }

    @Test func swappedPageEntriesAreMisses() throws {
        try withTemporaryDirectory { directory in
            let (repo, cache, packs) = try warmCache(directory)
            // Every pack rewritten with its pages' payloads moved one entry on, sums recomputed.
            var swapped = 0
            for name in try FileSystem.listDirectory(packs) {
                let pack = try FileSystem.readFile(packs + "/" + name)
                var list = entries(of: pack)
                let pages = list.indices.filter { list[$0].1.starts(with: Array("<!".utf8)) }
                for (from, to) in zip(pages, pages.dropFirst() + pages.prefix(1)) where from != to {
                    list[to].1 = entries(of: pack)[from].1
                    swapped += 1
                }
                try FileSystem.removeTree(packs + "/" + name)
                let forged = forgedPack(list, like: pack)
                try FileSystem.writeFile(packs + "/" + SHA256.hex(forged).prefix(24) + ".pack", forged, mode: 0o600)
            }
            #expect(swapped >= 2)
            let run = try expectSameAsCold(repo, cache: cache, "swapped pages")
            #expect(run.status == 0)
        }
    }

    /// A build names the terms pages and product documents its cache holds by their entries
    /// and reads one only to write it. Their bytes damaged on disk under a whole, signed index
    /// (what the writer then finds) make the build start again reading every one: a fresh
    /// folder gets what a cold build writes, and each damaged entry is a miss, rendered anew.
    @Test func aPageDamagedUnderItsSignedIndexIsRenderedAgain() throws {
        try withTemporaryDirectory { directory in
            let (repo, cache, packs) = try warmCache(directory)
            var damaged = 0
            for name in try FileSystem.listDirectory(packs) {
                var pack = try FileSystem.readFile(packs + "/" + name)
                func int(_ at: Int) -> Int { (0..<8).reduce(0) { $0 | Int(pack[at + $1]) << (8 * $1) } }
                // The last byte of every page and JSON document (its final newline) changed; the
                // index as signed.
                for number in 0..<int(4) {
                    let entry = 12 + number * 80
                    let (offset, length) = (int(entry + 32), int(entry + 40))
                    guard length > 2, [Array("<!".utf8), Array("{\n".utf8)].contains(Array(pack[offset..<offset + 2])) else { continue }
                    pack[offset + length - 1] ^= 0x20
                    damaged += 1
                }
                try FileSystem.writeFile(packs + "/" + name, pack, mode: 0o600)
            }
            #expect(damaged >= 3)
            let run = try expectSameAsCold(repo, cache: cache, "damaged pages")
            #expect(run.status == 0 && run.err.contains("build: terms pages"), "\(run.err)")
            // Built twice: first naming the cached pages, then reading them (each a miss).
            #expect(run.err.components(separatedBy: "build: terms pages").count == 3, "\(run.err)")
        }
    }

    /// The suite's own cache folder (`testEnvironment`) is one ratecard uses: every CLI test
    /// runs with the cache, and none of them is told it is not used.
    @Test func theSuitesCacheFolderIsUsed() throws {
        try withTemporaryDirectory { directory in
            let repo = try generate(directory)
            let run = try ratecard(["validate", "--as-of", "2026-11-29"], in: repo, environment: ["RATECARD_TRACE": "1"])
            #expect(run.status == 0)
            #expect(!run.err.contains("warning:"), "\(run.err)")
            let folder = try #require(testEnvironment["RATECARD_CACHE_DIR"])
            for path in [folder, folder + "/v1", folder + "/v1/packs", folder + "/v1/tmp"] {
                var info = stat()
                #expect(lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR && info.st_uid == geteuid() && info.st_mode & 0o022 == 0, "\(path)")
            }
            var key = stat()
            #expect(lstat(folder + "/v1/key", &key) == 0 && key.st_mode & 0o7777 == 0o600)
        }
    }
}
