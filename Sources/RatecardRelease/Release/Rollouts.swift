import RatecardCore
import RatecardLoader
import RatecardSupport

/// Staged rollouts: a release published with `publish --rollout` reaches a share of installs
/// through live.json while live stays where it was; `ratecard rollout` widens or narrows it,
/// completes it (the pointer flip, journaled like a publish) or halts it (nobody loads it).
///
/// The journal holds the rollout (`JournalState.rollout`, folded from `rollout-*` entries); the
/// statement is derived from it and the pointer (`LiveStatements.expected`), so every step is
/// one journal entry followed by live.json, and a kill between the two leaves a stale statement
/// that the next command's recovery rewrites. Each entry carries the statement's sequence.
public struct Rollouts {
    public let root: any ReleaseStore

    public init(root: any ReleaseStore) { self.root = root }

    /// The lowest and highest share `--rollout` and `--percent` take, in percent.
    public static let percents = 1...99

    /// What `ratecard rollout` does.
    public enum Change: Equatable, Sendable {
        /// Sets the share to this many percent.
        case percent(Int)
        /// Makes the release live for everyone.
        case complete
        /// Ends the rollout; its release is marked bad unless `keepGood`.
        case halt(keepGood: Bool)

        var action: Journal.Action {
            switch self {
            case .percent: return .rolloutPercent
            case .complete: return .rolloutComplete
            case .halt: return .rolloutHalt
            }
        }
    }

    /// What a rollout command did.
    public struct Outcome: Equatable, Sendable {
        public var release: String
        public var rolloutID: String
        /// The share before and after, in basis points (after: 0 once halted, 10,000 once complete).
        public var before: Int
        public var after: Int
        /// What is live after the command.
        public var live: String?
        /// Whether a halt marked the release bad.
        public var markedBad: Bool
    }

    /// The rollout id of a release whose start entry carries statement sequence `sequence`.
    static func id(release: String, sequence: Int) -> String { "\(release)@\(sequence)" }

    /// Refuses (exit 3) when the journal records no rollout in progress.
    static func current(_ root: any ReleaseStore, live: String?) throws -> JournalState.Rollout {
        let state = try root.journalLog.state()
        try state.requireUndamaged()
        guard let rollout = state.rollout, rollout.release != live else {
            throw ConflictError(
                "no rollout is in progress in \(root.displayName); nothing was changed. Start one with 'ratecard publish --rollout PCT'",
                ko: "\(root.displayName)에 진행 중인 단계적 배포가 없습니다; 아무것도 바꾸지 않았습니다. 'ratecard publish --rollout PCT'로 시작하세요")
        }
        return rollout
    }

    /// Refuses (exit 3) when a rollout is in progress: one at a time per environment.
    static func requireNone(_ root: any ReleaseStore, live: String?) throws {
        guard let rollout = try root.journalLog.state().rollout, rollout.release != live else { return }
        throw ConflictError(
            "release \(rollout.release) is being rolled out in \(root.displayName) (\(share(rollout.share))); nothing was changed. Complete it ('ratecard rollout --complete') or halt it ('ratecard rollout --halt') first",
            ko: "\(root.displayName)에서 릴리스 \(rollout.release)을(를) 단계적으로 배포하는 중입니다 (\(share(rollout.share))); 아무것도 바꾸지 않았습니다. 먼저 완료하거나('ratecard rollout --complete') 중단하세요('ratecard rollout --halt')"
        )
    }

    /// A share in basis points as people read it (`10%`, `12.5%`).
    public static func share(_ basisPoints: Int) -> String {
        basisPoints % 100 == 0 ? "\(basisPoints / 100)%" : String(format: "%.2f%%", Double(basisPoints) / 100)
    }

    /// The entry that starts a rollout of the release `info` (put in the store already) at
    /// `share` basis points, then live.json; called by the publisher under its lock. Returns the
    /// rollout id.
    static func start(root: any ReleaseStore, fields: [String: JSON], release: String, share: Int, requires: Int) throws -> String {
        let sequence = try LiveStatements.nextSequence(root: root)
        let id = Self.id(release: release, sequence: sequence)
        var fields = fields
        fields["action"] = .string(Journal.Action.rolloutStart.rawValue)
        fields["rollout_id"] = .string(id)
        fields["share_bp"] = .int(share)
        fields["live_sequence"] = .int(sequence)
        try root.journalLog.append(fields)
        CrashPoint.hit("rollout-journaled")
        try BridgeLines.updateAfterChange(root: root, live: try root.live() ?? release, known: [release: requires])
        try LiveStatements.writeAfterChange(root: root, live: try root.live() ?? release, sequence: sequence)
        return id
    }

