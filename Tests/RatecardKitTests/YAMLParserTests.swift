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
        expectThrows(YAMLError.self, "3:1: YML-02: duplicate key 'a' (first defined at line 1); keep one") {
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
        expectThrows(YAMLError.self, "1:4: YML-03: anchors (&a) are not allowed; write each value out in full") {
            try parse(bomb)
        }
    }

    @Test func tagsAreRejected() {
        expectThrows(YAMLError.self, "1:7: YML-04: tags (tag:yaml.org,2002:str) are not allowed; write a plain value") {
            try parse("name: !!str 123\n")
        }
    }

    @Test func syntaxErrorsSayWhereTheParserStopped() {
        do {
            _ = try parse("a: [1, 2\nb: 3\n")
            Issue.record("expected a syntax error")
        } catch {
            #expect(error.rule == "YML-01")
            #expect(error.message.english.hasPrefix("YAML syntax error: "))
            #expect(error.mark.line == 2)
        }
    }

    @Test func invalidUTF8IsReportedAtTheBadByte() {
        var bytes = Array("name_ko: 신한\nname_en: Sh".utf8)
        bytes.append(0xFF)
        expectThrows(YAMLError.self, "2:12: YML-05: file is not valid UTF-8 (byte 0xFF); save it as UTF-8") {
            try SourceText.decode(bytes)
        }
    }

    @Test func filesOverOneMebibyteAreRefused() {
        let bytes = [UInt8](repeating: 0x61, count: SourceText.maxBytes + 1)
        expectThrows(YAMLError.self, "1:1: YML-06: file is 1048577 bytes, over the 1 MiB limit (1048576 bytes); split it up") {
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
        expectThrows(YAMLError.self, "1:35: YML-08: nesting deeper than 32 levels of mappings and sequences; content never needs that, flatten it") {
            try parse(text)
        }
        // The limit itself: 32 levels (the top mapping and 31 lists) parse, 33 do not.
        #expect((try? parse("a: " + String(repeating: "[", count: 31) + String(repeating: "]", count: 31) + "\n")) != nil)
        #expect((try? parse("a: " + String(repeating: "[", count: 32) + String(repeating: "]", count: 32) + "\n")) == nil)
    }

    @Test func aByteOrderMarkAndBareCarriageReturnsAreNamed() {
        expectThrows(YAMLError.self, "1:1: YML-05: file starts with a byte-order mark (BOM); save it as UTF-8 without BOM") {
            try SourceText.decode([0xEF, 0xBB, 0xBF] + Array("a: 1\n".utf8))
        }
        expectThrows(YAMLError.self, "1:5: YML-05: line ends with a bare carriage return (CR, old Mac line endings); save the file with LF line endings") {
            try SourceText.check(Array("a: 1\rb: 2\r".utf8))
        }
        // CRLF is fine.
        #expect((try? SourceText.check(Array("a: 1\r\nb: 2\r\n".utf8))) != nil)
    }
}
