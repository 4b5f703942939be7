import RatecardKit
import Testing

@Suite struct YAMLParserTests {
    func parse(_ text: String) throws(YAMLError) -> YAMLNode? {
        try YAMLParser.parse(Array(try SourceText.decode(Array(text.utf8)).utf8))
    }

    @Test func marksAreOneBasedAndCountCharacters() throws {
        let node = try #require(try parse("name_ko: 신한은행\nrate: 12.5\n"))
        guard case .mapping(let pairs) = node.kind else {
            Issue.record("not a mapping")
            return
        }
        #expect(pairs[0].value.mark == SourceMark(line: 1, column: 10))
        #expect(pairs[1].value.mark == SourceMark(line: 2, column: 7))
        #expect(pairs[1].value.kind == .scalar("12.5", plain: true))
    }

    @Test func duplicateKeysAreRejectedAtTheSecondKey() {
        #expect(throws: YAMLError(rule: "YML-02", mark: SourceMark(line: 3, column: 1), message: "duplicate key 'a' (first defined at line 1); keep one")) {
            try parse("a: 1\nb: 2\na: 3\n")
        }
    }

    @Test func anAliasBombIsRejectedAtTheFirstAnchorWithoutExpanding() {
        let bomb = """
            a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
            b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
            c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
            d: [*c, *c, *c, *c, *c, *c, *c, *c, *c]
            """
        #expect(throws: YAMLError(rule: "YML-03", mark: SourceMark(line: 1, column: 4), message: "anchors (&a) are not allowed; write each value out in full")) {
            try parse(bomb)
        }
    }

    @Test func tagsAreRejected() {
        #expect(throws: YAMLError(rule: "YML-04", mark: SourceMark(line: 1, column: 7), message: "tags (tag:yaml.org,2002:str) are not allowed; write a plain value")) {
            try parse("name: !!str 123\n")
        }
    }

    @Test func syntaxErrorsSayWhereTheParserStopped() {
        do {
            _ = try parse("a: [1, 2\nb: 3\n")
            Issue.record("expected a syntax error")
        } catch {
            #expect(error.rule == "YML-01")
            #expect(error.message.hasPrefix("YAML syntax error: "))
            #expect(error.mark.line == 2)
        }
    }

    @Test func invalidUTF8IsReportedAtTheBadByte() {
        var bytes = Array("name_ko: 신한\nname_en: Sh".utf8)
        bytes.append(0xFF)
        #expect(throws: YAMLError(rule: "YML-05", mark: SourceMark(line: 2, column: 12), message: "file is not valid UTF-8 (byte 0xFF); save it as UTF-8")) {
            try SourceText.decode(bytes)
        }
    }

    @Test func filesOverOneMebibyteAreRefused() {
        let bytes = [UInt8](repeating: 0x61, count: SourceText.maxBytes + 1)
        #expect(throws: YAMLError(rule: "YML-06", mark: .start, message: "file is 1048577 bytes, over the 1 MiB limit (1048576 bytes); split it up")) {
            try SourceText.decode(bytes)
        }
        #expect((try? SourceText.decode([UInt8](repeating: 0x61, count: SourceText.maxBytes))) != nil)
    }

    @Test func moreThanOneDocumentIsRejected() {
        #expect(throws: YAMLError.self) { try parse("a: 1\n---\nb: 2\n") }
    }

    @Test func nestingTensOfThousandsDeepIsRefusedNotACrash() {
        let depth = 60_000
        let text = "a: " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "\n"
        #expect(throws: YAMLError(rule: "YML-08", mark: SourceMark(line: 1, column: 35), message: "nesting deeper than 32 levels of mappings and sequences; content never needs that, flatten it")) {
            try parse(text)
        }
        // The limit itself: 32 levels (the top mapping and 31 lists) parse, 33 do not.
        #expect((try? parse("a: " + String(repeating: "[", count: 31) + String(repeating: "]", count: 31) + "\n")) != nil)
        #expect((try? parse("a: " + String(repeating: "[", count: 32) + String(repeating: "]", count: 32) + "\n")) == nil)
    }

    @Test func aByteOrderMarkAndBareCarriageReturnsAreNamed() {
        #expect(throws: YAMLError(rule: "YML-05", mark: .start, message: "file starts with a byte-order mark (BOM); save it as UTF-8 without BOM")) {
            try SourceText.decode([0xEF, 0xBB, 0xBF] + Array("a: 1\n".utf8))
        }
        #expect(
            throws: YAMLError(rule: "YML-05", mark: SourceMark(line: 1, column: 5), message: "line ends with a bare carriage return (CR, old Mac line endings); save the file with LF line endings")
        ) {
            try SourceText.check(Array("a: 1\rb: 2\r".utf8))
        }
        // CRLF is fine.
        #expect((try? SourceText.check(Array("a: 1\r\nb: 2\r\n".utf8))) != nil)
    }
}
