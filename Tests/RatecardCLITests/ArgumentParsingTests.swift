import RatecardCLI
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
}
