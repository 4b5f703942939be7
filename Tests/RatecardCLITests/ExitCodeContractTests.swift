import Foundation
import Glibc
import RatecardCLI
import RatecardKit
import Testing

/// The exit codes are a contract by cause (DESIGN.md): 1 refused for what the input is, 2 a
/// usage error, 3 refused for the state of the target, 4 an operational failure. Every command's
/// refusals are run here, each against the code of its cause, and the table in the README and
/// in every `--help` is the one in the code.
@Suite struct ExitCodeContractTests {
    enum Cause: Int32, CustomStringConvertible {
        case input = 1
        case usage = 2
        case target = 3
        case operational = 4

        var description: String { "\(rawValue) (\(RatecardCLI.ExitCode.table.first { $0.code == rawValue }!.meaning.prefix { $0 != ":" }))" }
    }

    /// One refusal: the command, what makes it refuse, the cause, and a piece of what it says.
    struct Case {
        var command: String
        var why: String
        var cause: Cause
        var says: String
        var run: () throws -> Execution
    }

    /// Runs every case; each must exit with its cause's code and say why (a report on stdout, the
    /// error on stderr).
    static func check(_ cases: [Case], sourceLocation: SourceLocation = #_sourceLocation) throws {
        for item in cases {
            let result = try item.run()
            #expect(result.status == item.cause.rawValue, "\(item.command), \(item.why): exit \(result.status), not \(item.cause)\n\(result.out)\(result.err)", sourceLocation: sourceLocation)
            #expect((result.out + result.err).contains(item.says), "\(item.command), \(item.why): \(result.out)\(result.err)", sourceLocation: sourceLocation)
        }
    }

    /// The commands whose refusals the tests below run, to be checked against the command table.
    static let covered: Set<String> = [
        "init", "validate", "rules", "schema", "build", "preview", "diff", "save", "log", "show", "hook", "publish", "promote", "rollback", "status", "releases", "verify",
        "prune", "repair", "nginx-conf", "serve", "bridge", "generate", "version", "completion", "keys", "sign", "fetch", "rollout",
    ]

    @Test func everyCommandsRefusalsAreTested() {
        let commands = Set(RatecardCLI.commands.map(\.name))
        #expect(commands.subtracting(Self.covered).isEmpty, "no refusal tested for: \(commands.subtracting(Self.covered).sorted())")
    }

    /// `fetch`'s refusals of what is served (exit 1) are in LoaderFetchTests, against a server.
    @Test func fetchRefusesByCause() throws {
        try withTemporaryDirectory { directory in
            let key = directory + "/key.pub"
            try FileSystem.writeFile(key, Array("ed25519:AAAA\n".utf8))
            try Self.check([
                Case(command: "fetch", why: "no bridge version", cause: .usage, says: "--bridge <n> is required") { try ratecard(["fetch", "http://127.0.0.1:9"], in: directory) },
                Case(command: "fetch", why: "not an http URL", cause: .usage, says: "is not an http:// or https:// URL") { try ratecard(["fetch", "ftp://x/", "--bridge", "1"], in: directory) },
                Case(command: "fetch", why: "not a key", cause: .usage, says: "does not hold a public key") {
                    try ratecard(["fetch", "http://127.0.0.1:9", "--bridge", "1", "--trust", key], in: directory)
                },
                Case(command: "fetch", why: "a bad time", cause: .usage, says: "is not an RFC 3339 time") {
                    try ratecard(["fetch", "http://127.0.0.1:9", "--bridge", "1", "--now", "today"], in: directory)
                },
                Case(command: "fetch", why: "nothing reachable, nothing kept", cause: .operational, says: "no release is kept") {
                    try ratecard(["fetch", "http://127.0.0.1:9", "--bridge", "1", "--state", directory + "/state"], in: directory)
                },
                Case(command: "fetch", why: "nothing reachable, in Korean", cause: .operational, says: "유지한 릴리스가 없습니다") {
                    try ratecard(["fetch", "http://127.0.0.1:9", "--bridge", "1", "--lang", "ko"], in: directory)
                },
            ])
        }
    }

