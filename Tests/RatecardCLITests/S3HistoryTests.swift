import Foundation
import Glibc
import RatecardKit
import Testing

/// What a command sends to object storage does not grow with the history of the environment.
@Suite struct S3HistoryTests {
    /// The requests a command sent (RATECARD_TRACE prints one line per request and its answer).
    static func requests(_ s3: S3Environments, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> (count: Int, out: String) {
        let result = try s3.run(arguments, environment: ["RATECARD_TRACE": "1"])
        #expect(result.status == 0, "\(arguments): \(result.err.suffix(2000))", sourceLocation: sourceLocation)
        let lines = result.err.split(separator: "\n").filter { line in
            line.hasPrefix("trace: s3: ") && ["GET ", "PUT ", "HEAD ", "DELETE ", "POST "].contains { line.dropFirst("trace: s3: ".count).hasPrefix($0) }
        }
        return (lines.count, result.out)
    }

    /// Under the lock a command reads each thing that changes once: the pointer, the releases'
    /// listing, the journal's new entries, the served state files; its steps (recover, repair
    /// the served state, publish or roll back, journal, rewrite the bridge lines) ask again and
    /// are answered from what was read, and the flip is made over the pointer's ETag as read.
    @Test func aCommandReadsWhatChangesOnceWhileItHoldsTheLock() throws {
        try withTemporaryDirectory { directory in
            let s3 = try S3Environments(in: directory)
            defer { s3.stop() }
            for commit in s3.fixture.commits { try #require(try s3.run(s3.publish(commit)).status == 0) }
            try s3.fixture.stampWeb()
            let publish = try s3.run(s3.publish(s3.fixture.commits[1]), environment: ["RATECARD_TRACE": "1"])
            let rollback = try s3.run(["rollback", "--env", "production", "-m", "measured"], environment: ["RATECARD_TRACE": "1"])
            for (command, result) in [("publish", publish), ("rollback", rollback)] {
                try #require(result.status == 0, "\(command): \(result.err.suffix(2000))")
                // The requests sent between taking the lock and giving it up, as "METHOD key".
                let sent = result.err.split(separator: "\n").compactMap { line -> String? in
                    guard line.hasPrefix("trace: s3: "), let colon = line.range(of: ": ", options: .backwards) else { return nil }
                    return String(line[line.index(line.startIndex, offsetBy: "trace: s3: ".count)..<colon.lowerBound])
                        .replacingOccurrences(of: s3.server.endpoint + "/rc-production/", with: "").replacingOccurrences(of: s3.server.endpoint + "/rc-production", with: "")
                }
                let start = try #require(sent.firstIndex(of: "PUT app/.ratecard/lock"), "\(command): \(sent)")
                let end = try #require(sent.lastIndex(of: "DELETE app/.ratecard/lock"), "\(command): \(sent)")
                let locked = sent[start...end]
                func count(_ request: String) -> Int { locked.filter { $0 == request || $0.hasPrefix(request + "&") }.count }
                #expect(count("GET app/current") == 1, "\(command): \(locked)")
                #expect(count("PUT app/current") == 1, "\(command): \(locked)")
                #expect(count("GET app/bridge-lines.json") == 1, "\(command): \(locked)")
                #expect(count("GET app/index.html") == 1, "\(command): \(locked)")
                // The entry folders and the manifests: one listing of the keys beginning with "r".
                #expect(count("GET ?list-type=2&max-keys=1000&prefix=app%2Fr") == 1, "\(command): \(locked)")
                #expect(count("GET ?list-type=2&max-keys=1000&prefix=app%2Freleases%2F") == 0, "\(command): \(locked)")
                #expect(count("GET ?list-type=2&max-keys=1000&prefix=app%2F.ratecard%2Fjournal%2F") == 1, "\(command): \(locked)")
            }
            // What was read under the lock followed the command's own writes.
            #expect(try s3.liveIsComplete("after the rollback") != nil)
            try s3.servedStateIsConsistent("after the rollback", staleAllowed: false)
            #expect(try s3.run(["status", "--env", "production"]).status == 0)
        }
    }

    /// The requests of a one-table publish that follows a one-table publish (the everyday rate
    /// update; `make bench` holds it to at most 60 on the generated content), one by one in the
    /// order sent, keys generalised: the build's reads of the live bundle, the lock, recovery's
    /// reads (one each: the listing of entry folders and manifests, the journal, the pointer, the
    /// served files), the number claimed, the new objects, the release, the flip and what follows
    /// the pointer, each state file after a renewal of the lock, the unlock. A request sent
    /// twice, or one that a conditional write makes unnecessary, fails it. How many objects and
    /// entry files are put depends on the content: they are counted from the releases'
    /// version.json; the build's reads of the live bundle may only get fewer.
    @Test(arguments: TestTier.isFull ? S3Engine.allCases : [.moto]) func aOneTablePublishSendsOnlyTheRequestsItNeeds(_ engine: S3Engine) throws {
        try withTemporaryDirectory { directory in
            let s3 = try S3Environments(in: directory, engine: engine, commits: 3, bridge: true)
            defer { s3.stop() }
            for commit in s3.fixture.commits.prefix(2) { try #require(try s3.run(s3.publish(commit)).status == 0) }
            let before = try #require(try s3.liveIsComplete("before"))
            let result = try s3.run(s3.publish(s3.fixture.commits[2]) + ["--format", "json"], environment: ["RATECARD_TRACE": "1"])
            try #require(result.status == 0, "\(result.err.suffix(2000))")
            let after = try #require(try s3.liveIsComplete("after"))
            try #require(after != before)
            let sent = result.err.split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("trace: s3: "), let colon = line.range(of: ": ", options: .backwards),
                    ["GET ", "PUT ", "HEAD ", "DELETE ", "POST "].contains(where: { line.dropFirst("trace: s3: ".count).hasPrefix($0) })
                else { return nil }
                return Self.generalised(
                    String(line[line.index(line.startIndex, offsetBy: "trace: s3: ".count)..<colon.lowerBound])
                        .replacingOccurrences(of: s3.server.endpoint + "/rc-production/", with: "").replacingOccurrences(of: s3.server.endpoint + "/rc-production", with: ""))
            }
            // ratecard's own count (`storage` in --format json) is the trace's.
            let storage = try JSONReader.parse(Array(result.out.utf8))["storage"]
            #expect(storage?["requests"]?.intValue == sent.count, "\(sent)")

            // The objects the new release names that the one before does not, and its entry files.
            let client = s3.client()
            func files(_ id: String) throws -> [JSON] { try JSONReader.parse(try #require(try client.get("releases/\(id).json")).bytes)["files"]?.arrayValue ?? [] }
            func object(_ file: JSON) -> String { ObjectLayout.objectName(sha256: file["sha256"]?.stringValue ?? "", path: file["path"]?.stringValue ?? "") }
            let old = Set(try files(before).map(object))
            let new = Set(try files(after).map(object)).subtracting(old).count
            let entries = try files(after).filter { ObjectLayout.inBucketEntryFolder($0["path"]?.stringValue ?? "", format: 3) }.count
            let reads = sent.prefix { !$0.hasPrefix("PUT app/.ratecard/lock") }.filter { $0 == "GET app/o/*" }.count
            #expect(reads <= 6, "the build read \(reads) objects of the live bundle: \(sent)")
            let expected =
                ["GET app/current", "GET app/releases/<id>.json"] + Array(repeating: "GET app/o/*", count: reads) + [
                    "PUT app/.ratecard/lock", "LIST r", "GET app/.ratecard/journal-state.json", "LIST .ratecard/journal/ after <n>", "GET app/current", "GET app/index.html",
                    "GET app/bridge-lines.json", "GET app/live.json", "PUT app/.ratecard/numbers/<n>",
                ] + Array(repeating: "PUT app/o/*", count: new) + ["PUT app/.ratecard/lock"] + Array(repeating: "PUT app/r/<id>/*", count: entries) + [
                    "PUT app/releases/<id>.json", "PUT app/.ratecard/lock", "PUT app/current", "PUT app/.ratecard/lock", "PUT app/index.html",
                    "PUT app/.ratecard/journal/<n>.json", "PUT app/.ratecard/journal-state.json", "PUT app/.ratecard/lock", "PUT app/bridge-lines.json", "PUT app/o/*",
                    "PUT app/.ratecard/lock", "PUT app/live.json", "GET app/.ratecard/lock", "DELETE app/.ratecard/lock",
                ]
            #expect(sent == expected, "sent \(sent.count), expected \(expected.count):\n\(sent.joined(separator: "\n"))")
            #expect(sent.count == 26 + reads + new + entries)
        }
    }

    /// A request as `METHOD key` with the parts that vary generalised: object names, release ids,
    /// numbers; a listing as `LIST <what>`.
    static func generalised(_ request: String) -> String {
        var text = request
        for (pattern, replacement) in [
            (#"/o/[0-9a-f]{64}(\.[a-z0-9]+)?$"#, "/o/*"), (#"/r/[0-9]{6}-[0-9a-f]{12}/.*$"#, "/r/<id>/*"), (#"/releases/[0-9]{6}-[0-9a-f]{12}\.json$"#, "/releases/<id>.json"),
            (#"/journal/[0-9]{10}\.json$"#, "/journal/<n>.json"), (#"/numbers/[0-9]{6}$"#, "/numbers/<n>"),
            (#"^GET \?list-type=2&max-keys=1000&prefix=app%2Fr$"#, "LIST r"),
            (#"^GET \?list-type=2&max-keys=1000&prefix=app%2F\.ratecard%2Fjournal%2F&start-after=.*$"#, "LIST .ratecard/journal/ after <n>"),
        ] {
            text = text.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        return text
    }

    @Test func publishRollbackStatusAndVerifyCostTheSameAfter5And500JournalEntries() throws {
        try withTemporaryDirectory { directory in
            let s3 = try S3Environments(in: directory)
            defer { s3.stop() }
            for commit in s3.fixture.commits { try #require(try s3.run(s3.publish(commit)).status == 0) }

            /// One round of the commands measured: a publish (one new web file), a rollback to the
            /// release before, `status`, `verify`; the requests of each.
            func round() throws -> [String: Int] {
                var counts: [String: Int] = [:]
                try s3.fixture.stampWeb()
                // The last round's rollback marked a release of this bundle bad: --force ships it again.
                counts["publish"] = try Self.requests(s3, s3.publish(s3.fixture.commits[1]) + ["--force"]).count
                counts["rollback"] = try Self.requests(s3, ["rollback", "--env", "production", "-m", "measured"]).count
                counts["status"] = try Self.requests(s3, ["status", "--env", "production"]).count
                counts["verify"] = try Self.requests(s3, ["verify", "--env", "production"]).count
                return counts
            }
            _ = try round()
            let few = try round()
            let entries = try s3.journal().count
            #expect(entries < 20)

            // 500 entries (100 in the sampled tier): the rest appended as another ratecard would
            // have (failures journaled).
            let target = TestTier.count(full: 500, sampled: 100)
            let client = s3.client()
            let last = try #require(try client.list(prefix: ".ratecard/journal/").compactMap { Int($0.dropFirst(".ratecard/journal/".count).dropLast(".json".count)) }.max())
            for number in (last + 1)...(last + target - entries) {
                let digits = String(number)
                let key = ".ratecard/journal/" + String(repeating: "0", count: 10 - digits.count) + digits + ".json"
                let entry = #"{"action":"failure","attempted":"publish","error":"filler","time":"2026-11-29T00:00:00Z","user":"ops"}"#
                _ = try client.put(key, Array((entry + "\n").utf8), contentType: "application/json", condition: .absent)
            }
            try #require(try s3.journal().count == target)
            // The first command after them reads them once (and keeps its checkpoint).
            _ = try round()
            let many = try round()
            #expect(many == few, "requests with \(entries) journal entries: \(few); with \(target): \(many)")
        }
    }
}
