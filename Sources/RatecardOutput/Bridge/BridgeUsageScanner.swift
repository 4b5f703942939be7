import RatecardCore
import RatecardSupport

/// Finds every use of the bridge in a web build's JavaScript: `RatecardBridge.call("name", ...)`,
/// `.has("name")` and `.on("name", ...)`, each with its position and whether a capability
/// check guards it, and any direct use of the native objects the runtime wraps.
///
/// A small tokenizer (strings, template literals, comments and regular expressions skipped),
/// not a parser. A call counts as guarded when it is inside the block or statement of an
/// `if` whose condition contains `RatecardBridge.has("name")` (not negated), or later in a
/// statement that starts `RatecardBridge.has("name") &&` or `... ?`.
public enum BridgeUsageScanner {
    public struct Use: Sendable, Equatable {
        public enum Kind: String, Sendable { case call, has, on }
        public var kind: Kind
        public var name: String
        public var path: String
        public var mark: SourceMark
        public var guarded: Bool
    }

    public struct Finding: Sendable, Equatable {
        public enum Problem: Sendable, Equatable {
            /// `window.Native` or `webkit.messageHandlers` outside the runtime.
            case rawAccess(String)
            /// `RatecardBridge.call(x)` with a name that is not a string literal.
            case dynamicName(String)
        }
        public var problem: Problem
        public var path: String
        public var mark: SourceMark
    }

    public struct Result: Sendable, Equatable {
        public var uses: [Use] = []
        public var findings: [Finding] = []
    }

    /// Scans every `.js` file under `webFolder` except the runtime itself, in path order.
    /// `displayPrefix` is put before each path in the result.
    public static func scan(webFolder: String, displayPrefix: String) throws -> Result {
        var result = Result()
        for relative in try javaScriptFiles(in: webFolder, under: "") where relative != BridgeWebGenerator.runtimePath {
            let bytes = try FileSystem.readFile(webFolder + "/" + relative)
            let one = scan(String(decoding: bytes, as: UTF8.self), path: displayPrefix + relative)
            result.uses += one.uses
            result.findings += one.findings
        }
        return result
    }

    static func javaScriptFiles(in root: String, under folder: String) throws -> [String] {
        var files: [String] = []
        let here = folder.isEmpty ? root : root + "/" + folder
        for name in try FileSystem.listDirectory(here).sorted() where !name.hasPrefix(".") {
            let relative = folder.isEmpty ? name : folder + "/" + name
            switch try FileSystem.kind(ofItemAt: root + "/" + relative) {
            case .directory: files += try javaScriptFiles(in: root, under: relative)
            case .file where name.hasSuffix(".js") || name.hasSuffix(".mjs"): files.append(relative)
            default: break
            }
        }
        return files
    }

    // MARK: - One file

