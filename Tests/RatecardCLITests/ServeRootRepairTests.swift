import Foundation
import Glibc
import RatecardKit
import Testing

/// `ratecard repair` on a serve root: the entry files a release lost are put back from its
/// version.json and the objects, and what cannot be put back is named.
@Suite struct ServeRootRepairTests {
    @Test func repairRestoresEntryFilesOfTheLiveAndAnOlderRelease() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 2)
            let ids = try fixture.publishEach()
            let root = ServeRoot(path: fixture.root)
            let live = try #require(try root.live())
            try #require(live == ids[1])
            let older = root.folder(of: ids[0])
            let current = root.folder(of: live)
            let objects = try FileSystem.listDirectory(root.objectsFolder).sorted()
            let pages = try #require(try ReleaseFiles.list(release: current).first { $0.hasPrefix(PageSets.link + "/") })
            // Entry files of the live release and of the one before deleted (a whole folder too,
            // a terms page of their shared page set, and the older one's link to that set), one
            // replaced with other bytes (a new file: the object it was a link to keeps its bytes).
            for path in [current + "/index.html", current + "/data/entry.json", current + "/" + pages] { try #require(unlink(path) == 0, "\(path)") }
            try FileSystem.removeTree(older + "/app")
            try #require(unlink(older + "/data/entry.json") == 0 && unlink(older + "/" + PageSets.link) == 0)
            try #require(unlink(current + "/app/app.js") == 0)
            try FileSystem.writeFile(current + "/app/app.js", Array("alert('not ours');\n".utf8))
            let damaged = try ratecard(["verify", "--root", fixture.root], in: fixture.repo)
            #expect(damaged.status == 1, "\(damaged.out)\(damaged.err)")

            let repaired = try ratecard(["repair", "--root", fixture.root, "--format", "json"], in: fixture.repo)
            #expect(repaired.status == 0, "\(repaired.out)\(repaired.err)")
            let json = try JSONReader.parse(Array(repaired.out.utf8))
            #expect(json["live"]?.stringValue == live)
            guard case .object(let restored)? = json["restored"] else { throw OperationalError("no restored: \(repaired.out)") }
            #expect(restored.keys.sorted() == ids, "\(repaired.out)")
            #expect(try root.live() == live)
            #expect(try FileSystem.listDirectory(root.objectsFolder).sorted() == objects)
            let verified = try ratecard(["verify", "--root", fixture.root], in: fixture.repo)
            #expect(verified.status == 0, "\(verified.out)\(verified.err)")
            // What is served is the release's bytes, each entry file a link to its object again.
            #expect(try FileSystem.readFile(fixture.root + "/current/app/app.js") == (try FileSystem.readFile(fixture.web + "/app/app.js")))
            #expect(try FileSystem.readFile(fixture.root + "/current/index.html") == (try FileSystem.readFile(fixture.web + "/index.html")))
            for (id, path) in [(live, "data/entry.json"), (live, "app/app.js"), (ids[0], "app/app.js"), (ids[0], "data/entry.json"), (live, pages)] {
                let info = try ReleaseInfo.read(from: root.folder(of: id))
                let file = try #require(info.files.first { $0.path == path })
                var entry = stat()
                var object = stat()
                try #require(stat(root.folder(of: id) + "/" + path, &entry) == 0 && stat(root.objectsFolder + "/" + ObjectLayout.objectName(file), &object) == 0, "\(id)/\(path)")
                #expect(entry.st_ino == object.st_ino, "\(id)/\(path) is not its object")
            }
            for id in ids {
                let drift = try root.drift(of: id)
                #expect(drift.isEmpty, "\(id): \(drift)")
            }
            // Nothing left to restore: a second repair changes nothing.
            let again = try ratecard(["repair", "--root", fixture.root, "--format", "json"], in: fixture.repo)
            #expect(again.status == 0, "\(again.out)\(again.err)")
            guard case .object(let none)? = try JSONReader.parse(Array(again.out.utf8))["restored"] else { throw OperationalError("no restored: \(again.out)") }
            #expect(none.isEmpty, "\(again.out)")

            // An entry file whose object is gone too cannot be restored: repair says which and
            // exits 1, having repaired the rest; live is unchanged.
            let info = try ReleaseInfo.read(from: current)
            let entry = try #require(info.files.first { $0.path == "data/entry.json" })
            try #require(unlink(current + "/data/entry.json") == 0 && unlink(root.objectsFolder + "/" + ObjectLayout.objectName(entry)) == 0)
            try #require(unlink(older + "/index.html") == 0)
            let lost = try ratecard(["repair", "--root", fixture.root], in: fixture.repo)
            #expect(lost.status == 1, "\(lost.out)\(lost.err)")
            #expect(lost.err.contains("release \(live)") && lost.err.contains("data/entry.json") && lost.err.contains("could not be restored"), "\(lost.err)")
            #expect(try root.live() == live)
            #expect(try root.drift(of: ids[0]).isEmpty)
            #expect(try ratecard(["verify", "--root", fixture.root], in: fixture.repo).status == 1)
        }
    }
}
