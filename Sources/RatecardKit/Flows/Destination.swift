import RatecardCore
import RatecardOutput
import RatecardRelease
import RatecardSupport

/// Where a flow makes a release live, and what guards it there: shared by publish and promote.
public struct Destination {
    /// The environment's name (or the root as given), for messages and the journal.
    public var name: String
    public var store: any ReleaseStore
    /// A risky change needs an approval here (`ApprovalGate`).
    public var protected: Bool
    /// The app versions it supports (the bridge gate).
    public var apps: [ServiceConfig.AppVersion]

    public init(name: String, store: any ReleaseStore, protected: Bool, apps: [ServiceConfig.AppVersion]) {
        self.name = name
        self.store = store
        self.protected = protected
        self.apps = apps
    }

    /// An environment of ratecard.yaml, its releases in `store` (`Environment.store()`, with the
    /// signing keys the command was given).
    public init(_ environment: Environment, store: any ReleaseStore) {
        self.init(name: environment.name, store: store, protected: environment.protected, apps: environment.apps)
    }

    /// Whether a flow needs the whole content: a dry run shows the semantic diff from live, and
    /// a protected destination's approval gate judges it; both read all of the content, so
    /// neither is built onto the live bundle.
    func needsWholeContent(_ change: ChangeRequest) -> Bool {
        change.dryRun || protected
    }

    /// The release the swap must still find live: `--expect-live` as given, else for a protected
    /// destination the release live now (a change made live in between was never gated against
    /// this one; `"none"`: nothing is live). `live`: what the caller read as live already.
    func expectedLive(_ change: ChangeRequest, live: String?? = nil) throws -> String? {
        guard protected, change.expectLive == nil else { return change.expectLive }
        return try (live ?? store.live()) ?? "none"
    }

    /// The approval gate step: reports the semantic diff from what is live, and for a protected
    /// destination returns the approval the change needs and was given (nil: it needs none), or
    /// throws `ApprovalGate.Refused`.
    func gate(_ diff: ApprovalGate.LiveDiff, next: Content?, asOf: Day, change: ChangeRequest, events: (FlowEvent) -> Void) throws -> ApprovalGate.Approval? {
        events(.liveDiff(diff))
        guard protected else { return nil }
        let approval = try ApprovalGate.check(diff, next: next, asOf: asOf, environment: name, approval: change.approval, journal: try store.journalLog.state())
        if let approval { events(.approved(approval)) }
        return approval
    }
}

/// How a change is to be made live: why (for the journal), what must still be live, the
/// approval given for a risky change, and whether to only say what would happen.
public struct ChangeRequest {
    public var message: String
    public var expectLive: String?
    /// `--approve`: the reason a risky change to a protected destination ships anyway.
    public var approval: String?
    public var dryRun: Bool
    /// Wait for the lock when another command holds it.
    public var wait: Bool
    /// `--force`: ship a bundle that a release marked bad holds (journaled with the mark).
    public var force: Bool

    public init(message: String, expectLive: String? = nil, approval: String? = nil, dryRun: Bool = false, wait: Bool = true, force: Bool = false) {
        self.message = message
        self.expectLive = expectLive
        self.approval = approval
        self.dryRun = dryRun
        self.wait = wait
        self.force = force
    }

    /// Refuses (`ConflictError`, exit 3) shipping `bundleID` when a release marked bad in one
    /// of `stores` holds it, naming the mark and its reason, unless `--force`. Returns the
    /// journal fields that record a forced ship (empty when nothing was marked).
    /// `verb` names the command in both languages ("publish", "게시를"). A bundle the target
    /// already has live (`liveBundle`, asked only when a mark is found) ships nothing new and
    /// is not refused: whoever made it live decided on that mark.
    func refuseBadBundle(
        _ bundleID: String, in stores: [any ReleaseStore], verb: (english: String, korean: String), liveBundle: () -> String?
    ) throws -> [String: JSON] {
        for store in stores {
            guard let mark = try store.badMark(ofBundle: bundleID) else { continue }
            if liveBundle() == bundleID { return [:] }
            if force { return ["forced_over_bad": .string(mark.release)] }
            throw ConflictError(
                (Message("Refusing to \(verb.english): ", ko: "\(verb.korean) 거부합니다: ") + mark.description).then(
                    Message(
                        "ship a fixed commit, clear the mark with 'ratecard releases --clear-bad \(mark.release) -m WHY', or pass --force to ship it anyway (journaled)",
                        ko: "고친 커밋을 내보내거나, 'ratecard releases --clear-bad \(mark.release) -m 이유'로 표시를 지우거나, 그래도 내보내려면 --force를 주세요 (저널에 기록됩니다)")))
        }
        return [:]
    }
}
