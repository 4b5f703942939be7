import Foundation
import RatecardKit
import Testing

/// A build into the folder of earlier builds (`--out`) with the build cache: what the earlier
/// build wrote there is taken without being written again, what someone changed there by hand
/// is corrected, what the content no longer has disappears, and the tree is byte for byte what
/// a build into an empty folder with no cache gives. The work tree's files an earlier run read
/// are taken by their stamps, and a file edited back to its old size and modification time is
/// still read again.
@Suite struct OutputFolderTests {
    /// Every file below `root` (not following links), relative path -> bytes; folders and links
    /// as markers, so a link where a file should be is a difference.
    func tree(_ root: String) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        func walk(_ relative: String) throws {
            for name in try FileSystem.listDirectory(relative.isEmpty ? root : root + "/" + relative) {
                let path = relative.isEmpty ? name : relative + "/" + name
                var info = stat()
                #expect(lstat(root + "/" + path, &info) == 0)
                switch info.st_mode & S_IFMT {
                case S_IFDIR:
                    files[path + "/"] = []
                    try walk(path)
                case S_IFREG: files[path] = try FileSystem.readFile(root + "/" + path)
                default: files[path] = Array("not a file".utf8)
                }
            }
        }
        try walk("")
        return files
    }

    /// Each file's inode and modification time.
    func stamps(_ root: String) throws -> [String: String] {
        try tree(root).keys.filter { !$0.hasSuffix("/") }.reduce(into: [:]) { stamps, path in
            var info = stat()
            #expect(lstat(root + "/" + path, &info) == 0)
            stamps[path] = "\(info.st_ino) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
        }
    }

    func cold(_ repo: String, _ out: String) throws -> [String: [UInt8]] {
        let result = try ratecard(["build", "--as-of", "2026-11-29", "--out", out], in: repo, environment: ["RATECARD_CACHE": "off"])
        try #require(result.status == 0, "\(result.err)")
        return try tree(out)
    }

    /// Rebuilding the same content changes no file of the folder (same inode, same time); after
    /// an edit only the files whose bytes changed are new; a product removed from the content
    /// takes its files with it.
    @Test func unchangedFilesAreNotRewrittenAndRemovedOnesDisappear() throws {
        try withTemporaryDirectory { directory in
            _ = try ratecard(["init", "repo"], in: directory)
            let repo = directory + "/repo"
            let out = directory + "/out"
            let environment = ["RATECARD_CACHE_DIR": directory + "/cache", "RATECARD_TRACE": "1"]
            let build = ["build", "--as-of", "2026-11-29", "--out", out]
            for _ in 0..<3 { try #require(try ratecard(build, in: repo, environment: environment).status == 0) }
            let first = try stamps(out)
            let again = try ratecard(build, in: repo, environment: environment)
            try #require(again.status == 0, "\(again.err)")
            #expect(again.err.contains("trace: write: files (\(first.count) kept, 0 linked, 0 written of \(first.count))"), "\(again.err)")
            #expect(try stamps(out) == first)
            // One rate table edited: only the files whose bytes changed are new.
            let before = try tree(out)
            let table = try #require(try tree(repo).keys.filter { $0.contains("/rates/") && $0.hasSuffix(".yaml") }.sorted().last)
            let text = String(decoding: try FileSystem.readFile(repo + "/" + table), as: UTF8.self)
            let band = try #require(text.range(of: "apr_max_pct: 11.0\n"))
            try FileSystem.writeFile(repo + "/" + table, Array(text.replacingCharacters(in: band, with: "apr_max_pct: 11.01\n").utf8))
            let edited = try ratecard(build, in: repo, environment: environment)
            try #require(edited.status == 0, "\(edited.err)")
            let after = try tree(out)
            #expect(after == (try cold(repo, directory + "/cold-1")))
            let second = try stamps(out)
            let manifest = try BundleManifest.parse(try FileSystem.readFile(out + "/data/manifest.json"))
            let earlierManifest = try BundleManifest.parse(before["data/manifest.json"]!)
            let earlierSums = Dictionary(earlierManifest.files.map { ($0.path.replacingOccurrences(of: earlierManifest.bundleID, with: manifest.bundleID), $0.sha256) }) { first, _ in first }
            var same = 0
            for file in manifest.files {
                let old = file.path.replacingOccurrences(of: manifest.bundleID, with: earlierManifest.bundleID)
                if earlierSums[file.path] == file.sha256 {
                    same += 1
                    #expect(second[file.path] == first[old], "\(file.path) was written again")
                } else {
                    #expect(second[file.path] != first[old], "\(file.path) changed but is the earlier file")
                }
            }
            #expect(same > 0 && same < manifest.files.count)
            // A product added, built, then removed again (not committed): its files are gone.
            let product = try #require(table.components(separatedBy: "/rates/").first)
            let copy = product + "-two"
            let key = copy.dropFirst("products/".count)
            try FileSystem.copyTree(from: repo + "/" + product, to: repo + "/" + copy)
            let name = String(product.split(separator: "/").last!)
            let yaml = String(decoding: try FileSystem.readFile(repo + "/" + copy + "/product.yaml"), as: UTF8.self)
            try FileSystem.writeFile(
                repo + "/" + copy + "/product.yaml",
                Array(yaml.replacingOccurrences(of: "id: \(name)\n", with: "id: \(name)-two\n").replacingOccurrences(of: "name_ko: ", with: "name_ko: 둘째 ").utf8))
            let added = try ratecard(build, in: repo, environment: environment)
            try #require(added.status == 0, "\(added.out)\(added.err)")
            #expect(try tree(out).keys.contains { $0.hasSuffix("/products/\(key).json") })
            try FileSystem.removeTree(repo + "/" + copy)
            let removed = try ratecard(build, in: repo, environment: environment)
            try #require(removed.status == 0, "\(removed.out)\(removed.err)")
            let rest = try tree(out)
            #expect(!rest.keys.contains { $0.hasSuffix("/products/\(key).json") }, "\(rest.keys.sorted())")
            #expect(rest == (try cold(repo, directory + "/cold-2")))
        }
    }

    /// Whatever someone did to the folder or to the tree kept beside it, the next build leaves
    /// exactly what a build into an empty folder leaves, and writes nothing outside them.
    @Test func aFolderChangedByHandIsCorrected() throws {
        try withTemporaryDirectory { directory in
            _ = try ratecard(["init", "repo"], in: directory)
            let repo = directory + "/repo"
            let out = directory + "/out"
            let spare = directory + "/.out.spare"
            let environment = ["RATECARD_CACHE_DIR": directory + "/cache"]
            let build = ["build", "--as-of", "2026-11-29", "--out", out]
            for _ in 0..<2 { try #require(try ratecard(build, in: repo, environment: environment).status == 0) }
            #expect(FileSystem.isDirectory(spare))
            let expected = try cold(repo, directory + "/cold")
            let pages = expected.keys.filter { $0.hasPrefix("terms/") && $0.hasSuffix(".html") }.sorted()
            try #require(pages.count >= 3)
            // The same size and modification time, other bytes (only the change time tells).
            var info = stat()
            try #require(lstat(out + "/rates.html", &info) == 0)
            var bytes = try FileSystem.readFile(out + "/rates.html")
            bytes[bytes.count / 2] = bytes[bytes.count / 2] == UInt8(ascii: "x") ? UInt8(ascii: "y") : UInt8(ascii: "x")
            try FileSystem.writeFile(out + "/rates.html", bytes)
            var times = [info.st_atim, info.st_mtim]
            #expect(utimensat(AT_FDCWD, out + "/rates.html", &times, AT_SYMLINK_NOFOLLOW) == 0)
            // A file given another name elsewhere, one replaced by a link, one made private, one
            // removed, files and a folder added, and the spare's data written over.
            try FileSystem.makeDirectories(directory + "/elsewhere")
            #expect(link(out + "/partners.html", directory + "/elsewhere/partners.html") == 0)
            try FileSystem.writeFile(directory + "/elsewhere/page.html", Array(expected[pages[0]]!))
            unlink(out + "/" + pages[0])
            #expect(symlink(directory + "/elsewhere/page.html", out + "/" + pages[0]) == 0)
            #expect(chmod(out + "/" + pages[1], 0o600) == 0)
            unlink(out + "/" + pages[2])
            try FileSystem.writeFile(out + "/notes.txt", Array("by hand\n".utf8))
            try FileSystem.makeDirectories(out + "/terms/stray")
            try FileSystem.writeFile(out + "/terms/stray/page.html", Array("stray\n".utf8))
            try FileSystem.writeFile(spare + "/extra.json", Array("{}\n".utf8))
            let spareData = try #require(try FileSystem.listDirectory(spare + "/data").first { FileSystem.isDirectory(spare + "/data/" + $0) })
            let spareFile = try #require(try FileSystem.listDirectory(spare + "/data/" + spareData).first { !FileSystem.isDirectory(spare + "/data/\(spareData)/" + $0) })
            try FileSystem.writeFile(spare + "/data/\(spareData)/" + spareFile, Array("changed\n".utf8))
            let elsewhere = try tree(directory + "/elsewhere")
            for _ in 0..<2 {
                let result = try ratecard(build, in: repo, environment: environment)
                try #require(result.status == 0, "\(result.err)")
                #expect(try tree(out) == expected)
            }
            #expect(try tree(directory + "/elsewhere") == elsewhere)
            // The linked file is no longer the folder's.
            var outside = stat()
            var inside = stat()
            #expect(lstat(directory + "/elsewhere/partners.html", &outside) == 0 && lstat(out + "/partners.html", &inside) == 0)
            #expect(outside.st_ino != inside.st_ino)
            #expect(try FileSystem.listDirectory(directory).sorted() == [".out.spare", "cache", "cold", "elsewhere", "out", "repo"])
        }
    }

    /// A work-tree file an earlier run read is taken by its stamps, not read again; one edited
    /// in place and given back its size and modification time is read again all the same.
    @Test func aWorkTreeFileEditedBackToItsTimesIsReadAgain() throws {
        try withTemporaryDirectory { directory in
            _ = try ratecard(["init", "repo"], in: directory)
            let repo = directory + "/repo"
            let environment = ["RATECARD_CACHE_DIR": directory + "/cache", "RATECARD_TRACE": "1"]
            let build = ["build", "--as-of", "2026-11-29", "--out", directory + "/out"]
            // Files changed within the moment before a run are not recorded (a write in the same
            // clock tick could go unseen): these are a second old when the first run reads them.
            sleep(1)
            try #require(try ratecard(build, in: repo, environment: environment).status == 0)
            let warm = try ratecard(build, in: repo, environment: environment)
            try #require(warm.status == 0, "\(warm.err)")
            // Every file and every folder as the first run recorded it.
            let line = try #require(warm.err.split(separator: "\n").first { $0.contains("folders taken by their stamps") })
            let counts = line.split(separator: " ").compactMap { Int($0) }
            #expect(counts.count == 3 && counts[0] > 0 && counts[1] > 0 && counts[0] + counts[1] == counts[2], "\(line)")
            let earlier = try BundleManifest.parse(try FileSystem.readFile(directory + "/out/data/manifest.json"))
            // The same size, the same modification time, another rate.
            let table = try #require(try tree(repo).keys.filter { $0.contains("/rates/") && $0.hasSuffix(".yaml") }.sorted().last)
            var info = stat()
            try #require(lstat(repo + "/" + table, &info) == 0)
            let text = String(decoding: try FileSystem.readFile(repo + "/" + table), as: UTF8.self)
            let band = try #require(text.range(of: "apr_max_pct: 11.0\n"))
            try FileSystem.writeFile(repo + "/" + table, Array(text.replacingCharacters(in: band, with: "apr_max_pct: 11.5\n").utf8))
            var times = [info.st_atim, info.st_mtim]
            #expect(utimensat(AT_FDCWD, repo + "/" + table, &times, 0) == 0)
            var now = stat()
            #expect(lstat(repo + "/" + table, &now) == 0 && now.st_size == info.st_size && now.st_ino == info.st_ino)
            let edited = try ratecard(build, in: repo, environment: environment)
            try #require(edited.status == 0, "\(edited.err)")
            #expect(try tree(directory + "/out") == (try cold(repo, directory + "/cold")))
            let manifest = try BundleManifest.parse(try FileSystem.readFile(directory + "/out/data/manifest.json"))
            #expect(manifest.bundleID != earlier.bundleID)
        }
    }
}