    /// Changes the rollout in progress under the lock, journaled with `message`. `onWarning`
    /// hears what went wrong after a completion's flip without undoing it.
    public func change(
        _ change: Change, message: String, wait: Bool = true, onWarning: (Message) -> Void = { _ in }, onWait: (Message) -> Void = { _ in }
    ) throws -> Outcome {
        let session = try LiveChange.begin(
            root, command: "rollout", wait: wait, onWait: onWait, expectLive: nil, crashPoints: ("rollout-locked", "rollout-recovered"))
        defer { session.end() }
        let rollout = try Self.current(root, live: session.live)
        var fields = JournalFields.base(action: change.action.rawValue)
        fields["release"] = .string(rollout.release)
        fields["rollout_id"] = .string(rollout.id)
        fields["message"] = .string(message)
        fields["previous_share_bp"] = .int(rollout.share)
        switch change {
        case .complete:
            let state = try root.journalLog.state()
            fields["previous"] = session.live.map(JSON.string) ?? .null
            fields["share_bp"] = .int(LiveStatement.Rollout.buckets)
            if let seal = state.seals[rollout.release] { fields[JournalFields.seal] = .string(seal) }
            let publication = state.publications[rollout.release]
            fields["commit"] = publication?.commit.map { .string($0.hex) } ?? .null
            fields["author"] = publication?.author.map(JSON.string) ?? .null
            fields["bridge_requires"] = .int(publication?.bridgeRequires ?? 0)
            try session.makeLive(rollout.release, journal: fields, bridgeRequires: publication?.bridgeRequires, warn: onWarning)
            return Outcome(release: rollout.release, rolloutID: rollout.id, before: rollout.share, after: LiveStatement.Rollout.buckets, live: rollout.release, markedBad: false)
        case .percent(let percent):
            fields["share_bp"] = .int(percent * 100)
            try journalThenState(fields, live: session.live)
            return Outcome(release: rollout.release, rolloutID: rollout.id, before: rollout.share, after: percent * 100, live: session.live, markedBad: false)
        case .halt(let keepGood):
            fields["share_bp"] = .int(0)
            fields["marks_bad"] = .bool(!keepGood)
            try journalThenState(fields, live: session.live)
            return Outcome(release: rollout.release, rolloutID: rollout.id, before: rollout.share, after: 0, live: session.live, markedBad: !keepGood)
        }
    }

    /// Halts the rollout in progress, if any, keeping its release good: a rollback's first step
    /// (under the rollback's lock). Returns the rollout halted.
    static func haltForRollback(root: any ReleaseStore, live: String?, message: String) throws -> JournalState.Rollout? {
        try haltKeepingGood(root: root, live: live, message: "halted by a rollback: " + message)
    }

    /// Halts the rollout `id`, when it is the one in progress, keeping its release good: the first
    /// step of a `publish --if-stale` that refreshes live while a rollout is open (under the
    /// publisher's lock), so that a scheduled change (a review that ends) reaches every phone on
    /// its day. Returns the rollout halted; nil when `id` is no longer in progress.
    static func haltForRefresh(root: any ReleaseStore, live: String?, id: String, message: String) throws -> JournalState.Rollout? {
        guard let rollout = try root.journalLog.state().rollout, rollout.id == id, rollout.release != live else { return nil }
        return try haltKeepingGood(root: root, live: live, message: "halted for the scheduled refresh (publish --if-stale): " + message)
    }

    /// Journals a halt of the rollout in progress without a bad mark, then the statement.
    private static func haltKeepingGood(root: any ReleaseStore, live: String?, message: String) throws -> JournalState.Rollout? {
        guard let rollout = try root.journalLog.state().rollout, rollout.release != live else { return nil }
        var fields = JournalFields.base(action: Journal.Action.rolloutHalt.rawValue)
        fields["release"] = .string(rollout.release)
        fields["rollout_id"] = .string(rollout.id)
        fields["message"] = .string(message)
        fields["previous_share_bp"] = .int(rollout.share)
        fields["share_bp"] = .int(0)
        fields["marks_bad"] = .bool(false)
        try Rollouts(root: root).journalThenState(fields, live: live)
        return rollout
    }

    /// Journals `fields` with the next statement sequence, then rewrites the bridge lines and live.json.
    func journalThenState(_ fields: [String: JSON], live: String?) throws {
        let sequence = try LiveStatements.nextSequence(root: root)
        var fields = fields
        fields["live_sequence"] = .int(sequence)
        try root.journalLog.append(fields)
        CrashPoint.hit("rollout-journaled")
        guard let live else { return }
        try BridgeLines.updateAfterChange(root: root, live: live, known: [:])
        try LiveStatements.writeAfterChange(root: root, live: live, sequence: sequence)
    }
}