    public static func scan(_ source: String, path: String) -> Result {
        var tokenizer = Tokenizer(source)
        let tokens = tokenizer.tokens()
        var result = Result()
        // Guards in force: the brace depth they end at (a block) or the statement they end with.
        struct Guard {
            var names: Set<String>
            /// The brace depth whose closing ends the guard.
            var depth: Int
            /// Ends at the next `;` at `depth` (a single statement or an `&&` expression).
            var statement: Bool
        }
        var guards: [Guard] = []
        var depth = 0
        var pendingIf: Set<String>?
        var index = 0

        func guarded(_ name: String) -> Bool { guards.contains { $0.names.contains(name) } }

        /// `RatecardBridge . method ( "name"` at `i`: the method, the name and the index after it.
        func bridgeCall(at i: Int) -> (method: String, name: String?, mark: SourceMark, next: Int)? {
            guard i + 4 < tokens.count, tokens[i].text == "RatecardBridge", tokens[i].kind == .identifier,
                tokens[i + 1].text == ".", tokens[i + 2].kind == .identifier, tokens[i + 3].text == "("
            else { return nil }
            let method = tokens[i + 2].text
            guard ["call", "has", "on"].contains(method) else { return nil }
            if i > 0, tokens[i - 1].text == "." && !(i > 1 && tokens[i - 2].text == "window") { return nil }
            let argument = tokens[i + 4]
            return (method, argument.kind == .string ? argument.text : nil, tokens[i].mark, i + 5)
        }

        while index < tokens.count {
            let token = tokens[index]
            if token.kind == .identifier && token.text == "if", index + 1 < tokens.count, tokens[index + 1].text == "(" {
                // Collect the capability checks of the condition.
                var names: Set<String> = []
                var level = 0
                var j = index + 1
                while j < tokens.count {
                    if tokens[j].text == "(" { level += 1 }
                    if tokens[j].text == ")" {
                        level -= 1
                        if level == 0 { break }
                    }
                    if let found = bridgeCall(at: j), found.method == "has", let name = found.name, !(j > 0 && tokens[j - 1].text == "!") {
                        names.insert(name)
                    }
                    j += 1
                }
                pendingIf = names
                // The condition's own tokens are scanned normally (its has() calls are uses).
                index += 1
                continue
            }
            switch token.kind == .punctuation ? token.text : "" {
            case "{":
                depth += 1
                if let names = pendingIf, let last = lastConditionEnd(tokens, before: index), last {
                    guards.append(Guard(names: names, depth: depth, statement: false))
                    pendingIf = nil
                }
            case "}":
                guards.removeAll { !$0.statement && $0.depth == depth }
                guards.removeAll { $0.statement && $0.depth == depth }
                depth -= 1
            case ";":
                guards.removeAll { $0.statement && $0.depth == depth }
            case ")":
                // The end of an if condition followed by a single statement.
                if let names = pendingIf, index + 1 < tokens.count, tokens[index + 1].text != "{", closesIf(tokens, at: index) {
                    guards.append(Guard(names: names, depth: depth, statement: true))
                    pendingIf = nil
                }
            default: break
            }
            if token.kind == .identifier && (token.text == "Native" || token.text == "messageHandlers"),
                index > 0, tokens[index - 1].text == ".",
                token.text == "messageHandlers" || (index > 1 && tokens[index - 2].text == "window")
            {
                result.findings.append(Finding(problem: .rawAccess(token.text == "Native" ? "window.Native" : "webkit.messageHandlers"), path: path, mark: token.mark))
            }
            if let found = bridgeCall(at: index) {
                guard let kind = Use.Kind(rawValue: found.method) else {
                    index += 1
                    continue
                }
                guard let name = found.name else {
                    result.findings.append(Finding(problem: .dynamicName(found.method), path: path, mark: found.mark))
                    index = found.next
                    continue
                }
                result.uses.append(Use(kind: kind, name: name, path: path, mark: found.mark, guarded: kind == .call && guarded(name)))
                // `RatecardBridge.has("x") && ...` or `... ? ...`: guards the rest of the statement.
                if kind == .has, found.next < tokens.count, tokens[found.next].text == ")",
                    found.next + 1 < tokens.count, ["&&", "?"].contains(tokens[found.next + 1].text),
                    !(index > 0 && tokens[index - 1].text == "!")
                {
                    guards.append(Guard(names: [name], depth: depth, statement: true))
                }
                index = found.next
                continue
            }
            index += 1
        }
        return result
    }

    /// Whether the `)` at `index` closes an `if (` condition.
    static func closesIf(_ tokens: [Token], at index: Int) -> Bool {
        var level = 0
        var j = index
        while j >= 0 {
            if tokens[j].text == ")" && tokens[j].kind == .punctuation { level += 1 }
            if tokens[j].text == "(" && tokens[j].kind == .punctuation {
                level -= 1
                if level == 0 { return j > 0 && tokens[j - 1].text == "if" && tokens[j - 1].kind == .identifier }
            }
            j -= 1
        }
        return false
    }

    /// Whether the `{` at `index` opens the block right after an if condition.
    static func lastConditionEnd(_ tokens: [Token], before index: Int) -> Bool? {
        guard index > 0, tokens[index - 1].text == ")" else { return nil }
        return closesIf(tokens, at: index - 1)
    }

    // MARK: - Tokens

    struct Token {
        enum Kind { case identifier, string, number, punctuation }
        var kind: Kind
        var text: String
        var mark: SourceMark
    }

    /// JavaScript tokens with 1-based positions (columns count Unicode scalars).
    struct Tokenizer {
        let scalars: [Unicode.Scalar]
        var index = 0
        var line = 1
        var column = 1

