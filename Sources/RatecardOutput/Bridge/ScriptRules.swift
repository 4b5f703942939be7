import RatecardCore
import RatecardSupport

/// The bridge check's rules for one script, over its tokens: deny by default.
///
/// The runtime is reached only as `RatecardBridge.call("name", ...)`, `RatecardBridge.has("name")`
/// or `RatecardBridge.on("name", ...)`, written out (a plain name, `.`, a plain method name, a
/// quoted string, then `,` or `)`); every other mention of `RatecardBridge` is BRG-08, and of
/// `Native`, `webkit` or `messageHandlers` (names, property names, keys, or strings equal to
/// them) BRG-04. BRG-09 refuses what would reach them unseen: `eval`, `Function`,
/// `.constructor`, `Reflect`, `import()`, `with`, `setTimeout`/`setInterval` without a function
/// written in place, `open(...)`; a name that can hold the window (`window`, `self`,
/// `globalThis`, `frames`, `defaultView`, `contentWindow`, `opener`, and `top`, `parent`, `this`
/// as free names or after one of these) unless followed by `.name`; a member name computed from
/// string pieces; a name written with `\u` escapes; strings naming any of these, or holding a
/// `javascript:` URL.
///
/// A call is guarded only in the positive branch of one of three shapes, where the check is
/// exactly `RatecardBridge.has("name")` (nothing before or after it binds to it):
/// - `if (<check>) ...` or `if (a && <check> && b) ...` (the condition only `&&`-joined terms):
///   the block or single statement after it, not its `else`;
/// - `<check> && ...`: the rest of that `&&` operand, up to the first `||`, `??`, `?`, `:`,
///   `,`, `;`, assignment, closing bracket or line break where the statement may end;
/// - `<check> ? ... : ...`: the part before the `:`, if no line break where the statement may
///   end comes before it.
/// A line break may end the statement after anything that may end a value (a contextual
/// keyword such as `of` or `await` is a plain name) unless what follows continues it.
struct ScriptRules {
    typealias Token = JavaScriptLexer.Token
    typealias Use = BridgeUsageScanner.Use

    private let lexer: JavaScriptLexer
    private let tokens: [Token]
    private let path: String
    private(set) var uses: [Use] = []
    /// The token each use starts at.
    private var useTokens: [Int] = []
    private(set) var findings: [Diagnostic] = []
    /// Property names after a window: they hold a window (top, parent) or open one.
    private var windowChain: Set<Int> = []
    /// The strings that name a message in an accepted form.
    private var messageNames: Set<Int> = []

    init(_ lexer: JavaScriptLexer, path: String) {
        self.lexer = lexer
        self.tokens = lexer.tokens
        self.path = path
        for problem in lexer.problems {
            findings.append(Diagnostic(path: path, mark: problem.mark, rule: BridgeRules.unreadable, message: problem.message))
        }
        check()
    }

    // MARK: - Names the rules know

    /// The native objects the runtime wraps.
    static let native: Set<String> = ["Native", "webkit", "messageHandlers"]
    /// Names that hold a window wherever they appear.
    static let windows: Set<String> = ["window", "self", "globalThis", "frames", "defaultView", "contentWindow", "opener"]
    /// Names that hold a window as free names, or as properties of a window.
    static let windowsWhenFree: Set<String> = ["top", "parent", "this"]
    /// Strings that name what only the runtime may reach, or what reaches code unseen.
    static let namingStrings: Set<String> = [
        "RatecardBridge", "Native", "webkit", "messageHandlers", "eval", "Function", "constructor", "Reflect", "globalThis", "defaultView",
        "contentWindow", "opener", "setTimeout", "setInterval",
    ]
    /// Reserved words an operand follows. Contextual keywords (`of`, `yield`, `await`, `async`,
    /// `let`, `get`, `set`, `static`, ...) are not among them: outside their contexts they are
    /// plain names, which end a value.
    static let keywordsBeforeExpression: Set<String> = [
        "return", "typeof", "instanceof", "in", "new", "delete", "void", "throw", "case", "do", "else", "extends",
    ]
    static let assignments: Set<String> = ["=", "+=", "-=", "*=", "/=", "%=", "**=", "<<=", ">>=", ">>>=", "&=", "|=", "^=", "&&=", "||=", "??="]
    /// What ends the right operand of `&&`: lower precedence, or the end of the expression.
    static let endsAndOperand: Set<String> = assignments.union(["||", "??", "?", ":", ",", ";", "=>", ")", "]", "}"])

