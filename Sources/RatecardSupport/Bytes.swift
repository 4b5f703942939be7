import Glibc

/// Byte-string search, and numbers written as bytes.
package enum Bytes {
    /// Appends the decimal digits of `number` (a leading `-` when negative), without making a
    /// String of it: for files of thousands of numbers written on every publish.
    package static func appendDecimal(_ number: Int, to out: inout [UInt8]) {
        if number < 0 { out.append(UInt8(ascii: "-")) }
        var rest = number.magnitude
        guard rest > 0 else {
            out.append(UInt8(ascii: "0"))
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { buffer in
            var start = buffer.count
            while rest > 0 {
                start -= 1
                buffer[start] = UInt8(truncatingIfNeeded: rest % 10) + UInt8(ascii: "0")
                rest /= 10
            }
            out.append(contentsOf: buffer[start...])
        }
    }

    /// The first index at or after `start` where `pattern` occurs in `bytes`.
    package static func find(_ pattern: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard !pattern.isEmpty, start <= bytes.count else { return nil }
        return bytes.withUnsafeBytes { haystack in
            pattern.withUnsafeBytes { needle in
                guard let base = haystack.baseAddress, let first = needle.first else { return nil }
                var position = start
                // memchr to each candidate first byte, memcmp for the rest.
                while haystack.count - position >= needle.count,
                    let hit = memchr(base + position, Int32(first), haystack.count - position - needle.count + 1)
                {
                    let index = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(base + index, needle.baseAddress!, needle.count) == 0 { return index }
                    position = index + 1
                }
                return nil
            }
        }
    }
}

extension String {
    /// Whether `needle` occurs in the text, compared byte for byte in UTF-8. Foundation's
    /// `contains` folds character clusters through CFString, many times slower on the long
    /// Korean texts the rules scan; byte equality is what they need (their patterns are NFC, as
    /// the content is read).
    public func containsBytes(_ needle: String) -> Bool {
        var haystack = self
        var needle = needle
        return haystack.withUTF8 { text in
            needle.withUTF8 { part in
                guard let first = part.first, let base = text.baseAddress else { return part.isEmpty }
                // memchr to each candidate first byte, memcmp for the rest.
                var position = 0
                while text.count - position >= part.count, let hit = memchr(base + position, Int32(first), text.count - position - part.count + 1) {
                    let index = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
                    if memcmp(base + index, part.baseAddress!, part.count) == 0 { return true }
                    position = index + 1
                }
                return false
            }
        }
    }
}
