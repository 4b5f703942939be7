import RatecardSupport

/// Runs every rule over a content snapshot (and, given the snapshot before it, the history rules).
public struct Validator: Sendable {
    public var context: ValidationContext

    public init(context: ValidationContext) { self.context = context }

    /// Every problem in `content`, sorted by path and position.
    public func check(_ content: Content, base: Content? = nil) -> [Diagnostic] {
        // The rule groups only read the content, and the result is a sorted set: on a large
        // content they run on two threads, each taking the next group when it is done with
        // one. Largest first (their time on the generated bench content, 11,600 files: the
        // statistics 117 ms, the disclosures 88, the products' disclosures 53, history 33, the
        // caps 22, dates 20, references 17, the rest under 10), so the last to finish is short.
        let context = self.context
        let large = content.rateTables.count + content.terms.count >= 1000
        var groups: [@Sendable (Diagnostics) -> Void] = [
            { StatisticRules.check(content, context, into: $0) },
            { DisclosureRules.check(content, context, into: $0) },
            { ProductDisclosureRules.check(content, context, into: $0) },
        ]
        if let base { groups.append { HistoryRules.check(content, base: base, context: context, into: $0) } }
        groups += [
            { CapRules.check(content, context, into: $0) },
            { DateRules.check(content, into: $0) },
            { ReferenceRules.check(content, context, into: $0) },
            { RangeRules.check(content, into: $0) },
            { SchemaRules.check(content, into: $0) },
            { BandRules.check(content, into: $0) },
            { AssetRules.check(content, into: $0) },
            { $0.append(contentsOf: content.fileDiagnostics) },
        ]
        let found = ParallelMap.map(groups, threshold: large ? 2 : groups.count + 1) { group -> [Diagnostic] in
            let diagnostics = Diagnostics()
            group(diagnostics)
            return diagnostics.items
        }
        return Array(Set(found.joined())).sorted()
    }
}
