import Glibc

extension UnsafeBufferPointer<UInt8> {
    /// Whether the bytes hold a CR, found with `memchr` (the byte paths of `FrontMatter` and
    /// `StaticPages` apply only to text without one).
    var containsCR: Bool {
        guard let base = baseAddress, count > 0 else { return false }
        return memchr(base, 0x0D, count) != nil
    }
}
