import Foundation
import Glibc
import RatecardKit
import Testing

/// The object store under the release protocol: the store's five calls keep their promises,
/// rollback, promote and prune survive kill -9 after every named step and at 200 random
/// instants with every kept release whole, and a root published before the store still works.
@Suite(.serialized) struct ObjectStoreTests {
    // MARK: The store interface

    @Test func putNeverOverwritesFlipIsCompareAndSwapAndDeletingAReleaseKeepsItsObjects() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 2)
            for commit in fixture.commits { try #require(try ratecard(fixture.publishArguments(commit), in: fixture.repo).status == 0) }
            let serve = ServeRoot(path: fixture.root)
            let store: any ReleaseStore = serve
            let (first, second) = (try serve.releaseIDs()[0], try serve.releaseIDs()[1])
            #expect(try store.read(.pointer) == Array(second.utf8))
            #expect(try store.releaseIDs() == [first, second])

            // Put if absent: a new object is written (0444), an identical one is left alone.
            let bytes = Array("{\"hello\": 1}\n".utf8)
            let name = ObjectLayout.objectName(sha256: SHA256.hex(bytes), path: "x.json")
            let item = StoreItem(key: .object(name), sha256: SHA256.hex(bytes), size: bytes.count, bytes: bytes)
            #expect(try store.put([item]) == bytes.count)
            #expect(try store.read(.object(name)) == bytes)
            var info = stat()
            #expect(stat(serve.objectsFolder + "/" + name, &info) == 0 && info.st_mode & 0o777 == 0o444)
            #expect(try store.put([item]) == 0)
            // A present object that no longer matches its name is refused, never overwritten.
            unlink(serve.objectsFolder + "/" + name)
            try FileSystem.writeFile(serve.objectsFolder + "/" + name, Array("{\"hello\": 2}\n".utf8))
            #expect(throws: OperationalError.self) { try store.put([item]) }
            #expect(try store.read(.object(name)) == Array("{\"hello\": 2}\n".utf8))
            // An object that is absent and not given is an error, not a release with a hole.
            let missing = StoreItem(key: .object(String(repeating: "a", count: 64) + ".json"), sha256: String(repeating: "a", count: 64), size: 1, bytes: nil)
            #expect(throws: OperationalError.self) { try store.put([missing]) }
            // Bytes that do not hash to their name never land in the store.
            let lying = StoreItem(key: .object(String(repeating: "b", count: 64) + ".json"), sha256: String(repeating: "b", count: 64), size: bytes.count, bytes: bytes)
            #expect(throws: OperationalError.self) { try store.put([lying]) }
            #expect(!FileSystem.exists(serve.objectsFolder + "/" + String(repeating: "b", count: 64) + ".json"))
            #expect(try FileSystem.listDirectory(serve.objectsFolder).filter { $0.hasPrefix(".") } == [])

            // Flip is compare-and-swap: a stale expectation changes nothing.
            #expect(throws: ConflictError.self) { try store.flip(expected: first, to: first) }
            #expect(try serve.live() == second)
            try store.flip(expected: second, to: first)
            #expect(try serve.live() == first)
            try store.flip(expected: first, to: second)

            // verify re-hashes every object the live release names: a missing or changed one is drift.
            let live = try ReleaseInfo.read(from: serve.folder(of: second))
            let document = try #require(live.files.first { $0.path.hasSuffix("/partners.json") })
            let stored = serve.objectsFolder + "/" + ObjectLayout.objectName(document)
            let kept = try FileSystem.readFile(stored)
            unlink(stored)
            let missingObject = try ratecard(["verify", "--root", fixture.root], in: fixture.repo)
            #expect(missingObject.status == 1)
            #expect(missingObject.out.contains("missing object: \(document.path)"), "\(missingObject.out)")
            try FileSystem.writeFile(stored, Array("{}\n".utf8))
            let changedObject = try ratecard(["verify", "--root", fixture.root], in: fixture.repo)
            #expect(changedObject.status == 1)
            #expect(changedObject.out.contains("changed object: \(document.path)"), "\(changedObject.out)")
            unlink(stored)
            try FileSystem.writeFile(stored, kept)
            #expect(try ratecard(["verify", "--root", fixture.root], in: fixture.repo).status == 0)
            // An object or entry file others may write still hashes right today, but could be
            // changed under the release at any time: drift too.
            let entry = try #require(live.files.first { ObjectLayout.inEntryFolder($0.path) })
            for (path, problem) in [
                (stored, "changed object mode: \(document.path) (666, writable by others)"),
                (serve.folder(of: second) + "/" + entry.path, "changed mode: \(entry.path) (666, writable by others)"),
            ] {
                var before = stat()
                try #require(stat(path, &before) == 0)
                try #require(chmod(path, 0o666) == 0)
                let writable = try ratecard(["verify", "--root", fixture.root], in: fixture.repo)
                #expect(writable.status == 1, "\(path): \(writable.out)\(writable.err)")
                #expect(writable.out.contains(problem), "\(writable.out)")
                try #require(chmod(path, before.st_mode & 0o777) == 0)
            }
            #expect(try ratecard(["verify", "--root", fixture.root], in: fixture.repo).status == 0)

            // Deleting a release leaves every object; the objects it alone named are found by prune.
            let objectsBefore = try store.list(.objects)
            try store.delete([.release(first)])
            #expect(try store.releaseIDs() == [second])
            #expect(try store.list(.objects) == objectsBefore)
            #expect(try serve.drift(of: second) == [])
        }
    }

    /// A publish does not look up the objects the live release names again (the store's
    /// invariant), but an object it links a new entry file to is checked first: one changed on
    /// disk (same inode, other bytes) is refused, and live stays as it was.
    @Test func anObjectChangedOnDiskIsNotLinkedIntoANewRelease() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 2)
            #expect(try ratecard(fixture.publishArguments(fixture.commits[0]), in: fixture.repo).status == 0)
            let serve = ServeRoot(path: fixture.root)
            let live = try #require(try serve.live())
            let info = try ReleaseInfo.read(from: serve.folder(of: live))
            let page = try #require(info.files.first { $0.path == "index.html" })
            let object = serve.objectsFolder + "/" + ObjectLayout.objectName(page)
            usleep(20_000)  // past the coarse clock's tick of the stamp the publish recorded
            chmod(object, 0o644)
            let fd = open(object, O_WRONLY)
            #expect(fd >= 0 && pwrite(fd, "x", 1, 0) == 1)
            close(fd)
            let refused = try ratecard(fixture.publishArguments(fixture.commits[1]), in: fixture.repo)
            #expect(refused.status == 4, "\(refused.out)\(refused.err)")
            #expect(refused.err.contains("does not match its hash"), "\(refused.err)")
            #expect(try serve.live() == live)
        }
    }

    // MARK: Page sets

    /// Releases with the same terms pages share one page set (each page its object, one inode),
    /// reached through the release's one link; a set whose pages are no longer their objects is
    /// refused, never linked; prune removes a set no release links to and keeps the others.
    @Test func releasesWithTheSameTermsPagesShareOnePageSet() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 2)
            let (first, second) = try {
                let ids = try fixture.publishEach()
                return (ids[0], ids[1])
            }()
            let serve = ServeRoot(path: fixture.root)
            let set = try #require(PageSets.set(linkedFrom: serve.folder(of: first)))
            #expect(PageSets.set(linkedFrom: serve.folder(of: second)) == set)
            #expect(try FileSystem.listDirectory(serve.pagesFolder) == [set])
            let info = try ReleaseInfo.read(from: serve.folder(of: second))
            let pages = info.files.filter { $0.path.hasPrefix("terms/") }
            #expect(pages.count == 4)
            for page in pages {
                var linked = stat()
                var object = stat()
                #expect(stat(serve.folder(of: second) + "/" + page.path, &linked) == 0 && stat(serve.objectsFolder + "/" + ObjectLayout.objectName(page), &object) == 0)
                #expect(linked.st_ino == object.st_ino, "\(page.path) is not its object")
            }
            #expect(try ReleaseFiles.list(release: serve.folder(of: second)).filter { $0.hasPrefix("terms/") } == pages.map(\.path))
            #expect(try serve.drift(of: second) == [])

            // A page replaced in the set (another inode): verify sees it through the link, and the
            // next publish that would link the set refuses it, leaving live as it was.
            let page = serve.pagesFolder + "/" + set + "/" + pages[0].path
            let original = try FileSystem.readFile(page)
            chmod(DurableFiles.parent(of: page), 0o755)
            unlink(page)
            try FileSystem.writeFile(page, Array("<p>changed</p>\n".utf8))
            let verify = try ratecard(["verify", "--root", fixture.root], in: fixture.repo)
            #expect(verify.status == 1)
            #expect(verify.out.contains("changed: \(pages[0].path)"), "\(verify.out)")
            let refused = try ratecard(fixture.publishArguments(fixture.commits[0]), in: fixture.repo)
            #expect(refused.status == 4, "\(refused.out)\(refused.err)")
            #expect(refused.err.contains("are not all the objects they should be"), "\(refused.err)")
            #expect(try serve.live() == second)
            unlink(page)
            #expect(link(serve.objectsFolder + "/" + ObjectLayout.objectName(pages[0]), page) == 0)
            #expect(try FileSystem.readFile(page) == original)
            #expect(try ratecard(fixture.publishArguments(fixture.commits[0]), in: fixture.repo).status == 0)

            // A set no release links to (left by a failed publish) goes with the next prune.
            let orphan = serve.pagesFolder + "/" + String(repeating: "0", count: 32)
            try FileSystem.makeDirectories(orphan + "/terms")
            try FileSystem.writeFile(orphan + "/terms/x.html", Array("x\n".utf8))
            let pruned = try ratecard(["prune", "--root", fixture.root, "--keep", "1"], in: fixture.repo)
            #expect(pruned.status == 0, "\(pruned.err)")
            #expect(try FileSystem.listDirectory(serve.pagesFolder) == [set])
            for id in try serve.releaseIDs() { #expect(try serve.drift(of: id) == [], "\(id)") }
        }
    }

    // MARK: Migration

    /// A root published before the object store (each release a complete folder, version.json
    /// without `format`) is read as it is: status and verify work, a rate update publishes onto
    /// it (the first release in the new layout), rollback returns to the old release, and prune
    /// removes it once it is no longer kept.
    @Test func aRootOfCompleteFolderReleasesIsReadAndMovesToTheStoreOnTheNextPublish() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 3)
            // The old layout, made by hand from a release of the new one.
            let scratch = directory + "/scratch"
            try #require(try ratecard(fixture.publishArguments(fixture.commits[0], ["--root", scratch]), in: fixture.repo).status == 0)
            let source = ServeRoot(path: scratch)
            let sourceID = try #require(try source.live())
            let info = try ReleaseInfo.read(from: source.folder(of: sourceID))
            let serve = ServeRoot(path: fixture.root)
            let old = "000001-" + String(info.bundleID.prefix(12))
            let folder = serve.folder(of: old)
            for file in info.files {
                try FileSystem.makeDirectories(DurableFiles.parent(of: folder + "/" + file.path))
                try FileSystem.writeFile(folder + "/" + file.path, try #require(try source.readFile(file.path, of: sourceID, info: info)))
            }
            var legacy = info
            legacy.id = old
            legacy.format = 1
            try FileSystem.writeFile(folder + "/" + ReleaseInfo.fileName, legacy.bytes())
            #expect(!String(decoding: legacy.bytes(), as: UTF8.self).contains("\"format\""))
            try FileSystem.makeDirectories(fixture.root + "/.ratecard")
            symlink("releases/" + old, fixture.root + "/current")
            try serve.journal.append([
                "action": .string("publish"), "time": .string(Timestamp.now()), "user": .string("t"), "release": .string(old),
                JournalFields.seal: .string(SHA256.hex(legacy.bytes())),
            ])
            #expect(!FileSystem.exists(serve.objectsFolder))

            #expect(try ratecard(["verify", "--root", fixture.root], in: fixture.repo).status == 0)
            let status = try ratecard(["status", "--root", fixture.root], in: fixture.repo)
            #expect(status.status == 0 && status.out.contains(old), "\(status.out)\(status.err)")
            let next = try ratecard(fixture.publishArguments(fixture.commits[1]), in: fixture.repo)
            #expect(next.status == 0, "\(next.err)")
            #expect(next.out.contains("built onto the live bundle"), "\(next.out)")
            let new = try #require(try serve.live())
            #expect(try ReleaseInfo.read(from: serve.folder(of: new)).format == ObjectLayout.format)
            #expect(try serve.drift(of: new) == [])
            let back = try ratecard(["rollback", "--root", fixture.root, "-m", "back to the old layout"], in: fixture.repo)
            #expect(back.status == 0, "\(back.err)")
            #expect(try serve.live() == old)
            #expect(try ratecard(["verify", "--root", fixture.root], in: fixture.repo).status == 0)
            let forward = try ratecard(["rollback", "--root", fixture.root, "--to", new, "--force", "-m", "forward"], in: fixture.repo)
            #expect(forward.status == 0, "\(forward.err)")
            #expect(try ratecard(fixture.publishArguments(fixture.commits[2]), in: fixture.repo).status == 0)
            let pruned = try ratecard(["prune", "--root", fixture.root, "--keep", "1"], in: fixture.repo)
            #expect(pruned.status == 0, "\(pruned.err)")
            #expect(!FileSystem.exists(folder), "the old release is not kept")
            for id in try serve.releaseIDs() { #expect(try serve.drift(of: id) == []) }
        }
    }

    // MARK: Crash safety of rollback, promote and prune

    /// Runs `arguments` killed after each of `steps` and at 200 random instants; after each kill
    /// every release on disk verifies, then `settle` (the command run to completion, or what the
    /// next round needs) leaves no strays.
    private func crashSafety(
        _ label: String, steps: [String], fixture: PublishFixture, root: String,
        prepare: @escaping (_ named: Bool) throws -> [String], settle: @escaping ([String]) throws -> Void
    ) throws {
        try CrashCampaign(
            label: label, steps: steps, randomKills: 200, start: fixture.start,
            check: { what in
                let serve = ServeRoot(path: root)
                if let live = try serve.live() { #expect(try serve.drift(of: live) == [], "\(label) \(what): live \(live) does not verify") }
                for id in try serve.releaseIDs() {
                    let drift = try serve.drift(of: id)
                    #expect(drift == [], "\(label) \(what): release \(id) does not verify: \(drift.prefix(3))")
                }
                if root == fixture.root { try fixture.linesAreConsistent("\(label) \(what)", staleAllowed: true) }
            }, prepare: prepare, settle: settle
        ).run()
        let strays =
            try FileSystem.listDirectory(root + "/releases").filter { $0.hasPrefix(".") }
            + (FileSystem.isDirectory(root + "/objects") ? try FileSystem.listDirectory(root + "/objects").filter { $0.hasPrefix(".") } : [])
        #expect(strays == [], "\(label): strays \(strays)")
    }

    @Test func aKilledRollbackLeavesEveryReleaseWhole() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 2, bridge: true)
            for commit in fixture.commits {
                // Releases that need bridge 1 and 2: rolling between them changes the lines.
                try fixture.stampWeb()
                try FileSystem.writeFile(fixture.web + "/app/calls.js", Array(PublishFixture.call(needsShare: commit == fixture.commits[1]).utf8))
                try #require(try ratecard(fixture.publishArguments(commit), in: fixture.repo).status == 0)
            }
            let serve = ServeRoot(path: fixture.root)
            let ids = try serve.releaseIDs()
            try crashSafety(
                "rollback", steps: CrashPoint.rollbackSteps, fixture: fixture, root: fixture.root,
                prepare: { _ in
                    let target = try serve.live() == ids[0] ? ids[1] : ids[0]
                    return ["rollback", "--root", fixture.root, "--to", target, "--force", "-m", "crash test"]
                },
                settle: { arguments in
                    let result = try ratecard(arguments, in: fixture.repo)
                    let target = arguments[4]
                    #expect(result.status == 0 || (result.status == 3 && result.err.contains("already live")), "\(result.err)")
                    #expect(try serve.live() == target)
                    let journal = try serve.journal.entries()
                    #expect(journal.last(where: { $0.activated != nil })?.activated == target)
                    try fixture.linesAreConsistent("rollback settled", staleAllowed: false)
                })
        }
    }

    @Test func aKilledPromoteLeavesEveryReleaseWhole() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 2)
            let production = directory + "/production"
            var round = 0
            try crashSafety(
                "promote", steps: CrashPoint.promoteSteps, fixture: fixture, root: production,
                prepare: { named in
                    // Every other round a new release on staging (a new web file: new objects to copy);
                    // the rounds between promote an older one back (objects present, a flip).
                    round += 1
                    let staging = try ServeRoot(path: fixture.root).releaseIDs()
                    if named || round % 2 == 1 || staging.count < 2 {
                        try fixture.stampWeb()
                        let published = try ratecard(fixture.publishArguments(fixture.commits[round % 2]), in: fixture.repo)
                        #expect(published.status == 0, "\(published.err)")
                        return ["promote", "--from", fixture.root, "--to", production, "--release", try #require(try ServeRoot(path: fixture.root).live()), "-m", "crash test"]
                    }
                    return ["promote", "--from", fixture.root, "--to", production, "--release", staging[staging.count - 2], "-m", "crash test"]
                },
                settle: { arguments in
                    let result = try ratecard(arguments, in: fixture.repo)
                    #expect(result.status == 0, "\(result.err)")
                    // The promoted release is live, under production's own number.
                    let live = try #require(try ServeRoot(path: production).live())
                    #expect(try ReleaseInfo.read(from: ServeRoot(path: production).folder(of: live)).promotedFrom == arguments[6])
                    // Keep the roots small.
                    if round % 10 == 0 {
                        for root in [fixture.root, production] {
                            #expect(try ratecard(["prune", "--root", root, "--keep", "3"], in: fixture.repo).status == 0)
                        }
                    }
                })
        }
    }

    @Test func aKilledPruneLeavesEveryKeptReleaseWithEveryObject() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 2)
            let serve = ServeRoot(path: fixture.root)
            var round = 0
            try crashSafety(
                "prune", steps: CrashPoint.pruneSteps, fixture: fixture, root: fixture.root,
                prepare: { _ in
                    // A new release (with an object of its own), so there is always something to prune.
                    while try serve.releaseIDs().count < 3 {
                        round += 1
                        try fixture.stampWeb()
                        let published = try ratecard(fixture.publishArguments(fixture.commits[round % 2]), in: fixture.repo)
                        #expect(published.status == 0, "\(published.err)")
                    }
                    return ["prune", "--root", fixture.root, "--keep", "2"]
                },
                settle: { arguments in
                    let result = try ratecard(arguments, in: fixture.repo)
                    #expect(result.status == 0, "\(result.err)")
                    // Settled: two releases, and exactly the objects they name.
                    let kept = try serve.releaseIDs()
                    #expect(kept.count == 2)
                    let named = try Set(kept.flatMap { try ReleaseInfo.read(from: serve.folder(of: $0)).objectNames })
                        .union(kept.map { try LiveStatements.fileListObject(root: serve, release: $0) })
                    #expect(Set(try serve.list(.objects).map(\.name)) == named)
                })
        }
    }
}
