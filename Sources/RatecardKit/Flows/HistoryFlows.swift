import RatecardCore
import RatecardOutput
import RatecardRelease
import RatecardSupport

// The commands that read or change a place's release history apart from publish and promote:
// rollback, rollout, prune, repair, sign, `releases` (with `--clear-bad`) and verify. Each takes
// plain options and the store a `Destination` holds, returns an outcome for the CLI to print,
// and tells what it waits for and what went wrong after a change through one `FlowEvent`
// callback. The CLI neither constructs a store nor calls the release layer itself
// (`ArchitectureTests` keeps it so).

extension Destination {
    /// A serve root folder that names no environment of ratecard.yaml: not protected, no app
    /// versions.
    public static func folder(_ path: String, name: String) -> Destination {
        Destination(name: name, store: ServeRoot(path: path), protected: false, apps: [])
    }

    /// Gives a signed environment's store the keys the command was given, or why they did not
    /// load (a changing command refuses with it before writing anything); an unsigned
    /// environment's store is left as it is and `load` is not called.
    public mutating func attachSigners(_ load: () throws -> [LiveSigner]) {
        guard var delivery = store.delivery, delivery.signing != nil else { return }
        do {
            delivery.signers = try load()
        } catch {
            delivery.keyProblem = Message.of(error)
        }
        store.delivery = delivery
    }

    /// The store, which must already hold releases (a command that reads or changes the history
    /// of a place nothing was published to is a conflict).
    public func existing() throws -> any ReleaseStore {
        if try store.pointer() == nil, try store.releaseIDs().isEmpty {
            throw ConflictError("\(store.displayName) holds no releases yet; publish to it first", ko: "\(store.displayName)에는 아직 릴리스가 없습니다; 먼저 게시하세요")
        }
        return store
    }
}

/// Release names and numbers, read from a store, for the commands that take one.
public enum ReleaseNames {
    /// A release named on the command line: an id, a unique prefix, or a sequence number.
    public static func resolve(_ text: String, in root: any ReleaseStore) throws -> String {
        switch try root.release(named: text) {
        case .found(let id): return id
        case .ambiguous(let ids):
            let list = ids.joined(separator: ", ")
            throw UsageError("'\(text)' names more than one release: \(list)", ko: "'\(text)'에 해당하는 릴리스가 여럿입니다: \(list)")
        case .none(let known):
            let list = known.suffix(10).joined(separator: ", ")
            throw UsageError(
                Message("no release '\(text)' in \(root.displayName)", ko: "\(root.displayName)에 릴리스 '\(text)'이(가) 없습니다")
                    .then(known.isEmpty ? nil : Message("kept releases: \(list)", ko: "보관된 릴리스: \(list)")))
        }
    }
}

/// `rollback`: make an earlier (or, after a rollback, a later) release live again.
public struct RollbackFlow {
    public typealias Request = ReleaseHistory.RollbackRequest

    public struct Outcome {
        public var rollback: ReleaseHistory.Rollback
        /// What went wrong after the flip (each also sent as a `.warning` event).
        public var warnings: [Message]
        /// What the store counted of its requests (a bucket), for JSON.
        public var storage: JSON?
    }

    public var store: any ReleaseStore
    public var request: Request

    public init(store: any ReleaseStore, request: Request) {
        self.store = store
        self.request = request
    }

    public func run(events: (FlowEvent) -> Void = { _ in }) throws -> Outcome {
        var warnings: [Message] = []
        let done = try ReleaseHistory(root: store).rollback(request) { warning in
            warnings.append(warning)
            events(.warning(warning))
        }
        return Outcome(rollback: done, warnings: warnings, storage: store.usage)
    }
}

/// `rollout`: change the share of installs a release is rolled out to, complete it or halt it.
public struct RolloutFlow {
    public typealias Change = Rollouts.Change

    public struct Outcome {
        public var rollout: Rollouts.Outcome
        public var storage: JSON?
    }

    public var store: any ReleaseStore
    public var change: Change
    /// Why, for the journal.
    public var message: String
    public var wait: Bool

    public init(store: any ReleaseStore, change: Change, message: String, wait: Bool) {
        self.store = store
        self.change = change
        self.message = message
        self.wait = wait
    }

    public func run(events: (FlowEvent) -> Void = { _ in }) throws -> Outcome {
        let done = try Rollouts(root: store).change(change, message: message, wait: wait, onWarning: { events(.warning($0)) }, onWait: { events(.waiting($0)) })
        return Outcome(rollout: done, storage: store.usage)
    }
}

/// `prune`: remove old releases and the objects no kept release names.
public struct PruneFlow {
    public struct Outcome {
        public var pruned: ReleaseHistory.Pruned
        /// The releases left (for a dry run, that would be left).
        public var kept: [String]
    }

    public var store: any ReleaseStore
    public var keep: Int
    public var graceMinutes: Int
    public var wait: Bool
    public var dryRun: Bool

    public init(store: any ReleaseStore, keep: Int, graceMinutes: Int, wait: Bool, dryRun: Bool) {
        self.store = store
        self.keep = keep
        self.graceMinutes = graceMinutes
        self.wait = wait
        self.dryRun = dryRun
    }

