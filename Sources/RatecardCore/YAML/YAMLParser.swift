internal import CYAML
import RatecardSupport

/// Strict YAML reading through libyaml's event parser.
///
/// Anchors, aliases and tags are rejected at the event that carries them, so an alias bomb
/// is refused before anything is expanded; duplicate keys are rejected when their mapping
/// ends. Input must already be valid UTF-8 (see `SourceText`). Marks are converted from
/// libyaml's 0-based character counts to 1-based `SourceMark`s.
public enum YAMLParser {
    /// The deepest nesting of mappings and sequences a content file may have (YML-08). Content
    /// needs five levels; a file nested thousands deep is an attack (a tree that deep overflows
    /// the stack when it is walked or freed), refused at the event that goes one level too deep.
    public static let maxDepth = 32

    /// Parses one YAML document. Returns nil for an empty stream.
    ///
    /// - Parameter lineOffset: added to every line (front matter sits below its fence).
    public static func parse(_ bytes: [UInt8], lineOffset: Int = 0) throws(YAMLError) -> YAMLNode? {
        // libyaml keeps a pointer to the input for the whole parse: it reads the array's own
        // storage, pinned for the call (an empty input still needs a valid pointer).
        let result = bytes.withUnsafeBufferPointer { input -> Result<YAMLNode?, YAMLError> in
            guard let base = input.baseAddress else {
                var empty: UInt8 = 0
                return Result { () throws(YAMLError) in try parse(&empty, count: 0, lineOffset: lineOffset) }
            }
            return Result { () throws(YAMLError) in try parse(base, count: input.count, lineOffset: lineOffset) }
        }
        return try result.get()
    }

    private static func parse(_ input: UnsafePointer<UInt8>, count: Int, lineOffset: Int) throws(YAMLError) -> YAMLNode? {
        let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
        defer { parser.deallocate() }
        guard yaml_parser_initialize(parser) == 1 else {
            throw YAMLError(rule: "YML-01", mark: .start, message: Message("the YAML parser could not be initialised", ko: "YAML 파서를 준비하지 못했습니다"))
        }
        defer { yaml_parser_delete(parser) }
        yaml_parser_set_input_string(parser, input, count)
        yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)

        var builder = TreeBuilder(lineOffset: lineOffset)
        var event = yaml_event_t()
        while true {
            guard yaml_parser_parse(parser, &event) == 1 else {
                throw builder.syntaxError(parser.pointee)
            }
            defer { yaml_event_delete(&event) }
            if event.type == YAML_STREAM_END_EVENT { break }
            try builder.consume(event)
        }
        return builder.root
    }
}

// MARK: - Tree building

private struct TreeBuilder {
    /// An open mapping or sequence. Frames are mutated in place on the stack: taking one off
    /// to append and pushing it back copied its whole list on every append (quadratic).
    struct Frame {
        enum Kind {
            case mapping
            case sequence
        }

        var kind: Kind
        var mark: SourceMark
        var pairs: [YAMLNode.Pair] = []
        var items: [YAMLNode] = []
        var pendingKey: YAMLNode?
    }

    let lineOffset: Int
    var stack: [Frame] = []
    var root: YAMLNode?
    var documents = 0

    init(lineOffset: Int) { self.lineOffset = lineOffset }

    func mark(_ raw: yaml_mark_t) -> SourceMark {
        SourceMark(line: Int(raw.line) + 1 + lineOffset, column: Int(raw.column) + 1)
    }

    func syntaxError(_ parser: yaml_parser_t) -> YAMLError {
        let problem = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
        let context = parser.context.map { String(cString: $0) }
        let english = context.map { "\(problem) \($0)" } ?? problem
        let korean = [context.map(LibYAMLText.korean), LibYAMLText.korean(problem)].compactMap { $0 }.joined(separator: ", ")
        return YAMLError(rule: "YML-01", mark: mark(parser.problem_mark), message: Message("YAML syntax error: \(english)", ko: "YAML 문법 오류: \(korean)"))
    }

