import RatecardSupport

/// The scripts a page of the web build holds or loads, read the way a browser's HTML parser
/// finds them: inline `<script>` blocks of a JavaScript type, event-handler attributes
/// (`onclick=...`, character references decoded) and `<script src>`. Each script's characters
/// keep their place in the page, so findings point into it.
///
/// What the check cannot follow is a problem instead: a `javascript:` URL, an `srcdoc`
/// document, inline SVG or MathML (their parsing rules differ), an inline script holding `<!--`
/// (where it ends then depends on what follows), a character reference it does not decode in a
/// handler. In an SVG or XHTML file (`scriptsAllowed` false) any script at all is a problem.
struct MarkupScripts {
    struct Script {
        var source: [Unicode.Scalar]
        var marks: [SourceMark]
    }

    struct Source {
        var value: String
        var mark: SourceMark
    }

    private(set) var scripts: [Script] = []
    /// Every `<script src>` of a JavaScript type, as written (character references decoded).
    private(set) var sources: [Source] = []
    private(set) var problems: [JavaScriptLexer.Problem] = []

    private let text: [Unicode.Scalar]
    private let marks: [SourceMark]
    private let scriptsAllowed: Bool
    private var index = 0

    init(_ text: String, scriptsAllowed: Bool) {
        self.text = Array(text.unicodeScalars)
        self.marks = JavaScriptLexer.marks(of: self.text)
        self.scriptsAllowed = scriptsAllowed
        read()
    }

    /// The MIME types a browser runs a `<script type>` as JavaScript (HTML: "JavaScript MIME
    /// type essence match").
    static let javaScriptTypes: Set<String> = [
        "application/ecmascript", "application/javascript", "application/x-ecmascript", "application/x-javascript", "text/ecmascript",
        "text/javascript", "text/javascript1.0", "text/javascript1.1", "text/javascript1.2", "text/javascript1.3", "text/javascript1.4",
        "text/javascript1.5", "text/jscript", "text/livescript", "text/x-ecmascript", "text/x-javascript",
    ]

    /// Elements whose content is text up to their end tag: never markup, whatever it looks like.
    static let rawText: Set<String> = ["style", "xmp", "iframe", "noembed", "noframes", "noscript", "textarea", "title", "script"]

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? { index + offset < text.count ? text[index + offset] : nil }

    private static func isSpace(_ c: Unicode.Scalar) -> Bool { c == " " || c == "\t" || c == "\n" || c == "\u{C}" || c == "\r" }
    private static func isLetter(_ c: Unicode.Scalar) -> Bool { ("a"..."z").contains(c) || ("A"..."Z").contains(c) }

    /// Whether `text` at `position` is `literal`, ASCII case ignored.
    private func matches(_ literal: String, at position: Int) -> Bool {
        var offset = position
        for scalar in literal.unicodeScalars {
            guard offset < text.count, Self.lowercase(text[offset]) == scalar else { return false }
            offset += 1
        }
        return true
    }

    private static func lowercase(_ c: Unicode.Scalar) -> Unicode.Scalar { ("A"..."Z").contains(c) ? Unicode.Scalar(c.value + 32)! : c }

    private func find(_ literal: String, from position: Int) -> Int? {
        var at = position
        while at < text.count {
            if matches(literal, at: at) { return at }
            at += 1
        }
        return nil
    }

    private mutating func problem(_ message: Message, at position: Int) {
        problems.append(JavaScriptLexer.Problem(mark: marks[min(position, marks.count - 1)], message: message))
    }

    // MARK: - Reading

    private mutating func read() {
        while index < text.count {
            guard text[index] == "<" else {
                index += 1
                continue
            }
            if matches("<!--", at: index) {
                if matches("<!-->", at: index) {
                    index += 5
                } else if matches("<!--->", at: index) {
                    index += 6
                } else {
                    let ends = [find("-->", from: index + 4).map { $0 + 3 }, find("--!>", from: index + 4).map { $0 + 4 }].compactMap { $0 }
                    index = ends.min() ?? text.count
                }
            } else if peek(1) == "!" || peek(1) == "?" {
                index = (find(">", from: index + 2) ?? text.count - 1) + 1
            } else if peek(1) == "/" {
                if let c = peek(2), Self.isLetter(c) {
                    index += 2
                    _ = readTag()
                } else if peek(2) == ">" {
                    index += 3
                } else if peek(2) == nil {
                    index += 2
                } else {
                    index = (find(">", from: index + 2) ?? text.count - 1) + 1
                }
            } else if let c = peek(1), Self.isLetter(c) {
                index += 1
                let tag = readTag()
                element(tag)
            } else {
                index += 1
            }
        }
    }

    struct Attribute {
        var name: String
        /// The value with character references as written, and where each character is.
        var raw: [Int]
    }

