import Foundation
import Glibc
import RatecardKit
import Testing

/// Reading `.ratecard/journal.jsonl` into typed entries: what each line becomes, and what a line
/// that is not an entry is reported as.
@Suite struct JournalTests {
    /// Lines as ratecard has written them since the first release of the serve root.
    static let written = [
        #"{"action":"publish","author":"kim","bundle_id":"b1","commit":"c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1","message":"first","previous":null,"release":"000001-aaaa","time":"2026-01-01T00:00:00Z","user":"ci","version_sha256":"s1"}"#,
        #"{"action":"publish","approval":{"by":"lee","reason":"memo 7","risks":["APR moves 3.5pp"]},"author":"kim","bundle_id":"b2","commit":"c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2","message":"second","previous":"000001-aaaa","release":"000002-bbbb","time":"2026-01-02T00:00:00Z","user":"ci","version_sha256":"s2"}"#,
        #"{"action":"rollback-intent","from":"000002-bbbb","message":"wrong band","time":"2026-01-03T00:00:00Z","to":"000001-aaaa","user":"ops"}"#,
        #"{"action":"rollback","from":"000002-bbbb","message":"wrong band","time":"2026-01-03T00:00:01Z","to":"000001-aaaa","user":"ops"}"#,
        #"{"action":"prune","bytes_freed":10,"grace_minutes":0,"keep":1,"objects_removed":2,"removed":[],"time":"2026-01-04T00:00:00Z","user":"ops"}"#,
        #"{"action":"failure","attempted":"publish","error":"disk full","release":"000003-cccc","time":"2026-01-05T00:00:00Z","user":"ci"}"#,
    ]

    func journal(_ lines: [String], in directory: String, end: String = "\n") throws -> Journal {
        try FileSystem.writeFile(directory + "/journal.jsonl", Array((lines.joined(separator: "\n") + end).utf8))
        return Journal(path: directory + "/journal.jsonl")
    }

    @Test func linesWrittenByEveryVersionReadAsTypedEntries() throws {
        try withTemporaryDirectory { directory in
            let contents = try journal(Self.written, in: directory).read()
            #expect(contents.problems.isEmpty, "\(contents.problems)")
            #expect(contents.entries.map(\.action) == [.publish, .publish, .rollbackIntent, .rollback, .prune, .failure])
            let second = contents.entries[1]
            #expect(second.release == "000002-bbbb" && second.previous == "000001-aaaa" && second.commit == ObjectID(hex: "c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2c2") && second.seal == "s2")
            #expect(second.approval == Journal.Approval(reason: "memo 7", by: "lee", risks: ["APR moves 3.5pp"]))
            #expect(contents.entries[0].previous == nil)
            #expect(contents.entries.map(\.activated) == ["000001-aaaa", "000002-bbbb", nil, "000001-aaaa", nil, nil])
            #expect(contents.badReleases() == ["000002-bbbb"])
        }
    }

    /// A recover entry seals a release whose own entry (and seal) was lost, but never replaces
    /// a seal journaled before: a version.json changed since must still fail its check.
    @Test func aRecoverEntrySealsOnlyAReleaseWithoutASeal() throws {
        try withTemporaryDirectory { directory in
            let lines = [
                Self.written[0],
                #"{"action":"recover","release":"000002-bbbb","time":"2026-01-02T00:00:00Z","version_sha256":"s2"}"#,
                #"{"action":"recover","release":"000001-aaaa","time":"2026-01-03T00:00:00Z","version_sha256":"edited"}"#,
            ]
            var state = JournalState()
            state.apply(try journal(lines, in: directory).read(), through: lines.count)
            #expect(state.seals == ["000001-aaaa": "s1", "000002-bbbb": "s2"])
        }
    }

