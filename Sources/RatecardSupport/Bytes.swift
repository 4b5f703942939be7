import Glibc

/// Byte-string search.
package enum Bytes {
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