    struct Tag {
        var name: String
        var attributes: [Attribute]
        var start: Int
    }

    /// A tag from its name to after its `>` (HTML's tag and attribute states).
    private mutating func readTag() -> Tag {
        let start = index - 1
        var name = ""
        while let c = peek(), !Self.isSpace(c), c != "/", c != ">" {
            name.unicodeScalars.append(Self.lowercase(c))
            index += 1
        }
        var attributes: [Attribute] = []
        while let c = peek() {
            if Self.isSpace(c) || c == "/" {
                index += 1
                continue
            }
            if c == ">" {
                index += 1
                break
            }
            var attribute = Attribute(name: String(Self.lowercase(c)), raw: [])
            index += 1
            while let d = peek(), !Self.isSpace(d), d != "/", d != ">", d != "=" {
                attribute.name.unicodeScalars.append(Self.lowercase(d))
                index += 1
            }
            while let d = peek(), Self.isSpace(d) { index += 1 }
            if peek() == "=" {
                index += 1
                while let d = peek(), Self.isSpace(d) { index += 1 }
                if let quote = peek(), quote == "\"" || quote == "'" {
                    index += 1
                    while let d = peek(), d != quote {
                        attribute.raw.append(index)
                        index += 1
                    }
                    if peek() != nil { index += 1 }
                } else {
                    while let d = peek(), !Self.isSpace(d), d != ">" {
                        attribute.raw.append(index)
                        index += 1
                    }
                }
            }
            attributes.append(attribute)
        }
        return Tag(name: name, attributes: attributes, start: start)
    }

