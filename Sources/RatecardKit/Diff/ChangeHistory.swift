import RatecardCore
import RatecardOutput

/// The history of one partner, product or terms document: the commits that changed it, and
/// (given a serve root) the releases that shipped each change.
public struct ChangeHistory {
    public struct Event {
        public var commit: CommitInfo
        public var changes: [SemanticChange]
        /// Journal entries of releases that made this change live, or left it (rollbacks).
        public var releases: [Journal.Entry]
    }

    public enum Subject {
        case partner(String)
        case product(String)
        case terms(String)

        var pathPrefix: String {
            switch self {
            case .partner(let id): return "partners/\(id).yaml"
            case .product(let key): return "products/\(key)/"
            case .terms(let id): return "terms/\(id)/"
            }
        }

        func matches(_ change: SemanticChange) -> Bool {
            let (kind, id) = change.subject
            switch self {
            case .partner(let wanted): return kind == "partner" && id == wanted
            case .product(let wanted): return kind == "product" && id == wanted
            case .terms(let wanted): return kind == "terms" && id == wanted
            }
        }
    }

    /// Newest first.
    public static func events(of subject: Subject, location: ContentLocation, asOf: Day, root: (any ReleaseStore)?, caches: Caches) throws -> [Event] {
        let repository = try location.requireRepository()
        guard let head = try repository.headCommit() else { return [] }
        let loader = ContentLoader(caches: caches)
        let journal = try root?.journalLog.entries() ?? []
        var events: [Event] = []
        for commit in try repository.commits(from: nil, to: head).reversed() {
            let info = try repository.commitInfo(commit)
            let contentRoot = try location.contentRoot(in: commit)
            let now = try repository.treeEntries(commit: commit, under: contentRoot.treePath) ?? []
            let before = try info.parents.first.flatMap { try repository.treeEntries(commit: $0, under: contentRoot.treePath) } ?? []
            func ids(_ entries: [TreeEntry]) -> [String: ObjectID?] {
                Dictionary(entries.filter { $0.path.hasPrefix(subject.pathPrefix) || $0.path == subject.pathPrefix }.map { ($0.path, $0.id) }, uniquingKeysWith: { first, _ in first })
            }
            guard ids(now) != ids(before) else { continue }
            let new = try loader.load(CommitSource(repository: repository, commit: commit, contentRoot: contentRoot))
            let old = try info.parents.first.map { try loader.load(CommitSource(repository: repository, commit: $0, contentRoot: contentRoot)) } ?? Content(root: new.root)
            let changes = SemanticDiff.between(old, new, asOf: asOf).changes.filter(subject.matches)
            // The first activation whose commit contains this change, and rollbacks away from it.
            var shipped: [Journal.Entry] = []
            if let activation = journal.first(where: { entry in
                guard entry.activated != nil, let shippedCommit = entry.commit ?? releaseCommit(entry, root) else { return false }
                return (try? repository.contains(commit, in: shippedCommit)) ?? false
            }) {
                shipped.append(activation)
                let release = activation.activated
                shipped += journal.filter { $0.action == .rollback && $0.from == release }
            }
            events.append(Event(commit: info, changes: changes, releases: shipped))
        }
        return events
    }

    static func releaseCommit(_ entry: Journal.Entry, _ root: (any ReleaseStore)?) -> ObjectID? {
        guard let root, let release = entry.activated else { return nil }
        return (try? root.info(of: release))?.sourceCommit
    }
}
