import Foundation
import Glibc
import RatecardGenerate
import RatecardLoader
import Testing

@testable import RatecardCore
@testable import RatecardKit
@testable import RatecardOutput
@testable import RatecardRelease

/// The byte-level fast paths added for large repositories (`make bench`) give exactly what the
/// Character-level code they short-cut gives, including on text where they must fall back.
@Suite struct FastPathTests {
    /// Lines that are plain, that hide a banned word behind canonical equivalence (decomposed
    /// jamo), a combining mark or a CR, and banned words at the start, middle and end.
    static let texts: [String] = [
        "",
        "\n",
        "업계 최저 금리",
        "우리는 업계 최저 금리와 무조건 승인을 약속합니다.\n둘째 줄 100% 승인 무심사\n\n누구나 대출 가능",
        "앞 업계 최저\n업계 최저 뒤\n업계 최저업계 최저",
        "\u{110B}\u{1165}\u{11B8}\u{1100}\u{1168} \u{110E}\u{116C}\u{110C}\u{1165} 금리",  // 업계 최저, decomposed
        "업계 최저\u{0301} 금리\n업계 최저",
        "CRLF 업계 최저\r\n무조건 승인\r\n",
        "mixed 100% 승인 café\u{0301} 신용불량자 환영\n「업계 최저」 ① 무심사",
        "😀 업계 최저 👍🏽 무조건 승인",
        "**업계 최저** [무조건 승인](https://example.com) - 100% 승인\n1. 누구나 대출",
        "a long run of plain ASCII text before 업계 최저\u{302E} and after it, 무조건 승인",
        "ASCII only, longer than a word or two: 100% 승인 is not here but 100% is",
        "무\u{200B}조건 승\u{00AD}인 １００％ 승인\u{3000}ｕｐ 가\u{11A8} \u{FEFF}끝 \u{3164}",
        // Ligatures that fold to many scalars each (U+FDFA to 18 with its spaces, U+3300 to 4):
        // far more than the text's own length, so the normalization runs out of room and starts again.
        String(repeating: "\u{FDFA}", count: 12) + " 업계 최저 " + String(repeating: "\u{3300}", count: 40) + " 무조건 승인",
    ]

    /// `containsBytes` finds what a byte-for-byte search finds, at the start, the middle and the
    /// end, and nothing across a partial match; the rules that use it look for NFC words in NFC
    /// text, where that is what `contains` finds too.
    @Test(arguments: texts) func containsBytesFindsWhatASearchOfTheBytesFinds(text: String) {
        for needle in ["업계 최저", "무조건 승인", "\n", "끝", "최저업계", "100%", "철회", "a", "업계 최저\u{0301}"] {
            let bytes = Array(text.utf8)
            let expected = Bytes.find(Array(needle.utf8), in: bytes, from: 0) != nil
            #expect(text.containsBytes(needle) == expected, "\(needle) in \(text)")
        }
        #expect("".containsBytes("") && "x".containsBytes("") && !"".containsBytes("x"))
        #expect("철회기간".containsBytes("철회") && !"철 회".containsBytes("철회") && "청약을철회".containsBytes("철회"))
    }

    /// `CopyText` copies ASCII and precomposed Hangul as they are and folds everything else a
    /// cluster at a time: the result is what NFKC of the whole text, without whitespace and
    /// invisible characters, gives.
    @Test(arguments: texts) func copyTextIsWholeTextNFKC(text: String) {
        let expected = String(String.UnicodeScalarView(text.precomposedStringWithCompatibilityMapping.unicodeScalars.filter { !CopyText.isInvisible($0) }))
        #expect(CopyText(plain: text, at: SourceMark(line: 1, column: 1)).text == expected)
    }

    /// Each scalar of the normalized text points at the scalar of the text it came from: a plain
    /// one at itself, a folded one at the start of the cluster it was folded from, in order.
    @Test(arguments: texts) func normalizedScalarsPointAtWhereTheyCameFrom(text: String) {
        let written = Array(text.unicodeScalars)
        let (scalars, origins) = CopyText.normalized(written)
        #expect(scalars.count == origins.count)
        #expect(origins.indices.dropFirst().allSatisfy { origins[$0 - 1] <= origins[$0] }, "\(origins)")
        for (scalar, origin) in zip(scalars, origins.map(Int.init)) {
            if CopyText.isPlain(written[origin]) && (origin + 1 == written.count || !CopyText.extendsCluster(written[origin + 1])) {
                #expect(scalar == written[origin])
            } else {
                let cluster = String(String.UnicodeScalarView(written[origin..<min(origin + 8, written.count)]))
                #expect(cluster.precomposedStringWithCompatibilityMapping.unicodeScalars.contains(scalar), "\(scalar) from \(cluster)")
            }
        }
    }

    /// A recorded output path leaves the tree exactly when it is absolute or one of its
    /// components is `..` (what splitting it at every slash finds).
    @Test func aRecordedPathLeavesTheTreeWhenAComponentIsDotDot() {
        let paths = [
            "a/b.json", "..", "../a", "a/..", "a/../b", "a//../b", "/a", "a/..b", "..a/b", "a/b../c", "a/.../b", "a/./b", "", "a/", "./..", "a/b/..",
            "데이터/../약관",
        ]
        for path in paths {
            let split = path.hasPrefix("/") || path.split(separator: "/").contains("..")
            #expect(BundleWriter.leavesTree(path) == split, "\(path)")
        }
    }

    /// Documents and how they split (yaml, body, body line), or nil when they have no closed
    /// front matter. A CRLF document has no front matter: "\r\n" is one Character, not "\n".
    static let documents: [(String, FrontMatter.Parts?)] = [
        ("---\ntitle: a\n---\n# a\n\nbody\n", .init(yaml: "title: a", body: "# a\n\nbody\n", bodyLine: 4)),
        ("---\n---\n", .init(yaml: "", body: "", bodyLine: 3)),
        ("---\n---", .init(yaml: "", body: "", bodyLine: 3)),
        ("---\ntitle: a\n---", .init(yaml: "title: a", body: "", bodyLine: 4)),
        ("---\ntitle: a\n---\nbody without newline", .init(yaml: "title: a", body: "body without newline", bodyLine: 4)),
        ("---\ntitle: a\n", nil),
        ("---", nil),
        ("--- \ntitle: a\n---\n", nil),
        ("---\na: 1\n----\n---\nbody\n---\nmore\n", .init(yaml: "a: 1\n----", body: "body\n---\nmore\n", bodyLine: 5)),
        ("---\r\ntitle: a\r\n---\r\nbody\r\n", nil),
        ("title: a\n---\n", nil),
        ("---\ntitle: \"제목\"\n---\n본문\u{0301}\n", .init(yaml: "title: \"제목\"", body: "본문\u{0301}\n", bodyLine: 4)),
        ("---\n\u{0301}---\n---\n", .init(yaml: "\u{0301}---", body: "", bodyLine: 4)),
    ]

