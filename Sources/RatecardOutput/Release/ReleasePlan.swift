import RatecardSupport

/// What a publish would change against the live release, file by file.
public struct ReleasePlan: Sendable, Equatable {
    public var added: [String]
    public var changed: [String]
    public var removed: [String]
    public var unchanged: Int

    public static func between(live: [BundleManifest.File], next: [BundleManifest.File]) -> ReleasePlan {
        if let merged = merging(live, next) { return merged }
        let old = Dictionary(live.map { ($0.path, $0.sha256) }, uniquingKeysWith: { first, _ in first })
        let new = Dictionary(next.map { ($0.path, $0.sha256) }, uniquingKeysWith: { first, _ in first })
        return ReleasePlan(
            added: new.keys.filter { old[$0] == nil }.sorted(),
            changed: new.keys.filter { old[$0] != nil && old[$0] != new[$0] }.sorted(),
            removed: old.keys.filter { new[$0] == nil }.sorted(),
            unchanged: new.keys.filter { old[$0] == new[$0] }.count)
    }

    /// The plan in one pass over two lists sorted by path with no path twice (as manifests and
    /// version.json list files); nil when they are not.
    static func merging(_ live: [BundleManifest.File], _ next: [BundleManifest.File]) -> ReleasePlan? {
        var plan = ReleasePlan(added: [], changed: [], removed: [], unchanged: 0)
        var (i, j) = (0, 0)
        while i < live.count || j < next.count {
            if i > 0, i < live.count, !(live[i - 1].path < live[i].path) { return nil }
            if j > 0, j < next.count, !(next[j - 1].path < next[j].path) { return nil }
            if j == next.count || (i < live.count && live[i].path < next[j].path) {
                plan.removed.append(live[i].path)
                i += 1
            } else if i == live.count || next[j].path < live[i].path {
                plan.added.append(next[j].path)
                j += 1
            } else {
                if live[i].sha256 == next[j].sha256 { plan.unchanged += 1 } else { plan.changed.append(next[j].path) }
                i += 1
                j += 1
            }
        }
        return plan
    }

    /// The counts, for `--format json` summaries.
    public var counts: JSON {
        .object(["added": .int(added.count), "changed": .int(changed.count), "removed": .int(removed.count), "unchanged": .int(unchanged)])
    }

    public var summary: Message {
        Message(
            "\(added.count) added, \(changed.count) changed, \(removed.count) removed, \(unchanged) unchanged",
            ko: "추가 \(added.count)개, 변경 \(changed.count)개, 삭제 \(removed.count)개, 그대로 \(unchanged)개")
    }
}
