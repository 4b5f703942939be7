/// YAML written by ratecard for a person to paste (a sign-off line a message suggests): every
/// value quoted so that it reads back as exactly the same text.
public enum YAMLText {
    /// `text` as a YAML double-quoted scalar: `"` and `\` escaped, and every control character
    /// (a line break included) written as an escape, so the scalar is one line.
    public static func doubleQuoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029 || scalar.value == 0xFEFF:
                out += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16).uppercased()
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A one-line flow mapping, `{key: "value", ...}`, with each value double-quoted unless it is
    /// given as `plain` (a date placeholder the editor must replace).
    public static func flowMapping(_ fields: [(key: String, value: String, plain: Bool)]) -> String {
        "{" + fields.map { "\($0.key): \($0.plain ? $0.value : doubleQuoted($0.value))" }.joined(separator: ", ") + "}"
    }
}
