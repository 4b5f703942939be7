import Foundation
import RatecardKit
import Testing

extension S3RepairTests {
    /// An entry file whose object is gone too cannot be restored: repair restores the rest
    /// first, names what is lost (exit 1, `unrestorable` in JSON), and live stays as it was.
    /// A release whose flip was killed before its journal entry is sealed when the journal
    /// catches up: a rollback to it checks its version.json, not every file.
    @Test func repairNamesLostEntryFilesAfterRestoringTheRestAndAnUnjournaledFlipIsSealed() throws {
        try withTemporaryDirectory { directory in
            let s3 = try S3Environments(in: directory, engine: .moto, commits: 2)
            defer { s3.stop() }
            try #require(try s3.run(s3.publish(s3.fixture.commits[0])).status == 0)
            let first = try #require(try s3.liveIsComplete("first"))
            try s3.fixture.stampWeb()
            // Killed between the flip and its journal entry (which carried the seal).
            let killed = try s3.start(s3.publish(s3.fixture.commits[1]), environment: ["RATECARD_CRASH_AT": "swapped"])
            killed.waitUntilExit()
            let second = try #require(try s3.liveIsComplete("killed after the flip"))
            try #require(second != first)
            let back = try s3.run(["rollback", "--env", "production", "--to", first, "-m", "back", "--format", "json"])
            try #require(back.status == 0, "\(back.err)")
            let sealed = try JSONReader.parse(Array(back.out.utf8))
            let forward = try s3.run(["rollback", "--env", "production", "--to", second, "-m", "forward", "--format", "json"])
            try #require(forward.status == 0, "\(forward.err)")
            let json = try JSONReader.parse(Array(forward.out.utf8))
            let requests = json["storage"]?["requests"]?.intValue ?? -1
            let sealedRequests = sealed["storage"]?["requests"]?.intValue ?? -1
            #expect(json["verified"]?["check"]?.stringValue == "sealed", "\(forward.out)")
            // Its version.json is checked against that seal: about what a rollback to a release sealed at
            // publish costs (26 and 34 requests here), not a GET per file (60 for its 29 files).
            #expect(requests > 0 && requests <= sealedRequests + 8, "a rollback to the unjournaled release cost \(requests) requests, to a sealed one \(sealedRequests)")
            #expect(try s3.liveIsComplete("rolled forward") == second)

            // The live release loses an entry file and its object, and another entry file.
            let client = s3.client()
            let manifest = try #require(try client.get("releases/\(second).json")?.bytes)
            let info = try ReleaseInfo.parse(manifest, source: "version.json")
            let entry = try #require(info.files.first { $0.path == "data/entry.json" })
            try client.delete("r/\(second)/data/entry.json")
            try client.delete("o/" + ObjectLayout.objectName(entry))
            try client.delete("r/\(second)/index.html")
            try client.delete("r/\(first)/index.html")
            let repaired = try s3.run(["repair", "--env", "production", "--format", "json"])
            #expect(repaired.status == 1, "\(repaired.out)\(repaired.err)")
            let report = try JSONReader.parse(Array(repaired.out.utf8))
            #expect(report["unrestorable"]?[second]?.arrayValue == [.string("data/entry.json")], "\(repaired.out)")
            #expect(report["restored"]?[second]?.arrayValue == [.string("index.html")], "\(repaired.out)")
            #expect(report["restored"]?[first]?.arrayValue == [.string("index.html")], "\(repaired.out)")
            #expect(repaired.err.contains("release \(second)") && repaired.err.contains("data/entry.json") && repaired.err.contains("could not be restored"), "\(repaired.err)")
            #expect(try client.get("r/\(second)/index.html") != nil && client.get("r/\(first)/index.html") != nil)
            #expect(try s3.store().pointer() == second)
        }
    }
}
