/// The language messages are printed in: English by default, Korean on request.
public enum Language: String, CaseIterable, Sendable {
    case en
    case ko
}

/// A text a person reads, in English and in Korean, made where it is decided (next to the
/// check or the step it reports on).
///
/// Both texts are given together, so no message exists in one language only: the values in
/// them (rule ids, paths, field names, numbers, dates) are interpolated into each, unchanged.
/// The Korean text is a `Korean` literal, whose particles follow the values they attach to.
public struct Message: Sendable, Hashable, CustomStringConvertible {
    public private(set) var english: String
    public private(set) var korean: String

    public init(_ english: String, ko korean: Korean) {
        self.english = english
        self.korean = Korean.sentences(korean.text)
    }

    /// Text that reads the same in both languages: a path, an id, a value, a line of code.
    public static func verbatim(_ text: String) -> Message {
        Message(english: text, korean: text)
    }

    private init(english: String, korean: String) {
        self.english = english
        self.korean = korean
    }

    /// A message made earlier and kept as its two texts (findings kept in the build cache).
    package static func kept(english: String, korean: String) -> Message {
        Message(english: english, korean: korean)
    }

    /// The text in `language`.
    public func text(_ language: Language) -> String {
        language == .ko ? korean : english
    }

    /// The English text (what logs, tests and the problem's identity across commits use).
    public var description: String { english }

    public var isEmpty: Bool { english.isEmpty && korean.isEmpty }

    /// The two texts one after the other.
    public static func + (lhs: Message, rhs: Message) -> Message {
        Message(english: lhs.english + rhs.english, korean: lhs.korean + rhs.korean)
    }

    public static func += (lhs: inout Message, rhs: Message) {
        lhs = lhs + rhs
    }

    /// `self; part`: a finding and what to do about it, as one message (nothing added for nil).
    public func then(_ part: Message?) -> Message {
        guard let part, !part.isEmpty else { return self }
        guard !isEmpty else { return part }
        return self + Message(english: "; ", korean: Korean.endsSentence(korean) ? ". " : "; ") + part
    }
}

extension Sequence where Element == Message {
    /// The messages with `separator` between them (the same in both languages).
    public func joined(separator: String) -> Message {
        joined(separator: .verbatim(separator))
    }

    /// The messages with `separator` between them.
    public func joined(separator: Message) -> Message {
        var result: Message?
        for message in self {
            result = result.map { $0 + separator + message } ?? message
        }
        return result ?? .verbatim("")
    }
}

/// Korean text whose particles fit the words they follow.
///
/// A literal part writes a particle the way a dictionary does, with both forms: `이(가)`,
/// `을(를)`, `은(는)`, `과(와)`, `와(과)`, `(으)로`, `(이)나`, `(이)어야`, `(이)라는`. Each is
/// replaced by the form that fits the word before it, literal or interpolated, by that word's
/// last sound (`KoreanSound`): `"\(rate)이(가) 넘습니다"` gives `21.5가 넘습니다` and
/// `20.0이 넘습니다`. Values are interpolated as they are written; a `Message` is
/// interpolated as its Korean text.
public struct Korean: Sendable, Hashable, ExpressibleByStringInterpolation {
    public private(set) var text: String

    public init(stringLiteral value: String) {
        text = Self.resolvingParticles(in: value, after: "")
    }

