import Foundation
import Glibc
import RatecardKit
import Testing

/// What release managers do between publishes: promote, prune, look at what is live.
@Suite struct ReleaseManagementTests {
    @Test func promotedReleasesShareNoInodeWithTheirSource() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory)
            try #require(try ratecard(fixture.publishArguments(fixture.commits[0]), in: fixture.repo).status == 0)
            let production = directory + "/production"
            let promoted = try ratecard(["promote", "--from", fixture.root, "--to", production, "-m", "ship"], in: fixture.repo)
            try #require(promoted.status == 0, "\(promoted.err)")
            let id = try #require(try ServeRoot(path: fixture.root).live())
            let staging = ServeRoot(path: fixture.root).folder(of: id)
            let shipped = ServeRoot(path: production).folder(of: id)
            for path in try ReleaseFiles.list(staging) {
                var a = stat()
                var b = stat()
                try #require(stat(staging + "/" + path, &a) == 0 && stat(shipped + "/" + path, &b) == 0)
                #expect(a.st_ino != b.st_ino, "\(path) is one inode in both environments")
            }
            // A file changed in staging's copy leaves production's as it was.
            let page = staging + "/index.html"
            chmod(page, 0o644)
            try FileSystem.writeFile(page, Array("changed on staging\n".utf8))
            let verify = try ratecard(["verify", "--root", production], in: fixture.repo)
            #expect(verify.status == 0, "\(verify.out)\(verify.err)")
        }
    }

    @Test func pruneDryRunListsWhatWouldGoAndRemovesNothing() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 4)
            for commit in fixture.commits {
                try #require(try ratecard(fixture.publishArguments(commit), in: fixture.repo).status == 0)
            }
            let serve = ServeRoot(path: fixture.root)
            let ids = try serve.releaseIDs()
            let dry = try ratecard(["prune", "--root", fixture.root, "--keep", "1", "--dry-run"], in: fixture.repo)
            #expect(dry.status == 0, "\(dry.err)")
            #expect(dry.out == "Would remove 2 releases: \(ids[0]), \(ids[1]). Nothing was changed.\n", "\(dry.out)")
            #expect(try serve.releaseIDs() == ids)
            let json = try ratecard(["prune", "--root", fixture.root, "--keep", "1", "--format", "json"], in: fixture.repo)
            #expect(json.status == 0, "\(json.err)")
            let object = try JSONReader.parse(Array(json.out.utf8))
            #expect(object["removed"]?.arrayValue?.compactMap(\.stringValue) == [ids[0], ids[1]])
            #expect(object["kept"]?.arrayValue?.compactMap(\.stringValue) == [ids[2], ids[3]])
            #expect(object["dry_run"] == .bool(false))
            #expect(try serve.releaseIDs() == [ids[2], ids[3]])
        }
    }
}
