import Foundation
import RatecardCLI
import RatecardKit
import Testing

/// End to end: the built binary, its streams, its exit codes and the files it leaves.
@Suite struct CommandLineTests {
    @Test func theExampleContentValidatesClean() throws {
        let result = try ratecard(["validate", "--as-of", "2026-11-29"], in: exampleContent)
        #expect(result.status == 0, "\(result.out)\(result.err)")
        #expect(result.out.hasPrefix("ok: 0 errors, 0 warnings in "))
        #expect(result.err == "")
    }

    @Test(arguments: RatecardCLI.commands.map(\.name))
    func everyCommandHasHelp(_ name: String) throws {
        let result = try ratecard([name, "--help"], in: "/")
        #expect(result.status == 0)
        #expect(result.out.hasPrefix("OVERVIEW: "))
        #expect(result.out.contains("USAGE: ratecard \(name) "))
        #expect(result.out.contains("--help"))
        #expect(result.err == "")
    }

    @Test func topLevelHelpListsEveryCommand() throws {
        let result = try ratecard(["--help"], in: "/")
        #expect(result.status == 0)
        for command in RatecardCLI.commands { #expect(result.out.contains("  \(command.name) ")) }
    }

    @Test func unknownFlagIsAUsageError() throws {
        let result = try ratecard(["validate", "--frobnicate"], in: exampleContent)
        #expect(result.status == 2)
        #expect(result.out == "")
        #expect(
            result.err == """
                Error: Unknown option '--frobnicate'

                Usage: ratecard validate [--rev <rev> | --range <a..b> | --staged] [--format <format>] [--as-of <date>] [--allow-shallow]
                  See 'ratecard validate --help' for more information.

                """)
    }

    /// A typo anywhere on the command line is a usage error (exit 2) that names what is close
    /// to it, and only that: revisions (with the environments diff takes), options, a partner
    /// id under --product, a language.
    @Test func typosAreUsageErrorsWithTheNearestNames() throws {
        try withTemporaryDirectory { directory in
            var fixture = try HistoryFixture(in: directory)
            try fixture.edit("ratecard.yaml", "environments:\n", "environments:\n  production:\n    root: ../serve-production\n")
            try fixture.commit("Add production")
            #expect(try runTool("/usr/bin/git", ["-C", fixture.repo, "branch", "release-2026"]).0 == 0)
            func expectUsage(_ arguments: [String], _ says: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
                let result = try ratecard(arguments, in: fixture.repo)
                #expect(result.status == 2, "\(arguments): \(result.err)", sourceLocation: sourceLocation)
                #expect(result.err.hasPrefix("Error: " + says + "\n"), "\(arguments): \(result.err)", sourceLocation: sourceLocation)
            }
            try expectUsage(["diff", "productoin", "staging"], "unknown revision 'productoin': no branch, tag or commit of that name; did you mean 'production'?")
            try expectUsage(["validate", "--rev", "HEADD"], "unknown revision 'HEADD': no branch, tag or commit of that name; did you mean 'HEAD'?")
            try expectUsage(["validate", "--range", "relase-2026..HEAD"], "unknown revision 'relase-2026': no branch, tag or commit of that name; did you mean 'release-2026'?")
            try expectUsage(["validate", "--rev", "HEAD~7"], "unknown revision 'HEAD~7': 'HEAD' has no such ancestor")
            try expectUsage(["validate", "--rev", "qqzzxx"], "unknown revision 'qqzzxx': no branch, tag or commit of that name")
            try expectUsage(["publish", "--root", directory + "/root", "--mesage", "x"], "Unknown option '--mesage'; did you mean '-m'?")
            try expectUsage(["releases", "--root", directory + "/root", "--limt", "3"], "Unknown option '--limt'; did you mean '--limit'?")
            try expectUsage(["status", "-e", "staging"], "Unknown option '-e'; did you mean '--env'?")
            try expectUsage(["log", "--product", "acme-bank"], "no product 'acme-bank' in the content; 'acme-bank' is a partner: did you mean '--partner acme-bank'?")
            try expectUsage(["validate", "--lang", "kr"], "Unknown language 'kr'; use one of: en, ko; did you mean 'ko'?")
            try expectUsage(["validate", "--lang", "Korean"], "Unknown language 'Korean'; use one of: en, ko; did you mean 'ko'?")
            try expectUsage(["validate", "--lang", "fr"], "Unknown language 'fr'; use one of: en, ko")
            let korean = try ratecard(["validate", "--rev", "HEADD", "--lang", "ko"], in: fixture.repo)
            #expect(korean.status == 2)
            #expect(korean.err.contains("알 수 없는 리비전 'HEADD'"), "\(korean.err)")
        }
    }

