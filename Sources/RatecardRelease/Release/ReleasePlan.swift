import RatecardOutput
import RatecardSupport

/// What a publish would change against the live release, file by file.
///
/// A bundle's data lives in a folder named by its id (`data/<bundle-id>/`), so every release
/// with changed data moves every data file to a new folder. A file is compared by its path
/// inside the data folder: one whose bytes did not change is `unchanged` (and counted as
/// `moved` when its folder did), never an addition plus a removal, so the plan of a one-table
/// change lists the few files that changed.
public struct ReleasePlan: Sendable, Equatable {
    /// Paths of the new release with no counterpart in the live one.
    public var added: [String]
    /// Paths of the new release whose bytes differ from the live counterpart's.
    public var changed: [String]
    /// Paths of the live release with no counterpart in the new one.
    public var removed: [String]
    /// Files with the same bytes at the same place (moved ones included).
    public var unchanged: Int
    /// Of the unchanged files, those whose URL changed with the data folder.
    public var moved: Int

    public init(added: [String], changed: [String], removed: [String], unchanged: Int, moved: Int = 0) {
        self.added = added
        self.changed = changed
        self.removed = removed
        self.unchanged = unchanged
        self.moved = moved
    }

    /// The plan from `live` to `next`; with both bundle ids, a data file is matched with the
    /// file at the same place in the other release's data folder.
    public static func between(live: [BundleManifest.File], next: [BundleManifest.File], liveBundle: String? = nil, nextBundle: String? = nil) -> ReleasePlan {
        guard let liveBundle, let nextBundle, liveBundle != nextBundle else {
            return merging(live, next) ?? lookingUp(live, next)
        }
        // The live data folder's files renamed into the new folder, to be compared in place.
        let from = BundleLayout.dataFolder(liveBundle)
        let to = BundleLayout.dataFolder(nextBundle)
        var original: [String: String] = [:]
        var renamed = live.map { file -> BundleManifest.File in
            guard file.path.hasPrefix(from) else { return file }
            var moved = file
            moved.path = to + file.path.dropFirst(from.count)
            original[moved.path] = file.path
            return moved
        }
        // Unless both folders sort at the same place among the other files, the order changed.
        if !zip(renamed, renamed.dropFirst()).allSatisfy({ $0.path < $1.path }) { renamed.sort { $0.path < $1.path } }
        var plan = merging(renamed, next) ?? lookingUp(renamed, next)
        plan.removed = plan.removed.map { original[$0] ?? $0 }.sorted()
        let changed = Set(plan.changed)
        let added = Set(plan.added)
        plan.moved = next.filter { original[$0.path] != nil && !changed.contains($0.path) && !added.contains($0.path) }.count
        return plan
    }

    /// The plan by lookups, for lists that are not sorted or hold a path twice.
    static func lookingUp(_ live: [BundleManifest.File], _ next: [BundleManifest.File]) -> ReleasePlan {
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
        .object(["added": .int(added.count), "changed": .int(changed.count), "removed": .int(removed.count), "unchanged": .int(unchanged), "moved": .int(moved)])
    }

    /// `0 added, 4 changed, 0 removed, 227 unchanged (86 of them moved to the new data folder)`.
    public var summary: Message {
        let moves = moved == 0 ? Message.verbatim("") : Message(" (\(moved) of them moved to the new data folder)", ko: " (그중 \(moved)개는 새 데이터 폴더로 옮김)")
        return Message(
            "\(added.count) added, \(changed.count) changed, \(removed.count) removed, \(unchanged) unchanged\(moves)",
            ko: "추가 \(added.count)개, 변경 \(changed.count)개, 삭제 \(removed.count)개, 그대로 \(unchanged)개\(moves)")
    }
}
