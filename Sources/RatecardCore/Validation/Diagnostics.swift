import RatecardSupport

/// Collects problems while content is checked; validation reports them all at the end.
///
/// A reference type so that every reader and rule can add to one list. Not thread-safe.
public final class Diagnostics {
    public private(set) var items: [Diagnostic] = []

    public init() {}

    /// Records a problem in `path` (repository-relative) at `mark`.
    public func report(_ rule: Rule, _ path: String, _ mark: SourceMark, _ message: Message) {
        items.append(Diagnostic(path: path, mark: mark, rule: rule, message: message))
    }

    public func append(contentsOf other: [Diagnostic]) {
        items.append(contentsOf: other)
    }

    public var hasErrors: Bool { items.contains { $0.severity == .error } }
}