    // MARK: - Token tests

    private func punctuator(_ index: Int, _ text: String) -> Bool {
        index >= 0 && index < tokens.count && tokens[index].kind == .punctuator && tokens[index].text == text
    }

    /// A name written plainly (`text`, when given).
    private func name(_ index: Int, _ text: String? = nil) -> Bool {
        index >= 0 && index < tokens.count && tokens[index].kind == .name && !tokens[index].escaped && (text == nil || tokens[index].text == text)
    }

    private func isProperty(_ index: Int) -> Bool { lexer.isProperty(index) }

    /// A key in an object literal or pattern (`{top: 1}`, `{a, top: b}`), or a label.
    private func isKey(_ index: Int) -> Bool { (punctuator(index - 1, "{") || punctuator(index - 1, ",")) && punctuator(index + 1, ":") }

    /// Whether the token at `index` ends a value (a line break after it may end the statement).
    private func endsValue(_ index: Int) -> Bool {
        guard index >= 0 else { return false }
        let token = tokens[index]
        switch token.kind {
        case .string, .number, .regex, .template(.whole), .template(.tail): return true
        case .template: return false
        case .name: return isProperty(index) || !Self.keywordsBeforeExpression.contains(token.text)
        case .punctuator: return [")", "]", "}", "++", "--"].contains(token.text)
        }
    }

    /// Whether JavaScript may end the statement at a line break before the token at `index`
    /// (automatic semicolon insertion): the token before may end a value and this one can
    /// start a statement rather than continue the expression (as an operator, `.`, `(`, `[`
    /// or a template does).
    private func mayEndStatement(before index: Int) -> Bool {
        guard index > 0, tokens[index].newlineBefore, endsValue(index - 1) else { return false }
        switch tokens[index].kind {
        case .template: return false
        case .punctuator: return ["{", "!", "~", "++", "--", "#", "@"].contains(tokens[index].text)
        default: return true
        }
    }

    /// The index after the token at `index` and, for an opening bracket, everything it holds.
    private func after(_ index: Int) -> Int {
        var at = index
        while lexer.partner[at] > at { at = lexer.partner[at] }
        return at + 1
    }

    private mutating func find(_ rule: Rule, _ message: Message, at index: Int) {
        findings.append(Diagnostic(path: path, mark: tokens[index].mark, rule: rule, message: message))
    }

    // MARK: - The rules

    private mutating func check() {
        for index in tokens.indices {
            let token = tokens[index]
            switch token.kind {
            case .name: checkName(at: index)
            case .string, .template: checkString(at: index)
            case .punctuator where token.text == "[": checkComputedMember(at: index)
            default: break
            }
        }
        let regions = guardedRegions()
        for use in uses.indices where uses[use].kind == .call {
            let at = useTokens[use]
            uses[use].guarded = regions.contains { $0.name == uses[use].name && $0.tokens.contains(at) }
        }
    }

