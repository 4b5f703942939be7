import RatecardCore
import RatecardOutput
import RatecardRelease

/// The history of one partner, product or terms document: the commits that changed it, and
/// (given a serve root) the releases that shipped each change.
public struct ChangeHistory {
    public struct Event {
        public var commit: CommitInfo
        public var changes: [SemanticChange]
        /// The journal entries at which this change went live or stopped being live, oldest
        /// first, alternately: the first release holding it made live (even positions), a
        /// rollback (or publish) to a release without it (odd), a release with it made live
        /// again, and so on.
        public var releases: [Journal.Entry]
        /// Whether the release live now holds the change (nil without a target).
        public var liveNow: Bool?
        /// The release live now (nil without a target, or when nothing is live).
        public var live: String?
        /// The staged rollouts of releases holding the change (`rollout-start`, `-percent`,
        /// `-halt` entries, oldest first); their completion is among `releases`.
        public var rollouts: [Journal.Entry] = []
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
        let live = try root?.live()
        // The commit each release was built from: journaled at publish and promote, else read.
        var commits: [String: ObjectID] = [:]
        for entry in journal {
            if let release = entry.activated ?? (entry.action == .rolloutStart ? entry.release : nil), let commit = entry.commit { commits[release] = commit }
        }
        func commitOf(_ release: String) -> ObjectID? {
            if let known = commits[release] { return known }
            let read = (try? root?.info(of: release))??.sourceCommit
            if let read { commits[release] = read }
            return read
        }
        let activations = journal.filter { $0.activated != nil }
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
            // Walk the activations: each time live goes from a release without this change to one
            // with it, or back, is a step of its history; the last says whether it is live now.
            var holds: [String: Bool] = [:]
            func holdsChange(_ release: String) -> Bool {
                if let known = holds[release] { return known }
                let answer = commitOf(release).map { (try? repository.contains(commit, in: $0)) ?? false } ?? false
                holds[release] = answer
                return answer
            }
            var shipped: [Journal.Entry] = []
            var isLive = false
            for entry in activations {
                guard let release = entry.activated else { continue }
                let now = holdsChange(release)
                if now != isLive { shipped.append(entry) }
                isLive = now
            }
            let liveNow = root == nil ? nil : live.map(holdsChange) ?? false
            let staged: Set<Journal.Action> = [.rolloutStart, .rolloutPercent, .rolloutHalt]
            let rollouts = journal.filter { entry in staged.contains(entry.action) && entry.release.map(holdsChange) == true }
            events.append(Event(commit: info, changes: changes, releases: shipped, liveNow: liveNow, live: live, rollouts: rollouts))
        }
        return events
    }
}
