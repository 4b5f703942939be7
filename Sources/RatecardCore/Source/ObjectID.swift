/// A git object id: 40 lowercase hex characters (64 in a SHA-256 repository).
public struct ObjectID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var hex: String

    public init(hex: String) { self.hex = hex }

    /// An id read from a file we did not just get from git (a release's `source_commit`, a
    /// journal line): nil unless it is 40 or 64 lowercase hex characters.
    public init?(validating text: String) {
        guard text.utf8.count == 40 || text.utf8.count == 64,
            text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { return nil }
        hex = text
    }

    public var description: String { hex }
    public var short: String { String(hex.prefix(7)) }

    public static func < (lhs: ObjectID, rhs: ObjectID) -> Bool { lhs.hex < rhs.hex }
}