        init(_ source: String) { scalars = Array(source.unicodeScalars) }

        mutating func advance() {
            if scalars[index] == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
            index += 1
        }

        func peek(_ offset: Int = 0) -> Unicode.Scalar? { index + offset < scalars.count ? scalars[index + offset] : nil }

        static func isIdentifierStart(_ c: Unicode.Scalar) -> Bool { c == "_" || c == "$" || c.properties.isAlphabetic }
        static func isIdentifierPart(_ c: Unicode.Scalar) -> Bool { isIdentifierStart(c) || ("0"..."9").contains(c) }

        mutating func tokens() -> [Token] {
            var tokens: [Token] = []
            while let c = peek() {
                let mark = SourceMark(line: line, column: column)
                if c == " " || c == "\t" || c == "\n" || c == "\r" || c.properties.isWhitespace {
                    advance()
                    continue
                }
                if c == "/" && peek(1) == "/" {
                    while let d = peek(), d != "\n" {
                        _ = d
                        advance()
                    }
                    continue
                }
                if c == "/" && peek(1) == "*" {
                    advance()
                    advance()
                    while let d = peek(), !(d == "*" && peek(1) == "/") {
                        _ = d
                        advance()
                    }
                    if peek() != nil {
                        advance()
                        advance()
                    }
                    continue
                }
                if c == "\"" || c == "'" || c == "`" {
                    tokens.append(Token(kind: .string, text: quoted(c), mark: mark))
                    continue
                }
                if c == "/" && regexAllowed(after: tokens.last) {
                    skipRegex()
                    tokens.append(Token(kind: .string, text: "", mark: mark))
                    continue
                }
                if Self.isIdentifierStart(c) {
                    var text = ""
                    while let d = peek(), Self.isIdentifierPart(d) {
                        text.unicodeScalars.append(d)
                        advance()
                    }
                    tokens.append(Token(kind: .identifier, text: text, mark: mark))
                    continue
                }
                if ("0"..."9").contains(c) {
                    while let d = peek(), Self.isIdentifierPart(d) || d == "." {
                        _ = d
                        advance()
                    }
                    tokens.append(Token(kind: .number, text: "0", mark: mark))
                    continue
                }
                // Two-character operators the guard logic needs.
                if (c == "&" && peek(1) == "&") || (c == "|" && peek(1) == "|") {
                    advance()
                    advance()
                    tokens.append(Token(kind: .punctuation, text: c == "&" ? "&&" : "||", mark: mark))
                    continue
                }
                advance()
                tokens.append(Token(kind: .punctuation, text: String(c), mark: mark))
            }
            return tokens
        }

        /// A string or template literal's text (escapes kept as written; `${}` not parsed).
        mutating func quoted(_ quote: Unicode.Scalar) -> String {
            advance()
            var text = ""
            while let c = peek() {
                if c == "\\" {
                    advance()
                    if let d = peek() {
                        text.unicodeScalars.append(d)
                        advance()
                    }
                    continue
                }
                if c == quote {
                    advance()
                    break
                }
                if c == "\n" && quote != "`" { break }
                text.unicodeScalars.append(c)
                advance()
            }
            return text
        }

        /// A `/` starts a regular expression unless it follows a value.
        func regexAllowed(after token: Token?) -> Bool {
            guard let token else { return true }
            switch token.kind {
            case .identifier: return ["return", "typeof", "case", "do", "else", "in", "of", "new", "delete", "void", "throw"].contains(token.text)
            case .string, .number: return false
            case .punctuation: return token.text != ")" && token.text != "]" && token.text != "}"
            }
        }

        mutating func skipRegex() {
            advance()
            var inClass = false
            while let c = peek(), c != "\n" {
                if c == "\\" {
                    advance()
                    if peek() != nil { advance() }
                    continue
                }
                if c == "[" {
                    inClass = true
                } else if c == "]" {
                    inClass = false
                } else if c == "/" && !inClass {
                    advance()
                    break
                }
                advance()
            }
            while let c = peek(), Self.isIdentifierPart(c) {
                _ = c
                advance()
            }
        }
    }
}