    /// What a start tag means for the scripts of the page.
    private mutating func element(_ tag: Tag) {
        for attribute in tag.attributes {
            let position = attribute.raw.first ?? tag.start
            if attribute.name.hasPrefix("on") {
                guard scriptsAllowed else {
                    problem(
                        Message(
                            "an event-handler attribute (\(attribute.name)) in a file whose scripts the check does not read; put the code in a .js file",
                            ko: "검사기가 스크립트를 읽지 않는 파일에 이벤트 핸들러 속성(\(attribute.name))이 있습니다; 코드는 .js 파일에 두세요"), at: position)
                    continue
                }
                if let script = decoded(attribute, strict: true) { scripts.append(script) }
            }
            let value = decoded(attribute, strict: false).map { String(String.UnicodeScalarView($0.source)) } ?? ""
            let compact = String(String.UnicodeScalarView(value.unicodeScalars.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" })).lowercased()
            if compact.contains("javascript:") {
                problem(
                    Message(
                        "a javascript: URL (\(attribute.name)) runs code the check does not read; put the code in a .js file",
                        ko: "javascript: URL(\(attribute.name))은 검사기가 읽지 않는 코드를 실행합니다; 코드는 .js 파일에 두세요"), at: position)
            }
            if attribute.name == "srcdoc" {
                problem(
                    Message("an srcdoc document's scripts are not checked; give the frame a page of the web build as its src", ko: "srcdoc 문서의 스크립트는 검사되지 않습니다; 프레임의 src에 웹 빌드의 페이지를 지정하세요"),
                    at: position)
            }
        }
        // An XML file's elements all hold markup: a script there is refused, and read past.
        guard scriptsAllowed else {
            if tag.name == "script" {
                problem(Message("a <script> in a file whose scripts the check does not read; put the code in a .js file", ko: "검사기가 스크립트를 읽지 않는 파일에 <script>가 있습니다; 코드는 .js 파일에 두세요"), at: tag.start)
            }
            return
        }
        switch tag.name {
        case "svg", "math":
            problem(
                Message(
                    "inline <\(tag.name)> is parsed by other rules, which can hide scripts from the check; use it as an image file (<img src>)",
                    ko: "인라인 <\(tag.name)> 요소는 다른 규칙으로 파싱되어 검사기에게서 스크립트를 숨길 수 있습니다; 이미지 파일로 쓰세요 (<img src>)"), at: tag.start)
        case "script":
            scriptElement(tag)
        case "plaintext":
            index = text.count
        case let name where Self.rawText.contains(name):
            index = endTag(name) ?? text.count
        default: break
        }
    }

    /// Where the end tag `</name` of a raw text element starts (or nil: it runs to the end).
    private func endTag(_ name: String) -> Int? {
        var at = index
        while let found = find("</" + name, from: at) {
            let after = found + 2 + name.unicodeScalars.count
            if after >= text.count || Self.isSpace(text[after]) || text[after] == "/" || text[after] == ">" { return found }
            at = found + 1
        }
        return nil
    }

    private mutating func scriptElement(_ tag: Tag) {
        let contentStart = index
        let contentEnd = endTag("script") ?? text.count
        index = contentEnd
        func value(_ name: String) -> String? {
            tag.attributes.first { $0.name == name }.flatMap { decoded($0, strict: false) }.map { String(String.UnicodeScalarView($0.source)) }
        }
        var type = value("type")
        if type == nil, let language = value("language"), !language.isEmpty { type = "text/" + language }
        let essence = (type ?? "").trimmingCharacters(in: " \t\n\r\u{C}").lowercased()
        guard essence.isEmpty || essence == "module" || Self.javaScriptTypes.contains(essence) else { return }
        if let attribute = tag.attributes.first(where: { $0.name == "src" }), let decoded = decoded(attribute, strict: false) {
            sources.append(Source(value: String(String.UnicodeScalarView(decoded.source)), mark: marks[attribute.raw.first ?? tag.start]))
        }
        if find("<!--", from: contentStart).map({ $0 < contentEnd }) == true {
            problem(
                Message(
                    "an inline script holding '<!--' (where such a script ends depends on what follows it); move it to a .js file",
                    ko: "'<!--' 기호가 든 인라인 스크립트가 있습니다 (끝나는 위치가 뒤에 오는 내용에 따라 달라집니다); 코드를 .js 파일로 옮기세요"), at: contentStart)
            return
        }
        scripts.append(Script(source: Array(text[contentStart..<contentEnd]), marks: Array(marks[contentStart...contentEnd])))
    }

    // MARK: - Character references

    /// The named references decoded in a handler; any other is refused there.
    static let named: [String: Unicode.Scalar] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'", "nbsp": "\u{A0}", "colon": ":", "Tab": "\t", "NewLine": "\n",
        "lpar": "(", "rpar": ")", "period": ".", "comma": ",", "semi": ";", "equals": "=", "lsqb": "[", "rsqb": "]", "lcub": "{",
        "rcub": "}", "grave": "`", "bsol": "\\", "sol": "/", "excl": "!", "plus": "+", "ast": "*",
    ]
    /// Named references a browser decodes without the `;`.
    static let legacy: Set<String> = ["amp", "lt", "gt", "quot", "nbsp"]

    /// An attribute's value with its character references decoded, each character at the place
    /// its reference starts. `strict`: a reference this table does not hold is a problem (nil).
    private mutating func decoded(_ attribute: Attribute, strict: Bool) -> Script? {
        var source: [Unicode.Scalar] = []
        var places: [SourceMark] = []
        var at = 0
        let raw = attribute.raw
        func char(_ offset: Int) -> Unicode.Scalar? { at + offset < raw.count ? text[raw[at + offset]] : nil }
        while at < raw.count {
            let c = text[raw[at]]
            let mark = marks[raw[at]]
            guard c == "&", let next = char(1) else {
                source.append(c)
                places.append(mark)
                at += 1
                continue
            }
            if next == "#" {
                var value: UInt32 = 0
                var length = 2
                let hex = char(2) == "x" || char(2) == "X"
                if hex { length += 1 }
                let first = length
                while let d = char(length), let digit = hex ? JavaScriptLexer.hexValue(d) : (("0"..."9").contains(d) ? d.value - 48 : nil) {
                    value = min(value * (hex ? 16 : 10) + digit, 0x110000)
                    length += 1
                }
                guard length > first else {
                    source.append(c)
                    places.append(mark)
                    at += 1
                    continue
                }
                if char(length) == ";" { length += 1 }
                source.append(Unicode.Scalar(value).flatMap { $0.value == 0 ? nil : $0 } ?? "\u{FFFD}")
                places.append(mark)
                at += length
                continue
            }
            guard Self.isLetter(next) || ("0"..."9").contains(next) else {
                source.append(c)
                places.append(mark)
                at += 1
                continue
            }
            var name = ""
            var length = 1
            while let d = char(length), Self.isLetter(d) || ("0"..."9").contains(d) {
                name.unicodeScalars.append(d)
                length += 1
            }
            let semicolon = char(length) == ";"
            if let scalar = Self.named[name], semicolon || (Self.legacy.contains(name) && char(length) != "=") {
                source.append(scalar)
                places.append(mark)
                at += length + (semicolon ? 1 : 0)
                continue
            }
            if strict {
                problem(
                    Message(
                        "a character reference the check does not decode (&\(name)\(semicolon ? ";" : "")) in the \(attribute.name) handler; write the character itself",
                        ko: "\(attribute.name) 핸들러 안에 검사기가 해석하지 않는 문자 참조(&\(name)\(semicolon ? ";" : ""))가 있습니다; 문자를 그대로 쓰세요"), at: raw[at])
                return nil
            }
            source.append(c)
            places.append(mark)
            at += 1
        }
        places.append(raw.last.map { marks[$0 + 1] } ?? marks[0])
        return Script(source: source, marks: places)
    }
}