    private mutating func checkName(at index: Int) {
        let token = tokens[index]
        let text = token.text
        if token.escaped {
            find(BridgeRules.unreadable, Message("the name '\(text)' is written with a \\u escape; write names out plainly", ko: "이름 '\(text)'에 \\u 이스케이프가 쓰였습니다; 이름은 이스케이프 없이 그대로 쓰세요"), at: index)
            return
        }
        if text == "RatecardBridge" {
            checkRuntime(at: index)
        } else if Self.native.contains(text) {
            find(BridgeRules.rawAccess, Self.nativeMessage(text), at: index)
        } else if text == "eval" || text == "Function" || (text == "constructor" && !(!isProperty(index) && punctuator(index + 1, "("))) {
            find(
                BridgeRules.unreadable, Message("'\(text)' runs text as code, which the check cannot read; write the code out", ko: "'\(text)'은(는) 텍스트를 코드로 실행하므로 검사기가 읽을 수 없습니다; 코드를 직접 쓰세요"),
                at: index)
        } else if text == "Reflect" {
            find(
                BridgeRules.unreadable,
                Message(
                    "'Reflect' reaches properties by computed name, which the check cannot follow; use plain property access",
                    ko: "'Reflect'는 계산된 이름으로 속성에 접근하므로 검사기가 따라갈 수 없습니다; 일반 속성 접근(object.name)을 쓰세요"), at: index)
        } else if text == "setTimeout" || text == "setInterval" {
            if !takesFunction(at: index) {
                find(
                    BridgeRules.unreadable,
                    Message(
                        "'\(text)' must be given a function written in place (function () {...} or an arrow): given text, it runs it as code",
                        ko: "'\(text)'에는 그 자리에 쓴 함수(function () {...} 또는 화살표 함수)를 넘겨야 합니다: 텍스트를 넘기면 코드로 실행합니다"), at: index)
            }
        } else if !isProperty(index) && (text == "import" || text == "with") && punctuator(index + 1, "(") && !isKey(index) {
            let message =
                text == "import"
                ? Message(
                    "import() loads code the check cannot follow; load scripts with <script src> or a static import",
                    ko: "import()는 검사기가 따라갈 수 없는 코드를 불러옵니다; 스크립트는 <script src> 또는 정적 import로 불러오세요")
                : Message("a with statement hides which object a name is read from; write the object out", ko: "with 문은 이름을 어느 객체에서 읽는지 감춥니다; 객체를 직접 쓰세요")
            find(BridgeRules.unreadable, message, at: index)
        } else if text == "open" && ((!isProperty(index) && punctuator(index + 1, "(")) || windowChain.contains(index)) {
            find(
                BridgeRules.unreadable,
                Message(
                    "'open' makes a window the check cannot follow; open a page outside the app with RatecardBridge.call(\"open_external_url\", ...)",
                    ko: "'open'은 검사기가 따라갈 수 없는 창을 만듭니다; 앱 밖의 페이지는 RatecardBridge.call(\"open_external_url\", ...)로 여세요"), at: index)
        } else if holdsWindow(at: index) {
            checkWindow(at: index)
        }
    }

    static func nativeMessage(_ name: String) -> Message {
        Message(
            "'\(name)' is the app's native interface, used directly; call the app through RatecardBridge.call(\"command\", params) (\(BridgeWebGenerator.runtimePath)), which checks, times out and replies",
            ko: "앱의 네이티브 인터페이스 '\(name)'을(를) 직접 씁니다; 앱 호출은 확인, 시간 제한, 응답을 처리하는 RatecardBridge.call(\"command\", params) (\(BridgeWebGenerator.runtimePath))로 하세요")
    }

    /// `RatecardBridge.call|has|on("name"` followed by `,` or `)`: a use; anything else a finding.
    private mutating func checkRuntime(at index: Int) {
        let method = index + 2
        guard !isProperty(index), !name(index - 1, "new"), punctuator(index + 1, "."), name(method), punctuator(index + 3, "("),
            let kind = Use.Kind(rawValue: tokens[method].text)
        else {
            find(
                BridgeRules.otherReference,
                Message(
                    "RatecardBridge may be used only as RatecardBridge.call(\"name\", ...), RatecardBridge.has(\"name\") or RatecardBridge.on(\"name\", ...), written out; the check cannot tell what other code calls",
                    ko: "RatecardBridge는 RatecardBridge.call(\"name\", ...), RatecardBridge.has(\"name\"), RatecardBridge.on(\"name\", ...) 형태로 그대로 써야만 합니다; 다른 형태로는 무엇을 호출하는지 검사기가 알 수 없습니다"),
                at: index)
            return
        }
        guard tokens.indices.contains(index + 5), tokens[index + 4].kind == .string, punctuator(index + 5, ",") || punctuator(index + 5, ")") else {
            find(
                BridgeRules.dynamicName,
                Message(
                    "RatecardBridge.\(kind.rawValue) needs the message name as a string literal, so it can be checked against \(BridgeSchema.fileName) and the installed apps",
                    ko: "RatecardBridge.\(kind.rawValue)에는 메시지 이름을 문자열 리터럴로 써야 \(BridgeSchema.fileName)과(와) 설치된 앱에 맞춰 검사할 수 있습니다"),
                at: index)
            return
        }
        messageNames.insert(index + 4)
        uses.append(Use(kind: kind, name: tokens[index + 4].text, path: path, mark: tokens[index].mark, guarded: false))
        useTokens.append(index)
    }

