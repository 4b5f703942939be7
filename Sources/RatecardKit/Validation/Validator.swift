/// Runs every rule over a content snapshot (and, given the snapshot before it, the history rules).
public struct Validator: Sendable {
    public var context: ValidationContext

    public init(context: ValidationContext) { self.context = context }

    /// Every problem in `content`, sorted by path and position.
    public func check(_ content: Content, base: Content? = nil) -> [Diagnostic] {
        let diagnostics = Diagnostics()
        diagnostics.append(contentsOf: content.fileDiagnostics)
        SchemaRules.check(content, into: diagnostics)
        ReferenceRules.check(content, context, into: diagnostics)
        CapRules.check(content, context, into: diagnostics)
        RangeRules.check(content, into: diagnostics)
        BandRules.check(content, into: diagnostics)
        DateRules.check(content, into: diagnostics)
        DisclosureRules.check(content, context, into: diagnostics)
        if let base { HistoryRules.check(content, base: base, into: diagnostics) }
        return Array(Set(diagnostics.items)).sorted()
    }
}