    public init(stringInterpolation: StringInterpolation) {
        text = stringInterpolation.text
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var text = ""

        public init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + 16 * interpolationCount)
        }

        public mutating func appendLiteral(_ literal: String) {
            text += Korean.resolvingParticles(in: literal, after: text)
        }

        public mutating func appendInterpolation<T: CustomStringConvertible>(_ value: T) {
            text += value.description
        }

        public mutating func appendInterpolation(_ message: Message) {
            text += message.korean
        }

        public mutating func appendInterpolation(_ korean: Korean) {
            text += korean.text
        }
    }

    /// `text` with each "; " that follows a finished sentence (one ending in 다 or 요, or such a
    /// sentence and a parenthesis after it) made a full stop: English joins a finding and what
    /// to do with a semicolon, Korean writes two sentences.
    public static func sentences(_ text: String) -> String {
        // Every message is made through here, most without "; ": their bytes say so without
        // Foundation's search (which folds the text through CFString). U+037E is canonically ";",
        // which that search also finds.
        guard text.containsBytes("; ") || text.containsBytes("\u{037E}") else { return text }
        var out = ""
        var rest = Substring(text)
        while let range = rest.range(of: "; ") {
            out += rest[..<range.lowerBound]
            out += endsSentence(out) ? ". " : "; "
            rest = rest[range.upperBound...]
        }
        return out + rest
    }

    /// Whether `text` ends a Korean sentence: in 다 or 요, before any parenthesis closing it.
    public static func endsSentence(_ text: String) -> Bool {
        var characters = Substring(text)
        if characters.hasSuffix(")"), let open = characters.lastIndex(of: "(") {
            characters = characters[..<open]
        }
        while characters.last == " " { characters = characters.dropLast() }
        return characters.last == "다" || characters.last == "요"
    }

    /// The particle pairs a literal may hold, and their forms after a final consonant and
    /// after a vowel (`(으)로` also takes the vowel form after ㄹ).
    static let pairs: [(written: String, consonant: String, vowel: String)] = [
        ("이(가)", "이", "가"), ("을(를)", "을", "를"), ("은(는)", "은", "는"), ("과(와)", "과", "와"), ("와(과)", "과", "와"),
        ("(으)로", "으로", "로"), ("(이)나", "이나", "나"), ("(이)어야", "이어야", "여야"), ("(이)라는", "이라는", "라는"),
    ]

    /// `literal` with each particle pair replaced by the form that fits what comes before it.
    static func resolvingParticles(in literal: String, after preceding: String) -> String {
        guard literal.utf8.contains(UInt8(ascii: "(")) else { return literal }
        var out = ""
        var rest = Substring(literal)
        while let open = rest.firstIndex(of: "(") {
            // A pair starts at most one character before its '(' (이(가)), or at it ((으)로).
            let start = rest.index(open, offsetBy: -1, limitedBy: rest.startIndex) ?? open
            var matched: (range: Range<Substring.Index>, consonant: String, vowel: String)?
            for pair in pairs {
                for from in [start, open] where rest[from...].hasPrefix(pair.written) {
                    matched = (from..<rest.index(from, offsetBy: pair.written.count), pair.consonant, pair.vowel)
                    break
                }
                if matched != nil { break }
            }
            guard let matched else {
                out += rest[...open]
                rest = rest[rest.index(after: open)...]
                continue
            }
            out += rest[..<matched.range.lowerBound]
            let sound = KoreanSound.last(of: preceding + out)
            let isRo = matched.vowel == "로"
            out += sound == .consonant || (sound == .rieul && !isRo) ? matched.consonant : matched.vowel
            rest = rest[matched.range.upperBound...]
        }
        return out + rest
    }

    /// The form of `pair` (as written in a literal, `을(를)`) that fits after `word`.
    public static func particle(_ pair: String, after word: String) -> String {
        resolvingParticles(in: pair, after: word)
    }
}

/// How a written word ends when read aloud in Korean: with a final consonant (받침), with ㄹ,
/// or with a vowel. This decides 이/가, 을/를, 은/는, 과/와 and (으)로.
public enum KoreanSound: Sendable, Equatable {
    case vowel
    case rieul
    case consonant

    /// The last sound of `text`, looking past closing quotes and brackets and a trailing
    /// parenthesis (`'apr_max_pct'`, `대출(loan)`): a Hangul syllable by its final consonant, a
    /// number as it is read (`20` 이십, `1000` 천, `21.5` 이십일 점 오, `2026-11-29` …일), Latin letters as a
    /// Korean reader says them (`KCB` 케이씨비, `staging` 스테이징). Anything else reads as a vowel.
    public static func last(of text: String) -> KoreanSound {
        var characters = Array(text.unicodeScalars)
        // Closing quotes and brackets, and a parenthesis the particle does not attach to.
        while let last = characters.last {
            if "'\"`’”」』>]".unicodeScalars.contains(last) || last == " " {
                characters.removeLast()
            } else if last == ")" {
                var depth = 0
                while let scalar = characters.popLast() {
                    if scalar == ")" { depth += 1 }
                    if scalar == "(" {
                        depth -= 1
                        if depth == 0 { break }
                    }
                }
            } else {
                break
            }
        }
        guard let last = characters.last else { return .vowel }
        switch last.value {
        case 0xAC00...0xD7A3:
            let final = (last.value - 0xAC00) % 28
            return final == 0 ? .vowel : final == 8 ? .rieul : .consonant
        case 0x3131...0x314E:  // a consonant jamo written alone (ㄱ ... ㅎ)
            return last == "ㄹ" ? .rieul : .consonant
        case 0x30...0x39:
            return number(characters)
        case 0x41...0x5A, 0x61...0x7A:
            return latin(characters)
        default:
            return .vowel
        }
    }