    /// The file list an entry that made a release live journaled (`file_list`) is kept for that
    /// release, replaced by a later one, dropped when the release is pruned, and kept by a
    /// checkpoint; an entry that made nothing live, or a partial record, keeps nothing.
    @Test func eachReleaseKeepsTheFileListItWasLastMadeLiveWith() throws {
        func entry(_ json: String) throws -> Journal.Entry { try Journal.Entry.read(Array(json.utf8)) }
        func list(_ sha: String) -> String { #""file_list":{"environment":"prod","format":1,"sha256":"\#(sha)","size":10,"version_sha256":"v\#(sha)"}"# }
        let time = "2026-12-05T01:00:00Z"
        var state = JournalState()
        state.apply(try entry(#"{"action":"publish","time":"\#(time)","release":"000001-aaaa",\#(list("a1"))}"#))
        state.apply(try entry(#"{"action":"publish","time":"\#(time)","release":"000002-bbbb",\#(list("b1"))}"#))
        state.apply(try entry(#"{"action":"rollback","time":"\#(time)","from":"000002-bbbb","to":"000001-aaaa",\#(list("a2"))}"#))
        state.apply(try entry(#"{"action":"sign","time":"\#(time)",\#(list("x"))}"#))
        state.apply(try entry(#"{"action":"recover","time":"\#(time)","release":"000002-bbbb","file_list":{"sha256":"b2"}}"#))
        #expect(
            state.fileLists == [
                "000001-aaaa": .init(sha256: "a2", size: 10, environment: "prod", format: 1, version: "va2"),
                "000002-bbbb": .init(sha256: "b1", size: 10, environment: "prod", format: 1, version: "vb1"),
            ])
        let checkpoint = try #require(JournalState(json: state.json))
        #expect(checkpoint == state && checkpoint.fileLists == state.fileLists)
        state.apply(try entry(#"{"action":"prune","time":"\#(time)","removed":["000002-bbbb"]}"#))
        #expect(state.fileLists.keys.sorted() == ["000001-aaaa"])
        // A checkpoint from before file lists were journaled has none (each is made again).
        guard case .object(var fields) = state.json else { return #expect(Bool(false)) }
        fields["file_lists"] = nil
        #expect(JournalState(json: .object(fields))?.fileLists == [:])
    }

    @Test func whatAppendWritesReadsBack() throws {
        try withTemporaryDirectory { directory in
            let journal = Journal(path: directory + "/journal.jsonl")
            try journal.append(["action": .string("clear-bad"), "time": .string("2026-01-06T00:00:00Z"), "user": .string("ops"), "release": .string("000002-bbbb"), "message": .string("re-checked")])
            let entry = try #require(try journal.read().entries.first)
            #expect(entry.action == .clearBad && entry.release == "000002-bbbb" && entry.message == "re-checked" && entry.user == "ops")
        }
    }

    @Test(arguments: [
        (#"not json"#, "it is not JSON", false),
        (#"[1,2]"#, "it is not a JSON object", false),
        (#"{"time":"2026-01-01T00:00:00Z"}"#, #"it has no "action""#, false),
        (#"{"action":"rolback","from":"a","to":"b","time":"t"}"#, #"unknown action "rolback""#, false),
        (#"{"action":"rollback","from":"a","time":"t"}"#, #"a rollback entry needs "to""#, false),
        (#"{"action":"publish","time":"t"}"#, #"a publish entry needs "release""#, false),
        (#"{"action":"rollback","from":"a","to":7,"time":"t"}"#, #""to" is not a string"#, false),
        (#"{"action":"publish","release":"r"}"#, #"it has no "time""#, false),
        (#"{"action":"publish","commit":"HEAD~1","release":"r","time":"t"}"#, #""commit": "HEAD~1" is not a commit id"#, false),
        (#"{"action":"rollback-intent","from":"000002-bb"#, "it is not JSON", true),
    ])
    func aLineThatIsNotAnEntryIsReportedWithItsLineAndReason(_ line: String, _ reason: String, _ torn: Bool) throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/journal.jsonl"
            let contents = try journal([Self.written[0], line, Self.written[1]], in: directory).read()
            #expect(contents.entries.map(\.release) == ["000001-aaaa", "000002-bbbb"])
            #expect(contents.problems == [Journal.Problem(location: "\(path):2", number: 2, reason: reason, torn: torn)])
            #expect(contents.malformedLines == [2])
            if torn {
                #expect(contents.warnings.map(\.english) == ["\(path):2: an entry torn by a crash mid-append (\(reason)); it was skipped"])
                try contents.requireUndamaged()
            } else {
                #expect(contents.warnings.map(\.english) == ["\(path):2: not a journal entry: \(reason)"])
                expectThrows(
                    OperationalError.self,
                    "\(path):2: not a journal entry: \(reason); it may have been a bad mark, so nothing was changed. Mend the line (or delete it, once you know what it was) and run the command again"
                ) {
                    try contents.requireUndamaged()
                }
            }
        }
    }

    @Test func aDamagedLineStopsTheBadMarksFromBeingTrustedButATornOneDoesNot() throws {
        try withTemporaryDirectory { directory in
            // The rollback's two lines edited: read line by line and skipped, the bad mark on
            // 000002 would vanish without a word.
            let damaged = Self.written.map { $0.replacingOccurrences(of: #""action":"rollback"#, with: #""action":"rolback"#) }
            let journal = try journal(damaged, in: directory)
            #expect(try journal.read().badReleases().isEmpty)
            #expect(throws: OperationalError.self) { try journal.badReleases(live: "000001-aaaa") }
            // A torn last line (a crash mid-append) is skipped: the marks before it still hold.
            let torn = try self.journal(Self.written + [#"{"action":"rollback-intent","from":"000001-aa"#], in: directory, end: "")
            #expect(try torn.badReleases(live: "000001-aaaa") == ["000002-bbbb"])
        }
    }
}

/// bridge-lines.json, read through Codable: a malformed file is an error naming it.
@Suite struct BridgeLinesFileTests {
    func root(_ text: String, in directory: String) throws -> ServeRoot {
        try FileSystem.writeFile(directory + "/" + BridgeLines.fileName, Array(text.utf8))
        return ServeRoot(path: directory)
    }

    @Test func theLinesAndRequirementsReadBack() throws {
        try withTemporaryDirectory { directory in
            let root = try root(#"{"lines": {"3": "000002-bbbb", "5": "000004-dddd"}, "requires": {"000002-bbbb": 3, "000004-dddd": 5}}"#, in: directory)
            #expect(try BridgeLines.read(root: root) == [3: "000002-bbbb", 5: "000004-dddd"])
        }
    }

    @Test(arguments: [
        (#"{"lines": {"3": 7}}"#, #""lines.3" is not a string"#),
        (#"{"requires": {}}"#, #"it has no "lines""#),
        (#"{"lines": {"three": "000002-bbbb"}}"#, #"line "three" is not a whole number"#),
        (#"{"lines": "#, "it is not JSON"),
    ])
    func aMalformedFileIsAnErrorNamingIt(_ text: String, _ reason: String) throws {
        try withTemporaryDirectory { directory in
            let root = try root(text, in: directory)
            expectThrows(OperationalError.self, "\(directory)/bridge-lines.json is malformed: \(reason)") { try BridgeLines.read(root: root) }
        }
    }
}