    mutating func consume(_ event: yaml_event_t) throws(YAMLError) {
        let at = mark(event.start_mark)
        switch event.type {
        case YAML_DOCUMENT_START_EVENT:
            documents += 1
            if documents > 1 {
                throw YAMLError(
                    rule: "YML-01", mark: at,
                    message: Message("a file holds exactly one YAML document; remove the extra '---'", ko: "파일 하나에는 YAML 문서가 하나만 있어야 합니다; 덧붙은 '---' 줄을 지우세요"))
            }
            if event.data.document_start.tag_directives.start != nil {
                throw YAMLError(rule: "YML-04", mark: at, message: Message("%TAG directives are not allowed; write plain values", ko: "%TAG 지시자는 쓸 수 없습니다; 값을 그대로 쓰세요"))
            }
        case YAML_ALIAS_EVENT:
            throw YAMLError(rule: "YML-03", mark: at, message: Message("aliases (*name) are not allowed; write the value out in full", ko: "별칭(*name)은 쓸 수 없습니다; 값을 빠짐없이 직접 쓰세요"))
        case YAML_SCALAR_EVENT:
            let scalar = event.data.scalar
            try check(anchor: scalar.anchor, tag: scalar.tag, at: at)
            let text = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
            let plain = scalar.style == YAML_PLAIN_SCALAR_STYLE
            try add(YAMLNode(kind: .scalar(text, plain: plain), mark: at))
        case YAML_SEQUENCE_START_EVENT:
            try check(anchor: event.data.sequence_start.anchor, tag: event.data.sequence_start.tag, at: at)
            try checkDepth(at: at)
            stack.append(Frame(kind: .sequence, mark: at))
        case YAML_MAPPING_START_EVENT:
            try check(anchor: event.data.mapping_start.anchor, tag: event.data.mapping_start.tag, at: at)
            try checkDepth(at: at)
            stack.append(Frame(kind: .mapping, mark: at))
        case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            guard let frame = stack.popLast() else { return }
            switch frame.kind {
            case .sequence:
                try add(YAMLNode(kind: .sequence(frame.items), mark: frame.mark))
            case .mapping:
                try add(YAMLNode(kind: .mapping(frame.pairs), mark: frame.mark))
            }
        default:
            break
        }
    }

    func checkDepth(at: SourceMark) throws(YAMLError) {
        if stack.count >= YAMLParser.maxDepth {
            throw YAMLError(
                rule: "YML-08", mark: at,
                message: Message(
                    "nesting deeper than \(YAMLParser.maxDepth) levels of mappings and sequences; content never needs that, flatten it",
                    ko: "매핑과 목록이 \(YAMLParser.maxDepth)단계보다 깊게 중첩되어 있습니다; 콘텐츠에는 그렇게 깊은 구조가 필요 없으니 평평하게 펴세요"))
        }
    }

    func check(anchor: UnsafeMutablePointer<yaml_char_t>?, tag: UnsafeMutablePointer<yaml_char_t>?, at: SourceMark) throws(YAMLError) {
        if let anchor {
            let name = String(cString: anchor)
            throw YAMLError(
                rule: "YML-03", mark: at, message: Message("anchors (&\(name)) are not allowed; write each value out in full", ko: "앵커(&\(name))는 쓸 수 없습니다; 값마다 빠짐없이 직접 쓰세요"))
        }
        if let tag {
            let name = String(cString: tag)
            throw YAMLError(rule: "YML-04", mark: at, message: Message("tags (\(name)) are not allowed; write a plain value", ko: "태그(\(name))는 쓸 수 없습니다; 값을 그대로 쓰세요"))
        }
    }

    mutating func add(_ node: YAMLNode) throws(YAMLError) {
        guard !stack.isEmpty else {
            root = node
            return
        }
        let top = stack.count - 1
        switch stack[top].kind {
        case .sequence:
            stack[top].items.append(node)
        case .mapping:
            if let key = stack[top].pendingKey {
                stack[top].pairs.append(YAMLNode.Pair(key: key, value: node))
                stack[top].pendingKey = nil
            } else {
                guard case .scalar(let name, _) = node.kind else {
                    throw YAMLError(
                        rule: "YML-01", mark: node.mark,
                        message: Message("mapping keys must be plain text, not a \(node.kindName)", ko: "매핑의 키는 일반 텍스트여야 합니다 (지금은 \(node.kindNameKorean))"))
                }
                if let first = stack[top].pairs.first(where: { $0.key.scalarText == name }) {
                    throw YAMLError(
                        rule: "YML-02", mark: node.mark,
                        message: Message(
                            "duplicate key '\(name)' (first defined at line \(first.key.mark.line)); keep one",
                            ko: "키 '\(name)'이(가) 두 번 나옵니다 (처음 나온 곳: \(first.key.mark.line)번째 줄); 하나만 남기세요"))
                }
                stack[top].pendingKey = node
            }
        }
    }
}