    @Test func frontMatterSplitsAtItsFences() {
        for (text, expected) in Self.documents {
            let split = try? FrontMatter.split(text)
            #expect(split?.yaml == expected?.yaml, "\(text.debugDescription)")
            #expect(split?.body == expected?.body, "\(text.debugDescription)")
            #expect(split?.bodyLine == expected?.bodyLine, "\(text.debugDescription)")
        }
    }

    /// The split as Characters see it: lines are what `split(separator: "\n")` gives, less a
    /// CR that ends one. Nil and the message when there is no closed front matter.
    static func referenceSplit(_ text: String) -> (parts: FrontMatter.Parts?, message: String?) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasSuffix("\r") ? line.dropLast() : line
        }
        guard lines.first == "---" else { return (nil, "a terms document starts with '---', its YAML front matter, and another '---'") }
        guard let close = lines.dropFirst().firstIndex(of: "---") else { return (nil, "the front matter opened on line 1 is never closed with '---'") }
        let yaml = lines[1..<close].joined(separator: "\n")
        lines = Array(lines[(close + 1)...])
        return (FrontMatter.Parts(yaml: yaml, body: lines.joined(separator: "\n"), bodyLine: close + 2), nil)
    }

    /// Each text as written, with CRLF line ends, with a CR at its end, with a CR before its
    /// last LF, and with a combining mark after every LF.
    static func variants(of text: String) -> [String] {
        var beforeLast = text
        if let last = beforeLast.utf8.lastIndex(of: 0x0A) { beforeLast.insert("\r", at: last) }
        return [
            text, text.replacingOccurrences(of: "\n", with: "\r\n"), text + "\r", beforeLast,
            text.replacingOccurrences(of: "\n", with: "\n\u{0301}"), "\r" + text,
        ]
    }

    /// The byte split gives what the Character split gives on every terms file of the example
    /// content and of a generated repository, on the documents above and on their variants.
    @Test func frontMatterSplitsAsCharactersDo() throws {
        let extra = ["", "\r", "\n", "---\r", "---\n---\r", "---\r\n---\n", "---\n\r\n---\nbody", "---\nx\r\n---\nbody\r"]
        var texts = Self.documents.map(\.0) + extra
        for folder in [sourceTree + "/content"] {
            let source = WorkingTreeSource(root: folder, contentRoot: .repositoryRoot)
            for entry in try source.entries() where entry.path.hasSuffix(".md") {
                texts.append(String(decoding: try source.read(entry), as: UTF8.self))
            }
        }
        try withTemporaryDirectory { directory in
            let parameters = LargeContentGenerator.Parameters(partners: 3, products: 6, rateTables: 6, termsVersions: 12, history: 0, seed: 11)
            _ = try LargeContentGenerator(parameters).generate(into: directory)
            let source = WorkingTreeSource(root: directory, contentRoot: .repositoryRoot)
            for entry in try source.entries() where entry.path.hasSuffix(".md") {
                texts.append(String(decoding: try source.read(entry), as: UTF8.self))
            }
        }
        #expect(texts.count > 20)
        var split = 0
        for text in texts.flatMap(Self.variants) {
            var parts: FrontMatter.Parts?
            var message: String?
            do { parts = try FrontMatter.split(text) } catch { message = error.message.english }
            let reference = Self.referenceSplit(text)
            let shown = text.prefix(60).debugDescription
            #expect(message == reference.message, "\(shown)")
            #expect(parts?.yaml == reference.parts?.yaml, "\(shown)")
            #expect(parts?.body == reference.parts?.body, "\(shown)")
            #expect(parts?.bodyLine == reference.parts?.bodyLine, "\(shown)")
            if parts != nil { split += 1 }
        }
        #expect(split > 40)
    }

    /// The Character-level title removal `StaticPages.droppingTitleHeading` had before its byte path.
    static func referenceDropping(_ body: String, title: String) -> String {
        var lines = body.split(separator: "\n", omittingEmptySubsequences: false)
        guard let first = lines.firstIndex(where: { !$0.allSatisfy(\.isWhitespace) }),
            lines[first].hasPrefix("# "),
            String(lines[first].dropFirst(2)).trimmingCharacters(in: " \t#") == title.trimmingCharacters(in: " \t")
        else { return body }
        lines.remove(at: first)
        return lines.joined(separator: "\n")
    }

    static let bodies: [String] = [
        "# 제목\n\n본문\n", "\n\n  \n# 제목 ##\n본문", "# 제목", "\n# 제목", "# 다른 제목\n본문\n", "본문\n# 제목\n",
        "\u{3000}\n# 제목\n끝", "# 제목\r\n본문\r\n", "", "#제목\n", "# 제목\n",
        "# 제목\u{0301}\n본문", " \t\n# 제목\n\n", "# 제목 #\n\u{0301}둘째 줄", "\n\n", "# 제목\n# 제목\n",
    ]

    @Test(arguments: bodies) func titleHeadingIsDroppedAsBefore(body: String) {
        #expect(StaticPages.droppingTitleHeading(body, title: "제목") == Self.referenceDropping(body, title: "제목"))
    }

    /// Bodies whose article is not plain text: links safe and unsafe, raw HTML, a table, a
    /// title heading with markup or a closing sequence, a setext line after the title, an
    /// indented line after it, a reference definition before it.
    static let articleBodies: [String] = [
        "# 제목\n\n[안내](https://example.com) [위험](javascript:alert(1)) ![그림](data:x)\n\n<b>굵게</b> <!-- 주석 -->\n",
        "# 제목\n| 구분 | 금리 |\n|---|---|\n| 신용 | 5.0% |\n",
        "# 제목\n===\n본문\n", "# 제목\n    들여쓴 줄\n", "[x]: https://example.com\n# 제목\n[링크][x]\n",
        "# **제목**\n본문\n", "  # 제목\n본문\n", "# 제목\n> 인용\n\n1. 하나\n2. 둘\n",
    ]

    /// The article the load makes from its parse of a body is the one the page would render
    /// from the body without its title line, and asking for it changes nothing else the read gives.
    @Test(arguments: bodies + articleBodies) func articleFromTheLoadsParseIsThePagesArticle(body: String) {
        for title in ["제목", "**제목**"] {
            let expected = CommonMark.html(TitleHeading.dropping(from: body, title: title))
            guard let request = TitleHeading.article(of: body, title: title) else {
                #expect(body.utf8.contains(0x0D))
                continue
            }
            let read = CommonMark.read(body, dropped: true, article: request)
            // A line of U+3000 is blank to the title's search but a paragraph to cmark: then
            // the title is not the first block, and the page renders the article itself.
            let firstBlockIsText = body.hasPrefix("\u{3000}") && request != .whole
            #expect(read.article == (firstBlockIsText ? nil : expected), "\(body.debugDescription)")
            let plain = CommonMark.read(body, dropped: true)
            #expect(read.text == plain.text)
            #expect(read.dropped == plain.dropped)
        }
    }

    /// An article is taken once, and only by a page of the same body and title.
    @Test func anArticleIsTakenOnceBySameBodyAndTitle() {
        let articles = PageArticles()
        articles.keep(path: "terms/a/1.0.0.md", body: "본문", title: "제목", article: "<p>본문</p>\n")
        articles.keep(path: "terms/a/1.0.0.md", body: "다른 본문", title: "제목", article: "<p>다른 본문</p>\n")
        #expect(articles.take(path: "terms/a/1.0.0.md", body: "본문", title: "제목") == "<p>본문</p>\n")
        #expect(articles.take(path: "terms/a/1.0.0.md", body: "본문", title: "제목") == nil)
        articles.keep(path: "terms/b/1.0.0.md", body: "본문", title: "제목", article: "<p>본문</p>\n")
        #expect(articles.take(path: "terms/b/1.0.0.md", body: "본문", title: "다른 제목") == nil)
    }

    /// A release's file list written directly is JSONEncoder's bytes for it, for the plain
    /// strings it is written for and, through JSONEncoder, for any other.
    @Test(arguments: ["", "terms/a b/1.0.0.html", "data/\"quoted\".json", "back\\slash", "약관/1.html", "tab\there", "del\u{7F}", "a/b//c~!@#$%^&*()"])
    func aFileListWrittenDirectlyIsJSONEncodersBytes(odd: String) {
        var files: [ReleaseFileList.File] = (0..<300).map { index in
            let sha = SHA256.hex(Array("file \(index)".utf8))
            let path = index % 3 == 0 ? "terms/doc-\(index)/1.\(index).0.html" : "data/b\(index % 7)/products/p-\(index).json"
            return .init(path: path, sha256: sha, size: index * 977, object: sha + (path.hasSuffix(".html") ? ".html" : ".json"))
        }
        let plain = ReleaseFileList(environment: "production", release: "000012-0123456789ab", files: files)
        #expect(LiveStatements.bytes(of: plain) == LiveStatements.encode(plain))
        files.append(.init(path: odd, sha256: odd, size: 0, object: odd))
        let other = ReleaseFileList(environment: odd, release: odd, files: files)
        #expect(LiveStatements.bytes(of: other) == LiveStatements.encode(other))
    }

    /// `Percent.parse` and `Day.init` as they were, on Characters.
    static func referencePercent(_ text: String) -> (Int, Int)? {
        var body = Substring(text)
        var negative = false
        if body.first == "-" {
            negative = true
            body = body.dropFirst()
        } else if body.first == "+" {
            body = body.dropFirst()
        }
        let parts = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.allSatisfy({ $0.isASCII && $0.isNumber }), whole.count <= 9 else { return nil }
        var fraction = Substring("")
        if parts.count == 2 {
            fraction = parts[1]
            guard !fraction.isEmpty, fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        }
        var thousandths = Int(whole)! * 1000
        thousandths += Int(String(Array(fraction.prefix(3)) + Array(repeating: "0", count: max(0, 3 - fraction.count))))!
        return (negative ? -thousandths : thousandths, fraction.count)
    }

    static func referenceDay(_ text: String) -> Day? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
            (1...12).contains(m), d >= 1, d <= Day.daysIn(month: m, year: y)
        else { return nil }
        return Day(year: y, month: m, day: d)
    }

    @Test func percentsAndDaysParseAsBefore() {
        let percents = [
            "0", "12", "12.5", "12.345", "12.3456", "-1.5", "+3.0", "1.", ".5", "1.2.3", "", "-", "+", "123456789.1",
            "1234567890", "1e3", " 1", "1 ", "٣", "1\u{301}", "12,5", "0.000", "007.10", "-0.0", "99999999.999",
        ]
        for text in percents {
            let parsed = Percent.parse(text)
            let reference = Self.referencePercent(text)
            #expect(parsed?.value.thousandths == reference?.0 && parsed?.decimals == reference?.1, "\(text)")
        }
        let days = [
            "2026-11-29", "2024-02-29", "2025-02-29", "2025-13-01", "2025-00-10", "2025-01-00", "2025-1-01", "20250-01-01",
            "2025-01-01 ", "2025/01/01", "", "２０２５-01-01", "2025-01-3\u{301}", "0000-01-01", "2025--1-01",
        ]
        for text in days { #expect(Day(text) == Self.referenceDay(text), "\(text)") }
    }

    @Test func sourceTextChecksWhatItDecodes() {
        let inputs: [[UInt8]] = [
            [], Array("a: 1\n".utf8), Array("이름: 값\n".utf8), [0x61, 0x80], [0xC3], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
            Array(repeating: 0x41, count: 17) + [0xFF] + Array(repeating: 0x41, count: 5), Array(repeating: 0x41, count: SourceText.maxBytes + 1),
        ]
        for bytes in inputs {
            let decoded = Result { () throws(YAMLError) in _ = try SourceText.decode(bytes) }
            let checked = Result { () throws(YAMLError) in try SourceText.check(bytes) }
            switch (decoded, checked) {
            case (.success, .success): break
            case (.failure(let a), .failure(let b)): #expect(a == b)
            default: Issue.record("decode and check disagree on \(bytes.prefix(24))")
            }
        }
    }

    /// Korean messages take the byte check for "; " before Foundation's search: they come out
    /// as that search made them, with a "; " after a combining mark and U+037E (canonically ";").
    @Test func koreanSentencesAreWhatFoundationsSearchMade() {
        func reference(_ text: String) -> String {
            guard text.contains("; ") else { return text }
            var out = ""
            var rest = Substring(text)
            while let range = rest.range(of: "; ") {
                out += rest[..<range.lowerBound]
                out += Korean.endsSentence(out) ? ". " : "; "
                rest = rest[range.upperBound...]
            }
            return out + rest
        }
        for text in [
            "", "값이 없습니다", "값이 없습니다; 고치세요", "a; b", "없습니다 (a.yaml); 고치세요; 다시", "끝\u{037E} 고치세요", "없습니다;\u{0301} 고치세요",
            "없습니다; \u{0301}고치세요", ";", "; ", "다; ",
        ] {
            #expect(Korean.sentences(text) == reference(text), "\(text.debugDescription)")
        }
    }

    @Test func blankTextIsWhatCharactersSay() {
        for text in ["", " ", "\t\n", "a", " a", "\u{3000}", "\u{3000}가", "가", "\u{7F}", "\u{0}", "a\u{301}", "\r\n", "\u{85}", "~"] {
            #expect(MappingReader.isBlank(text) == text.allSatisfy(\.isWhitespace), "\(text.unicodeScalars.map(\.value))")
        }
    }

    /// A listing (a manifest, version.json) written straight from its files is the document
    /// written whole, for lists short and long (the long ones written in two halves), with
    /// paths and a hash that need escaping.
    @Test(arguments: [0, 1, 2, 2047, 2048, 2049, 5001]) func aListingIsTheDocumentWrittenWhole(count: Int) throws {
        let files = (0..<count).map { index in
            ListingFile(
                path: index % 997 == 5 ? "data/\"quoted\" \\ \(index).json" : "data/x/products/p-\(index).json", sha256: index == 7 ? "a\"b" : SHA256.hex("\(index)"),
                size: index * 37)
        }
        let fields: [String: JSON] = ["bundle_id": .string("b1"), "format": .int(1), "zeta": .null]
        var whole = fields
        whole["files"] = .array(files.map { .object(["path": .string($0.path), "sha256": .string($0.sha256), "size": .int($0.size)]) })
        #expect(JSON.listingBytes(fields, files: files) == JSON.object(whole).bytes(terminator: "\n"))
    }

    @Test func jsonReadsBackWhatJSONWrites() throws {
        let value = JSON.object([
            "text": .string("따옴표 \" 역슬래시 \\ <태그> & 줄\n바꿈\t탭 \u{2028} \u{1} 😀"),
            "numbers": .array([.int(0), .int(-42), .number("12.45"), .number("20.0"), .int(Int.max)]),
            "flags": .array([.bool(true), .bool(false), .null]),
            "empty": .object([:]),
            "list": .array([]),
        ])
        for pretty in [true, false] {
            #expect(try JSONReader.parse(Array(value.serialized(pretty: pretty).utf8)) == value)
        }
        #expect(try JSONReader.parse(Array(#"{"a": "\ud83d\ude00\u00e9\/"}"#.utf8)) == .object(["a": .string("😀é/")]))
        for bad in ["", "{", #"{"a": 1,}"#, #"{"a": 1, "a": 2}"#, "[1 2]", "01", #""\x""#, "{\"a\": \"pub", "1 2", #""\ud83d""#] {
            #expect(throws: OperationalError.self, "\(bad)") { try JSONReader.parse(Array(bad.utf8)) }
        }
        // A listing's file list is written and read without a dictionary per file, as before.
        let files = [
            BundleManifest.File(path: "data/0123/products/a/b.json", sha256: String(repeating: "ab", count: 32), size: 1234),
            BundleManifest.File(path: "terms/약관/1.0.0.html", sha256: String(repeating: "0f", count: 32), size: 0),
            BundleManifest.File(path: "odd \"quoted\" \\ <path>", sha256: "", size: Int.max),
        ]
        for list in [files, []] {
            let info = ReleaseInfo(
                id: "000001-abc", bundleID: "abc", sourceCommit: nil, asOf: "2026-11-29", publishedAt: "t",
                author: "김 <a@b>", user: "u", message: "줄\n바꿈 \"files\"", carried: ["x"], files: list)
            #expect(info.bytes() == info.json().bytes(terminator: "\n"))
            let (read, readFiles) = try JSONReader.parseListingFiles(info.bytes())
            #expect(readFiles == list)
            #expect(read["message"]?.stringValue == info.message)
            let manifest = BundleManifest(bundleID: "abc", sourceCommit: nil, sourceDirty: true, asOf: fixtureDay, generator: "g", files: list)
            #expect(manifest.bytes() == manifest.json().bytes(terminator: "\n"))
        }
        for bad in [
            #"{"files": [{"path": "a", "sha256": "b"}]}"#, #"{"files": [{"path": "a", "sha256": "b", "size": 1, "x": 2}]}"#,
            #"{"files": [{"path": 1, "sha256": "b", "size": 1}]}"#, #"{"files": {}}"#,
        ] {
            #expect(throws: OperationalError.self, "\(bad)") { try JSONReader.parseListingFiles(Array(bad.utf8)) }
        }
        // Over the 1 MiB cap on content files: a release's version.json grows past it.
        let big = JSON.array(Array(repeating: .string(String(repeating: "파일", count: 100)), count: 2000))
        #expect(try JSONReader.parse(Array(big.serialized().utf8)) == big)
    }

    /// The stat record vouches for a file only while nothing has touched it: not after a write
    /// of the same size with the mtime set back, not after a new hard link; hashing decides then.
    @Test func theVerifiedRecordVouchesOnlyForUntouchedFiles() throws {
        try withTemporaryDirectory { root in
            let folder = root + "/releases/000001-a"
            try FileSystem.makeDirectories(folder)
            try FileSystem.makeDirectories(root + "/.ratecard")
            var files: [BundleManifest.File] = []
            for name in ["a.json", "b.json", "c.json"] {
                let bytes = Array("{\"name\": \"\(name)\"}\n".utf8)
                try FileSystem.writeFile(folder + "/" + name, bytes)
                files.append(BundleManifest.File(path: name, sha256: SHA256.hex(bytes), size: bytes.count))
            }
            #expect(VerifiedFiles.load(root: root).vouches(for: folder + "/a.json", as: files[0]) == false)
            try VerifiedFiles.record(files, in: folder, root: root)
            let record = VerifiedFiles.load(root: root)
            for file in files { #expect(record.vouches(for: folder + "/" + file.path, as: file)) }
            // Lines that do not read (garbage, a line torn by a crash) are skipped, the rest kept.
            let written = try FileSystem.readFile(root + "/" + VerifiedFiles.fileName)
            let lines = written.split(separator: 0x0A).map(Array.init)
            try FileSystem.writeFile(root + "/" + VerifiedFiles.fileName, Array("x y z\n\n12 -3 4 5 ab\n".utf8) + lines[0] + [0x0A] + lines[1] + [0x0A] + Array(lines[2].prefix(40)))
            let torn = VerifiedFiles.load(root: root)
            #expect(torn.vouches(for: folder + "/a.json", as: files[0]) && torn.vouches(for: folder + "/b.json", as: files[1]))
            #expect(!torn.vouches(for: folder + "/c.json", as: files[2]))
            try FileSystem.writeFile(root + "/" + VerifiedFiles.fileName, written)
            // Not for another hash than recorded.
            var other = files[0]
            other.sha256 = String(repeating: "0", count: 64)
            #expect(!record.vouches(for: folder + "/a.json", as: other))
            // A same-size write with the mtime put back: the ctime moved (file times come from a
            // coarse clock, so let a few of its ticks pass first).
            usleep(50_000)
            var before = stat()
            stat(folder + "/b.json", &before)
            try FileSystem.writeFile(folder + "/b.json", Array("{\"name\": \"x.json\"}\n".utf8))
            var times = [before.st_atim, before.st_mtim]
            utimensat(AT_FDCWD, folder + "/b.json", &times, 0)
            #expect(!record.vouches(for: folder + "/b.json", as: files[1]))
            #expect(!record.matches(folder + "/b.json", files[1]))
            // A new link moves the ctime too; the hash still says the bytes are intact.
            link(folder + "/c.json", root + "/c-link.json")
            #expect(!record.vouches(for: folder + "/c.json", as: files[2]))
            #expect(record.matches(folder + "/c.json", files[2]))
        }
    }

    /// An index entry is racily clean (not trusted by stat) unless recorded before the index
    /// was written; without nanoseconds (git's own default), the whole second counts.
    @Test func indexEntriesOfTheIndexsOwnSecondAreRacy() {
        let index = timespec(tv_sec: 1000, tv_nsec: 900)
        #expect(Repository.olderThanIndex(.init(seconds: 999, nanoseconds: 0), index))
        #expect(!Repository.olderThanIndex(.init(seconds: 1000, nanoseconds: 0), index))
        #expect(Repository.olderThanIndex(.init(seconds: 1000, nanoseconds: 899), index))
        #expect(!Repository.olderThanIndex(.init(seconds: 1000, nanoseconds: 900), index))
        #expect(!Repository.olderThanIndex(.init(seconds: 1001, nanoseconds: 1), index))
    }

    /// A comparison shard reads back as what was written (a rate update re-renders shards from
    /// the live ones), for bands with gaps, three-decimal rates, amounts of every unit, a product
    /// without bands and a partner without products; and the columns shrink to their units.
    @Test func aComparisonShardReadsBackAsWritten() throws {
        func band(_ low: Int, _ high: Int, _ aprMin: Int, _ aprMax: Int, _ limit: Int) -> CompareIndex.Band {
            CompareIndex.Band(scoreMin: low, scoreMax: high, aprMin: Percent(thousandths: aprMin), aprMax: Percent(thousandths: aprMax), limitMax: limit)
        }
        let partners = [CompareIndex.Partner(id: "a-bank", nameKo: "에이은행"), CompareIndex.Partner(id: "b-card", nameKo: "비\"카드<&>"), CompareIndex.Partner(id: "c-idle", nameKo: "씨")]
        let contiguous = [band(901, 1000, 4150, 5350, 150_000_000), band(801, 900, 5000, 6550, 120_000_000), band(0, 800, 7000, 9990, 50_000_000)]
        let shards = [
            CompareIndex.Shard(
                partners: partners,
                items: [
                    CompareIndex.Item(
                        partner: "a-bank", id: "credit", nameKo: "직장인 신용대출", type: "credit", bureau: "KCB", limitMin: 1_000_000, limitMax: 150_000_000,
                        termsMonths: [12, 24, 36], repayment: ["equal_installment", "bullet"], bands: contiguous),
                    CompareIndex.Item(
                        partner: "a-bank", id: "empty", nameKo: "표 없음", type: "policy", bureau: "NICE", limitMin: 0, limitMax: 10_000_000,
                        termsMonths: [], repayment: [], bands: []),
                    CompareIndex.Item(
                        partner: "a-bank", id: "named", nameKo: "에이은행 직장인대출", type: "credit", bureau: "KCB", limitMin: 0, limitMax: 10_000,
                        termsMonths: [6], repayment: ["bullet"], bands: [band(0, 1000, 1, 2, 10_000)]),
                    CompareIndex.Item(
                        partner: "a-bank", id: "spaced", nameKo: "에이은행 ", type: "credit", bureau: "KCB", limitMin: 0, limitMax: 10_000,
                        termsMonths: [6], repayment: ["bullet"], bands: []),
                    CompareIndex.Item(
                        partner: "b-card", id: "joined", nameKo: "비\"카드<&>론", type: "card_loan", bureau: "NICE", limitMin: 0, limitMax: 10_000,
                        termsMonths: [6], repayment: ["bullet"], bands: []),
                    CompareIndex.Item(
                        partner: "b-card", id: "loan", nameKo: "카드론", type: "card_loan", bureau: "NICE", limitMin: 500_001, limitMax: 12_345_678,
                        termsMonths: [36], repayment: ["revolving"],
                        bands: [band(700, 950, 12_345, 19_999, 12_345_678), band(300, 650, 15_000, 15_000, 1)]),
                ]),
            CompareIndex.Shard(partners: [partners[2]], items: []),
        ]
        for shard in shards {
            let bytes = shard.bytes()
            #expect(try CompareIndex.Shard(decoding: bytes) == shard)
            #expect(!bytes.dropLast().contains(0x0A), "one line")
        }
        // Whole hundredths and 10,000-won amounts are written in those steps.
        let round = CompareIndex.Shard(
            partners: [partners[0]],
            items: [
                CompareIndex.Item(
                    partner: "a-bank", id: "credit", nameKo: "에이은행 x", type: "credit", bureau: "KCB", limitMin: 1_000_000, limitMax: 150_000_000,
                    termsMonths: [12, 24], repayment: ["equal_installment"], bands: contiguous),
                CompareIndex.Item(
                    partner: "a-bank", id: "policy", nameKo: "에이은행", type: "policy", bureau: "NICE", limitMin: 1_000_000, limitMax: 50_000_000,
                    termsMonths: [12], repayment: ["equal_installment"], bands: [band(0, 1000, 4000, 5000, 40_000_000)]),
            ])
        let json = try JSONReader.parse(round.bytes())
        #expect(json["units"]?["apr_per_pct"]?.intValue == 100)
        #expect(json["units"]?["krw_per_unit"]?.intValue == 10_000)
        #expect(json["bands"]?["apr_min"] == .array([.int(415), .int(85), .int(200), .int(400)]))
        #expect(json["bands"]?["score_gap"] == .array([.int(0), .int(0), .int(0), .int(0)]))
        // Limits: below the product's limit for the first band, below the band before after it.
        #expect(json["bands"]?["limit_max"] == .array([.int(0), .int(3_000), .int(7_000), .int(1_000)]))
        // Types and bureaus as indices into the shard's sorted values; a name starting with its
        // partner's name and a space is written without them.
        #expect(json["units"]?["types"] == .array([.string("credit"), .string("policy")]))
        #expect(json["units"]?["bureaus"] == .array([.string("KCB"), .string("NICE")]))
        #expect(json["products"]?["type"] == .array([.int(0), .int(1)]))
        #expect(json["products"]?["bureau"] == .array([.int(0), .int(1)]))
        #expect(json["products"]?["name_ko"] == .array([.string("x"), .string("에이은행")]))
        #expect(json["products"]?["name_after_partner"] == .array([.int(1), .int(0)]))
        #expect(try CompareIndex.Shard(decoding: round.bytes()) == round)
        // A shard whose columns disagree is refused, not misread.
        var broken = String(decoding: round.bytes(), as: UTF8.self)
        broken = broken.replacingOccurrences(of: "\"bands\":[3,1]", with: "\"bands\":[2,1]")
        #expect(broken != String(decoding: round.bytes(), as: UTF8.self))
        #expect(throws: OperationalError.self) { try CompareIndex.Shard(decoding: Array(broken.utf8)) }
        let unknownType = String(decoding: round.bytes(), as: UTF8.self).replacingOccurrences(of: "\"type\":[0,1]", with: "\"type\":[0,2]")
        #expect(unknownType != String(decoding: round.bytes(), as: UTF8.self))
        #expect(throws: OperationalError.self) { try CompareIndex.Shard(decoding: Array(unknownType.utf8)) }
    }

    /// Object names keep the file name's extension (1-8 letters or digits, lower-cased), read
    /// from the end of the path's bytes, as the character-level rule has it.
    @Test func objectNamesKeepShortExtensionsOnly() {
        let sha = String(repeating: "ab", count: 32)
        let cases: [(String, String)] = [
            ("data/x/compare/a.json", sha + ".json"), ("assets/Logo.SVG", sha + ".svg"), ("a/.hidden", sha + ".hidden"),
            ("terms/doc/1.0.0.html", sha + ".html"), ("x.abcdefgh", sha + ".abcdefgh"), ("x.abcdefghi", sha),
            ("noext", sha), ("a.b/noext", sha), ("x.", sha), ("x.j_s", sha), ("x.jsö", sha), ("ö.json", sha + ".json"), ("", sha),
        ]
        for (path, name) in cases {
            #expect(ObjectLayout.objectName(sha256: sha, path: path) == name, "\(path)")
        }
    }

    /// The plan of two sorted listings, merged in one pass, is the plan computed by lookups;
    /// unsorted listings take the lookups.
    @Test func aReleasePlanMergesSortedListingsAsLookupsWould() {
        func file(_ path: String, _ hash: Character) -> BundleManifest.File {
            BundleManifest.File(path: path, sha256: String(repeating: hash, count: 64), size: 1)
        }
        for _ in 0..<50 {
            let paths = (0..<40).map { "f\($0 % 7)/\($0).json" }.sorted()
            let live = paths.filter { _ in Bool.random() }.map { file($0, "a") }
            let next = paths.filter { _ in Bool.random() }.map { file($0, Bool.random() ? "a" : "b") }
            let merged = ReleasePlan.merging(live, next)
            let old = Dictionary(live.map { ($0.path, $0.sha256) }, uniquingKeysWith: { first, _ in first })
            #expect(merged?.added == next.filter { old[$0.path] == nil }.map(\.path))
            #expect(merged?.changed == next.filter { old[$0.path] != nil && old[$0.path] != $0.sha256 }.map(\.path))
            #expect(merged?.removed == live.filter { path in !next.contains { $0.path == path.path } }.map(\.path))
            #expect(merged?.unchanged == next.filter { old[$0.path] == $0.sha256 }.count)
            #expect(ReleasePlan.between(live: live, next: next) == merged)
        }
        #expect(ReleasePlan.merging([file("b", "a"), file("a", "a")], []) == nil)
        #expect(ReleasePlan.between(live: [file("b", "a"), file("a", "a")], next: [file("a", "b")]) == ReleasePlan(added: [], changed: ["a"], removed: ["b"], unchanged: 0))
    }

    /// Data files are compared by their place in the data folder: the same bytes in the new
    /// folder are unchanged (moved), a file only in the old folder is removed under its old path.
    @Test func aReleasePlanComparesDataFilesByTheirPlaceInTheDataFolder() {
        func file(_ path: String, _ hash: Character) -> BundleManifest.File {
            BundleManifest.File(path: path, sha256: String(repeating: hash, count: 64), size: 1)
        }
        // The old folder sorts after data/entry.json, the new one before it: the order changes.
        let live = [file("data/entry.json", "a"), file("data/ff00/a.json", "a"), file("data/ff00/b.json", "b"), file("data/ff00/gone.json", "c"), file("index.html", "a")]
        let next = [file("data/00aa/a.json", "a"), file("data/00aa/b.json", "x"), file("data/00aa/new.json", "d"), file("data/entry.json", "b"), file("index.html", "a")]
        let plan = ReleasePlan.between(live: live, next: next, liveBundle: "ff00", nextBundle: "00aa")
        #expect(plan == ReleasePlan(added: ["data/00aa/new.json"], changed: ["data/00aa/b.json", "data/entry.json"], removed: ["data/ff00/gone.json"], unchanged: 2, moved: 1))
        #expect(plan.summary.english == "1 added, 2 changed, 1 removed, 2 unchanged (1 of them moved to the new data folder)")
        // Without the bundle ids, paths are compared as they are.
        #expect(ReleasePlan.between(live: live, next: next).added.count == 3)
    }

    /// Partners are cut into runs of whole partners of about 64 products, the last taking the
    /// rest; a partner is found in the run named at or before it.
    @Test func partnersAreCutIntoShardsOfAboutSixtyFourProducts() {
        let partners = (0..<300).map { (id: String(format: "p%03d", $0), products: 10) }
        let names = CompareIndex.boundaries(partners.shuffled())
        #expect(names.count == 47)
        #expect(names.first == "p000")
        for (index, name) in names.enumerated().dropFirst() {
            #expect(CompareIndex.shard(of: name, in: names) == name)
            #expect(CompareIndex.shard(of: names[index - 1], in: names) == names[index - 1])
        }
        #expect(CompareIndex.shard(of: "p299", in: names) == names.last)
        #expect(CompareIndex.boundaries([(id: "solo", products: 0)]) == ["solo"])
        #expect(CompareIndex.boundaries([]) == [])
        // One partner larger than a share takes a run of its own.
        let uneven = CompareIndex.boundaries([(id: "a", products: 200), (id: "b", products: 1), (id: "c", products: 1)])
        #expect(uneven.first == "a")
        #expect(uneven.count >= 2)
    }
}

/// The quick literal check in front of the prohibited-wording expression never hides a match.
@Suite struct AdWordingPrefilterTests {
    /// One sample of every alternative of every prohibited pattern, as written (with spaces).
    static let samples = [
        "누구나 대출", "무조건 승인", "100% 승인", "전원 승인", "무심사", "심사 없이", "신용 상관없이", "등급 무관",
        "신용불량자 환영", "연체자 가능", "업계 최저", "최저 금리 보장", "하루 1,000원", "하루 이자", "일 이자 0.1%",
        "일 0.05%", "일일 이자", "중개 수수료 5만원", "대행 비용 청구", "작업 비 입금", "수수료 선입금", "선수수료", "작업 대출",
    ]

    @Test(arguments: samples)
    func everyProhibitedWordingPassesThePrefilterAndIsFound(_ sample: String) {
        // After punctuation: a per-day quote is a word of its own ("매월 1일 이자" is not one).
        let copy = CopyText(plain: "이 상품은: \(sample) 입니다", at: SourceMark(line: 3, column: 7))
        #expect(AdWording.mayMatch(copy.scalars), "the prefilter hides '\(sample)'")
        #expect(!AdWording.hits(in: copy).isEmpty, "'\(sample)' is not found")
    }

    @Test func harmlessTextIsSkippedAndContainedWordsAreNotHits() {
        #expect(!AdWording.mayMatch(CopyText(plain: "대출 금리는 연 5.2%이며 중도상환수수료는 1%입니다", at: SourceMark(line: 1, column: 1)).scalars))
        for harmless in ["의무 심사", "매월 1일 이자를 냅니다", "우선 수수료 안내", "상품은 일 이자"] {
            #expect(AdWording.hits(in: CopyText(plain: harmless, at: SourceMark(line: 1, column: 1))).isEmpty, "'\(harmless)' is not prohibited")
        }
    }

    /// Quoted wording carries the text that must warn against it: what follows its closing
    /// mark to the end of the sentence, or a block quote and the line before it. A long
    /// "quotation" is copy, not a quotation, and a YAML value quotes nothing.
    @Test func quotationsCarryTheTextThatMustWarnAgainstThem() {
        let warnings = ["불법", "주의"]
        func hits(_ body: String) -> [AdWording.Hit] { AdWording.hits(in: CopyText(markdown: body, firstLine: 10)) }
        func exempt(_ hit: AdWording.Hit) -> Bool { hit.quotation.map { AdWording.warns($0, warnings) } ?? false }

        let warned = hits("\"무조건 승인\", “신용 무관” 같은 광고는 불법입니다.\n")
        #expect(warned.count == 2 && warned.allSatisfy(exempt), "\(warned)")
        // The warning word must follow the quotation in its sentence.
        let after = hits("\"무조건 승인\"을 드립니다. 불법이 아닙니다.\n")
        #expect(after.count == 1 && after[0].quotation == "을드립니다" && !exempt(after[0]), "\(after)")
        let long = hits("\"지금 신청하시면 누구나 대출 가능하며 서류 하나 없이 바로 입금해 드리는 특별한 이벤트를 진행 중입니다\" 불법 아님\n")
        #expect(long.count == 1 && long[0].quotation == nil, "\(long)")
        let block = hits("다음과 같은 문자는 불법 광고입니다.\n\n> 누구나 대출 가능!\n")
        #expect(block.count == 1 && exempt(block[0]), "\(block)")
        let bare = hits("이벤트를 소개합니다.\n\n> 누구나 대출 가능!\n")
        #expect(bare.count == 1 && bare[0].quotation != nil && !exempt(bare[0]), "\(bare)")
        let value = AdWording.hits(in: CopyText(plain: "\"무조건 승인\" 같은 광고는 불법입니다", at: .start))
        #expect(value.count == 1 && value[0].quotation == nil)
        // A warning word that normalization empties warns of nothing.
        #expect(!AdWording.warns("같은광고는불법입니다", ["\u{200B}"]))
    }

    /// Every terms body (as Markdown) and every line of every other text file (as a plain
    /// value) of the example content, a generated repository and the bad-input corpus: the
    /// prefilter hides none of what the expression alone finds there.
    @Test func thePrefilterHidesNothingInRealContent() throws {
        var copies: [CopyText] = []
        func add(folder: String) throws {
            let source = WorkingTreeSource(root: folder, contentRoot: .repositoryRoot)
            for entry in try source.entries() where entry.kind == .file && !entry.path.hasSuffix(".png") {
                let text = String(decoding: try source.read(entry), as: UTF8.self)
                if entry.path.hasSuffix(".md"), let parts = try? FrontMatter.split(text) {
                    copies.append(CopyText(markdown: parts.body, firstLine: parts.bodyLine))
                    copies.append(CopyText(plain: parts.yaml, at: .start))
                } else {
                    for (number, line) in text.split(separator: "\n").enumerated() {
                        copies.append(CopyText(plain: String(line), at: SourceMark(line: number + 1, column: 1)))
                    }
                }
            }
        }
        let checkout = sourceTree
        try add(folder: checkout + "/content")
        try add(folder: Fixtures.root + "/bad")
        try add(folder: Fixtures.root + "/good")
        try withTemporaryDirectory { directory in
            let parameters = LargeContentGenerator.Parameters(partners: 3, products: 6, rateTables: 6, termsVersions: 12, history: 0, seed: 11)
            _ = try LargeContentGenerator(parameters).generate(into: directory)
            try add(folder: directory)
        }
        var found = 0
        for copy in copies {
            let matches = AdWording.matches(in: copy)
            #expect(AdWording.hits(in: copy) == matches, "\(copy.text.prefix(80))")
            found += matches.count
        }
        #expect(copies.count > 1000)
        #expect(found > 10)
    }
}

extension FastPathTests {
    /// Generated content of `parameters` in a git repository at `directory`, loaded from its work tree.
    static func generatedContent(in directory: String, _ parameters: LargeContentGenerator.Parameters) throws -> Content {
        _ = try LargeContentGenerator(parameters).generate(into: directory)
        _ = try Repository.create(at: directory)
        return try ContentLoader(caches: Caches()).load(try ContentLocation.find(from: directory).workingTree())
    }

    /// The grouped tables and terms a build reads as positions are `rateTablesByProduct` and
    /// `versionsByDocument` in their order (ties in date kept in the content's order), and stay
    /// so after either list changes (each list's groups are kept apart, and made again only
    /// when that list changes).
    @Test func groupedPositionsAreTheGroupsAfterEitherListChanges() throws {
        try withTemporaryDirectory { directory in
            var content = try Self.generatedContent(in: directory, .init(partners: 3, products: 6, rateTables: 12, termsVersions: 12, history: 0, seed: 5))
            // Two tables of one product on one date: the content's order decides.
            let first = try #require(content.rateTables.indices.first { index in content.rateTables.filter { $0.productKey == content.rateTables[index].productKey }.count > 1 })
            let twin = try #require(content.rateTables.indices.first { $0 != first && content.rateTables[$0].productKey == content.rateTables[first].productKey })
            content.rateTables[twin].effectiveFrom = content.rateTables[first].effectiveFrom

            func expectPositionsMatch(_ content: Content, sourceLocation: SourceLocation = #_sourceLocation) {
                let tables = content.rateTablePositions
                #expect(tables.paths == content.rateTables.map(\.path), sourceLocation: sourceLocation)
                #expect(tables.byProduct.mapValues { $0.map { content.rateTables[$0].path } } == content.rateTablesByProduct.mapValues { $0.map(\.path) }, sourceLocation: sourceLocation)
                #expect(content.termsPositions.mapValues { $0.map { content.terms[$0].path } } == content.versionsByDocument.mapValues { $0.map(\.path) }, sourceLocation: sourceLocation)
            }
            expectPositionsMatch(content)
            #expect(content.rateTablePositions.byProduct.values.contains { $0.count > 1 })

            // A terms edit: the tables' groups are the same, the terms' follow the edit.
            let tablesBefore = content.rateTablePositions.byProduct
            var edited = content
            edited.terms.removeLast()
            expectPositionsMatch(edited)
            #expect(edited.termsPositions.values.reduce(0) { $0 + $1.count } == content.terms.count - 1)
            #expect(edited.rateTablePositions.byProduct == tablesBefore)
            // A table edit: the other way round.
            var retabled = content
            retabled.rateTables.removeLast()
            expectPositionsMatch(retabled)
            #expect(retabled.rateTablePositions.paths.count == content.rateTables.count - 1)
            #expect(retabled.termsPositions == content.termsPositions)

            // A table or version put in place of another: the groups kept when it takes the
            // same place (its rates or text edited), made again when its date or number moves it.
            for shift in [0, 4000] {
                var replaced = content
                _ = replaced.rateTablePositions
                _ = replaced.termsPositions
                var table = content.rateTables[first]
                table.effectiveFrom.value = table.effectiveFrom.value.adding(days: shift)
                replaced.replaceRateTable(at: first, with: table)
                var version = content.terms[0]
                version.fileVersion = shift == 0 ? version.fileVersion : "0.0.1"
                replaced.replaceTermsVersion(at: 0, with: version)
                expectPositionsMatch(replaced)
                #expect((replaced.rateTablePositions.byProduct == tablesBefore) == (shift == 0))
                #expect(replaced.rateTableIndex(path: table.path) == first && replaced.termsIndex(path: version.path) == 0)
            }
            #expect(content.rateTableIndex(path: "no/such/table.yaml") == nil && content.termsIndex(path: "terms/none/1.0.0.md") == nil)
        }
    }

    /// A watching process serves the products the last build served when it reads the same
    /// products on the same day: what `served(on:)` gives, the products whose review ended
    /// withdrawn, on the day it ends, after an edit to a table, on the next day and after the
    /// products change.
    @Test func theProductsServedAreTakenFromTheLastBuildOnlyWhenTheSame() throws {
        try withTemporaryDirectory { directory in
            var content = try Self.generatedContent(in: directory, .init(partners: 3, products: 6, rateTables: 12, termsVersions: 4, history: 0, seed: 11))
            let day = try #require(Day("2026-11-29"))
            content.products[1].status.value = .active
            content.products[1].disclosure.reviewValidUntil.value = day.adding(days: -1)
            content.products[2].status.value = .active
            content.products[2].disclosure.reviewValidUntil.value = day
            let memo = RenderMemo()
            func expectServed(_ content: Content, on day: Day, sourceLocation: SourceLocation = #_sourceLocation) {
                let statuses = { (content: Content) in content.products.map { "\($0.key) \($0.status.value)" } }
                #expect(statuses(memo.served(content, on: day)) == statuses(content.served(on: day)), sourceLocation: sourceLocation)
            }
            #expect(content.served(on: day).products[1].status.value == .withdrawn)
            #expect(content.served(on: day).products[2].status.value == .active)
            expectServed(content, on: day)
            expectServed(content, on: day)
            var retabled = content
            retabled.rateTables.removeLast()
            expectServed(retabled, on: day)
            expectServed(retabled, on: day.adding(days: 1))
            #expect(memo.served(retabled, on: day.adding(days: 1)).products[2].status.value == .withdrawn)
            var edited = retabled
            edited.products[1].disclosure.reviewValidUntil.value = day.adding(days: 30)
            expectServed(edited, on: day)
            #expect(memo.served(edited, on: day).products[1].status.value == .active)
        }
    }

    /// A file is read whole whatever its size says: files of every size around the reader's
    /// growth steps, a file the kernel gives a size of 0 (what `/proc` shows), and a pipe
    /// holding more than the first read's room, which grows it more than once.
    @Test func aFileIsReadWholeWhateverItsSizeSays() throws {
        try withTemporaryDirectory { directory in
            for size in [0, 1, 4095, 4096, 4097, 100_000] {
                let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
                try FileSystem.writeFile(directory + "/f", bytes)
                #expect(try FileSystem.readFile(directory + "/f") == bytes, "\(size) bytes")
            }
            let status = try FileSystem.readFile("/proc/self/status")
            #expect(String(decoding: status, as: UTF8.self).hasPrefix("Name:") && status.last == UInt8(ascii: "\n"))
            var fds: [Int32] = [0, 0]
            #expect(pipe(&fds) == 0)
            let sent = (0..<60_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
            #expect(sent.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) } == sent.count)
            close(fds[1])
            defer { close(fds[0]) }
            #expect(try FileSystem.readAll(fds[0], path: "pipe") == sent)
        }
    }

    /// The work tree is listed from each folder's own listing (`d_type`), not an `lstat` per
    /// name: the entries are what `lstat` says of every path, on a tree with files, folders,
    /// symlinks to files and to folders, folders holding a `.git` file or folder (submodules),
    /// dot-files, an empty folder and a FIFO.
    @Test func theWorkTreeIsListedAsLstatSeesIt() throws {
        try withTemporaryDirectory { directory in
            for path in ["a.yaml", "b/c.yaml", "b/d/e.md", ".hidden/x.yaml", "b/.dot.yaml", "sub1/.git", "sub1/f.yaml", "sub2/.git/HEAD", "z/y/x/w.svg"] {
                try write("x", to: directory + "/" + path)
            }
            try FileSystem.makeDirectories(directory + "/empty")
            #expect(symlink(directory + "/a.yaml", directory + "/b/link.yaml") == 0)
            #expect(symlink(directory + "/b", directory + "/folder-link") == 0)
            #expect(mkfifo(directory + "/b/pipe", 0o600) == 0)
            // What the walk was before: lstat every name, a folder with `.git` in it is a submodule.
            func reference(_ relative: String) throws -> [TreeEntry] {
                var result: [TreeEntry] = []
                let folder = relative.isEmpty ? directory : directory + "/" + relative
                for name in try FileSystem.listDirectory(folder) where !name.hasPrefix(".") {
                    let path = relative.isEmpty ? name : relative + "/" + name
                    switch try FileSystem.kind(ofItemAt: directory + "/" + path) {
                    case .symlink: result.append(TreeEntry(path: path, kind: .symlink, id: nil))
                    case .directory:
                        if FileSystem.exists(directory + "/" + path + "/.git") {
                            result.append(TreeEntry(path: path, kind: .submodule, id: nil))
                        } else {
                            result += try reference(path)
                        }
                    case .file: result.append(TreeEntry(path: path, kind: .file, id: nil))
                    case .other: break
                    }
                }
                return result
            }
            let listed = try WorkingTreeSource(root: directory, contentRoot: .repositoryRoot).entries()
            #expect(listed == (try reference("")).sorted { $0.path < $1.path })
            #expect(listed.map(\.path) == ["a.yaml", "b/c.yaml", "b/d/e.md", "b/link.yaml", "folder-link", "sub1", "sub2", "z/y/x/w.svg"])
        }
    }

    /// A work-tree file is read with one open: over the limit, only its size is known (from the
    /// open file), and it is not read; within it, the bytes.
    @Test func aWorkTreeFileOverTheLimitIsMeasuredNotRead() throws {
        try withTemporaryDirectory { directory in
            try writeBytes([UInt8](repeating: 0x61, count: 2048), to: directory + "/big.yaml")
            let source = WorkingTreeSource(root: directory, contentRoot: .repositoryRoot)
            let entry = TreeEntry(path: "big.yaml", kind: .file, id: nil)
            let over = try source.read(entry, limit: 1024)
            #expect(over.bytes == nil && over.size == 2048)
            let within = try source.read(entry, limit: 4096)
            #expect(within.bytes == [UInt8](repeating: 0x61, count: 2048) && within.size == 2048)
        }
    }
}
