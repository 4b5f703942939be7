import Foundation
import Glibc
import RatecardKit
import Testing

/// What a hostile or careless user can do to a content repository or a serve root, and what
/// ratecard does about it: refuse with a clear message and the right exit code, lose nothing,
/// never write through a planted symlink, never read a huge file to refuse it.
@Suite(.serialized) struct SecurityFaultTests {
    // MARK: Symlinks planted under the serve root

    @Test(arguments: ["lock", "journal.jsonl"])
    func aSymlinkedStateFileIsRefusedAndItsTargetUntouched(_ name: String) throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory)
            let first = try ratecard(fixture.publishArguments(fixture.commits[0]), in: fixture.repo)
            try #require(first.status == 0, "\(first.err)")
            let live = try ServeRoot(path: fixture.root).live()
            // Any file the publisher can write: it must be neither truncated nor appended to.
            let victim = directory + "/victim.txt"
            try FileSystem.writeFile(victim, Array("precious\n".utf8))
            let path = fixture.root + "/.ratecard/" + name
            unlink(path)
            try #require(symlink(victim, path) == 0)
            for arguments in [fixture.publishArguments(fixture.commits[1]), ["rollback", "--root", fixture.root, "-m", "x"], ["prune", "--root", fixture.root, "--keep", "1"]] {
                let refused = try ratecard(arguments, in: fixture.repo)
                #expect(refused.status == 4, "\(arguments[0]): \(refused.out)\(refused.err)")
                #expect(refused.err.contains("\(path) is a symlink; ratecard never writes through one"), "\(refused.err)")
                #expect(try FileSystem.readFile(victim) == Array("precious\n".utf8), "\(arguments[0]) wrote through the symlink")
                #expect(try ServeRoot(path: fixture.root).live() == live)
            }
        }
    }

    /// A hard link is another name for the same file: truncating the lock or appending to the
    /// journal through it would write to that file. Refused by the descriptor, before any write.
    @Test(arguments: ["lock", "journal.jsonl"])
    func aHardLinkedStateFileIsRefusedAndItsOtherNameUntouched(_ name: String) throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory)
            let first = try ratecard(fixture.publishArguments(fixture.commits[0]), in: fixture.repo)
            try #require(first.status == 0, "\(first.err)")
            let live = try ServeRoot(path: fixture.root).live()
            let path = fixture.root + "/.ratecard/" + name
            // Another name for the state file, outside the serve root (a file someone else owns).
            let other = directory + "/other-name"
            try #require(link(path, other) == 0)
            let before = try FileSystem.readFile(other)
            for arguments in [fixture.publishArguments(fixture.commits[1]), ["rollback", "--root", fixture.root, "-m", "x"], ["prune", "--root", fixture.root, "--keep", "1"]] {
                let refused = try ratecard(arguments, in: fixture.repo)
                #expect(refused.status == 4, "\(arguments[0]): \(refused.out)\(refused.err)")
                #expect(refused.err.contains("\(path) has 2 hard links (another name is the same file); ratecard never writes through one"), "\(refused.err)")
                #expect(try FileSystem.readFile(other) == before, "\(arguments[0]) wrote through the hard link")
                #expect(try ServeRoot(path: fixture.root).live() == live)
            }
            let korean = try ratecard(fixture.publishArguments(fixture.commits[1]) + ["--lang", "ko"], in: fixture.repo)
            #expect(korean.status == 4)
            #expect(korean.err.contains("\(path)에 하드 링크가 2개 있습니다 (다른 이름도 같은 파일입니다). ratecard는 하드 링크를 거쳐 쓰지 않습니다"), "\(korean.err)")
            // The fix the message gives: a file of its own, and everything works again.
            let (mended, output) = try runTool("/bin/sh", ["-c", "cp -p '\(path)' '\(path).own' && mv '\(path).own' '\(path)'"])
            try #require(mended == 0, "\(output)")
            let again = try ratecard(fixture.publishArguments(fixture.commits[1]), in: fixture.repo)
            #expect(again.status == 0, "\(again.out)\(again.err)")
            #expect(try FileSystem.readFile(other) == before)
        }
    }

    /// A FIFO in place of a state file would block its open (and every read) until someone
    /// writes to it: publish, rollback and releases would hang for good. Each is refused (exit 4,
    /// naming the file); the commands run under a deadline so that a hang fails the test.
    @Test(arguments: ["journal.jsonl", "lock"])
    func aFIFOInPlaceOfAStateFileIsRefusedNotWaitedOn(_ name: String) throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory)
            let first = try ratecard(fixture.publishArguments(fixture.commits[0]), in: fixture.repo)
            try #require(first.status == 0, "\(first.err)")
            let live = try ServeRoot(path: fixture.root).live()
            let path = fixture.root + "/.ratecard/" + name
            unlink(path)
            try #require(mkfifo(path, 0o644) == 0)
            // The lock is taken by the commands that change the root; releases only reads the journal.
            let commands = [fixture.publishArguments(fixture.commits[1]), ["rollback", "--root", fixture.root, "-m", "x"]] + (name == "lock" ? [] : [["releases", "--root", fixture.root]])
            for arguments in commands {
                let (status, output) = try runTool("/usr/bin/timeout", ["-s", "KILL", "30", binaryFolder + "/ratecard", "-C", fixture.repo] + arguments)
                #expect(status == 4, "\(arguments[0]) (137: it hung): \(output)")
                #expect(output.contains("\(path) is not a regular file (a FIFO, a device, a socket or a folder is in its place)"), "\(arguments[0]): \(output)")
                #expect(try ServeRoot(path: fixture.root).live() == live)
            }
        }
    }

    /// A release's version.json is read the same way: a FIFO there is refused by verify, not
    /// waited on.
    @Test func aFIFOInPlaceOfAReleaseRecordIsRefusedNotWaitedOn() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 1)
            let first = try ratecard(fixture.publishArguments(fixture.commits[0]), in: fixture.repo)
            try #require(first.status == 0, "\(first.err)")
            let live = try #require(try ServeRoot(path: fixture.root).live())
            let path = fixture.root + "/releases/" + live + "/version.json"
            try #require(unlink(path) == 0 && mkfifo(path, 0o644) == 0)
            let (status, output) = try runTool("/usr/bin/timeout", ["-s", "KILL", "30", binaryFolder + "/ratecard", "-C", fixture.repo, "verify", "--root", fixture.root])
            #expect(status == 4, "verify (137: it hung): \(output)")
            #expect(output.contains("\(path) is not a regular file"), "\(output)")
        }
    }

    @Test func aSymlinkedStateFolderIsRefused() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory)
            let first = try ratecard(fixture.publishArguments(fixture.commits[0]), in: fixture.repo)
            try #require(first.status == 0, "\(first.err)")
            let elsewhere = directory + "/elsewhere"
            try FileSystem.makeDirectories(elsewhere)
            try FileSystem.removeTree(fixture.root + "/.ratecard")
            try #require(symlink(elsewhere, fixture.root + "/.ratecard") == 0)
            let refused = try ratecard(fixture.publishArguments(fixture.commits[1]), in: fixture.repo)
            #expect(refused.status == 4, "\(refused.out)\(refused.err)")
            #expect(refused.err.contains("/.ratecard is not a folder (a symlink or a file is in its place)"), "\(refused.err)")
            #expect(try FileSystem.listDirectory(elsewhere).isEmpty, "something was written through the symlinked folder")
        }
    }

    // MARK: The journal and the bad mark

    @Test func aRollbackKilledAfterItsSwapKeepsTheBadMark() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory)
            try fixture.publishEach()
            let serve = ServeRoot(path: fixture.root)
            let ids = try serve.releaseIDs()
            try #require(ids.count == 2)
            // kill -9 after the swap, before the rollback's own journal entry.
            let process = try fixture.start(["rollback", "--root", fixture.root, "-m", "wrong band"], environment: ["RATECARD_CRASH_AT": "swapped"])
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL)
            #expect(try serve.live() == ids[0])
            #expect(try serve.badReleases() == [ids[1]], "the bad mark was lost with the crash")
            // The next bare rollback must not return to the bad release.
            let next = try ratecard(["rollback", "--root", fixture.root, "-m", "again"], in: fixture.repo)
            #expect(next.status == 3, "\(next.out)\(next.err)")
            #expect(next.err.contains("no earlier good release to roll back to"), "\(next.err)")
            #expect(try serve.live() == ids[0])
        }
    }

    @Test func aRollbackKilledBeforeItsSwapMarksNothingBad() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 3)
            try fixture.publishEach()
            let serve = ServeRoot(path: fixture.root)
            let ids = try serve.releaseIDs()
            // kill -9 after the intent is journaled, before the swap: nothing happened.
            let process = try fixture.start(["rollback", "--root", fixture.root, "-m", "changed my mind"], environment: ["RATECARD_CRASH_AT": "intent"])
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL)
            #expect(try serve.live() == ids[2])
            #expect(try serve.badReleases().isEmpty, "a rollback that never swapped marked a release bad")
            // The live release is still the one a bare rollback leaves, and 000002 is still good.
            let dry = try ratecard(["rollback", "--root", fixture.root, "--dry-run"], in: fixture.repo)
            #expect(dry.out.contains("from \(ids[2]) to \(ids[1])"), "\(dry.out)")
            let prune = try ratecard(["prune", "--root", fixture.root, "--keep", "1", "--dry-run"], in: fixture.repo)
            #expect(prune.out.contains("Would remove 1 release: \(ids[0])."), "\(prune.out)")
        }
    }

    @Test func aTornJournalLineIsReportedAndTheNextEntryStartsOnItsOwnLine() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory)
            let first = try ratecard(fixture.publishArguments(fixture.commits[0]), in: fixture.repo)
            try #require(first.status == 0, "\(first.err)")
            let path = fixture.root + "/.ratecard/journal.jsonl"
            // A crash mid-append: half an entry, no newline.
            let fd = open(path, O_WRONLY | O_APPEND)
            try #require(fd >= 0)
            _ = "{\"action\":\"publish\",\"rele".withCString { write(fd, $0, strlen($0)) }
            close(fd)
            let second = try ratecard(fixture.publishArguments(fixture.commits[1]), in: fixture.repo)
            #expect(second.status == 0, "\(second.err)")
            let serve = ServeRoot(path: fixture.root)
            let journal = try serve.journal.read()
            #expect(journal.malformedLines == [2])
            #expect(journal.entries.last?.action == .publish)
            #expect(journal.entries.last?.release == (try serve.live()), "the new entry glued onto the torn line")
            let releases = try ratecard(["releases", "--root", fixture.root], in: fixture.repo)
            #expect(releases.status == 0)
            #expect(releases.err.contains("warning: \(path):2: an entry torn by a crash mid-append (it is not JSON); it was skipped"), "\(releases.err)")
            // A torn line never held a bad mark that took effect: a rollback goes on.
            let rollback = try ratecard(["rollback", "--root", fixture.root, "-m", "back"], in: fixture.repo)
            #expect(rollback.status == 0, "\(rollback.err)")
        }
    }

    @Test func anEditedRollbackLineIsRefusedNotSkipped() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 3)
            try fixture.publishEach()
            let serve = ServeRoot(path: fixture.root)
            let ids = try serve.releaseIDs()
            #expect(try ratecard(["rollback", "--root", fixture.root, "-m", "wrong band"], in: fixture.repo).status == 0)
            #expect(try serve.badReleases() == [ids[2]])
            // Someone edits the journal: the rollback and its intent are no longer entries.
            let path = fixture.root + "/.ratecard/journal.jsonl"
            let text = String(decoding: try FileSystem.readFile(path), as: UTF8.self)
            let lines = text.split(separator: "\n").map(String.init)
            let intentLine = try #require(lines.firstIndex { $0.contains(#""action":"rollback-intent""#) }) + 1
            try FileSystem.writeFile(path, Array(text.replacingOccurrences(of: #""action":"rollback"#, with: #""action":"rolback"#).utf8))
            // Skipping them would lose the bad mark: a bare rollback would go back to ids[2].
            let refused = try ratecard(["rollback", "--root", fixture.root, "-m", "again"], in: fixture.repo)
            #expect(refused.status == 4, "\(refused.out)\(refused.err)")
            #expect(refused.err.contains("\(path):\(intentLine): not a journal entry: unknown action \"rolback-intent\"; it may have been a bad mark, so nothing was changed."), "\(refused.err)")
            #expect(try serve.live() == ids[1])
            let prune = try ratecard(["prune", "--root", fixture.root, "--keep", "1"], in: fixture.repo)
            #expect(prune.status == 4, "\(prune.out)\(prune.err)")
            #expect(try serve.releaseIDs() == ids)
            // Showing history goes on, and says which lines it could not read.
            let releases = try ratecard(["releases", "--root", fixture.root], in: fixture.repo)
            #expect(releases.status == 0, "\(releases.err)")
            #expect(releases.err.contains("warning: \(path):\(intentLine): not a journal entry: unknown action \"rolback-intent\"\n"), "\(releases.err)")
            #expect(releases.err.contains("warning: \(path):\(intentLine + 1): not a journal entry: unknown action \"rolback\"\n"), "\(releases.err)")
        }
    }

    @Test func badMarksCanBeRefusedOverriddenAndCleared() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 3)
            try fixture.publishEach()
            let serve = ServeRoot(path: fixture.root)
            let ids = try serve.releaseIDs()
            // Rolling back from 3 to 2 marks 3 bad; a dry run changes nothing.
            let dry = try ratecard(["rollback", "--root", fixture.root, "--dry-run"], in: fixture.repo)
            #expect(dry.status == 0, "\(dry.err)")
            #expect(dry.out.contains("Would roll back \(fixture.root) from \(ids[2]) to \(ids[1])"), "\(dry.out)")
            #expect(try serve.live() == ids[2])
            #expect(try serve.badReleases().isEmpty)
            #expect(try ratecard(["rollback", "--root", fixture.root, "-m", "bad"], in: fixture.repo).status == 0)
            #expect(try serve.badReleases() == [ids[2]])
            // --to a bad release is refused without --force; the sequence number names it.
            let refused = try ratecard(["rollback", "--root", fixture.root, "--to", "3", "-m", "back"], in: fixture.repo)
            #expect(refused.status == 3)
            #expect(refused.err.contains("release \(ids[2]) is marked bad"), "\(refused.err)")
            #expect(try serve.live() == ids[1])
            let forced = try ratecard(
                ["rollback", "--root", fixture.root, "--to", String(ids[2].prefix(9)), "--force", "--mark-bad", "-m", "it was fine"], in: fixture.repo)
            #expect(forced.status == 0, "\(forced.err)")
            #expect(try serve.live() == ids[2])
            // The target of a rollback is never left bad; the release left is, when --mark-bad says so.
            #expect(try serve.badReleases() == [ids[1]])
            let cleared = try ratecard(["releases", "--root", fixture.root, "--clear-bad", ids[1], "-m", "re-checked"], in: fixture.repo)
            #expect(cleared.status == 0, "\(cleared.err)")
            #expect(try serve.badReleases().isEmpty)
            #expect(try serve.journal.entries().last?.action == .clearBad)
            let unknown = try ratecard(["rollback", "--root", fixture.root, "--to", "999999", "-m", "x"], in: fixture.repo)
            #expect(unknown.status == 2)
            #expect(unknown.err.contains("no release '999999'"), "\(unknown.err)")
        }
    }

    // MARK: current mended by hand

    @Test func aCurrentThatIsAFolderOrDanglesGetsAClearMessage() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory)
            try fixture.publishEach()
            let serve = ServeRoot(path: fixture.root)
            let ids = try serve.releaseIDs()
            // Dangling: the live release was deleted by hand.
            try FileSystem.removeTree(serve.folder(of: ids[1]))
            let status = try ratecard(["status", "--root", fixture.root], in: fixture.repo)
            #expect(status.status == 4)
            #expect(status.err.contains("points at release \(ids[1]), which does not exist"), "\(status.err)")
            #expect(status.err.contains("ratecard rollback --to <id>"), "\(status.err)")
            let mended = try ratecard(["rollback", "--root", fixture.root, "--to", ids[0], "-m", "mend"], in: fixture.repo)
            #expect(mended.status == 0, "\(mended.err)")
            #expect(try serve.live() == ids[0])
            // A folder in place of the symlink.
            unlink(serve.currentLink)
            try FileSystem.makeDirectories(serve.currentLink)
            let refused = try ratecard(fixture.publishArguments(fixture.commits[1]), in: fixture.repo)
            #expect(refused.status == 4)
            #expect(refused.err.contains("\(serve.currentLink) is a folder, not the symlink ratecard swaps"), "\(refused.err)")
            #expect(FileSystem.isDirectory(serve.currentLink))
        }
    }

    // MARK: The clock

    @Test func aClockSetBackIsRefusedUnlessTheDateIsGiven() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory)
            // Live as of a date far ahead of any clock this runs on.
            let future = ["publish", "--root", fixture.root, "--rev", fixture.commits[0], "--web", fixture.web, "--as-of", "2099-01-01", "-m", "future"]
            try #require(try ratecard(future, in: fixture.repo).status == 0)
            let live = try ServeRoot(path: fixture.root).live()
            let byClock = try ratecard(["publish", "--root", fixture.root, "--rev", fixture.commits[1], "--web", fixture.web, "-m", "today"], in: fixture.repo)
            #expect(byClock.status == 1, "\(byClock.out)\(byClock.err)")
            #expect(byClock.err.contains("is before the as-of date of the release live on"), "\(byClock.err)")
            #expect(byClock.err.contains("clock set back"), "\(byClock.err)")
            #expect(try ServeRoot(path: fixture.root).live() == live)
            let explicit = try ratecard(fixture.publishArguments(fixture.commits[1]), in: fixture.repo)
            #expect(explicit.status == 0, "\(explicit.err)")
        }
    }

    // MARK: Huge files are refused by their size

    @Test func aHugeContentFileIsRefusedWithoutReadingIt() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 1)
            // 2 GB, sparse: reading it whole would need 2 GB of memory, which the limit forbids.
            let huge = fixture.repo + "/partners/huge.yaml"
            let fd = open(huge, O_WRONLY | O_CREAT, 0o644)
            try #require(fd >= 0)
            try #require(ftruncate(fd, 2 << 30) == 0)
            close(fd)
            let result = try runTool("/bin/sh", ["-c", "ulimit -v 1500000; cd '\(fixture.repo)' && exec '\(Bundle.main.bundleURL.appendingPathComponent("ratecard").path)' validate"])
            #expect(result.0 == 1, "\(result.1)")
            #expect(result.1.contains("partners/huge.yaml:1:1: error YML-06: file is 2147483648 bytes, over the 1 MiB limit"), "\(result.1)")
            unlink(huge)
            // An asset over its limit, in the work tree.
            try FileSystem.writeFile(fixture.repo + "/assets/partners/acme-bank.svg", [UInt8](repeating: 0x20, count: 600 << 10))
            let asset = try ratecard(["validate"], in: fixture.repo)
            #expect(asset.status == 1)
            #expect(asset.out.contains("assets/partners/acme-bank.svg:1:1: error AST-01: asset is 614400 bytes, over the 512 KiB limit"), "\(asset.out)")
        }
    }

    @Test func aHugeCommittedBlobIsRefusedFromItsHeader() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 1)
            // A loose object whose header says 2 GB but whose body is short: reading it fails
            // (libgit2 finds it corrupt), so only a refusal from the header alone reports YML-06.
            let script = """
                import hashlib, os, sys, zlib
                repo = sys.argv[1]
                header = b"blob 2147483648\\x00"
                body = header + b"id: huge\\n"
                oid = hashlib.sha1(body).hexdigest()
                folder = os.path.join(repo, ".git", "objects", oid[:2])
                os.makedirs(folder, exist_ok=True)
                with open(os.path.join(folder, oid[2:]), "wb") as f:
                    f.write(zlib.compress(body))
                print(oid)
                """
            let (status, output) = try runTool("/usr/bin/python3", ["-c", script, fixture.repo])
            try #require(status == 0, "\(output)")
            let oid = output.trimmingCharacters(in: .whitespacesAndNewlines)
            for arguments in [["update-index", "--add", "--cacheinfo", "100644,\(oid),partners/huge.yaml"], ["-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "huge"]] {
                let (code, text) = try runTool("/usr/bin/git", ["-C", fixture.repo] + arguments)
                try #require(code == 0, "git \(arguments[0]): \(text)")
            }
            let result = try ratecard(["validate", "--rev", "HEAD"], in: fixture.repo)
            #expect(result.status == 1, "\(result.out)\(result.err)")
            #expect(result.out.contains("partners/huge.yaml:1:1: error YML-06: file is 2147483648 bytes, over the 1 MiB limit"), "\(result.out)\(result.err)")
        }
    }

    // MARK: Assets

    @Test func anUnreferencedAssetIsRefusedAndNeverPublished() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 1)
            try FileSystem.writeFile(fixture.repo + "/assets/partners/leftover.svg", try FileSystem.readFile(fixture.repo + "/assets/partners/acme-bank.svg"))
            try Repository.open(at: fixture.repo).commitAll(message: "Leftover", author: Signature(name: "T", email: "t@example.com"))
            let result = try ratecard(fixture.publishArguments("HEAD"), in: fixture.repo)
            #expect(result.status == 1, "\(result.out)\(result.err)")
            #expect(result.out.contains("assets/partners/leftover.svg:1:1: error AST-02: no partner names this asset as its logo"), "\(result.out)")
            #expect(try ServeRoot(path: fixture.root).live() == nil)
        }
    }
}
