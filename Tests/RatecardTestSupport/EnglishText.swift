import RatecardKit
import Testing

extension OperationalError {
    /// A test's own failure (a fixture that could not be made), in English only.
    public init(_ english: String) { self.init(.verbatim(english)) }
}

/// Runs `body`, which must throw an `E` whose English text (its description) is `english`.
public func expectThrows<E: Error & CustomStringConvertible, R>(
    _ type: E.Type, _ english: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> R
) {
    let error = #expect(throws: E.self, sourceLocation: sourceLocation) { _ = try body() }
    #expect(error?.description == english, "\(String(describing: error))", sourceLocation: sourceLocation)
}