    /// Sino-Korean digits: 영 일 이 삼 사 오 육 칠 팔 구.
    private static let digits: [KoreanSound] = [.consonant, .rieul, .vowel, .consonant, .vowel, .vowel, .consonant, .rieul, .rieul, .vowel]

    /// A number ending the text: the digits after a decimal point are read one by one; a whole
    /// number by its last non-zero digit, or by the unit its zeros make (십, 백, 천, 만, 억, 조).
    private static func number(_ characters: [Unicode.Scalar]) -> KoreanSound {
        // A date (2026-11-29) is read with its units: 2026년 11월 29일.
        let tail = characters.suffix(10).map { Character($0) }
        if tail.count == 10, tail[4] == "-", tail[7] == "-", tail.enumerated().allSatisfy({ $0.offset == 4 || $0.offset == 7 || $0.element.isASCII && $0.element.isNumber }) {
            return .rieul
        }
        var digitsRead: [Int] = []
        var decimal = false
        for scalar in characters.reversed() {
            if ("0"..."9").contains(scalar) {
                digitsRead.append(Int(scalar.value - 0x30))
            } else if scalar == "," {
                continue
            } else if scalar == "." && !decimal && !digitsRead.isEmpty {
                decimal = true
                break
            } else {
                break
            }
        }
        let lastDigit = digitsRead.first ?? 0
        if decimal || lastDigit != 0 { return digits[lastDigit] }
        let zeros = digitsRead.prefix { $0 == 0 }.count
        if zeros == digitsRead.count { return .consonant }  // 영
        switch zeros {
        case 1: return .consonant  // 십
        case 2: return .consonant  // 백
        case 3...7: return .consonant  // 천, 만
        case 8...11: return .consonant  // 억
        case 12...15: return .vowel  // 조
        default: return .consonant  // 경
        }
    }

    /// Letter names as Korean reads them: only L (엘), M (엠), N (엔) and R (알) end in a consonant.
    private static func letterName(_ letter: Unicode.Scalar) -> KoreanSound {
        switch Character(letter).lowercased() {
        case "l", "r": return .rieul
        case "m", "n": return .consonant
        default: return .vowel
        }
    }

    /// Words read as words end as their sound does (스테이징, 버전, 타이틀); short words and
    /// capitals are read letter by letter (KCB, pct, min); a few common words are known.
    private static func latin(_ characters: [Unicode.Scalar]) -> KoreanSound {
        let word = String(String.UnicodeScalarView(characters.reversed().prefix { ("a"..."z").contains($0) || ("A"..."Z").contains($0) }.reversed())).lowercased()
        if let known = words[word] { return known }
        let isCapitals = characters.reversed().prefix { ("a"..."z").contains($0) || ("A"..."Z").contains($0) }.allSatisfy { ("A"..."Z").contains($0) }
        if isCapitals || word.count <= 3 { return letterName(characters.last!) }
        if word.hasSuffix("ng") || word.hasSuffix("m") || word.hasSuffix("n") { return .consonant }
        if word.hasSuffix("l") || word.hasSuffix("le") { return .rieul }
        // A silent e after n or m: line 라인, time 타임, phone 폰.
        if word.hasSuffix("ne") || word.hasSuffix("me") { return .consonant }
        // p, t or k after one short vowel closes the syllable: credit 크레딧, limit 리밋, step 스텝;
        // after two vowels or a consonant it takes 으: root 루트, test 테스트, check 체크.
        let letters = Array(word)
        let vowels: Set<Character> = ["a", "e", "i", "o", "u"]
        if let last = letters.last, "ptk".contains(last), letters.count >= 3, vowels.contains(letters[letters.count - 2]),
            !vowels.contains(letters[letters.count - 3])
        {
            return .consonant
        }
        return .vowel
    }

    /// Words whose sound the rules above would miss.
    private static let words: [String: KoreanSound] = [
        "web": .consonant, "app": .consonant, "git": .consonant, "commit": .consonant, "head": .vowel, "yaml": .rieul, "yml": .rieul,
        "html": .rieul, "json": .consonant, "md": .vowel, "svg": .vowel, "png": .vowel, "id": .vowel, "ok": .vowel,
    ]
}

/// An error that says what went wrong in both languages.
public protocol ErrorText: Error {
    var text: Message { get }
}

extension Message {
    /// What `error` says: its own text when it has one in both languages, else its description
    /// (a system's or a library's words, kept as they are).
    public static func of(_ error: any Error) -> Message {
        if let error = error as? any ErrorText { return error.text }
        return .verbatim("\(error)")
    }
}