    /// `setTimeout(` or `setInterval(` followed by `function`, `async`, or an arrow's parameters.
    private func takesFunction(at index: Int) -> Bool {
        let argument = index + 2
        guard punctuator(index + 1, "("), argument < tokens.count else { return false }
        if name(argument, "function") { return true }
        // `async function`, `async x =>`, `async (...) =>`; else `async` is a plain name.
        if name(argument, "async"), argument + 1 < tokens.count, !tokens[argument + 1].newlineBefore {
            let next = argument + 1
            if name(next, "function") || (name(next) && punctuator(next + 1, "=>")) { return true }
            if punctuator(next, "("), lexer.partner[next] > next, punctuator(lexer.partner[next] + 1, "=>") { return true }
        }
        if name(argument) && punctuator(argument + 1, "=>") { return true }
        if punctuator(argument, "("), lexer.partner[argument] > argument { return punctuator(lexer.partner[argument] + 1, "=>") }
        return false
    }

    private func holdsWindow(at index: Int) -> Bool {
        let text = tokens[index].text
        if Self.windows.contains(text) { return true }
        guard Self.windowsWhenFree.contains(text) else { return false }
        return isProperty(index) ? windowChain.contains(index) : !isKey(index)
    }

    /// A window may be used only as `window.name` (or assigned, as a property: `w.opener = null`;
    /// or under `typeof`).
    private mutating func checkWindow(at index: Int) {
        let text = tokens[index].text
        if punctuator(index + 1, "."), name(index + 2) {
            let property = tokens[index + 2].text
            if Self.windows.contains(property) || Self.windowsWhenFree.contains(property) || property == "open" { windowChain.insert(index + 2) }
            return
        }
        if isProperty(index) && punctuator(index + 1, "=") { return }
        if !isProperty(index) && name(index - 1, "typeof") { return }
        find(
            BridgeRules.unreadable,
            Message(
                "'\(text)' can hold the page's window, so the check accepts it only as \(text).name: stored, passed, indexed or called, it reaches the app's bridge unseen (use another name for a variable of your own)",
                ko: "'\(text)'에는 페이지의 window가 들어 있을 수 있어 \(text).name 형태로만 허용됩니다: 저장하거나 넘기거나 인덱싱하거나 호출하면 검사기 모르게 앱 브리지에 닿습니다 (직접 만든 변수에는 다른 이름을 쓰세요)"),
            at: index)
    }

    private mutating func checkString(at index: Int) {
        guard !messageNames.contains(index) else { return }
        let value = tokens[index].text
        if Self.namingStrings.contains(value) {
            switch value {
            case "RatecardBridge":
                find(
                    BridgeRules.otherReference,
                    Message(
                        "the string 'RatecardBridge' reaches the runtime by name; use RatecardBridge.call(\"name\", ...), .has(\"name\") or .on(\"name\", ...)",
                        ko: "문자열 'RatecardBridge'는 이름으로 런타임에 접근합니다; RatecardBridge.call(\"name\", ...), .has(\"name\"), .on(\"name\", ...) 형태를 쓰세요"), at: index)
            case let native where Self.native.contains(native):
                find(BridgeRules.rawAccess, Self.nativeMessage(value), at: index)
            default:
                find(
                    BridgeRules.unreadable,
                    Message(
                        "the string '\(value)' names what the check refuses to see reached; write the code out without it", ko: "문자열 '\(value)'은(는) 검사기가 허용하지 않는 대상을 이름으로 가리킵니다; 그 문자열 없이 코드를 직접 쓰세요"),
                    at: index)
            }
        }
        if value.lowercased().contains("javascript:") {
            find(
                BridgeRules.unreadable, Message("a javascript: URL runs code the check does not read; put the code in a .js file", ko: "javascript: URL은 검사기가 읽지 않는 코드를 실행합니다; 코드는 .js 파일에 두세요"),
                at: index)
        }
    }

    /// `object[...]` whose name is built from string pieces (`w["Ratecard" + "Bridge"]`).
    private mutating func checkComputedMember(at index: Int) {
        guard index > 0, !punctuator(index - 1, "}"), endsValue(index - 1) || punctuator(index - 1, "?.") else { return }
        let close = lexer.partner[index]
        guard close > index else { return }
        let inside = (index + 1)..<close
        guard !(inside.count == 1 && tokens[index + 1].kind == .string) else { return }
        let pieces = inside.contains {
            switch tokens[$0].kind {
            case .string, .template: return true
            default: return false
            }
        }
        if pieces {
            find(
                BridgeRules.unreadable,
                Message(
                    "a member name computed from string pieces can name anything, the app's bridge included; write the name out (object.name)",
                    ko: "문자열 조각으로 만든 멤버 이름은 앱 브리지를 포함해 무엇이든 가리킬 수 있습니다; 이름을 직접 쓰세요 (object.name)"), at: index)
        }
    }