    @Test func missingValueAndMissingArgumentAreUsageErrors() throws {
        let missingValue = try ratecard(["validate", "--rev"], in: exampleContent)
        #expect(missingValue.status == 2)
        #expect(missingValue.err.hasPrefix("Error: Missing value for '--rev <rev>'\n\nUsage: ratecard validate "))
        let missingArgument = try ratecard(["init"], in: temporaryRoot)
        #expect(missingArgument.status == 2)
        #expect(missingArgument.err.hasPrefix("Error: Missing expected argument\n\nUsage: ratecard init <dir>\n"))
        let unknownCommand = try ratecard(["frobnicate"], in: temporaryRoot)
        #expect(unknownCommand.status == 2)
        #expect(unknownCommand.err.hasPrefix("Error: Unknown command 'frobnicate'\n\nUsage: ratecard <command>"))
        let badFormat = try ratecard(["validate", "--format", "xml"], in: exampleContent)
        #expect(badFormat.status == 2)
        #expect(badFormat.err.hasPrefix("Error: Unknown format 'xml'; use one of: text, json, github, sarif, junit\n"))
    }

    @Test func initCreatesACommittedRepositoryThatValidates() throws {
        try withTemporaryDirectory { directory in
            let created = try ratecard(["init", "repo"], in: directory)
            #expect(created.status == 0, "\(created.err)")
            let repository = try Repository.open(at: directory + "/repo")
            let head = try #require(try repository.headCommit())
            #expect(try repository.commitInfo(head).summary == "Example content from ratecard init")
            let validated = try ratecard(["validate", "--rev", "HEAD", "--as-of", "2026-11-29"], in: directory + "/repo")
            #expect(validated.status == 0, "\(validated.out)")
            let again = try ratecard(["init", "repo"], in: directory)
            #expect(again.status == 3)
            #expect(again.err.contains("already exists and is not empty"))
        }
    }

    @Test func invalidContentExitsOneWithPositionedErrors() throws {
        try withTemporaryDirectory { directory in
            _ = try ratecard(["init", "repo"], in: directory)
            let partner = directory + "/repo/partners/ibk.yaml"
            let text = String(decoding: try FileSystem.readFile(partner), as: UTF8.self)
            try FileSystem.writeFile(partner, Array(text.replacingOccurrences(of: "category: bank", with: "category: bnak").utf8))
            let result = try ratecard(["validate", "--as-of", "2026-11-29"], in: directory + "/repo")
            #expect(result.status == 1)
            let line = text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.hasPrefix("category:") }! + 1
            #expect(
                result.out.hasPrefix(
                    "partners/ibk.yaml:\(line):11: error SCH-04: 'category' is 'bnak', which is not one of: bank, internet_bank, savings_bank, card, capital, insurance, p2p; did you mean 'bank'?\n"))
            #expect(result.out.hasSuffix("invalid: 1 error, 0 warnings in 205 files\n") || result.out.contains("invalid: "))
        }
    }

    @Test func outsideAnyContentRepoIsAnOperationalError() throws {
        try withTemporaryDirectory { directory in
            let result = try ratecard(["validate"], in: directory)
            #expect(result.status == 4)
            #expect(result.err.hasPrefix("Error: no ratecard.yaml in "))
        }
    }

    @Test func rulesListsAtLeastThirtyRulesWithStableIDs() throws {
        let result = try ratecard(["rules", "--format", "json"], in: "/")
        #expect(result.status == 0)
        let rules = try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as! [[String: String]]
        #expect(rules.count >= 30)
        #expect(Set(rules.map { $0["id"]! }).count == rules.count)
        #expect(rules.allSatisfy { ["error", "warning"].contains($0["severity"]!) && !$0["rationale"]!.isEmpty })
    }
}
