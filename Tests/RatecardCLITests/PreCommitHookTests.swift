import Foundation
import Glibc
import RatecardKit
import Testing

/// The installed pre-commit hook, driven by the real `git commit` in each of its forms: it must
/// judge exactly what the commit holds (git hands the hook a temporary index for `-a`, paths
/// and `-p`, and a git folder of its own in a linked work tree).
@Suite struct PreCommitHookTests {
    /// A repository of the base content with the hook installed, and the real git to commit in it.
    struct HookedRepository {
        var fixture: HistoryFixture
        /// The content folder (the repository's top, or a folder of a monorepo).
        let content: String
        /// Where the git folder is when it was moved away from the work tree.
        var gitDir: String?

        init(in directory: String, contentFolder: String? = nil) throws {
            let made = try HistoryFixture(in: directory, contentFolder: contentFolder)
            fixture = made
            content = contentFolder.map { made.repo + "/" + $0 } ?? made.repo
            let installed = try ratecard(["hook", "install"], in: content)
            #expect(installed.status == 0, "\(installed.err)")
        }

        /// The rate table, as the repository names it.
        var table: String { (content == fixture.repo ? "" : String(content.dropFirst(fixture.repo.count + 1)) + "/") + fixture.table }

        /// An APR over the legal cap (CAP-01) in the table of the work tree at `root`.
        func breakCap(in root: String? = nil) throws { try edit(root, "apr_max_pct: 9.8", "apr_max_pct: 20.5") }
        func restoreCap(in root: String? = nil) throws { try edit(root, "apr_max_pct: 20.5", "apr_max_pct: 9.8") }
        /// A legal change of the same table (5.2% to 5.3%, or 5.3% to 5.4% the second time).
        func raiseFloor(in root: String? = nil) throws {
            let text = String(decoding: try FileSystem.readFile((root ?? fixture.repo) + "/" + table), as: UTF8.self)
            try text.contains("apr_min_pct: 5.2") ? edit(root, "apr_min_pct: 5.2", "apr_min_pct: 5.3") : edit(root, "apr_min_pct: 5.3", "apr_min_pct: 5.4")
        }

        func edit(_ root: String?, _ old: String, _ new: String) throws {
            let path = (root ?? fixture.repo) + "/" + table
            let text = String(decoding: try FileSystem.readFile(path), as: UTF8.self)
            #expect(text.contains(old))
            try FileSystem.writeFile(path, Array(text.replacingOccurrences(of: old, with: new).utf8))
        }

        /// `git <arguments>` in `folder` with ratecard on PATH (and `input` on stdin).
        func git(_ arguments: [String], in folder: String? = nil, input: String? = nil) throws -> (status: Int32, output: String) {
            let apart = gitDir.map { ["--git-dir", $0, "--work-tree", fixture.repo] } ?? []
            let git = apart + ["-C", folder ?? fixture.repo, "-c", "user.name=Hook Test", "-c", "user.email=hook@example.com"] + arguments
            guard let input else { return try runTool("/usr/bin/git", git, environment: environmentWithRatecardOnPath) }
            let quoted = git.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
            return try runTool("/bin/sh", ["-c", "printf '\(input)' | /usr/bin/git \(quoted)"], environment: environmentWithRatecardOnPath)
        }

        func head(in folder: String? = nil) throws -> String {
            try git(["rev-parse", "HEAD"], in: folder).output.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// The illegal rate is blocked and names CAP-01, the legal change goes in, each made by `commit`.
        func blocksTheCapAndTakesAGoodChange(in folder: String? = nil, _ commit: (String) throws -> (status: Int32, output: String)) throws {
            let before = try head(in: folder)
            try breakCap(in: folder)
            let blocked = try commit("cap test")
            #expect(blocked.status != 0, "\(blocked.output)")
            #expect(blocked.output.contains("CAP-01"), "\(blocked.output)")
            #expect(try head(in: folder) == before)
            try restoreCap(in: folder)
            try raiseFloor(in: folder)
            let allowed = try commit("good change")
            #expect(allowed.status == 0, "\(allowed.output)")
            #expect(try head(in: folder) != before)
        }
    }

