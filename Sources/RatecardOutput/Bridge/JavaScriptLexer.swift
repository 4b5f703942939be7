import RatecardSupport

/// A script as a browser's lexer reads it, for the bridge check: where every string, template
/// literal, comment and regular expression starts and ends, so that no code is taken for text.
///
/// Names and strings are decoded (`\u0063all` is `call`, `"\x73hare"` is `share`); brackets are
/// paired. Whether a `/` divides or opens a regular expression depends on whether it continues
/// an expression or starts one, and a line break can end a statement (automatic semicolon
/// insertion) where a `/` could not continue it: after a declared name (`var x⏎/re/`), a
/// `break`/`continue` label, a module name (`import "./a.js"⏎/re/`). Where the reading cannot
/// be told from the tokens alone (a `/` at the start of a line after a plain name, after a module
/// name, after `}`, or after `await`, `yield` or `of`), or the script cannot be read to its end
/// (an unterminated string, comment, template or regular expression, unbalanced brackets, an
/// HTML-like comment), the lexer reports a problem and the check refuses the script instead of
/// guessing.
struct JavaScriptLexer {
    struct Token {
        enum Kind: Equatable {
            case name, string, number, regex, punctuator
            case template(TemplatePart)
        }
        /// A template literal whole (no substitution), or the piece before the first `${`,
        /// between two, or after the last.
        enum TemplatePart { case whole, head, middle, tail }

        var kind: Kind
        /// A name or punctuator as read (names decoded); a string's value; a template piece's text.
        var text: String
        var mark: SourceMark
        /// A line terminator (or a comment holding one) comes between this token and the one before.
        var newlineBefore: Bool
        /// A name written with a `\u` escape.
        var escaped = false
    }

    struct Problem {
        var mark: SourceMark
        var message: Message
    }

    private(set) var tokens: [Token] = []
    /// For each bracket token, the index of its partner (`(` `)`, `[` `]`, `{` `}`, and a
    /// template's head, middles and tail in turn); -1 for any other token.
    private(set) var partner: [Int] = []
    /// For each token, the index of the innermost bracket it is inside; -1 at the top level.
    private(set) var enclosing: [Int] = []
    private(set) var problems: [Problem] = []

    private let source: [Unicode.Scalar]
    private let marks: [SourceMark]
    private var index = 0
    private var newline = false
    /// Open brackets: the index of the token that opened each.
    private var open: [Int] = []
    /// The `)` tokens that close the head of `if`, `while`, `for` or `with` (a statement follows).
    private var headerCloses: Set<Int> = []
    private var headerOpens: Set<Int> = []
    /// How a `/` reads after each `++` or `--` token (after a prefix one it opens an operand).
    private var afterUpdate: [Int: Slash] = [:]

    /// What a `/` is at a place in the script.
    private enum Slash {
        case regex, division
        /// The tokens before do not say: why, for the problem reported if a `/` comes.
        case unsure(Message)
    }

    /// Reads `source`; `marks[i]` is where `source[i]` is in the file (one more for the end).
    init(_ source: [Unicode.Scalar], marks: [SourceMark]) {
        self.source = source
        self.marks = marks
        read()
    }

