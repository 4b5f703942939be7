/// A JSON value with a deterministic writer: sorted keys, fixed number forms, minimal escaping.
public indirect enum JSON: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    /// A decimal written exactly as given (rates: `12.45`).
    case number(String)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    /// Compact or two-space indented text, keys sorted, ending without a newline.
    public func serialized(pretty: Bool = true) -> String {
        var out = ""
        write(into: &out, indent: pretty ? 0 : nil)
        return out
    }

    /// Pretty text as it reads nested `level` deep in a larger document (its first line
    /// unindented, every following line indented as there): how an element of a list is
    /// spliced into a document that was written whole.
    func serialized(nestedAt level: Int) -> String {
        var out = ""
        write(into: &out, indent: level)
        return out
    }

    private func write(into out: inout String, indent: Int?) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .number(let text): out += text
        case .string(let text): JSON.escape(text, into: &out)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                JSON.newline(&out, indent.map { $0 + 1 })
                item.write(into: &out, indent: indent.map { $0 + 1 })
            }
            JSON.newline(&out, indent)
            out += "]"
        case .object(let fields):
            if fields.isEmpty { out += "{}"; return }
            out += "{"
            for (index, key) in fields.keys.sorted().enumerated() {
                if index > 0 { out += "," }
                JSON.newline(&out, indent.map { $0 + 1 })
                JSON.escape(key, into: &out)
                out += indent == nil ? ":" : ": "
                fields[key]!.write(into: &out, indent: indent.map { $0 + 1 })
            }
            JSON.newline(&out, indent)
            out += "}"
        }
    }

    private static func newline(_ out: inout String, _ indent: Int?) {
        guard let indent else { return }
        out += "\n" + String(repeating: "  ", count: indent)
    }

    /// Escapes for JSON; `<`, `>` and `&` too, so JSON placed inside HTML can never close a tag.
    static func escape(_ text: String, into out: inout String) {
        out += "\""
        if !needsEscaping(text) {
            // Most strings (Korean text, ids, dates) have nothing to escape: append them whole.
            out += text
            out += "\""
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "<": out += "\\u003c"
            case ">": out += "\\u003e"
            case "&": out += "\\u0026"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }

    /// Whether `escape` would change anything: a control character, `"`, `\\`, `<`, `>`, `&`,
    /// U+2028 or U+2029 (E2 80 A8 / E2 80 A9 in UTF-8).
    private static func needsEscaping(_ text: String) -> Bool {
        var last: UInt8 = 0
        var beforeLast: UInt8 = 0
        for byte in text.utf8 {
            switch byte {
            case 0x00..<0x20, 0x22, 0x5C, 0x3C, 0x3E, 0x26: return true
            case 0xA8 where beforeLast == 0xE2 && last == 0x80, 0xA9 where beforeLast == 0xE2 && last == 0x80: return true
            default: break
            }
            beforeLast = last
            last = byte
        }
        return false
    }
}