    @Test func theTableIsInTheReadmeAndInEveryHelp() throws {
        let readme = String(decoding: try FileSystem.readFile(sourceTree + "/README.md"), as: UTF8.self)
        let rows = RatecardCLI.ExitCode.table.map { "| `\($0.code)` | \($0.meaning) |\n" }.joined()
        #expect(readme.contains("| code | meaning |\n|---|---|\n" + rows + "\n" + RatecardCLI.ExitCode.note), "the README's exit code table is not the code's")
        #expect(RatecardCLI.ExitCode.table.map(\.code) == [0, 1, 2, 3, 4])
        for command in RatecardCLI.commands {
            #expect(command.helpText.hasSuffix("\n" + RatecardCLI.ExitCode.helpSection), "\(command.name)")
        }
        let overview = try ratecard(["--help"], in: "/")
        #expect(overview.out.hasSuffix(RatecardCLI.ExitCode.helpSection))
        // Every word of each meaning is in the help, wrapped under its code.
        let section = RatecardCLI.ExitCode.helpSection.split(separator: "\n").map(String.init)
        #expect(section.allSatisfy { $0.count <= 100 })
        let unwrapped = section.dropFirst().joined(separator: " ").split(separator: " ").joined(separator: " ")
        for (code, meaning) in RatecardCLI.ExitCode.table { #expect(unwrapped.contains("\(code) \(meaning)")) }
    }

    /// Content, repository and local commands.
    @Test func contentCommandsRefuseByCause() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 1)
            let repo = fixture.repo
            // A clone whose last commit is invalid, and then an invalid edit left uncommitted.
            let bad = directory + "/bad"
            try FileSystem.copyTree(from: repo, to: bad)
            let badRepository = try Repository.create(at: bad)
            try badRepository.commitAll(message: "Base", author: Signature(name: "T", email: "t@example.com"))
            func edit(_ path: String, _ old: String, _ new: String) throws {
                let text = String(decoding: try FileSystem.readFile(bad + "/" + path), as: UTF8.self)
                #expect(text.contains(old))
                try FileSystem.writeFile(bad + "/" + path, Array(text.replacingOccurrences(of: old, with: new).utf8))
            }
            try edit("partners/coral-card.yaml", "category: card", "category: crad")
            try badRepository.commitAll(message: "Typo", author: Signature(name: "T", email: "t@example.com"))
            let asOf = ["--as-of", "2026-11-29"]
            let full = directory + "/full"
            try FileSystem.makeDirectories(full)
            try FileSystem.writeFile(full + "/notes.txt", Array("not a build\n".utf8))
            try FileSystem.makeDirectories(fixture.web + "-bridge")
            try FileSystem.writeFile(fixture.web + "-bridge/bridge.yaml", Array("version: [\n".utf8))
            let cases: [Case] = [
                Case(command: "init", why: "the folder is not empty", cause: .target, says: "already exists and is not empty") { try ratecard(["init", repo], in: directory) },
                Case(command: "init", why: "no folder named", cause: .usage, says: "Missing expected argument") { try ratecard(["init"], in: directory) },
                Case(command: "validate", why: "content invalid", cause: .input, says: "error SCH-04") { try ratecard(["validate"] + asOf, in: bad) },
                Case(command: "validate", why: "--rev and --range", cause: .usage, says: "cannot be used together") { try ratecard(["validate", "--rev", "HEAD", "--range", "a..b"], in: repo) },
                Case(command: "validate", why: "no content here", cause: .operational, says: "no ratecard.yaml") { try ratecard(["validate"], in: "/") },
                Case(command: "validate", why: "an unknown revision", cause: .usage, says: "unknown revision 'HEADD'") { try ratecard(["validate", "--rev", "HEADD"], in: repo) },
                Case(command: "rules", why: "an unknown format", cause: .usage, says: "Unknown format") { try ratecard(["rules", "--format", "xml"], in: repo) },
                Case(command: "schema", why: "--check finds none written", cause: .input, says: "missing or out of date") {
                    try ratecard(["schema", "--check", "--out", directory + "/no-schemas"], in: repo)
                },
                Case(command: "schema", why: "--out is a file", cause: .operational, says: "notes.txt") { try ratecard(["schema", "--out", full + "/notes.txt"], in: repo) },
                Case(command: "build", why: "content invalid", cause: .input, says: "error SCH-04") { try ratecard(["build", "--out", directory + "/out"] + asOf, in: bad) },
                Case(command: "build", why: "--out holds something else", cause: .target, says: "is not empty and holds no earlier build") {
                    try ratecard(["build", "--out", full] + asOf, in: repo)
                },
                Case(command: "preview", why: "content invalid", cause: .input, says: "error SCH-04") { try ratecard(["preview", "--web", fixture.web] + asOf, in: bad) },
                Case(command: "preview", why: "a bad port", cause: .usage, says: "'--port' must be a port number") { try ratecard(["preview", "--watch", "--port", "x"], in: repo) },
                Case(command: "diff", why: "nothing live in the environment", cause: .target, says: "nothing is live in staging yet") { try ratecard(["diff", "--env", "staging"], in: repo) },
                Case(command: "diff", why: "an unknown format", cause: .usage, says: "Unknown format") { try ratecard(["diff", "--format", "xml"], in: repo) },
                Case(command: "diff", why: "a misspelt environment", cause: .usage, says: "did you mean 'staging'?") { try ratecard(["diff", "stagign"], in: repo) },
                Case(command: "log", why: "an unknown key", cause: .usage, says: "no product 'acme-bank/credt'") { try ratecard(["log", "--product", "acme-bank/credt"], in: repo) },
                Case(command: "show", why: "a moment not in the form", cause: .usage, says: "'--at' must be") {
                    try ratecard(["show", "--env", "staging", "--at", "2026-11-29", "--product", "acme-bank/credit"], in: repo)
                },
                Case(command: "show", why: "nothing live at that moment", cause: .target, says: "nothing was live on staging") {
                    try ratecard(["show", "--env", "staging", "--at", "2026-11-29 09:00", "--terms", "service-terms"], in: repo)
                },
                Case(command: "save", why: "content invalid", cause: .input, says: "error SCH-04") {
                    try edit("partners/coral-card.yaml", "category: crad", "category: crd")
                    return try ratecard(["save", "-m", "x", "--author", "T <t@example.com>"] + asOf, in: bad)
                },
                Case(command: "save", why: "no message", cause: .usage, says: "-m") { try ratecard(["save"], in: repo) },
                Case(command: "hook", why: "a pre-commit hook of someone else's", cause: .target, says: "was not written by ratecard") {
                    let hook = repo + "/.git/hooks/pre-commit"
                    try FileSystem.makeDirectories(repo + "/.git/hooks")
                    try FileSystem.writeFile(hook, Array("#!/bin/sh\nexit 0\n".utf8))
                    return try ratecard(["hook", "install"], in: repo)
                },
                Case(command: "hook", why: "an unknown action", cause: .usage, says: "Unknown hook action") { try ratecard(["hook", "remove"], in: repo) },
                Case(command: "bridge", why: "an invalid bridge.yaml", cause: .input, says: "bridge.yaml:2:1: error YML-01") {
                    try ratecard(["bridge", "generate", "--web", fixture.web + "-bridge"], in: repo)
                },
                Case(command: "bridge", why: "an unknown action", cause: .usage, says: "Unknown bridge action") { try ratecard(["bridge", "check"], in: repo) },
                Case(command: "generate", why: "the folder is not empty", cause: .target, says: "already exists and is not empty") { try ratecard(["generate", full], in: directory) },
                Case(command: "version", why: "an unknown option", cause: .usage, says: "Unknown option") { try ratecard(["version", "--short"], in: repo) },
                Case(command: "completion", why: "an unknown shell", cause: .usage, says: "fish") { try ratecard(["completion", "fish"], in: repo) },
            ]
            try Self.check(cases)
        }
    }

    /// Publish and promote: gates, the target's state, usage.
    @Test func publishAndPromoteRefuseByCause() throws {
        try withTemporaryDirectory { directory in
            let setup = try ApprovalGateTests.Protected(in: directory, publishing: ["staging"])
            let repo = setup.fixture.repo
            let staging = directory + "/staging"
            let live = try #require(try setup.staging.live())
            let publish = setup.publish("staging") + ["-m", "x"]
            try setup.commitSmallChange(in: repo)
            // A root published as of a day far ahead: today is before it.
            let ahead = directory + "/ahead"
            #expect(try ratecard(["publish", "--root", ahead, "--web", setup.fixture.web, "--as-of", "2099-01-01", "-m", "ahead"], in: repo).status == 0)
            let cases: [Case] = [
                Case(command: "publish", why: "uncommitted content", cause: .input, says: "uncommitted changes") {
                    let table = repo + "/products/acme-bank/credit/rates/2026-01-15.yaml"
                    let text = try FileSystem.readFile(table)
                    try FileSystem.writeFile(table, text + Array("# note\n".utf8))
                    defer { try? FileSystem.writeFile(table, text) }
                    return try ratecard(publish, in: repo)
                },
                Case(command: "publish", why: "a first release to a protected environment, unapproved", cause: .input, says: "production is protected") {
                    try ratecard(setup.publish("production") + ["-m", "x"], in: repo)
                },
                Case(command: "publish", why: "a date before the live release's", cause: .input, says: "is before the as-of date of the release live on") {
                    try ratecard(["publish", "--root", ahead, "--web", setup.fixture.web, "-m", "today"], in: repo)
                },
                Case(command: "publish", why: "--expect-live is not live", cause: .target, says: "live is \(live), not 000009-nope") {
                    try ratecard(publish + ["--expect-live", "000009-nope"], in: repo)
                },
                Case(command: "publish", why: "the lock is held", cause: .target, says: "is locked by") {
                    let lock = try ReleaseLock.acquire(root: staging, command: "test", wait: false)
                    defer { lock.release() }
                    return try ratecard(publish + ["--no-wait"], in: repo)
                },
                Case(command: "publish", why: "an unknown environment", cause: .usage, says: "Unknown environment 'stagign'") { try ratecard(["publish", "--env", "stagign"], in: repo) },
                Case(command: "publish", why: "the web build is missing", cause: .operational, says: "is not a folder") {
                    try ratecard(["publish", "--env", "staging", "--web", directory + "/nowhere", "-m", "x"], in: repo)
                },
                Case(command: "promote", why: "a first release to a protected environment, unapproved", cause: .input, says: "production is protected") {
                    try ratecard(["promote", "--from", "staging", "--to", "production", "-m", "x"], in: repo)
                },
                Case(command: "promote", why: "the lock is held", cause: .target, says: "is locked by") {
                    let lock = try ReleaseLock.acquire(root: directory + "/production", command: "test", wait: false)
                    defer { lock.release() }
                    return try ratecard(["promote", "--from", "staging", "--to", "production", "--approve", "ok", "--no-wait", "-m", "x"], in: repo)
                },
                Case(command: "promote", why: "--expect-live is not live", cause: .target, says: "not 000009-nope") {
                    try ratecard(["promote", "--from", "staging", "--to", "production", "--approve", "ok", "--expect-live", "000009-nope", "-m", "x"], in: repo)
                },
                Case(command: "promote", why: "nothing live to promote", cause: .target, says: "has nothing live to promote") {
                    try ratecard(["promote", "--from", directory + "/empty", "--to", "staging", "-m", "x"], in: repo)
                },
                Case(command: "promote", why: "an unknown release", cause: .usage, says: "no release '999'") {
                    try ratecard(["promote", "--from", "staging", "--to", "production", "--release", "999", "-m", "x"], in: repo)
                },
                Case(command: "promote", why: "to itself", cause: .usage, says: "are the same environment") { try ratecard(["promote", "--from", "staging", "--to", "staging"], in: repo) },
            ]
            try Self.check(cases)
            #expect(try setup.staging.live() == live)
            #expect(try setup.production.live() == nil)
        }
    }

    /// The commands that move or read what is live: rollback, releases, verify, prune, status, nginx-conf.
    @Test func releaseCommandsRefuseByCause() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 2)
            try fixture.publishEach()
            let root = fixture.root
            let serve = ServeRoot(path: root)
            let ids = try serve.releaseIDs()
            let repo = fixture.repo
            let empty = directory + "/empty"
            try FileSystem.makeDirectories(empty)
            let cases: [Case] = [
                Case(command: "rollout", why: "no rollout in progress", cause: .target, says: "no rollout is in progress") {
                    try ratecard(["rollout", "--root", root, "--percent", "20", "-m", "x"], in: repo)
                },
                Case(command: "rollout", why: "a share that is not 1-99", cause: .usage, says: "is not a share of installs") {
                    try ratecard(["rollout", "--root", root, "--percent", "100", "-m", "x"], in: repo)
                },
                Case(command: "rollout", why: "no reason", cause: .usage, says: "Missing expected option '-m <why>'") {
                    try ratecard(["rollout", "--root", root, "--halt"], in: repo)
                },
                Case(command: "rollback", why: "the target is already live", cause: .target, says: "is already live") {
                    try ratecard(["rollback", "--root", root, "--to", ids[1], "-m", "x"], in: repo)
                },
                Case(command: "rollback", why: "the lock is held", cause: .target, says: "is locked by") {
                    let lock = try ReleaseLock.acquire(root: root, command: "test", wait: false)
                    defer { lock.release() }
                    return try ratecard(["rollback", "--root", root, "--no-wait", "-m", "x"], in: repo)
                },
                Case(command: "rollback", why: "--expect-live is not live", cause: .target, says: "not \(ids[0]) as expected") {
                    try ratecard(["rollback", "--root", root, "--expect-live", ids[0], "-m", "x"], in: repo)
                },
                Case(command: "rollback", why: "the target is marked bad", cause: .target, says: "is marked bad") {
                    #expect(try ratecard(["rollback", "--root", root, "-m", "bad"], in: repo).status == 0)
                    return try ratecard(["rollback", "--root", root, "--to", ids[1], "-m", "x"], in: repo)
                },
                Case(command: "rollback", why: "no earlier good release", cause: .target, says: "no earlier good release to roll back to") {
                    try ratecard(["rollback", "--root", root, "-m", "x"], in: repo)
                },
                Case(command: "rollback", why: "nothing published there", cause: .target, says: "holds no releases yet") { try ratecard(["rollback", "--root", empty, "-m", "x"], in: repo) },
                Case(command: "rollback", why: "an unknown release", cause: .usage, says: "no release '999999'") { try ratecard(["rollback", "--root", root, "--to", "999999", "-m", "x"], in: repo) },
                Case(command: "rollback", why: "no reason", cause: .usage, says: "-m <reason>") { try ratecard(["rollback", "--root", root], in: repo) },
                Case(command: "releases", why: "clearing a mark that is not there", cause: .target, says: "is not marked bad") {
                    try ratecard(["releases", "--root", root, "--clear-bad", ids[0], "-m", "x"], in: repo)
                },
                Case(command: "releases", why: "--clear-bad without a reason", cause: .usage, says: "needs '-m <reason>'") {
                    try ratecard(["releases", "--root", root, "--clear-bad", ids[1]], in: repo)
                },
                Case(command: "releases", why: "nothing published there", cause: .target, says: "holds no releases yet") { try ratecard(["releases", "--root", empty], in: repo) },
                Case(command: "verify", why: "nothing published there", cause: .target, says: "holds no releases yet") { try ratecard(["verify", "--root", empty], in: repo) },
                Case(command: "prune", why: "the lock is held", cause: .target, says: "is locked by") {
                    let lock = try ReleaseLock.acquire(root: root, command: "test", wait: false)
                    defer { lock.release() }
                    return try ratecard(["prune", "--root", root, "--keep", "1", "--no-wait"], in: repo)
                },
                Case(command: "repair", why: "the lock is held", cause: .target, says: "is locked by") {
                    let lock = try ReleaseLock.acquire(root: root, command: "test", wait: false)
                    defer { lock.release() }
                    return try ratecard(["repair", "--root", root, "--no-wait"], in: repo)
                },
                Case(command: "keys", why: "no --out", cause: .usage, says: "Missing expected option '--out <dir>'") { try ratecard(["keys", "generate"], in: repo) },
                Case(command: "keys", why: "a key folder inside the content repository", cause: .input, says: "is inside the content repository") {
                    try ratecard(["keys", "generate", "--out", repo + "/keys"], in: repo)
                },
                Case(command: "keys", why: "a key file already there", cause: .target, says: "already exists") {
                    #expect(try ratecard(["keys", "generate", "--out", directory + "/keys"], in: repo).status == 0)
                    return try ratecard(["keys", "generate", "--out", directory + "/keys"], in: repo)
                },
                Case(command: "sign", why: "a signed environment without a key", cause: .input, says: "no signing key was given") {
                    let config = repo + "/ratecard.yaml"
                    let text = try FileSystem.readFile(config)
                    let key = String(decoding: try FileSystem.readFile(directory + "/keys/ratecard-signing.pub"), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                    try FileSystem.writeFile(config, text + Array("  signed:\n    root: ../root\n    signing: {keys: [\"\(key)\"], expires_after_days: 7}\n".utf8))
                    defer { try? FileSystem.writeFile(config, text) }
                    return try ratecard(["sign", "--env", "signed"], in: repo)
                },
                Case(command: "sign", why: "the lock is held", cause: .target, says: "is locked by") {
                    let lock = try ReleaseLock.acquire(root: root, command: "test", wait: false)
                    defer { lock.release() }
                    return try ratecard(["sign", "--root", root, "--no-wait"], in: repo)
                },
                Case(command: "prune", why: "no --keep", cause: .usage, says: "Missing expected option '--keep <n>'") { try ratecard(["prune", "--root", root], in: repo) },
                Case(command: "status", why: "an unknown environment", cause: .usage, says: "Unknown environment") { try ratecard(["status", "--env", "prod"], in: repo) },
                Case(command: "nginx-conf", why: "no root named", cause: .usage, says: "Missing expected option '--env <name>' or '--root <dir>'") { try ratecard(["nginx-conf"], in: repo) },
                Case(command: "serve", why: "nothing live there", cause: .target, says: "nothing is live in") { try ratecard(["serve", "--root", empty, "--port", "0"], in: repo) },
                Case(command: "serve", why: "a bad port", cause: .usage, says: "'--port' must be a port number") { try ratecard(["serve", "--root", root, "--port", "http"], in: repo) },
                Case(command: "serve", why: "an environment in a bucket", cause: .usage, says: "look at a bucket through its CDN or static website") {
                    let config = repo + "/ratecard.yaml"
                    let text = try FileSystem.readFile(config)
                    try FileSystem.writeFile(config, text + Array("  cdn:\n    s3:\n      endpoint: https://s3.example.com\n      bucket: rates\n".utf8))
                    defer { try? FileSystem.writeFile(config, text) }
                    return try ratecard(["serve", "--env", "cdn"], in: repo)
                },
                Case(command: "serve", why: "an environment in a bucket, in Korean", cause: .usage, says: "오류: 'cdn' 환경은 오브젝트 스토리지에 있습니다 (s3://rates/). serve는 서빙 루트 폴더만") {
                    let config = repo + "/ratecard.yaml"
                    let text = try FileSystem.readFile(config)
                    try FileSystem.writeFile(config, text + Array("  cdn:\n    s3:\n      endpoint: https://s3.example.com\n      bucket: rates\n".utf8))
                    defer { try? FileSystem.writeFile(config, text) }
                    return try ratecard(["serve", "--env", "cdn", "--lang", "ko"], in: repo)
                },
                // A changed release: verify finds drift, and a rollback to it is refused for it.
                Case(command: "verify", why: "drift", cause: .input, says: "drift: 1 problem in release \(ids[0])") {
                    let page = serve.folder(of: ids[0]) + "/index.html"
                    let bytes = try FileSystem.readFile(page)
                    unlink(page)
                    try FileSystem.writeFile(page, Array("changed\n".utf8))
                    defer {
                        unlink(page)
                        try? FileSystem.writeFile(page, bytes)
                    }
                    return try ratecard(["verify", "--root", root], in: repo)
                },
                Case(command: "rollback", why: "the target no longer matches its version.json", cause: .input, says: "no longer matches") {
                    #expect(try ratecard(["rollback", "--root", root, "--to", ids[1], "--force", "-m", "forward"], in: repo).status == 0)
                    let version = serve.folder(of: ids[0]) + "/" + ReleaseInfo.fileName
                    let edited = try FileSystem.readFile(version) + Array(" ".utf8)
                    unlink(version)
                    try FileSystem.writeFile(version, edited)
                    return try ratecard(["rollback", "--root", root, "--to", ids[0], "-m", "x"], in: repo)
                },
                Case(command: "status", why: "the pointer names a release removed by hand", cause: .operational, says: "which does not exist") {
                    try FileSystem.removeTree(serve.folder(of: ids[1]))
                    return try ratecard(["status", "--root", root], in: repo)
                },
            ]
            try Self.check(cases)
        }
    }
}
