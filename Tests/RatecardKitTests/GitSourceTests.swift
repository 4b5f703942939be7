import Foundation
import Glibc
import RatecardKit
import Testing

@Suite struct GitSourceTests {
    let context = ValidationContext(asOf: fixtureDay)

    /// The stat shortcut for "nothing uncommitted" says yes only when git would, and anything
    /// it is unsure of goes to git's status, which finds the change.
    @Test func uncommittedChangesAreFoundWithOrWithoutTheStatShortcut() throws {
        try withTemporaryDirectory { directory in
            let (work, repository, files) = try Self.settledRepository(in: directory)
            // Files not older than the index are racily clean (they may have changed after
            // their stat was recorded, in the same clock tick): their contents are compared with
            // the blobs the index names, as git does, and they are clean.
            try Self.dateBack(work + "/.git/index", seconds: 120)
            #expect(files.count <= 64)
            #expect(try repository.cleanByStat(under: ""))
            #expect(try repository.uncommittedPaths(under: "") == [])
            // A racily clean file whose bytes changed (same size, same times): found by its contents.
            let table = try #require(files.first { $0.contains("/rates/") && $0.hasSuffix(".yaml") })
            let original = try FileSystem.readFile(work + "/" + table)
            try Self.changeOneByteKeepingTimes(work + "/" + table)
            #expect(try repository.cleanByStat(under: "") == false)
            #expect(try repository.uncommittedPaths(under: "") == [table])
            try FileSystem.writeFile(work + "/" + table, original)
            utimes(work + "/.git/index", nil)
            #expect(try repository.uncommittedPaths(under: "") == [])
            for file in files { try Self.dateBack(work + "/" + file, seconds: 60) }
            #expect(try repository.cleanByStat(under: ""))
            // Same size, same mtime, other bytes: the ctime gives it away, status confirms.
            let partner = try #require(files.first { $0.hasPrefix("partners/") && $0.hasSuffix(".yaml") })
            try Self.changeOneByteKeepingTimes(work + "/" + partner)
            #expect(try repository.cleanByStat(under: "") == false)
            #expect(try repository.uncommittedPaths(under: "") == [partner])
            // An untracked file anywhere below the prefix.
            try repository.commitAll(message: "Edit", author: Fixtures.testAuthor)
            for file in files { try Self.dateBack(work + "/" + file, seconds: 60) }
            #expect(try repository.uncommittedPaths(under: "") == [])
            #expect(try repository.cleanByStat(under: ""))
            try write("id: new\n", to: work + "/partners/new.yaml")
            #expect(try repository.cleanByStat(under: "") == false)
            #expect(try repository.uncommittedPaths(under: "") == ["partners/new.yaml"])
            unlink(work + "/partners/new.yaml")
            #expect(try repository.cleanByStat(under: ""))
            // Deeper down (the walk shares those folders between two threads).
            let product = try #require(files.first { $0.hasSuffix("/product.yaml") })
            let deep = product.replacingOccurrences(of: "product.yaml", with: "rates/2031-01-01.yaml")
            try write("bureau: KCB\n", to: work + "/" + deep)
            #expect(try repository.cleanByStat(under: "") == false)
            #expect(try repository.uncommittedPaths(under: "") == [deep])
        }
    }

    /// The dirty check looks each tracked file up by its path from the work tree's folder: a
    /// tracked file whose folder is gone, or a changed file in the top folder, is not clean.
    @Test func theDirtyCheckFindsAChangedTopFileAndAFolderGone() throws {
        try withTemporaryDirectory { directory in
            let (work, repository, files) = try Self.settledRepository(in: directory)
            // A file of the top folder, one byte changed with its times kept: its ctime moved.
            try Self.changeOneByteKeepingTimes(work + "/ratecard.yaml")
            #expect(try repository.cleanByStat(under: "") == false)
            #expect(try repository.uncommittedPaths(under: "") == ["ratecard.yaml"])
            try repository.commitAll(message: "Edit", author: Fixtures.testAuthor)
            for file in files { try Self.dateBack(work + "/" + file, seconds: 60) }
            #expect(try repository.cleanByStat(under: ""))
            // A product's rates folder removed with its tables.
            let table = try #require(files.first { $0.contains("/rates/") && $0.hasSuffix(".yaml") })
            let rates = String(table[..<table.range(of: "/rates/")!.upperBound].dropLast())
            let removed = files.filter { $0.hasPrefix(rates + "/") }.sorted()
            try FileSystem.removeTree(work + "/" + rates)
            #expect(try repository.cleanByStat(under: "") == false)
            #expect(try repository.uncommittedPaths(under: "").sorted() == removed)
        }
    }

