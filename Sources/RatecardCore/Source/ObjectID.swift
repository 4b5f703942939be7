/// A git object id as 40 lowercase hex characters.
public struct ObjectID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var hex: String

    public init(hex: String) { self.hex = hex }

    public var description: String { hex }
    public var short: String { String(hex.prefix(7)) }

    public static func < (lhs: ObjectID, rhs: ObjectID) -> Bool { lhs.hex < rhs.hex }
}
