import RatecardCLI
import RatecardKit
import Testing

@Suite struct ArgumentParsingTests {
    let options = [OptionSpec("--rev", value: "REV", "a revision"), OptionSpec("--dry-run", "a flag"), OptionSpec("-m", value: "MSG", "message")]

    @Test func acceptsSeparateAndInlineValuesFlagsAndDoubleDash() throws {
        let parsed = try ParsedArguments.parse(["--rev", "HEAD~1", "--dry-run", "-m=x", "--", "--not-a-flag"], options: options + [OptionSpec("-m=x", "")], positionals: 0...1)
        #expect(parsed.value("--rev") == "HEAD~1")
        #expect(parsed.has("--dry-run"))
        #expect(parsed.positionals == ["--not-a-flag"])
        let inline = try ParsedArguments.parse(["--rev=main", "-m", "hello"], options: options, positionals: 0...0)
        #expect(inline.value("--rev") == "main")
        #expect(inline.value("-m") == "hello")
    }

    @Test func rejectsWhatIsNotInTheTable() {
        expectThrows(UsageError.self, "Unknown option '--frob'") { try ParsedArguments.parse(["--frob"], options: options, positionals: 0...0) }
        expectThrows(UsageError.self, "Missing value for '--rev <rev>'") { try ParsedArguments.parse(["--rev"], options: options, positionals: 0...0) }
        expectThrows(UsageError.self, "'--dry-run' takes no value") { try ParsedArguments.parse(["--dry-run=yes"], options: options, positionals: 0...0) }
        expectThrows(UsageError.self, "Missing expected argument") { try ParsedArguments.parse([], options: options, positionals: 1...1) }
        expectThrows(UsageError.self, "Unexpected argument 'b'") { try ParsedArguments.parse(["a", "b"], options: options, positionals: 1...1) }
    }

    /// An unknown option names the options it is close to, and only those.
    @Test func anUnknownOptionSuggestsTheNearestOnly() {
        let options = options + [OptionSpec("--limit", value: "N", "how many"), OptionSpec("--env", value: "ENV", "an environment")]
        func error(_ arguments: [String]) -> String {
            do {
                _ = try ParsedArguments.parse(arguments, options: options, positionals: 0...0)
                return ""
            } catch { return error.message.english }
        }
        #expect(error(["--limt", "3"]) == "Unknown option '--limt'; did you mean '--limit'?")
        // The long word a one-letter option stands for.
        #expect(error(["--mesage", "x"]) == "Unknown option '--mesage'; did you mean '-m'?")
        #expect(error(["--message=x"]) == "Unknown option '--message'; did you mean '-m'?")
        // A one-letter option that is not one: the long options it begins.
        #expect(error(["-e", "production"]) == "Unknown option '-e'; did you mean '--env'?")
        #expect(error(["-r", "HEAD"]) == "Unknown option '-r'; did you mean '--rev'?")
        // Nothing close: no guess.
        #expect(error(["--frobnicate"]) == "Unknown option '--frobnicate'")
        #expect(error(["--xyz"]) == "Unknown option '--xyz'")
        #expect(error(["-q"]) == "Unknown option '-q'")
    }
}