    /// The index is compared with HEAD through the tree it would commit: a change staged but
    /// not committed is found, a staged change undone again is clean, and neither check writes
    /// an object to the repository (trees the index's cache lacks are computed in memory).
    @Test func aStagedChangeIsFoundAndTheCheckWritesNoObject() throws {
        try withTemporaryDirectory { directory in
            let work = directory + "/work"
            let repository = try Fixtures.makeBaseRepository(at: work)
            let files = try ReleaseFiles.list(work).filter { !$0.hasPrefix(".git/") }
            // Files dated back differ from the index's stat data and are compared by content.
            func settle() throws { for file in files { try Self.dateBack(work + "/" + file, seconds: 60) } }
            func objects() throws -> [String] { try ReleaseFiles.list(work + "/.git/objects").sorted() }
            try settle()
            #expect(try repository.cleanByStat(under: ""))
            let table = try #require(files.first { $0.contains("/rates/") && $0.hasSuffix(".yaml") })
            let original = try FileSystem.readFile(work + "/" + table)
            try FileSystem.writeFile(work + "/" + table, original + Array("# staged\n".utf8))
            try repository.stage(paths: [table])
            try settle()
            let before = try objects()  // with the staged blob
            #expect(try repository.cleanByStat(under: "") == false)
            #expect(try repository.uncommittedPaths(under: "") == [table])
            // Back to the committed bytes, staged again: the index holds HEAD's tree once more.
            try FileSystem.writeFile(work + "/" + table, original)
            try repository.stage(paths: [table])
            try settle()
            #expect(try repository.cleanByStat(under: ""))
            #expect(try objects() == before)
        }
    }

