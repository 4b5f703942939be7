import Foundation
import RatecardKit
import Testing

/// The repository's `.pre-commit-hooks.yaml` under the real pre-commit, and its `action.yml`'s
/// steps run as a runner runs them (the build steps skipped for the built binary).
@Suite struct CIIntegrationTests {
    var sourceRoot: String { sourceTree }

    /// A content repository from `ratecard init`, and one of its partner files.
    func contentRepository(in directory: String) throws -> (repo: String, partner: String) {
        let made = try ratecard(["init", "repo"], in: directory)
        #expect(made.status == 0, "\(made.err)")
        let repo = directory + "/repo"
        let partner = "partners/" + (try FileSystem.listDirectory(repo + "/partners").filter { $0.hasSuffix(".yaml") }.sorted()[0])
        return (repo, partner)
    }

    /// `partner` with an unknown field before its `logo:` line.
    func breakPartner(_ path: String) throws {
        let text = String(decoding: try FileSystem.readFile(path), as: UTF8.self)
        #expect(text.contains("\nlogo:"))
        try FileSystem.writeFile(path, Array(text.replacingOccurrences(of: "\nlogo:", with: "\ncolour: blue\nlogo:").utf8))
    }

    @Test func preCommitTryRepoBlocksABadStagedFile() throws {
        try withTemporaryDirectory { directory in
            // The hooks' repository: this source tree's hook definitions, committed.
            let hooks = directory + "/hooks"
            try FileSystem.makeDirectories(hooks)
            try FileSystem.writeFile(hooks + "/.pre-commit-hooks.yaml", try FileSystem.readFile(sourceRoot + "/.pre-commit-hooks.yaml"))
            let git = "/usr/bin/git"
            var env = environmentWithRatecardOnPath
            env["PRE_COMMIT_HOME"] = directory + "/pre-commit-home"
            env["GIT_AUTHOR_NAME"] = "t"
            env["GIT_AUTHOR_EMAIL"] = "t@localhost"
            env["GIT_COMMITTER_NAME"] = "t"
            env["GIT_COMMITTER_EMAIL"] = "t@localhost"
            for arguments in [["init", "-q", hooks], ["-C", hooks, "add", "-A"], ["-C", hooks, "commit", "-qm", "hooks"]] {
                #expect(try runTool(git, arguments, environment: env).0 == 0)
            }
            let (repo, partner) = try contentRepository(in: directory)
            func tryRepo() throws -> (Int32, String) {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                process.arguments = ["pre-commit", "try-repo", hooks, "ratecard-validate", "--verbose"]
                process.currentDirectoryURL = URL(fileURLWithPath: repo)
                process.environment = env
                let pipe = Pipe()
                process.standardOutput = pipe
                process.standardError = pipe
                try process.run()
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                return (process.terminationStatus, String(decoding: data, as: UTF8.self))
            }
            let clean = try tryRepo()
            #expect(clean.0 == 0, "\(clean.1)")
            try breakPartner(repo + "/" + partner)
            #expect(try runTool(git, ["-C", repo, "add", partner], environment: env).0 == 0)
            let blocked = try tryRepo()
            #expect(blocked.0 != 0)
            #expect(blocked.1.contains("\(partner):") && blocked.1.contains("SCH-02"), "\(blocked.1)")
        }
    }

    @Test func theActionsStepsAnnotateABadCommitAndWriteSARIF() throws {
        try withTemporaryDirectory { directory in
            let (repo, partner) = try contentRepository(in: directory)
            try breakPartner(repo + "/" + partner)
            var env = environmentWithRatecardOnPath
            env["GIT_AUTHOR_NAME"] = "t"
            env["GIT_AUTHOR_EMAIL"] = "t@localhost"
            env["GIT_COMMITTER_NAME"] = "t"
            env["GIT_COMMITTER_EMAIL"] = "t@localhost"
            #expect(try runTool("/usr/bin/git", ["-C", repo, "commit", "-qam", "A partner with a misspelt field"], environment: env).0 == 0)
            let runner = Fixtures.root + "/ci/run_action_steps.py"
            let binary = binaryFolder + "/ratecard"
            let steps = ["python3", runner, sourceRoot + "/action.yml", directory, "content=repo", "ratecard=\(binary)"]
            let github = try runTool("/usr/bin/env", steps + ["range=HEAD~1..HEAD"], environment: env)
            #expect(github.0 == 1, "\(github.1)")
            #expect(github.1.contains("::error file=\(partner),line="), "\(github.1)")
            #expect(github.1.contains("title=SCH-02::unknown field 'colour'"), "\(github.1)")
            let sarif = try runTool("/usr/bin/env", steps + ["format=sarif"], environment: env)
            #expect(sarif.0 == 1, "\(sarif.1)")
            let line = sarif.1.split(separator: "\n").first { $0.hasPrefix("output validate.sarif=") }
            let path = line.map { String($0.dropFirst("output validate.sarif=".count)) } ?? ""
            let report = String(decoding: (try? FileSystem.readFile(path)) ?? [], as: UTF8.self)
            #expect(report.contains("\"ruleId\": \"SCH-02\"") && report.contains(partner), "\(sarif.1)\n\(report.prefix(400))")
            // A format the action does not offer is refused before ratecard runs.
            #expect(try runTool("/usr/bin/env", steps + ["format=junit"], environment: env).0 == 2)
        }
    }
}
