import RatecardSupport

/// A value read from a content file, with where it was written.
public struct Located<Value: Sendable>: Sendable {
    public var value: Value
    public var mark: SourceMark

    public init(_ value: Value, at mark: SourceMark) {
        self.value = value
        self.mark = mark
    }
}

extension Located: Equatable where Value: Equatable {}
extension Located: Hashable where Value: Hashable {}
