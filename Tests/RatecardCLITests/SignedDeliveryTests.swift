import Foundation
import Glibc
import RatecardKit
import RatecardLoader
import Testing

/// live.json and its file lists, written by every command that changes what apps load, signed
/// where ratecard.yaml says `signing:`; the keys that sign it and the refusals without one.
@Suite(.serialized) struct SignedDeliveryTests {
    /// The fixture's serve root as a signed environment (`signed`, `expires_after_days: 2`), with
    /// a key pair made by `keys generate` outside the content repository.
    struct Signed {
        let fixture: PublishFixture
        let key: String
        let publicKey: String

        init(in directory: String) throws {
            fixture = try PublishFixture(in: directory, commits: 2, bridge: true)
            let made = try ratecard(["keys", "generate", "--out", directory + "/keys", "--name", "prod"], in: fixture.repo)
            try #require(made.status == 0, "\(made.err)")
            key = directory + "/keys/prod.key"
            publicKey = String(decoding: try FileSystem.readFile(directory + "/keys/prod.pub"), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(made.out.contains("signing:\n      keys: [\"\(publicKey)\"]"), "\(made.out)")
            try configure(keys: [publicKey])
        }

        func configure(keys: [String]) throws {
            let path = fixture.repo + "/ratecard.yaml"
            var text = String(decoding: try FileSystem.readFile(path), as: UTF8.self)
            if let start = text.range(of: "  signed:\n") { text = String(text[..<start.lowerBound]) }
            let list = keys.map { "\"\($0)\"" }.joined(separator: ", ")
            text += "  signed:\n    root: ../root\n    signing:\n      keys: [\(list)]\n      expires_after_days: 2\n"
            text += "  signed-copy:\n    root: ../copy\n    signing:\n      keys: [\(list)]\n      expires_after_days: 2\n"
            try FileSystem.writeFile(path, Array(text.utf8))
        }

        func run(_ arguments: [String], key: String? = nil, environment: [String: String] = [:]) throws -> Execution {
            try ratecard(arguments + (key.map { ["--signing-key", $0] } ?? []), in: fixture.repo, environment: environment)
        }

        func publish(_ commit: Int, key: String? = nil, environment: [String: String] = [:]) throws -> Execution {
            try run(["publish", "--env", "signed", "--rev", fixture.commits[commit], "--web", fixture.web, "--as-of", "2026-11-29", "-m", "test"], key: key, environment: environment)
        }

        var root: ServeRoot {
            var root = ServeRoot(path: fixture.root)
            root.delivery = LiveDelivery(environment: "signed", signing: .init(keys: [publicKey], expiresAfterDays: 2))
            return root
        }

        /// live.json decoded, its signatures checked against `publicKey`, and each file list it
        /// names checked against its hash and its release.
        func statement(sourceLocation: SourceLocation = #_sourceLocation) throws -> LiveStatement {
            let envelope = try JSONDecoder().decode(SignedLiveStatement.self, from: Data(try FileSystem.readFile(fixture.root + "/live.json")))
            let statement = try JSONDecoder().decode(LiveStatement.self, from: Data(try #require(envelope.payloadBytes)))
            #expect(envelope.signatures.contains { $0.key == publicKey }, sourceLocation: sourceLocation)
            for signature in envelope.signatures {
                let bytes = try #require(Data(base64Encoded: signature.sig))
                let trusted = try #require(TrustedKey(signature.key))
                #expect(Ed25519.isValid(signature: Array(bytes), of: try #require(envelope.signedBytes), publicKey: trusted.raw), sourceLocation: sourceLocation)
            }
            #expect(statement.environment == "signed", sourceLocation: sourceLocation)
            #expect(statement.live.release == (try root.live()), sourceLocation: sourceLocation)
            for line in [statement.live] + Array(statement.lines.values) {
                let list = try FileSystem.readFile(fixture.root + "/objects/\(line.files).json")
                #expect(SHA256.hex(list) == line.files, sourceLocation: sourceLocation)
                let decoded = try JSONDecoder().decode(ReleaseFileList.self, from: Data(list))
                let info = try root.info(of: line.release)
                #expect(decoded.release == line.release && decoded.environment == "signed", sourceLocation: sourceLocation)
                #expect(decoded.files.map(\.path) == info.files.map(\.path).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }, sourceLocation: sourceLocation)
                for file in decoded.files {
                    #expect(FileSystem.exists(fixture.root + "/objects/" + file.object), "\(file.path): no object \(file.object)", sourceLocation: sourceLocation)
                }
            }
            let signed = try #require(LiveStatements.seconds(statement.signedAt))
            #expect(statement.expiresAt.flatMap(LiveStatements.seconds) == signed + 2 * 86400, sourceLocation: sourceLocation)
            return statement
        }

        /// What a refused command must leave as it was.
        func snapshot() throws -> [[UInt8]?] {
            [fixture.root + "/live.json", fixture.root + "/.ratecard/journal.jsonl", fixture.root + "/bridge-lines.json"].map { try? FileSystem.readFile($0) }
                + [try root.live().map { Array($0.utf8) }]
        }
    }

    @Test func everyChangingCommandSignsLiveJsonAndRefusesWithoutAUsableKey() throws {
        try withTemporaryDirectory { directory in
            let signed = try Signed(in: directory)
            let key = signed.key
            // keys generate: PKCS#8 PEM that openssl reads, mode 0600; a .pub of one line.
            var info = stat()
            #expect(stat(key, &info) == 0 && info.st_mode & 0o777 == 0o600)
            #expect(String(decoding: try FileSystem.readFile(key), as: UTF8.self).hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
            let (opensslStatus, opensslOut) = try runTool("/usr/bin/openssl", ["pkey", "-in", key, "-pubout", "-outform", "DER"])
            #expect(opensslStatus == 0, "\(opensslOut)")
            #expect(TrustedKey(signed.publicKey) != nil)
            let inside = try signed.run(["keys", "generate", "--out", signed.fixture.repo + "/keys"])
            #expect(inside.status == 1 && inside.err.contains("inside the content repository"), "\(inside.err)")
            #expect(!FileSystem.exists(signed.fixture.repo + "/keys"))

            // No key, an unreadable one, one readable by others, one inside the repository, one
            // not listed: refused, nothing written.
            let other = try signed.run(["keys", "generate", "--out", directory + "/keys", "--name", "other"])
            #expect(other.status == 0)
            try FileSystem.writeFile(directory + "/open.key", try FileSystem.readFile(key), mode: 0o644)
            chmod(directory + "/open.key", 0o644)
            try FileSystem.writeFile(signed.fixture.repo + "/in-repo.key", try FileSystem.readFile(key), mode: 0o600)
            let refusals: [(String?, [String: String], String)] = [
                (nil, [:], "no signing key was given"),
                (directory + "/missing.key", [:], "cannot be read"),
                (directory + "/open.key", [:], "chmod 600"),
                (signed.fixture.repo + "/in-repo.key", [:], "inside the content repository"),
                (directory + "/keys/other.key", [:], "is not listed in signing.keys"),
                (nil, ["RATECARD_SIGNING_KEY": "not a key"], "does not hold an Ed25519 private key"),
            ]
            for (given, environment, says) in refusals {
                let refused = try signed.publish(0, key: given, environment: environment)
                #expect(refused.status == 1 && refused.err.contains(says) && refused.err.contains("nothing was changed"), "\(says): \(refused.err)")
                #expect(try signed.root.live() == nil && !FileSystem.exists(signed.fixture.root + "/live.json"))
            }

            // publish (--signing-key), then publish (RATECARD_SIGNING_KEY): sequences 1 and 2.
            let first = try signed.publish(0, key: key)
            try #require(first.status == 0, "\(first.err)")
            #expect(try signed.statement().sequence == 1)
            let second = try signed.publish(1, environment: ["RATECARD_SIGNING_KEY": String(decoding: try FileSystem.readFile(key), as: UTF8.self)])
            try #require(second.status == 0, "\(second.err)")
            #expect(try signed.statement().sequence == 2)
            let ids = try signed.root.releaseIDs()

            // Killed between the flip and live.json: status and verify say it is stale, and the
            // next command under the lock rewrites it with a higher sequence.
            let killed = try signed.run(["rollback", "--env", "signed", "--to", ids[0], "-m", "x"], key: key, environment: ["RATECARD_CRASH_AT": "lines-written"])
            #expect(killed.status != 0)
            #expect(try signed.root.live() == ids[0])
            let stale = try signed.run(["status", "--env", "signed"])
            #expect(stale.out.contains("stale: live.json names release \(ids[1]) as live, not \(ids[0])"), "\(stale.out)")
            #expect(try signed.run(["verify", "--env", "signed"]).status == 1)
            let forward = try signed.run(["rollback", "--env", "signed", "--to", ids[1], "-m", "forward"], key: key)
            #expect(forward.status == 0, "\(forward.err)")
            #expect(try signed.statement().sequence == 5, "the repair took 4, the rollback 5 (the killed one's 3 was journaled)")
            #expect(try LiveStatements.staleness(root: signed.root).isEmpty)

            // rollback, releases --clear-bad, prune, sign: refused without the key (the live
            // release, live.json, the journal and the bridge lines unchanged), signed with it.
            let before = try signed.snapshot()
            for arguments in [
                ["rollback", "--env", "signed", "-m", "x"], ["releases", "--env", "signed", "--clear-bad", ids[1], "-m", "x"],
                ["prune", "--env", "signed", "--keep", "1"], ["sign", "--env", "signed"], ["repair", "--env", "signed"],
            ] {
                let refused = try signed.run(arguments)
                #expect(refused.status == 1 && refused.err.contains("no signing key was given"), "\(arguments[0]): \(refused.err)")
                #expect(try signed.snapshot() == before, "\(arguments[0]) changed something")
            }
            // promote into a signed environment: refused before anything is copied there.
            let promoted = try signed.run(["promote", "--from", "signed", "--to", "signed-copy", "-m", "x"])
            #expect(promoted.status == 1 && promoted.err.contains("no signing key was given"), "\(promoted.err)")
            #expect(!FileSystem.exists(directory + "/copy/current") && !FileSystem.exists(directory + "/copy/objects"))
            let rolledBack = try signed.run(["rollback", "--env", "signed", "-m", "x"], key: key)
            #expect(rolledBack.status == 0, "\(rolledBack.err)")
            var statement = try signed.statement()
            #expect(statement.sequence == 6 && statement.live.release == ids[0])
            #expect(try signed.run(["releases", "--env", "signed", "--clear-bad", ids[1], "-m", "x"], key: key).status == 0)
            #expect(try signed.statement().sequence == 7)
            let pruned = try signed.run(["prune", "--env", "signed", "--keep", "1"], key: key)
            #expect(pruned.status == 0, "\(pruned.err)")
            statement = try signed.statement()
            #expect(statement.sequence == 8)

            // Deleted or replaced by an older one, live.json never takes a sequence again: the
            // journal recorded the highest.
            unlink(signed.fixture.root + "/live.json")
            let resigned = try signed.run(["sign", "--env", "signed"], key: key)
            #expect(resigned.status == 0 && resigned.out.contains("sequence 9"), "\(resigned.out)\(resigned.err)")
            #expect(try signed.statement().sequence == 9)

            // Rotation: two keys listed, both given, both sign; the old one dropped, the new one signs alone.
            let newKey = String(decoding: try FileSystem.readFile(directory + "/keys/other.pub"), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            try signed.configure(keys: [signed.publicKey, newKey])
            let both = try signed.run(["sign", "--env", "signed", "--signing-key", key, "--signing-key", directory + "/keys/other.key"])
            #expect(both.status == 0, "\(both.err)")
            let envelope = try JSONDecoder().decode(SignedLiveStatement.self, from: Data(try FileSystem.readFile(signed.fixture.root + "/live.json")))
            #expect(envelope.signatures.map(\.key) == [signed.publicKey, newKey])

            // status and verify show the sequence, the signers and the expiry; two days left is
            // within the warning's three.
            let status = try signed.run(["status", "--env", "signed"])
            let expires = try #require(try signed.statement().expiresAt)
            #expect(status.status == 0 && status.out.contains("signing:   sequence 10, signed by \(signed.publicKey), \(newKey), expires \(expires)"), "\(status.out)")
            #expect(status.err.contains("live.json expires at \(expires) (in 4") && status.err.contains("ratecard sign --env signed"), "\(status.err)")
            let verified = try signed.run(["verify", "--env", "signed"])
            #expect(verified.status == 0 && verified.out.contains("live.json: sequence 10, signed by"), "\(verified.out)\(verified.err)")
            // A signature that does not verify, a file list changed, a statement behind the pointer: verify exits 1.
            let list = signed.fixture.root + "/objects/\(try signed.statement().live.files).json"
            var forged = envelope
            forged.signatures[0].sig = forged.signatures[1].sig
            try FileSystem.writeFile(signed.fixture.root + "/live.json", Array(try JSONEncoder().encode(forged)))
            let bad = try signed.run(["verify", "--env", "signed"])
            #expect(bad.status == 1 && bad.out.contains("live.json: the signature by \(signed.publicKey) does not verify"), "\(bad.out)")
            var listBytes = try FileSystem.readFile(list)
            listBytes[listBytes.count - 2] ^= 1
            try FileSystem.writeFile(list, listBytes)
            #expect(try signed.run(["verify", "--env", "signed"]).out.contains("does not match its hash or the release's files"))
            // sign writes a new statement and puts back the file list (derived from the release).
            #expect(try signed.run(["sign", "--env", "signed"], key: key).status == 0)
            let mended = try signed.run(["verify", "--env", "signed"])
            #expect(mended.status == 0, "\(mended.out)")
            #expect(try signed.statement().sequence == 11)
        }
    }

    /// A change names the file list each release was journaled with when it was made live, and
    /// makes a list only for the release it publishes, or for one whose list object is gone
    /// (then put back): the statements are those `statement()` checks against lists made anew.
    @Test func aChangeTakesTheJournaledFileListsAndMakesOnlyWhatIsMissing() throws {
        try withTemporaryDirectory { directory in
            let signed = try Signed(in: directory)
            let trace = ["RATECARD_TRACE": "1"]
            func made(_ run: Execution) -> [String] {
                run.err.split(separator: "\n").filter { $0.contains("live.json: the file list of") && $0.contains(" made") }.map(String.init)
            }
            try #require(try signed.publish(0, key: signed.key).status == 0)
            let second = try signed.publish(1, key: signed.key, environment: trace)
            try #require(second.status == 0, "\(second.err)")
            let ids = try signed.root.releaseIDs()
            // The publish made its own release's list once; the live one's came from the journal.
            #expect(made(second).count == 1 && made(second).first?.contains(ids[1]) == true, "\(second.err)")
            #expect(second.err.contains("the file list of \(ids[0]) taken from the journal"), "\(second.err)")
            let statement = try signed.statement()
            let journal = String(decoding: try FileSystem.readFile(signed.fixture.root + "/.ratecard/journal.jsonl"), as: UTF8.self)
            let entry = try #require(journal.split(separator: "\n").last { $0.contains(#""action":"publish""#) })
            let record = try #require(JournalState.FileListRecord(json: try JSONReader.parse(Array(entry.utf8))["file_list"]))
            let manifest = try FileSystem.readFile(signed.fixture.root + "/releases/\(ids[1])/version.json")
            #expect(record == .init(sha256: statement.live.files, size: record.size, environment: "signed", format: 1, version: SHA256.hex(manifest)))
            #expect(try FileSystem.readFile(signed.fixture.root + "/objects/\(record.sha256).json").count == record.size)

            // A rollback and a roll forward make no list.
            for (target, message) in [(ids[0], "back"), (ids[1], "forward")] {
                let run = try signed.run(["rollback", "--env", "signed", "--to", target, "-m", message], key: signed.key, environment: trace)
                try #require(run.status == 0, "\(run.err)")
                #expect(made(run).isEmpty, "\(run.err)")
                #expect(try signed.statement().live.release == target)
            }
            // A list object that is gone is made again and put back (`sign` rewrites live.json).
            let gone = try signed.statement()
            try FileSystem.removeTree(signed.fixture.root + "/objects/\(gone.live.files).json")
            let again = try signed.run(["sign", "--env", "signed"], key: signed.key, environment: trace)
            try #require(again.status == 0, "\(again.err)")
            #expect(made(again).count == 1 && made(again).first?.contains(gone.live.release) == true, "\(again.err)")
            #expect(try signed.statement().live.files == gone.live.files)
            let verified = try signed.run(["verify", "--env", "signed"])
            #expect(verified.status == 0, "\(verified.out)\(verified.err)")
        }
    }
}
