import Foundation
import Testing

@testable import RatecardCore
@testable import RatecardKit
@testable import RatecardSupport

/// Korean for everything a person reads: particles chosen by sound, every rule's title and
/// rationale, and every message at its source.
@Suite struct KoreanCoverageTests {
    // MARK: - Particles

    @Test(arguments: [
        // Hangul: a final consonant, none, or ㄹ ((으)로 takes 로 after ㄹ).
        ("수수료", "을(를)", "를"), ("금리", "을(를)", "를"), ("한도", "이(가)", "가"), ("상품", "이(가)", "이"), ("약관", "은(는)", "은"),
        ("제휴사", "은(는)", "는"), ("파일", "(으)로", "로"), ("구간", "(으)로", "으로"), ("서울", "과(와)", "과"), ("버전", "와(과)", "과"),
        // Numbers as they are read: 21.5 이십일 점 오, 20.0 이십 점 영, 20 이십, 100 백, 1000 천, 801 팔백일, 3 삼.
        ("21.5", "이(가)", "가"), ("20.0", "을(를)", "을"), ("20", "을(를)", "을"), ("100", "이(가)", "이"), ("1000", "이(가)", "이"),
        ("801", "(으)로", "로"), ("3", "이(가)", "이"), ("2", "이(가)", "가"), ("10,000", "은(는)", "은"),
        // A date is read with its units: …29일.
        ("2026-11-29", "(으)로", "로"), ("2026-11-29", "이(가)", "이"),
        // Quotes and a parenthesis are looked past.
        ("'apr_max_pct'", "을(를)", "를"), ("'card'", "을(를)", "를"), ("'staging'", "이(가)", "이"), ("대출(loan)", "을(를)", "을"),
        ("'score_min'", "을(를)", "을"), ("KCB", "이(가)", "가"), ("APR", "(으)로", "로"), ("regulatory/limits.yaml", "과(와)", "과"),
        ("terms/x/1.0.0.md", "와(과)", "와"), ("production", "이(가)", "이"), ("release", "이(가)", "가"),
        // Latin words as Korean reads them: a silent e after n or m (라인, 타임), p/t/k after one
        // short vowel (크레딧, 포맷, 스텝), and 으 after two vowels or a consonant (루트, 테스트, 체크).
        ("'kbank/credit-line'", "이(가)", "이"), ("online", "은(는)", "은"), ("time", "을(를)", "을"), ("credit", "이(가)", "이"),
        ("format", "(으)로", "으로"), ("step", "이(가)", "이"), ("root", "이(가)", "가"), ("test", "을(를)", "를"), ("check", "이(가)", "가"),
        ("rate", "이(가)", "가"),
    ])
    func aParticleFitsTheSoundBeforeIt(_ example: (String, String, String)) {
        #expect(Korean.particle(example.1, after: example.0) == example.2, "\(example.0)\(example.1)")
    }

    @Test func aKoreanLiteralResolvesItsParticlesAgainstItsValues() {
        let rate = "21.5"
        let cap = "20.0"
        let text: Korean = "apr_max_pct \(rate)이(가) 법정 최고금리 \(cap)을(를) 넘습니다; \(cap) 이하로 낮추세요"
        #expect(text.text == "apr_max_pct 21.5가 법정 최고금리 20.0을 넘습니다; 20.0 이하로 낮추세요")
        let field = "apr_max_pct"
        let message = Message("missing required field '\(field)'", ko: "필수 필드 '\(field)'이(가) 없습니다")
        #expect(message.korean == "필수 필드 'apr_max_pct'가 없습니다")
        #expect(message.text(.en) == "missing required field 'apr_max_pct'")
        // A particle after an interpolated message follows that message's Korean text.
        let range = Message("scores 801-900", ko: "801-900점")
        #expect(Message("\(range) are in no band", ko: "\(range)은(는) 어느 구간에도 속하지 않습니다").korean == "801-900점은 어느 구간에도 속하지 않습니다")
        // A parenthesis that is not a particle stays as written.
        let plain: Korean = "한도(만 원)와 기간(개월)"
        #expect(plain.text == "한도(만 원)와 기간(개월)")
    }