    /// A clean walk records its folders (in the git folder); the next walk reads only folders
    /// that changed since, and still finds every untracked file, new folder or removed file.
    @Test func theFoldersOfACleanWalkAreRememberedAndChangesStillFound() throws {
        try withTemporaryDirectory { directory in
            let work = directory + "/work"
            let repository = try Fixtures.makeBaseRepository(at: work)
            let files = try ReleaseFiles.list(work).filter { !$0.hasPrefix(".git/") }
            for file in files { try Self.dateBack(work + "/" + file, seconds: 60) }
            #expect(try repository.uncommittedPaths(under: "") == [])
            // Folders changed well before the walk, so the record can vouch for them.
            var folders: Set<String> = []
            for file in files {
                var path = file
                while let slash = path.lastIndex(of: "/") {
                    path = String(path[..<slash])
                    folders.insert(path)
                }
            }
            for folder in folders { try Self.dateBack(work + "/" + folder, seconds: 60) }
            try Self.dateBack(work, seconds: 60)
            let record = repository.gitDir + "/ratecard-clean-folders"
            unlink(record)
            #expect(try repository.cleanByStat(under: ""))
            #expect(FileSystem.exists(record), "a clean walk leaves its record")
            #expect(try repository.cleanByStat(under: ""))
            // An untracked file deep down, a new folder, a tracked file removed: all found.
            let product = try #require(files.first { $0.hasSuffix("/product.yaml") })
            let deep = product.replacingOccurrences(of: "product.yaml", with: "rates/2031-01-01.yaml")
            try write("bureau: KCB\n", to: work + "/" + deep)
            #expect(try repository.cleanByStat(under: "") == false)
            #expect(try repository.uncommittedPaths(under: "") == [deep])
            unlink(work + "/" + deep)
            #expect(try repository.cleanByStat(under: ""))
            try FileSystem.makeDirectories(work + "/assets/new")
            try write("x\n", to: work + "/assets/new/logo.svg")
            #expect(try repository.cleanByStat(under: "") == false)
            try FileSystem.removeTree(work + "/assets/new")
            #expect(try repository.cleanByStat(under: ""))
            // The record is what spares the listings: forged to vouch for a folder as it is now,
            // with an untracked file in it, it hides that file (it lives in the git folder, which
            // only the repository's owner can write).
            let partners = work + "/partners"
            try Self.dateBack(partners, seconds: 60)
            #expect(try repository.cleanByStat(under: ""))
            try write("id: x\n", to: partners + "/x.yaml")
            try Self.dateBack(partners, seconds: 60)
            var info = stat()
            stat(partners, &info)
            let lines = String(decoding: try FileSystem.readFile(record), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            let forged = lines.map { line -> String in
                guard line.hasSuffix(" partners") else { return String(line) }
                let fields = line.split(separator: " ")
                return "\(info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec) \(info.st_ctim.tv_sec * 1_000_000_000 + info.st_ctim.tv_nsec) \(info.st_ino) \(fields[3]) partners"
            }.joined(separator: "\n")
            try FileSystem.writeFile(record, Array(forged.utf8))
            #expect(try repository.cleanByStat(under: ""), "the forged record was not used")
            // Tracked by the index now (one more file than the record says): read again, and clean.
            try repository.commitAll(message: "Partner x", author: Fixtures.testAuthor)
            for file in try ReleaseFiles.list(work).filter({ !$0.hasPrefix(".git/") }) { try Self.dateBack(work + "/" + file, seconds: 60) }
            #expect(try repository.uncommittedPaths(under: "") == [])
            #expect(try repository.cleanByStat(under: ""))
            // Removed from the index but left on disk (the folder's listing unchanged): the index
            // tracks one file fewer than the folder held, so it is read again and the file found.
            #expect(try Self.git(work, ["rm", "-q", "--cached", "partners/x.yaml"]) == 0)
            #expect(try Self.git(work, ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "Untrack x"]) == 0)
            #expect(try repository.cleanByStat(under: "") == false)
            #expect(try repository.uncommittedPaths(under: "") == ["partners/x.yaml"])
        }
    }

    /// The git command line in `repo`; its exit status.
    static func git(_ repo: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", repo] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Changes one byte near the end of the file (same size) and puts its access and
    /// modification times back: only the ctime (and the contents) tell.
    /// The base fixture as a repository in `directory/work`, its files dated back a minute and
    /// the index refreshed by a status (as `git status` does): both checks find it clean.
    static func settledRepository(in directory: String) throws -> (work: String, repository: Repository, files: [String]) {
        let work = directory + "/work"
        let repository = try Fixtures.makeBaseRepository(at: work)
        let files = try ReleaseFiles.list(work).filter { !$0.hasPrefix(".git/") }
        for file in files { try dateBack(work + "/" + file, seconds: 60) }
        #expect(try repository.uncommittedPaths(under: "") == [])
        #expect(try repository.cleanByStat(under: ""))
        return (work, repository, files)
    }

    static func changeOneByteKeepingTimes(_ path: String) throws {
        var bytes = try FileSystem.readFile(path)
        bytes[bytes.count - 2] = bytes[bytes.count - 2] == UInt8(ascii: "x") ? UInt8(ascii: "y") : UInt8(ascii: "x")
        var before = stat()
        stat(path, &before)
        try FileSystem.writeFile(path, bytes)
        var times = [before.st_atim, before.st_mtim]
        utimensat(AT_FDCWD, path, &times, 0)
    }

    static func dateBack(_ path: String, seconds: Int) throws {
        var info = stat()
        guard stat(path, &info) == 0 else { throw OperationalError("stat \(path)") }
        var times = [info.st_atim, timespec(tv_sec: info.st_mtim.tv_sec - seconds, tv_nsec: 0)]
        guard utimensat(AT_FDCWD, path, &times, 0) == 0 else { throw OperationalError("utimensat \(path)") }
    }

    @Test func validatesHEADInABareCloneWithoutAWorkTree() throws {
        try withTemporaryDirectory { directory in
            try Fixtures.makeBaseRepository(at: directory + "/work")
            let bare = try Repository.clone(from: directory + "/work", to: directory + "/bare.git", bare: true)
            #expect(bare.workdir == nil)
            let location = try ContentLocation.find(from: directory + "/bare.git")
            #expect(location.contentDir == nil)
            let report = try ValidationRun(location: location, context: context, caches: Caches()).validate(revision: "HEAD")
            #expect(report.diagnostics == [])
            #expect(report.commits.count == 1)
            #expect(report.files > 10)
        }
    }

    @Test func revisionReadsTheCommitNotTheWorkTree() throws {
        try withTemporaryDirectory { directory in
            try Fixtures.makeBaseRepository(at: directory)
            try write("id: broken: [", to: directory + "/partners/acme-bank.yaml")
            let run = ValidationRun(location: try ContentLocation.find(from: directory), context: context, caches: Caches())
            #expect(try run.validate(revision: "HEAD").diagnostics == [])
            #expect(try run.validateWorkingTree().hasErrors)
        }
    }

    @Test func anUnknownRevisionIsAUsageError() throws {
        try withTemporaryDirectory { directory in
            try Fixtures.makeBaseRepository(at: directory)
            let run = ValidationRun(location: try ContentLocation.find(from: directory), context: context, caches: Caches())
            expectThrows(UsageError.self, "unknown revision 'no-such-branch': no branch, tag or commit of that name") { try run.validate(revision: "no-such-branch") }
            expectThrows(UsageError.self, "unknown revision 'mian': no branch, tag or commit of that name; did you mean 'main'?") { try run.validate(revision: "mian") }
        }
    }

    @Test func aCommittedSymlinkIsReportedNotFollowed() throws {
        try withTemporaryDirectory { directory in
            let repository = try Fixtures.makeBaseRepository(at: directory)
            #expect(symlinkAt(directory + "/partners/extra.yaml", to: "/etc/passwd"))
            try repository.commitAll(message: "Add a symlink", author: Fixtures.testAuthor)
            let report = try ValidationRun(location: try ContentLocation.find(from: directory), context: context, caches: Caches()).validate(revision: "HEAD")
            let found = report.diagnostics.map { "\($0.rule) \($0.path):\($0.mark)" }
            #expect(found == ["GIT-01 partners/extra.yaml:1:1"])
        }
    }

    /// A work tree is loaded once: when it is HEAD byte for byte, what was loaded is the base of
    /// the history rules; when it is not, HEAD's files it shares are not parsed again.
    @Test func theWorkTreeIsParsedOnceBesideHead() throws {
        try withTemporaryDirectory { directory in
            let repository = try Fixtures.makeBaseRepository(at: directory)
            let head = try #require(try repository.headCommit())
            let entries = try #require(try repository.treeEntries(commit: head, under: "")).filter { $0.kind == .file }
            let location = try ContentLocation.find(from: directory)
            let clean = try ValidationRun(location: location, context: context, caches: Caches()).validateWorkingTree()
            #expect(clean.filesParsed == entries.count)
            #expect(clean.diagnostics.isEmpty)
            // One table edited: its HEAD blob is parsed for the base, and HEAD's assets (a work
            // tree's are checked, not hashed) are read again; nothing else.
            let table = directory + "/products/acme-bank/credit/rates/2026-01-15.yaml"
            let original = String(decoding: try FileSystem.readFile(table), as: UTF8.self)
            try write(original.replacingOccurrences(of: "limit_max_krw: 100000000", with: "limit_max_krw: 99990000"), to: table)
            let dirty = try ValidationRun(location: location, context: context, caches: Caches()).validateWorkingTree()
            #expect(dirty.filesParsed == entries.count + 1)
        }
    }

    /// HEAD's content derived from the work tree's (HEAD's copies of the edited tables and
    /// terms read in, the files only the work tree holds taken out) is HEAD's content loaded:
    /// the same lists in the same order, and the same findings against it. An edit of any
    /// other file, or a file HEAD holds and the work tree does not, is not derived.
    @Test func theBaseDerivedFromTheWorkTreeIsHeadLoaded() throws {
        try withTemporaryDirectory { directory in
            let repository = try Fixtures.makeBaseRepository(at: directory)
            // A web build inside the content folder (as `ratecard init` lays it out): hashed to
            // be compared, never content, so neither side has ids of its files.
            let config = String(decoding: try FileSystem.readFile(directory + "/ratecard.yaml"), as: UTF8.self)
            try write(config + "web: site\n", to: directory + "/ratecard.yaml")
            try write("<!doctype html><title>app</title>\n", to: directory + "/site/index.html")
            let head = try repository.commitAll(message: "The web app inside the content", author: Fixtures.testAuthor)
            let location = try ContentLocation.find(from: directory)
            let table = directory + "/products/acme-bank/credit/rates/2026-01-15.yaml"
            let text = String(decoding: try FileSystem.readFile(table), as: UTF8.self)
            // A band's limit and an APR over the cap (a finding HEAD does not have), a terms body
            // edited, a new table, a new terms version (effective before the latest: HIS-11),
            // and a terms file that does not parse.
            try write(text.replacingOccurrences(of: "apr_max_pct: 5.6", with: "apr_max_pct: 20.5"), to: table)
            let terms = directory + "/terms/service-terms/1.1.0.md"
            try write(String(decoding: try FileSystem.readFile(terms), as: UTF8.self) + "\n추가된 문장입니다.\n", to: terms)
            try write(text.replacingOccurrences(of: "2026-01-15", with: "2026-02-01"), to: directory + "/products/acme-bank/credit/rates/2026-02-01.yaml")
            let older = String(decoding: try FileSystem.readFile(directory + "/terms/service-terms/1.0.0.md"), as: UTF8.self)
            try write(older.replacingOccurrences(of: "version: 1.0.0", with: "version: 1.0.1"), to: directory + "/terms/service-terms/1.0.1.md")
            try write("---\ntitle: [\n---\n본문\n", to: directory + "/terms/broker-notice/1.5.0.md")

            let source = try location.workingTree()
            let loader = ContentLoader(caches: Caches())
            let content = try loader.load(source)
            let root = try #require(location.contentRoot)
            let entries = try #require(try repository.treeEntries(commit: head, under: root.treePath))
            let committed = CommitSource(repository: repository, commit: head, contentRoot: root)
            let changes = try #require(try ValidationRun.changes(source, listed: loader.walked, from: committed.filtered(entries), hashed: loader.hashedIDs))
            #expect(
                changes.files.map(\.path).sorted() == [
                    "products/acme-bank/credit/rates/2026-01-15.yaml", "products/acme-bank/credit/rates/2026-02-01.yaml",
                    "terms/broker-notice/1.5.0.md", "terms/service-terms/1.0.1.md", "terms/service-terms/1.1.0.md",
                ])
            let derived = try #require(try ValidationRun.derivedBase(content, changes, committed: committed.filtered(entries), loader: loader, from: committed))
            let loaded = try ContentLoader(caches: Caches()).load(committed)
            #expect(derived.rateTables == loaded.rateTables)
            #expect(derived.terms == loaded.terms)
            #expect(derived.termsText == loaded.termsText)
            #expect(derived.fileIDs == loaded.fileIDs)
            #expect(changes.hashedHere.map(\.path) == ["site/index.html"] && loaded.fileIDs["site/index.html"] == nil)
            #expect(Set(derived.fileDiagnostics) == Set(loaded.fileDiagnostics))
            let validator = Validator(context: context)
            let found = validator.check(content, base: derived)
            #expect(found == validator.check(content, base: loaded))
            #expect(found.contains { $0.rule == "CAP-01" } && found.contains { $0.rule == "HIS-11" })
            #expect(try ValidationRun(location: location, context: context, caches: Caches()).validateWorkingTree().diagnostics == found)

            // A product file edited: HEAD is loaded, not derived.
            let product = directory + "/products/acme-bank/credit/product.yaml"
            try write(String(decoding: try FileSystem.readFile(product), as: UTF8.self) + "\n", to: product)
            let edited = try loader.load(source)
            let more = try #require(try ValidationRun.changes(source, listed: loader.walked, from: committed.filtered(entries), hashed: loader.hashedIDs))
            #expect(try loader.derive(edited, changes: more.files, from: committed) == nil)
            // A file HEAD holds and the work tree does not: no changes to derive from.
            #expect(unlink(directory + "/terms/broker-notice/1.0.0.md") == 0)
            _ = try loader.load(source)
            #expect(try ValidationRun.changes(source, listed: loader.walked, from: committed.filtered(entries), hashed: loader.hashedIDs) == nil)
        }
    }

    /// 50 commits, each changing one rate table: the range re-parses only the changed blobs.
    @Test func rangeParsesOnlyChangedBlobs() throws {
        try withTemporaryDirectory { directory in
            let repository = try Fixtures.makeBaseRepository(at: directory)
            let base = try #require(try repository.headCommit())
            let table = directory + "/products/acme-bank/credit/rates/2026-01-15.yaml"
            let original = String(decoding: try FileSystem.readFile(table), as: UTF8.self)
            var badCommit: ObjectID?
            for step in 1...50 {
                // Move the best band's limit a little each commit; commit 30 breaks the cap.
                var text = original.replacingOccurrences(of: "limit_max_krw: 100000000", with: "limit_max_krw: \(100_000_000 - step * 10_000)")
                if step == 30 { text = text.replacingOccurrences(of: "apr_max_pct: 5.6", with: "apr_max_pct: 20.5") }
                try write(text, to: table)
                let commit = try repository.commitAll(message: "Rate change \(step)", author: Fixtures.testAuthor)
                if step == 30 { badCommit = commit }
            }
            let run = ValidationRun(location: try ContentLocation.find(from: directory), context: context, caches: Caches())
            let report = try run.validate(range: "\(base.hex)..HEAD")
            let files = try #require(try repository.treeEntries(commit: base, under: "")).count
            #expect(report.commits.count == 50)
            #expect(report.filesParsed == files + 50)
            let capProblems = report.diagnostics.filter { $0.rule == "CAP-01" }
            #expect(capProblems.count == 1)
            #expect(capProblems.first?.commit?.id == badCommit)
            #expect(capProblems.first?.commit?.summary == "Rate change 30")
        }
    }
}

func symlinkAt(_ path: String, to target: String) -> Bool {
    Glibc.symlink(target, path) == 0
}
