/// A rate or spread as exact thousandths (12.345 -> 12345), so comparisons never round.
public struct Percent: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var thousandths: Int

    public init(thousandths: Int) { self.thousandths = thousandths }

    /// Parses a decimal like `12`, `12.5` or `12.345`; returns the value and its number of decimals.
    ///
    /// More than 3 decimals are kept out of the value (truncated) but counted, so RNG-04 can report them.
    public static func parse(_ text: String) -> (value: Percent, decimals: Int)? {
        if let parsed = parseASCII(text) { return parsed }
        var body = Substring(text)
        var negative = false
        if body.first == "-" {
            negative = true
            body = body.dropFirst()
        } else if body.first == "+" {
            body = body.dropFirst()
        }
        let parts = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.allSatisfy({ $0.isASCII && $0.isNumber }),
            whole.count <= 9
        else { return nil }
        var fraction = Substring("")
        if parts.count == 2 {
            fraction = parts[1]
            guard !fraction.isEmpty, fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        }
        var thousandths = Int(whole)! * 1000
        let digits = Array(fraction.prefix(3)) + Array(repeating: "0", count: max(0, 3 - fraction.count))
        thousandths += Int(String(digits))!
        return (Percent(thousandths: negative ? -thousandths : thousandths), fraction.count)
    }

    /// `parse` over the bytes of an ASCII text (each Character one byte): nil when the text is not
    /// ASCII, `.some(nil)` when it is not a decimal. Reads the String's own UTF-8 buffer: every
    /// plain scalar of every rate table and product is tried as a number.
    private static func parseASCII(_ text: String) -> (value: Percent, decimals: Int)?? {
        var text = text
        return text.withUTF8(parseASCII)
    }

    private static func parseASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> (value: Percent, decimals: Int)?? {
        guard !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
        var index = 0
        var negative = false
        if index < bytes.count && bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        } else if index < bytes.count && bytes[index] == UInt8(ascii: "+") {
            index += 1
        }
        func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        var whole = 0
        var wholeDigits = 0
        while index < bytes.count && bytes[index] != UInt8(ascii: ".") {
            guard isDigit(bytes[index]), wholeDigits < 9 else { return .some(nil) }
            whole = whole * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            wholeDigits += 1
            index += 1
        }
        guard wholeDigits > 0 else { return .some(nil) }
        var thousandths = whole * 1000
        var decimals = 0
        if index < bytes.count {
            // A dot: at least one digit after it, and nothing but digits.
            index += 1
            guard index < bytes.count else { return .some(nil) }
            var scale = 100
            while index < bytes.count {
                guard isDigit(bytes[index]) else { return .some(nil) }
                if decimals < 3 {
                    thousandths += Int(bytes[index] - UInt8(ascii: "0")) * scale
                    scale /= 10
                }
                decimals += 1
                index += 1
            }
        }
        return .some((Percent(thousandths: negative ? -thousandths : thousandths), decimals))
    }

    /// Fixed formatting: the shortest of 1-3 decimals that shows the exact value (`20.0`, `12.45`, `7.125`).
    public var description: String {
        let sign = thousandths < 0 ? "-" : ""
        let magnitude = abs(thousandths)
        var fraction = String(magnitude % 1000)
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        while fraction.count > 1 && fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(sign)\(magnitude / 1000).\(fraction)"
    }

    /// As rates are shown to people: two decimals (`연 12.40%`), or three when the third is set
    /// (`5.125`), so a rate is never misstated by rounding.
    public var displayed: String {
        let text = description
        let decimals = text.split(separator: ".").last.map(\.count) ?? 0
        return decimals >= 2 ? text : text + String(repeating: "0", count: 2 - decimals)
    }

    public static func < (lhs: Percent, rhs: Percent) -> Bool { lhs.thousandths < rhs.thousandths }
    public static func - (lhs: Percent, rhs: Percent) -> Percent { Percent(thousandths: lhs.thousandths - rhs.thousandths) }
    public static func + (lhs: Percent, rhs: Percent) -> Percent { Percent(thousandths: lhs.thousandths + rhs.thousandths) }
    public static let zero = Percent(thousandths: 0)
}
