import RatecardSupport

/// A YAML node copied out of libyaml, with the position of its first character.
///
/// libyaml resolves no types: every scalar is text plus whether it was written plain
/// (unquoted). Typing is the content model's policy (`YAMLValue`).
public struct YAMLNode: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case scalar(String, plain: Bool)
        case mapping([Pair])
        case sequence([YAMLNode])
    }

    public struct Pair: Sendable, Equatable {
        public var key: YAMLNode
        public var value: YAMLNode
    }

    public var kind: Kind
    public var mark: SourceMark

    public init(kind: Kind, mark: SourceMark) {
        self.kind = kind
        self.mark = mark
    }

    /// The scalar text, if this is a scalar.
    public var scalarText: String? {
        if case .scalar(let text, _) = kind { return text }
        return nil
    }

    /// A plain `~`, `null` or empty scalar: an absent value (`kindName` says "null").
    public var isNull: Bool {
        if case .scalar(let text, true) = kind { return text.isEmpty || text == "~" || text == "null" }
        return false
    }

    /// What a content editor would call this kind of node.
    public var kindName: String {
        switch kind {
        case .scalar(let text, let plain):
            if plain && (text.isEmpty || text == "~" || text == "null") { return "null" }
            return "scalar"
        case .mapping: return "mapping"
        case .sequence: return "list"
        }
    }

    /// `kindName` in Korean.
    public var kindNameKorean: String {
        switch kindName {
        case "null": return "빈 값(null)"
        case "scalar": return "단일 값"
        case "mapping": return "매핑"
        default: return "목록"
        }
    }
}