    /// A finding and what to do, joined by "; " in English, are two sentences in Korean; a
    /// list or a value before "; " is left as it is.
    @Test func sentencesJoinedBySemicolonsAreKoreanSentences() {
        #expect(Message("a; b", ko: "필드가 없습니다; 추가하세요").korean == "필드가 없습니다. 추가하세요")
        #expect(Message("a; b", ko: "맞지 않습니다 (그 뒤에 바뀌었습니다); 다시 게시하세요").korean == "맞지 않습니다 (그 뒤에 바뀌었습니다). 다시 게시하세요")
        #expect(Message("a; b", ko: "오류: x.yaml; y.yaml").korean == "오류: x.yaml; y.yaml")
        let joined = Message("no field", ko: "필드가 없습니다").then(Message("add it", ko: "추가하세요"))
        #expect(joined.korean == "필드가 없습니다. 추가하세요" && joined.english == "no field; add it")
        #expect(Message.verbatim("x.yaml:3").then(Message("add it", ko: "추가하세요")).korean == "x.yaml:3; 추가하세요")
        #expect(Message("a; b", ko: "첫째; 둘째").english == "a; b")
    }

    // MARK: - The rule table

    @Test(arguments: Rule.all.map(\.id))
    func everyRuleHasAKoreanTitleAndRationale(_ id: String) throws {
        let rule = try #require(Rule.named(id))
        for text in [rule.title, rule.rationale] {
            #expect(Self.hasHangul(text.korean), "\(id): \(text.korean)")
            #expect(text.korean != text.english, "\(id): not translated")
            #expect(EnglishProse.runs(in: text.korean, allowing: Self.ruleTerms).isEmpty, "\(id): \(EnglishProse.runs(in: text.korean, allowing: Self.ruleTerms))")
        }
    }

    /// Names a rationale keeps as they are: the code of the web build's runtime.
    static let ruleTerms = ["Native, webkit", "eval, Function"]

    // MARK: - Every message at its source

    /// One Korean text as written in the source: its literal parts, and where it is.
    struct Literal: CustomStringConvertible {
        var file: String
        var line: Int
        var parts: [String]
        var description: String { "\(file):\(line): \(parts.joined(separator: "⟨⟩"))" }
    }