    // MARK: - Guards

    struct Region {
        var name: String
        var tokens: ClosedRange<Int>
    }

    /// `RatecardBridge.has("name")` at `index`, exactly: the name.
    private func check(at index: Int) -> String? {
        guard name(index, "RatecardBridge"), !isProperty(index), punctuator(index + 1, "."), name(index + 2, "has"), punctuator(index + 3, "("),
            index + 5 < tokens.count, tokens[index + 4].kind == .string, punctuator(index + 5, ")")
        else { return nil }
        return tokens[index + 4].text
    }

    /// Whether nothing before the check at `index` binds to it more tightly than `&&`
    /// (`conditional`: than `?:`).
    private func startsOperand(at index: Int, conditional: Bool) -> Bool {
        guard index > 0 else { return true }
        let previous = tokens[index - 1]
        if mayEndStatement(before: index) { return true }
        switch previous.kind {
        case .template(.head), .template(.middle): return true
        case .name: return !isProperty(index - 1) && (name(index - 1, "return") || name(index - 1, "else") || name(index - 1, "do"))
        case .punctuator:
            if previous.text == ")" { return lexer.closesHeader(index - 1) }
            if !conditional && ["&&", "||", "??"].contains(previous.text) { return true }
            return ["(", "[", "{", "}", ";", ",", "?", ":", "=>"].contains(previous.text) || Self.assignments.contains(previous.text)
        default: return false
        }
    }

    private func guardedRegions() -> [Region] {
        var regions: [Region] = []
        for index in tokens.indices {
            if name(index, "if"), !isProperty(index), punctuator(index + 1, "("), lexer.partner[index + 1] > index + 1 {
                regions += ifRegions(at: index)
            }
            guard let guarded = check(at: index) else { continue }
            if punctuator(index + 6, "&&"), startsOperand(at: index, conditional: false) {
                var at = index + 7
                var last = index + 6
                while at < tokens.count {
                    if tokens[at].kind == .punctuator && Self.endsAndOperand.contains(tokens[at].text) { break }
                    if mayEndStatement(before: at) { break }
                    at = after(at)
                    last = at - 1
                }
                if last > index + 6 { regions.append(Region(name: guarded, tokens: (index + 7)...last)) }
            }
            if punctuator(index + 6, "?"), startsOperand(at: index, conditional: true) {
                var at = index + 7
                var nested = 0
                while at < tokens.count && !mayEndStatement(before: at) {
                    if punctuator(at, "?") {
                        nested += 1
                    } else if punctuator(at, ":") {
                        if nested == 0 {
                            if at > index + 7 { regions.append(Region(name: guarded, tokens: (index + 7)...(at - 1))) }
                            break
                        }
                        nested -= 1
                    } else if tokens[at].kind == .punctuator && [",", ";", ")", "]", "}"].contains(tokens[at].text) {
                        break
                    }
                    at = after(at)
                }
            }
        }
        return regions
    }

    /// The branch an `if` whose condition holds exact checks joined by `&&` guards.
    private func ifRegions(at index: Int) -> [Region] {
        let close = lexer.partner[index + 1]
        var names: [String] = []
        var start = index + 2
        var at = start
        while at <= close {
            if at == close || punctuator(at, "&&") {
                if at - start == 6, let guarded = check(at: start) { names.append(guarded) }
                start = at + 1
                at += 1
                continue
            }
            if tokens[at].kind == .punctuator && Self.endsAndOperand.contains(tokens[at].text) { return [] }
            at = after(at)
        }
        let body = close + 1
        guard !names.isEmpty, body < tokens.count else { return [] }
        let end: Int
        if punctuator(body, "{") {
            end = max(body, lexer.partner[body])
        } else {
            end = statementEnd(from: body)
        }
        return names.map { Region(name: $0, tokens: body...end) }
    }

    /// The last token of the single statement starting at `start`: its `;`, or the token before
    /// a line break, an `else` or a closing bracket (ending early only leaves calls unguarded).
    private func statementEnd(from start: Int) -> Int {
        var at = start
        while at < tokens.count {
            if punctuator(at, ";") { return at }
            if at > start && (tokens[at].newlineBefore || name(at, "else")) { return at - 1 }
            if tokens[at].kind == .punctuator && [")", "]", "}"].contains(tokens[at].text) { return max(start, at - 1) }
            at = after(at)
        }
        return tokens.count - 1
    }
}
