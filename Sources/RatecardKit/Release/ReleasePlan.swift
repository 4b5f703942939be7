/// What a publish would change against the live release, file by file.
public struct ReleasePlan: Sendable, Equatable {
    public var added: [String]
    public var changed: [String]
    public var removed: [String]
    public var unchanged: Int

    public static func between(live: [BundleManifest.File], next: [BundleManifest.File]) -> ReleasePlan {
        let old = Dictionary(live.map { ($0.path, $0.sha256) }, uniquingKeysWith: { first, _ in first })
        let new = Dictionary(next.map { ($0.path, $0.sha256) }, uniquingKeysWith: { first, _ in first })
        return ReleasePlan(
            added: new.keys.filter { old[$0] == nil }.sorted(),
            changed: new.keys.filter { old[$0] != nil && old[$0] != new[$0] }.sorted(),
            removed: old.keys.filter { new[$0] == nil }.sorted(),
            unchanged: new.keys.filter { old[$0] == new[$0] }.count)
    }

    /// The counts, for `--format json` summaries.
    public var counts: JSON {
        .object(["added": .int(added.count), "changed": .int(changed.count), "removed": .int(removed.count), "unchanged": .int(unchanged)])
    }

    public var summary: String {
        "\(added.count) added, \(changed.count) changed, \(removed.count) removed, \(unchanged) unchanged"
    }
}