    /// Every `ko:` text in Sources: each message, error and rule, in both languages at its source.
    @Test func everyMessageHasNaturalKoreanAtItsSource() throws {
        let literals = try Self.koreanLiterals()
        // Every message has one; a scan that found few would be scanning nothing.
        #expect(literals.count > 700, "\(literals.count)")
        var problems: [String] = []
        for literal in literals {
            let joined = literal.parts.joined(separator: " ")
            if !Self.hasHangul(joined) { problems.append("no Korean: \(literal)") }
            let runs = EnglishProse.runs(in: literal.parts.joined(separator: " ⟨⟩ "), allowing: Self.sourceTerms)
            if !runs.isEmpty { problems.append("English \(runs): \(literal)") }
            // A particle must follow a word of its own literal: one opening it has nothing to fit.
            if let first = literal.parts.first, Korean.pairs.contains(where: { first.hasPrefix($0.written) }) {
                problems.append("a particle with nothing before it: \(literal)")
            }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// Text `.verbatim` passes through unchanged is a value (a path, an id, a line of code), never a sentence.
    @Test func verbatimTextIsNeverASentence() throws {
        var problems: [String] = []
        for (file, text) in try Self.sources() {
            for literal in Self.literals(after: ".verbatim(", in: text, file: file) {
                let runs = EnglishProse.runs(in: literal.parts.joined(separator: " ⟨⟩ "))
                if !runs.isEmpty { problems.append("\(literal) \(runs)") }
            }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// Program names a Korean text keeps as they are (they are what is typed or shown on screen).
    static let sourceTerms = ["GitHub Actions", "Ctrl-C"]

    static func hasHangul(_ text: String) -> Bool {
        text.unicodeScalars.contains { (0xAC00...0xD7A3).contains($0.value) }
    }

    /// The Swift sources of the package.
    static func sources() throws -> [(String, String)] {
        let root = URL(fileURLWithPath: sourceTree + "/Sources")
        let files = try #require(FileManager.default.enumerator(atPath: root.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted()
        return try files.map { ($0, try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8)) }
    }

    /// Every Korean literal: the string literal after each `ko:` (and a rule's rationale, the
    /// literal after it).
    static func koreanLiterals() throws -> [Literal] {
        var found: [Literal] = []
        for (file, text) in try sources() {
            found += literals(after: "ko:", in: text, file: file, following: true)
        }
        return found
    }

    /// The string literals that follow `marker` (outside comments and strings); with `following`,
    /// a second literal after a comma too (`ko: "title", "rationale"`).
    static func literals(after marker: String, in text: String, file: String, following: Bool = false) -> [Literal] {
        let scalars = Array(text.unicodeScalars)
        let needle = Array(marker.unicodeScalars)
        var found: [Literal] = []
        var index = 0
        var line = 1
        func startsWith(_ pattern: [Unicode.Scalar], at position: Int) -> Bool {
            position + pattern.count <= scalars.count && Array(scalars[position..<position + pattern.count]) == pattern
        }
        func skipSpace(_ position: Int) -> Int {
            var at = position
            while at < scalars.count, scalars[at] == " " || scalars[at] == "\n" { at += 1 }
            return at
        }
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\n" { line += 1 }
            if startsWith(["/", "/"], at: index) {
                while index < scalars.count, scalars[index] != "\n" { index += 1 }
                continue
            }
            if startsWith(["/", "*"], at: index) {
                index += 2
                while index < scalars.count, !startsWith(["*", "/"], at: index) {
                    if scalars[index] == "\n" { line += 1 }
                    index += 1
                }
                index += 2
                continue
            }
            if scalar == "\"" {
                let (_, end) = parseLiteral(scalars, at: index)
                line += scalars[index..<end].filter { $0 == "\n" }.count
                index = end
                continue
            }
            if startsWith(needle, at: index), index == 0 || !(scalars[index - 1].properties.isAlphabetic) {
                var at = skipSpace(index + needle.count)
                if at < scalars.count, scalars[at] == "\"" {
                    let (parts, end) = parseLiteral(scalars, at: at)
                    found.append(Literal(file: file, line: line, parts: parts))
                    at = skipSpace(end)
                    if following, at < scalars.count, scalars[at] == "," {
                        let next = skipSpace(at + 1)
                        if next < scalars.count, scalars[next] == "\"" {
                            found.append(Literal(file: file, line: line, parts: parseLiteral(scalars, at: next).0))
                        }
                    }
                }
                index += needle.count
                continue
            }
            index += 1
        }
        return found
    }

    /// The literal parts of the string literal at `start` (interpolations left out) and the
    /// index after it; handles escapes, `\(...)` with nested parentheses and strings, and `"""`.
    static func parseLiteral(_ scalars: [Unicode.Scalar], at start: Int) -> ([String], Int) {
        let multiline = start + 2 < scalars.count && scalars[start + 1] == "\"" && scalars[start + 2] == "\""
        var index = start + (multiline ? 3 : 1)
        var parts: [String] = []
        var current = ""
        while index < scalars.count {
            let scalar = scalars[index]
            if multiline, scalar == "\"", index + 2 < scalars.count, scalars[index + 1] == "\"", scalars[index + 2] == "\"" {
                parts.append(current)
                return (parts, index + 3)
            }
            if !multiline, scalar == "\"" {
                parts.append(current)
                return (parts, index + 1)
            }
            if scalar == "\\", index + 1 < scalars.count {
                let next = scalars[index + 1]
                if next == "(" {
                    // An interpolation: up to its closing parenthesis, strings inside skipped.
                    parts.append(current)
                    current = ""
                    var depth = 1
                    index += 2
                    while index < scalars.count, depth > 0 {
                        if scalars[index] == "\"" {
                            index = parseLiteral(scalars, at: index).1
                            continue
                        }
                        if scalars[index] == "(" { depth += 1 }
                        if scalars[index] == ")" { depth -= 1 }
                        index += 1
                    }
                    continue
                }
                current.unicodeScalars.append(next == "n" ? "\n" : next)
                index += 2
                continue
            }
            current.unicodeScalars.append(scalar)
            index += 1
        }
        parts.append(current)
        return (parts, index)
    }
}