    @Test func commitAllIsJudgedOnWhatItCommits() throws {
        try withTemporaryDirectory { directory in
            let repo = try HookedRepository(in: directory)
            try repo.blocksTheCapAndTakesAGoodChange { try repo.git(["commit", "-qam", $0]) }
        }
    }

    @Test func commitWithPathsIsJudgedOnWhatItCommits() throws {
        try withTemporaryDirectory { directory in
            let repo = try HookedRepository(in: directory)
            try repo.blocksTheCapAndTakesAGoodChange { try repo.git(["commit", "-qm", $0, repo.table]) }
        }
    }

    @Test func anAmendIsJudgedOnWhatItCommits() throws {
        try withTemporaryDirectory { directory in
            let repo = try HookedRepository(in: directory)
            try repo.blocksTheCapAndTakesAGoodChange { try repo.git(["commit", "-q", "--amend", "-am", $0]) }
        }
    }

    @Test func anInteractiveCommitIsJudgedOnTheHunksChosen() throws {
        try withTemporaryDirectory { directory in
            let repo = try HookedRepository(in: directory)
            // One hunk each time: stage it.
            try repo.blocksTheCapAndTakesAGoodChange { try repo.git(["commit", "-q", "-p", "-m", $0], input: "y\\n") }
        }
    }

    @Test func aLinkedWorkTreeIsJudgedOnWhatItCommits() throws {
        try withTemporaryDirectory { directory in
            let repo = try HookedRepository(in: directory)
            let linked = directory + "/linked"
            let added = try repo.git(["worktree", "add", "-q", "-b", "side", linked])
            #expect(added.status == 0, "\(added.output)")
            try repo.blocksTheCapAndTakesAGoodChange(in: linked) { try repo.git(["commit", "-qam", $0], in: linked) }
            // Paths, from a folder below the linked work tree's top.
            try repo.blocksTheCapAndTakesAGoodChange(in: linked) { try repo.git(["commit", "-qm", $0, "credit/rates/2026-01-15.yaml"], in: linked + "/products/acme-bank") }
        }
    }

    /// A git folder kept apart from its work tree (`git --git-dir D --work-tree W`): git names
    /// both to the hook in GIT_DIR and GIT_WORK_TREE, and no .git is found from the content.
    @Test func aGitFolderApartFromItsWorkTreeIsJudgedOnWhatItCommits() throws {
        try withTemporaryDirectory { directory in
            var repo = try HookedRepository(in: directory)
            repo.gitDir = directory + "/apart.git"
            #expect(rename(repo.fixture.repo + "/.git", directory + "/apart.git") == 0)
            try repo.blocksTheCapAndTakesAGoodChange { try repo.git(["commit", "-qam", $0]) }
        }
    }

    @Test func contentInAFolderOfAMonorepoIsJudgedOnWhatItCommits() throws {
        try withTemporaryDirectory { directory in
            let repo = try HookedRepository(in: directory, contentFolder: "services/rates")
            try repo.blocksTheCapAndTakesAGoodChange { try repo.git(["commit", "-qam", $0]) }
            try repo.blocksTheCapAndTakesAGoodChange { try repo.git(["commit", "-qm", $0, "rates/" + repo.fixture.table], in: repo.fixture.repo + "/services") }
        }
    }

    @Test func anErrorAlreadyCommittedDoesNotBlockTheNextCorrectChange() throws {
        try withTemporaryDirectory { directory in
            let repo = try HookedRepository(in: directory)
            try repo.breakCap()
            let skipped = try repo.git(["commit", "-q", "--no-verify", "-am", "cap, unchecked"])
            #expect(skipped.status == 0, "\(skipped.output)")
            let before = try repo.head()
            try repo.raiseFloor()
            let allowed = try repo.git(["commit", "-qam", "good change"])
            #expect(allowed.status == 0, "\(allowed.output)")
            #expect(try repo.head() != before)
            // Said, not hidden: the error HEAD held is named as not from this change.
            #expect(allowed.output.contains("already committed in HEAD"), "\(allowed.output)")
            #expect(allowed.output.contains("CAP-01"), "\(allowed.output)")
            // A change that adds a problem of its own is still blocked.
            try repo.edit(nil, "apr_min_pct: 4.1", "apr_min_pct: 30.1")
            let blocked = try repo.git(["commit", "-qam", "another cap"])
            #expect(blocked.status != 0, "\(blocked.output)")
        }
    }
}