    /// Marks for a whole file's text: lines counted at `\n`, columns in Unicode scalars.
    static func marks(of source: [Unicode.Scalar], from start: SourceMark = .start) -> [SourceMark] {
        var marks: [SourceMark] = []
        marks.reserveCapacity(source.count + 1)
        var line = start.line
        var column = start.column
        for scalar in source {
            marks.append(SourceMark(line: line, column: column))
            if scalar == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        marks.append(SourceMark(line: line, column: column))
        return marks
    }

    // MARK: - Characters

    static func isLineTerminator(_ c: Unicode.Scalar) -> Bool { c == "\n" || c == "\r" || c == "\u{2028}" || c == "\u{2029}" }

    static func isWhitespace(_ c: Unicode.Scalar) -> Bool {
        switch c {
        case "\t", "\u{B}", "\u{C}", " ", "\u{A0}", "\u{FEFF}": return true
        default: return c.value > 127 && c.properties.generalCategory == .spaceSeparator
        }
    }

    static func isNameStart(_ c: Unicode.Scalar) -> Bool {
        if c.value < 128 { return c == "$" || c == "_" || ("a"..."z").contains(c) || ("A"..."Z").contains(c) }
        return c.properties.isIDStart
    }

    static func isNamePart(_ c: Unicode.Scalar) -> Bool {
        if c.value < 128 { return isNameStart(c) || ("0"..."9").contains(c) }
        return c.properties.isIDContinue || c == "\u{200C}" || c == "\u{200D}"
    }

    static func hexValue(_ c: Unicode.Scalar) -> UInt32? {
        switch c {
        case "0"..."9": return c.value - 48
        case "a"..."f": return c.value - 87
        case "A"..."F": return c.value - 55
        default: return nil
        }
    }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? { index + offset < source.count ? source[index + offset] : nil }

    private func starts(with text: String) -> Bool {
        var offset = 0
        for scalar in text.unicodeScalars {
            guard peek(offset) == scalar else { return false }
            offset += 1
        }
        return true
    }

    private mutating func problem(_ message: Message, at position: Int) {
        problems.append(Problem(mark: marks[min(position, marks.count - 1)], message: message))
    }

    private mutating func skipLine() {
        while let c = peek(), !Self.isLineTerminator(c) { index += 1 }
    }

    // MARK: - Reading

    private mutating func read() {
        while let c = peek() {
            if Self.isLineTerminator(c) {
                newline = true
                index += 1
                continue
            }
            if Self.isWhitespace(c) {
                index += 1
                continue
            }
            if index == 0 && c == "#" && peek(1) == "!" {
                skipLine()
                continue
            }
            if c == "/" && peek(1) == "/" {
                skipLine()
                continue
            }
            if c == "/" && peek(1) == "*" {
                let start = index
                index += 2
                while peek() != nil && !(peek() == "*" && peek(1) == "/") {
                    if Self.isLineTerminator(source[index]) { newline = true }
                    index += 1
                }
                guard peek() != nil else {
                    problem(Message("a comment is not closed (no */)", ko: "주석이 닫히지 않았습니다 (*/ 없음)"), at: start)
                    break
                }
                index += 2
                continue
            }
            // HTML-like comments (<!-- anywhere, --> at the start of a line): browsers skip
            // the rest of the line in a classic script; modules refuse them.
            if starts(with: "<!--") || (starts(with: "-->") && (newline || tokens.isEmpty)) {
                problem(Message("an HTML-like comment (<!-- or -->) in a script; use // instead", ko: "스크립트 안에 HTML식 주석(<!-- 또는 -->)이 있습니다; 대신 // 주석을 쓰세요"), at: index)
                skipLine()
                continue
            }
            let start = index
            if c == "\"" || c == "'" {
                readString(quote: c)
            } else if c == "`" {
                index += 1
                readTemplate(start: start, continuing: false)
            } else if c == "}", let last = open.last, tokens[last].kind == .template(.head) || tokens[last].kind == .template(.middle) {
                index += 1
                readTemplate(start: start, continuing: true)
            } else if Self.isNameStart(c) || c == "\\" {
                readName()
            } else if ("0"..."9").contains(c) || (c == "." && peek(1).map { ("0"..."9").contains($0) } == true) {
                readNumber()
            } else if c == "/" && regexAllowed(at: start) {
                readRegex()
            } else {
                readPunctuator()
            }
        }
        for opener in open.reversed() {
            let text = tokens[opener].kind == .punctuator ? tokens[opener].text : "${"
            problems.append(Problem(mark: tokens[opener].mark, message: Message("'\(text)' is never closed", ko: "열린 '\(text)' 기호가 닫히지 않습니다")))
        }
        partner += Array(repeating: -1, count: tokens.count - partner.count)
    }

    private mutating func append(_ kind: Token.Kind, _ text: String, from start: Int, escaped: Bool = false) {
        tokens.append(Token(kind: kind, text: text, mark: marks[start], newlineBefore: newline, escaped: escaped))
        enclosing.append(open.last ?? -1)
        partner.append(-1)
        newline = false
    }

    /// Pairs the token just appended with the bracket open at the top.
    private mutating func close(_ expected: String) {
        let closing = tokens.count - 1
        guard let opener = open.last,
            expected == "${" ? tokens[opener].kind != .punctuator : tokens[opener].kind == .punctuator && tokens[opener].text == expected
        else {
            let shown = tokens[closing].text.isEmpty ? "}" : tokens[closing].text
            problems.append(Problem(mark: tokens[closing].mark, message: Message("'\(shown)' closes nothing that is open", ko: "닫을 대상이 없는 '\(shown)' 기호입니다")))
            return
        }
        open.removeLast()
        partner[opener] = closing
        partner[closing] = opener
        enclosing[closing] = open.last ?? -1
    }

    private mutating func readName() {
        let start = index
        var name = ""
        var escaped = false
        while let c = peek() {
            if c == "\\" {
                guard peek(1) == "u", let (scalar, length) = unicodeEscape(at: index + 2) else {
                    problem(Message("a name holds a '\\' that is not a \\u escape", ko: "이름 안에 \\u 이스케이프가 아닌 '\\' 문자가 있습니다"), at: index)
                    index += 1
                    break
                }
                let valid = name.isEmpty ? Self.isNameStart(scalar) : Self.isNamePart(scalar)
                if !valid { problem(Message("a \\u escape in a name stands for a character no name may hold", ko: "이름 안의 \\u 이스케이프가 이름에 쓸 수 없는 문자를 나타냅니다"), at: index) }
                name.unicodeScalars.append(scalar)
                escaped = true
                index += 2 + length
                continue
            }
            guard name.isEmpty ? Self.isNameStart(c) : Self.isNamePart(c) else { break }
            name.unicodeScalars.append(c)
            index += 1
        }
        append(.name, name, from: start, escaped: escaped)
    }

    /// The scalar of `XXXX` or `{X...}` at `position` and how many characters it takes.
    private func unicodeEscape(at position: Int) -> (Unicode.Scalar, Int)? {
        guard position < source.count else { return nil }
        var value: UInt32 = 0
        if source[position] == "{" {
            var end = position + 1
            while end < source.count, let digit = Self.hexValue(source[end]) {
                value = value > 0x10FFFF ? value : value * 16 + digit
                end += 1
            }
            guard end > position + 1, end < source.count, source[end] == "}", let scalar = Unicode.Scalar(value) else { return nil }
            return (scalar, end + 1 - position)
        }
        guard position + 4 <= source.count else { return nil }
        for offset in 0..<4 {
            guard let digit = Self.hexValue(source[position + offset]) else { return nil }
            value = value * 16 + digit
        }
        // A lone surrogate cannot be a scalar; it stands for nothing a name can hold.
        return (Unicode.Scalar(value) ?? "\u{FFFD}", 4)
    }

    /// An escape after `\` at `index` in a string or template: appends what it stands for.
    private mutating func readEscape(into text: inout String, template: Bool) {
        guard let c = peek() else { return }
        index += 1
        switch c {
        case "\r":
            if peek() == "\n" { index += 1 }
        case "\n", "\u{2028}", "\u{2029}": break
        case "n": text += "\n"
        case "t": text += "\t"
        case "r": text += "\r"
        case "b": text += "\u{8}"
        case "f": text += "\u{C}"
        case "v": text += "\u{B}"
        case "x":
            if let high = peek().flatMap(Self.hexValue), let low = peek(1).flatMap(Self.hexValue), let scalar = Unicode.Scalar(high * 16 + low) {
                text.unicodeScalars.append(scalar)
                index += 2
            } else if !template {
                problem(Message("a \\x escape needs two hex digits", ko: "\\x 이스케이프에는 16진수 두 자리가 필요합니다"), at: index - 2)
            }
        case "u":
            if let (scalar, length) = unicodeEscape(at: index) {
                text.unicodeScalars.append(scalar)
                index += length
            } else if !template {
                problem(Message("a \\u escape needs four hex digits or {hex}", ko: "\\u 이스케이프에는 16진수 네 자리 또는 {hex} 형식이 필요합니다"), at: index - 2)
            }
        case "0"..."7" where !template:
            // Legacy octal: up to three digits, no more than \377.
            var value = c.value - 48
            var digits = 1
            while digits < (c <= "3" ? 3 : 2), let d = peek(), ("0"..."7").contains(d) {
                value = value * 8 + d.value - 48
                index += 1
                digits += 1
            }
            text.unicodeScalars.append(Unicode.Scalar(value)!)
        default: text.unicodeScalars.append(c)
        }
    }

    private mutating func readString(quote: Unicode.Scalar) {
        let start = index
        index += 1
        var text = ""
        while true {
            guard let c = peek(), c != "\n", c != "\r" else {
                problem(Message("a string is not closed on its line", ko: "문자열이 그 줄에서 닫히지 않았습니다"), at: start)
                break
            }
            index += 1
            if c == quote { break }
            if c == "\\" {
                readEscape(into: &text, template: false)
            } else {
                text.unicodeScalars.append(c)
            }
        }
        append(.string, text, from: start)
    }

    /// A template literal from after its backtick or `}`, up to the next `${` or its end.
    private mutating func readTemplate(start: Int, continuing: Bool) {
        var text = ""
        while true {
            guard let c = peek() else {
                problem(Message("a template literal is not closed (no `)", ko: "템플릿 리터럴이 닫히지 않았습니다 (` 없음)"), at: start)
                append(.template(continuing ? .tail : .whole), text, from: start)
                if continuing { close("${") }
                return
            }
            index += 1
            if c == "`" {
                append(.template(continuing ? .tail : .whole), text, from: start)
                if continuing { close("${") }
                return
            }
            if c == "$" && peek() == "{" {
                index += 1
                append(.template(continuing ? .middle : .head), text, from: start)
                if continuing { close("${") }
                open.append(tokens.count - 1)
                return
            }
            if c == "\\" {
                readEscape(into: &text, template: true)
            } else {
                text.unicodeScalars.append(c)
            }
        }
    }

    private mutating func readNumber() {
        let start = index
        func digits(_ allowed: (Unicode.Scalar) -> Bool) {
            while let c = peek(), allowed(c) || c == "_" { index += 1 }
        }
        let decimal: (Unicode.Scalar) -> Bool = { ("0"..."9").contains($0) }
        if peek() == "0", let x = peek(1), "xXoObB".unicodeScalars.contains(x) {
            index += 2
            digits { Self.hexValue($0) != nil }
        } else {
            digits(decimal)
            if peek() == "." {
                index += 1
                digits(decimal)
            }
            if let e = peek(), e == "e" || e == "E" {
                let sign = peek(1) == "+" || peek(1) == "-" ? 1 : 0
                if let d = peek(1 + sign), decimal(d) {
                    index += 1 + sign
                    digits(decimal)
                }
            }
        }
        if peek() == "n" { index += 1 }
        append(.number, "0", from: start)
    }

    private mutating func readRegex() {
        let start = index
        index += 1
        var inClass = false
        while true {
            guard let c = peek(), !Self.isLineTerminator(c) else {
                problem(Message("a regular expression is not closed on its line", ko: "정규 표현식이 그 줄에서 닫히지 않았습니다"), at: start)
                break
            }
            index += 1
            if c == "\\" {
                if let d = peek(), !Self.isLineTerminator(d) { index += 1 }
            } else if c == "[" {
                inClass = true
            } else if c == "]" {
                inClass = false
            } else if c == "/" && !inClass {
                while let d = peek(), Self.isNamePart(d) { index += 1 }
                break
            }
        }
        append(.regex, "", from: start)
    }

    private static let punctuators: [[String]] = [
        [">>>="],
        ["...", "===", "!==", "**=", "<<=", ">>=", ">>>", "&&=", "||=", "??="],
        ["=>", "==", "!=", "<=", ">=", "&&", "||", "??", "?.", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "**", "<<", ">>"],
    ]

    private mutating func readPunctuator() {
        let start = index
        var text = String(source[index])
        for group in Self.punctuators {
            if let found = group.first(where: { starts(with: $0) }) {
                // `?.5` is a conditional and a number.
                if found == "?.", let d = peek(2), ("0"..."9").contains(d) { continue }
                text = found
                break
            }
        }
        index += text.unicodeScalars.count
        let previous = tokens.last
        let previousIndex = tokens.count - 1
        // `++` is postfix only straight after a value on the same line (a line break before it
        // ends the statement); a prefix one is followed by an operand.
        let update: Slash? = text == "++" || text == "--" ? (newline ? .regex : slash()) : nil
        append(.punctuator, text, from: start)
        if let update { afterUpdate[tokens.count - 1] = update }
        switch text {
        case "(", "[", "{":
            open.append(tokens.count - 1)
            if text == "(", let previous, previous.kind == .name, !previous.escaped, !isProperty(previousIndex),
                ["if", "while", "for", "with"].contains(previous.text)
                    || (previous.text == "await" && previousIndex > 0 && tokens[previousIndex - 1].text == "for")
            {
                headerOpens.insert(tokens.count - 1)
            }
        case ")":
            let opener = open.last
            close("(")
            if let opener, headerOpens.contains(opener) { headerCloses.insert(tokens.count - 1) }
        case "]": close("[")
        case "}": close("{")
        default: break
        }
    }

    /// Whether the `)` at `index` closes the head of `if`, `while`, `for` or `with`.
    func closesHeader(_ index: Int) -> Bool { headerCloses.contains(index) }

    /// Whether the name at `index` follows `.` or `?.` (a property name, never a keyword).
    func isProperty(_ index: Int) -> Bool {
        index > 0 && tokens[index - 1].kind == .punctuator && (tokens[index - 1].text == "." || tokens[index - 1].text == "?.")
    }

    /// Reserved words after which a `/` opens an operand: the operators and statement words
    /// that take an expression, and those a `/` cannot follow at all (a regular expression
    /// there is no worse a reading than a division of a script that does not parse).
    /// `debugger`, `break` and `continue` end their statement: a `/` after them (on the next
    /// line; on the same one is no script) starts the next; `default` before `/` is `export
    /// default`.
    static let wordsBeforeOperand: Set<String> = [
        "return", "typeof", "instanceof", "in", "new", "delete", "void", "throw", "case", "do", "else", "extends", "default", "debugger",
        "break", "continue", "var", "const", "if", "for", "while", "with", "switch", "try", "catch", "finally", "function", "class",
        "import", "export", "enum",
    ]
    /// Reserved words that are values: a `/` after them divides.
    static let valueWords: Set<String> = ["this", "null", "true", "false", "super"]

    /// Whether the name at `index` is written plainly and is not a property name.
    private func plainName(_ index: Int, _ texts: Set<String>) -> Bool {
        index >= 0 && tokens[index].kind == .name && !tokens[index].escaped && !isProperty(index) && texts.contains(tokens[index].text)
    }

    /// What a `/` read now, after the last token (`newline`: with a line break between), is.
    private func slash() -> Slash {
        guard let previous = tokens.last else { return .regex }
        let previousIndex = tokens.count - 1
        switch previous.kind {
        case .number, .regex, .template(.whole), .template(.tail): return .division
        case .template(.head), .template(.middle): return .regex
        case .string:
            // A module name ends a declaration no `/` continues: JavaScript ends it at a line
            // break, and the `/` opens a regular expression; `from` may also be a plain name.
            if plainName(previousIndex - 1, ["import", "from"]) {
                return .unsure(
                    Message(
                        "a '/' after a module name (import \"...\" or ... from \"...\") may divide or start a regular expression; the check cannot tell which: end the declaration with ';'",
                        ko: "모듈 이름(import \"...\" 또는 ... from \"...\") 뒤의 '/' 기호는 나눗셈일 수도, 정규 표현식의 시작일 수도 있습니다; 검사기는 어느 쪽인지 알 수 없습니다: 선언을 세미콜론(;)으로 끝내세요"))
            }
            return .division
        case .name:
            // A property name (`a.b`, `a?.b`, `this.#b`) ends an expression.
            if previous.escaped || isProperty(previousIndex) || (previousIndex > 0 && tokens[previousIndex - 1].kind == .punctuator && tokens[previousIndex - 1].text == "#") { return .division }
            let text = previous.text
            if Self.valueWords.contains(text) { return .division }
            if Self.wordsBeforeOperand.contains(text) { return .regex }
            if ["of", "await", "yield"].contains(text) {
                return .unsure(
                    Message(
                        "a '/' after '\(text)' may divide or start a regular expression; the check cannot tell which: use parentheses",
                        ko: "'\(text)' 뒤의 '/' 기호는 나눗셈일 수도, 정규 표현식의 시작일 수도 있습니다; 검사기는 어느 쪽인지 알 수 없습니다: 괄호로 감싸세요"))
            }
            // `break label` and `continue label` end their statement.
            if !previous.newlineBefore && plainName(previousIndex - 1, ["break", "continue"]) { return .regex }
            // Any other name: a value a `/` divides, unless it is a name being declared
            // (`var x`, `let a, b`) or otherwise ends a statement a `/` cannot continue, where a
            // line break ends the statement and the `/` starts the next one. Inside `(...)`,
            // `[...]` or `${...}` no statement ends.
            guard newline else { return .division }
            if let last = open.last, tokens[last].kind != .punctuator || tokens[last].text != "{" { return .division }
            return .unsure(
                Message(
                    "a '/' at the start of a line after '\(text)' may divide or start a regular expression (JavaScript may end the statement at the line break); the check cannot tell which: end the line before with the operator, or the statement with ';'",
                    ko: "'\(text)' 다음 줄 맨 앞의 '/' 기호는 나눗셈일 수도, 정규 표현식의 시작일 수도 있습니다 (JavaScript가 줄바꿈에서 문장을 끝낼 수 있습니다); 검사기는 어느 쪽인지 알 수 없습니다: 연산자를 앞 줄 끝에 두거나, 문장을 세미콜론(;)으로 끝내세요"))
        case .punctuator:
            switch previous.text {
            case ")": return headerCloses.contains(previousIndex) ? .regex : .division
            case "]": return .division
            case "++", "--": return afterUpdate[previousIndex] ?? .division
            case "}":
                return .unsure(
                    Message(
                        "a '/' after '}' may divide or start a regular expression; the check cannot tell which: use parentheses or a ';'",
                        ko: "'}' 뒤의 '/' 기호는 나눗셈일 수도, 정규 표현식의 시작일 수도 있습니다; 검사기는 어느 쪽인지 알 수 없습니다: 괄호로 감싸거나 세미콜론(;)을 넣으세요"))
            default: return .regex
            }
        }
    }

    /// Whether a `/` at `position` starts a regular expression (else it divides); where the
    /// tokens before do not say, a problem.
    private mutating func regexAllowed(at position: Int) -> Bool {
        switch slash() {
        case .regex: return true
        case .division: return false
        case .unsure(let why):
            problem(why, at: position)
            return false
        }
    }
}