    public func run() throws -> Outcome {
        let pruned = try ReleaseHistory(root: store).prune(keep: keep, graceMinutes: graceMinutes, wait: wait, dryRun: dryRun)
        return Outcome(pruned: pruned, kept: try store.releaseIDs().filter { !pruned.releases.contains($0) })
    }
}

/// `repair`: rewrite what follows the pointer and restore missing entry files of releases.
public struct RepairFlow {
    public struct Outcome {
        public var repaired: ReleaseHistory.Repaired
        /// What is served beside the pointer and still does not follow it, in words.
        public var stale: [Message]
    }

    public var store: any ReleaseStore
    public var wait: Bool

    public init(store: any ReleaseStore, wait: Bool) {
        self.store = store
        self.wait = wait
    }

    public func run() throws -> Outcome {
        let repaired = try ReleaseHistory(root: store).repair(wait: wait)
        return Outcome(repaired: repaired, stale: try BridgeLines.servedStaleness(root: store))
    }
}

/// `sign`: re-sign live.json for what is live now.
public struct SignFlow {
    public struct Outcome {
        public var sequence: Int
        public var statement: LiveStatements.Summary
        /// How live.json names the environment.
        public var environment: String
        public var fileName: String { LiveStatements.fileName }
    }

    public var store: any ReleaseStore
    public var wait: Bool

    public init(store: any ReleaseStore, wait: Bool) {
        self.store = store
        self.wait = wait
    }

    /// Nil when nothing was signed (nothing live, or no statement after it).
    public func run() throws -> Outcome? {
        let sequence = try ReleaseHistory(root: store).sign(wait: wait)
        let environment = LiveStatements.environment(of: store)
        guard let summary = try LiveStatements.summary(root: store), let sequence else { return nil }
        return Outcome(sequence: sequence, statement: summary, environment: environment)
    }
}

/// `releases --clear-bad`: remove a release's bad mark, journaled with a reason.
public struct ClearBadFlow {
    public var store: any ReleaseStore
    public var release: String
    public var reason: String
    public var wait: Bool

    public init(store: any ReleaseStore, release: String, reason: String, wait: Bool) {
        self.store = store
        self.release = release
        self.reason = reason
        self.wait = wait
    }

    public func run() throws {
        try ReleaseHistory(root: store).clearBad(release, reason: reason, wait: wait)
    }
}

/// `releases`: the newest releases of a place, with what the journal says of each. Only read:
/// the journal's damaged lines are sent as `.warning` events and the rest listed.
public struct ReleasesFlow {
    public struct Outcome {
        public var live: String?
        public var journal: JournalState
        /// The releases shown, newest first, each with its version.json (nil when it does not read).
        public var shown: [(id: String, info: ReleaseInfo?)]
        /// How many releases the place keeps.
        public var total: Int
    }

    public var store: any ReleaseStore
    /// How many of the newest to show (0: all).
    public var limit: Int

    public init(store: any ReleaseStore, limit: Int) {
        self.store = store
        self.limit = limit
    }

    public func run(events: (FlowEvent) -> Void = { _ in }) throws -> Outcome {
        let live = try store.pointer()
        let journal = try store.journalLog.state()
        for warning in journal.warnings { events(.warning(warning)) }
        let ids = try store.releaseIDs()
        let shown = limit == 0 ? ids.reversed() : Array(ids.reversed().prefix(limit))
        return Outcome(live: live, journal: journal, shown: shown.map { id in (id, try? store.info(of: id)) }, total: ids.count)
    }
}

/// `verify`: the live release's files against its version.json, what is served beside the
/// pointer, and live.json against signing.keys.
public struct VerifyFlow {
    public struct Outcome {
        public var live: String
        /// Each problem, in words (empty: as published).
        public var drift: [Message]
        /// How many files the release lists.
        public var files: Int
        public var statement: LiveStatements.Summary?
        /// How live.json names the environment.
        public var environment: String
    }

    public var store: any ReleaseStore
    /// Re-hash every file (else sizes and the seal, as the store words it).
    public var deep: Bool

    public init(store: any ReleaseStore, deep: Bool) {
        self.store = store
        self.deep = deep
    }

    /// Throws `ConflictError` when nothing is live; `now` is seconds since the epoch.
    public func run(now: Int) throws -> Outcome {
        guard let live = try store.live() else { throw ConflictError("nothing is live in \(store.displayName)", ko: "\(store.displayName)에는 라이브인 것이 없습니다") }
        let found = try store.drift(of: live, deep: deep).map(StatusFlow.driftText)
        // A bucket's drift names a missing index.html too: once is enough.
        var drift = found + (try BridgeLines.servedStaleness(root: store)).filter { stale in !found.contains { $0.english == stale.english } }
        // live.json: its signatures against signing.keys, its file lists against their hashes.
        for problem in try LiveStatements.check(root: store) where !drift.contains(where: { $0.english == problem.english }) { drift.append(problem) }
        let files = try store.info(of: live).files.count
        return Outcome(
            live: live, drift: drift, files: files, statement: try LiveStatements.summary(root: store, now: now), environment: LiveStatements.environment(of: store))
    }
}
