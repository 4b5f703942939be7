import RatecardSupport

/// Runs every rule over a content snapshot (and, given the snapshot before it, the history rules).
public struct Validator: Sendable {
    public var context: ValidationContext

    public init(context: ValidationContext) { self.context = context }

    /// Every problem in `content`, sorted by path and position.
    public func check(_ content: Content, base: Content? = nil) -> [Diagnostic] {
        // The rule groups only read the content, and the result is a sorted set: on a large
        // content the two halves run on two threads. The halves are about equal work on the
        // generated bench content (perf samples per rule group; the disclosure and statistic
        // checks, which read every terms body, are the largest and sit in different halves).
        let context = self.context
        let large = content.rateTables.count + content.terms.count >= 1000
        let halves = ParallelMap.map([0, 1], threshold: large ? 2 : 3) { half -> [Diagnostic] in
            let diagnostics = Diagnostics()
            if half == 0 {
                diagnostics.append(contentsOf: content.fileDiagnostics)
                SchemaRules.check(content, into: diagnostics)
                ReferenceRules.check(content, context, into: diagnostics)
                AssetRules.check(content, into: diagnostics)
                CapRules.check(content, context, into: diagnostics)
                RangeRules.check(content, into: diagnostics)
                BandRules.check(content, into: diagnostics)
                StatisticRules.check(content, context, into: diagnostics)
                if let base { HistoryRules.check(content, base: base, context: context, into: diagnostics) }
            } else {
                DateRules.check(content, into: diagnostics)
                DisclosureRules.check(content, context, into: diagnostics)
                ProductDisclosureRules.check(content, context, into: diagnostics)
            }
            return diagnostics.items
        }
        return Array(Set(halves.joined())).sorted()
    }
}
