import Foundation
import RatecardKit
import Testing

/// `ratecard build` and `preview` end to end: determinism, refusal, and leaving nothing behind.
@Suite struct BuildTests {
    /// Every file below `root`, relative path -> bytes.
    func tree(_ root: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: root)!
        while let path = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue { files[path] = FileManager.default.contents(atPath: root + "/" + path) }
        }
        return files
    }

    @Test func theSameCommitBuildsByteIdenticalTreesInDifferentFoldersAndTimes() throws {
        try withTemporaryDirectory { directory in
            _ = try ratecard(["init", "repo"], in: directory)
            let first = try ratecard(["build", "--rev", "HEAD", "--as-of", "2026-11-29", "--out", directory + "/one"], in: directory + "/repo")
            #expect(first.status == 0, "\(first.err)")
            sleep(1)
            let second = try ratecard(["build", "--rev", "HEAD", "--as-of", "2026-11-29", "--out", directory + "/elsewhere/two"], in: directory + "/repo", environment: ["TZ": "America/New_York"])
            #expect(second.status == 0, "\(second.err)")
            let one = try tree(directory + "/one")
            let two = try tree(directory + "/elsewhere/two")
            #expect(one.count > 90)
            #expect(one.keys.sorted() == two.keys.sorted())
            for (path, bytes) in one { #expect(two[path] == bytes, "\(path) differs") }
        }
    }

    @Test func theManifestListsEveryFileWithItsHashAndSize() throws {
        try withTemporaryDirectory { directory in
            _ = try ratecard(["init", "repo"], in: directory)
            _ = try ratecard(["build", "--as-of", "2026-11-29", "--out", directory + "/out"], in: directory + "/repo")
            let files = try tree(directory + "/out")
            let manifest = try BundleManifest.parse(Array(files["data/manifest.json"]!))
            // Every file but the manifest and the entry document, which is made from it.
            #expect(manifest.files.count == files.count - 2)
            #expect(files[BundleLayout.entry].map(Array.init) == EntryDocument.bytes(manifest, objects: nil))
            #expect(manifest.asOf == Day("2026-11-29"))
            #expect(manifest.sourceDirty == false)
            #expect(manifest.sourceCommit != nil)
            for file in manifest.files {
                let bytes = try #require(files[file.path])
                #expect(SHA256.hex(Array(bytes)) == file.sha256)
                #expect(bytes.count == file.size)
            }
            #expect(files.keys.contains("data/\(manifest.bundleID)/products/kbank/credit.json") || files.keys.contains { $0.hasPrefix("data/\(manifest.bundleID)/products/kbank/") })
        }
    }

    @Test func invalidContentExitsOneAndWritesNothing() throws {
        try withTemporaryDirectory { directory in
            _ = try ratecard(["init", "repo"], in: directory)
            try FileSystem.writeFile(directory + "/repo/partners/kbank.yaml", Array("id: kbank\n".utf8))
            let result = try ratecard(["build", "--as-of", "2026-11-29", "--out", directory + "/out"], in: directory + "/repo")
            #expect(result.status == 1)
            #expect(result.out.contains("partners/kbank.yaml:1:1: error SCH-01: missing required field 'name_ko'"))
            #expect(result.err == "Error: the content is invalid; nothing was written\n")
            #expect(!FileSystem.exists(directory + "/out"))
            #expect(try FileSystem.listDirectory(directory) == ["repo"])
        }
    }

    @Test func anUnwritableOutputExitsFourAndLeavesNothing() throws {
        try withTemporaryDirectory { directory in
            _ = try ratecard(["init", "repo"], in: directory)
            try FileSystem.writeFile(directory + "/blocker", Array("a file, not a folder\n".utf8))
            let result = try ratecard(["build", "--as-of", "2026-11-29", "--out", directory + "/blocker/out"], in: directory + "/repo")
            #expect(result.status == 4)
            #expect(result.err.hasPrefix("Error: cannot create the output folder: mkdir "))
            #expect(try FileSystem.listDirectory(directory) == ["blocker", "repo"])
        }
    }

    @Test func anUnknownRevisionIsAUsageErrorAndLeavesNothing() throws {
        try withTemporaryDirectory { directory in
            _ = try ratecard(["init", "repo"], in: directory)
            let result = try ratecard(["build", "--rev", "no-such-tag", "--out", directory + "/out"], in: directory + "/repo")
            #expect(result.status == 2)
            #expect(result.err.hasPrefix("Error: unknown revision 'no-such-tag': "))
            #expect(!FileSystem.exists(directory + "/out"))
        }
    }

    /// A build into the folder of an earlier build writes only the files that differ: the others
    /// are the earlier build's files (linked into the new tree, the same inode), also where they
    /// moved with the bundle id, and the tree is byte for byte what a build into an empty folder gives.
    @Test func aRebuildIntoAnEarlierBuildWritesOnlyWhatDiffers() throws {
        try withTemporaryDirectory { directory in
            _ = try ratecard(["init", "repo"], in: directory)
            let build = ["build", "--as-of", "2026-11-29", "--out"]
            func inodes(_ root: String) throws -> [String: ino_t] {
                try tree(root).keys.reduce(into: [:]) { inodes, path in
                    var info = stat()
                    #expect(lstat(root + "/" + path, &info) == 0)
                    inodes[path] = info.st_ino
                }
            }
            #expect(try ratecard(build + [directory + "/out"], in: directory + "/repo").status == 0)
            let first = try inodes(directory + "/out")
            #expect(try ratecard(build + [directory + "/out"], in: directory + "/repo").status == 0)
            #expect(try inodes(directory + "/out") == first)
            // One rate table edited: its product's documents and the manifest are new files.
            let table = try #require(try tree(directory + "/repo").keys.filter { $0.contains("/rates/") && $0.hasSuffix(".yaml") }.sorted().last)
            let text = String(decoding: try FileSystem.readFile(directory + "/repo/" + table), as: UTF8.self)
            let band = try #require(text.range(of: "apr_max_pct: 11.0\n"))
            try FileSystem.writeFile(directory + "/repo/" + table, Array(text.replacingCharacters(in: band, with: "apr_max_pct: 11.01\n").utf8))
            #expect(try ratecard(build + [directory + "/out"], in: directory + "/repo").status == 0)
            #expect(try ratecard(build + [directory + "/fresh"], in: directory + "/repo").status == 0)
            let rebuilt = try tree(directory + "/out")
            #expect(rebuilt == (try tree(directory + "/fresh")))
            let second = try inodes(directory + "/out")
            let kept = second.filter { first[$0.key] == $0.value }.count
            #expect(kept > 0 && kept < second.count)
            #expect(second["data/manifest.json"] != first["data/manifest.json"])
            // The data files moved with the bundle id; those whose bytes did not change are the
            // earlier files at their new paths.
            let earlierInodes = Set(first.values)
            #expect(second.contains { first[$0.key] == nil && $0.key.hasPrefix("data/") && earlierInodes.contains($0.value) })
            // A file of another tree is never shared with the new build, though its bytes are
            // equal: one planted through a symlinked folder, one that has a second name.
            try FileSystem.makeDirectories(directory + "/elsewhere")
            #expect(rename(directory + "/out/rates", directory + "/elsewhere/rates") == 0)
            #expect(symlink(directory + "/elsewhere/rates", directory + "/out/rates") == 0)
            #expect(link(directory + "/out/partners.html", directory + "/elsewhere/partners.html") == 0)
            let outside = try inodes(directory + "/elsewhere")
            #expect(outside.count > 1)
            #expect(try ratecard(build + [directory + "/out"], in: directory + "/repo").status == 0)
            let third = try inodes(directory + "/out")
            #expect(third.keys.contains("rates.html") && third.keys.contains { $0.hasPrefix("rates/") })
            #expect(Set(third.values).isDisjoint(with: outside.values), "\(outside)")
            #expect(try tree(directory + "/out") == (try tree(directory + "/fresh")))
            #expect(try inodes(directory + "/elsewhere") == outside)
        }
    }

    @Test func aFolderThatIsNotABuildIsNeverReplaced() throws {
        try withTemporaryDirectory { directory in
            _ = try ratecard(["init", "repo"], in: directory)
            try FileSystem.makeDirectories(directory + "/precious")
            try FileSystem.writeFile(directory + "/precious/notes.txt", Array("keep me\n".utf8))
            let result = try ratecard(["build", "--as-of", "2026-11-29", "--out", directory + "/precious"], in: directory + "/repo")
            #expect(result.status == 3)
            #expect(try FileSystem.listDirectory(directory + "/precious") == ["notes.txt"])
            let missingOut = try ratecard(["build"], in: directory + "/repo")
            #expect(missingOut.status == 2)
        }
    }
}
