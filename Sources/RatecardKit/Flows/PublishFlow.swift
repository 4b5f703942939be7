import RatecardCore
import RatecardOutput
import RatecardRelease
import RatecardSupport

/// `publish`: validate, build and stage a release, then swap it live atomically.
///
/// A straight line of named steps (`run`), in the order a refusal is reported: is the work tree
/// committed (answered first, though it runs beside the rest), is the clock sane, is anything
/// stale (`ifStale`), build, is the web build's use of the native bridge valid and runnable by
/// every supported app version, is the content valid, is a risky change to a protected
/// environment approved, stage; only then is anything written (`Publisher`: lock, put objects,
/// flip the pointer, journal). A refusal changes nothing.
public struct PublishFlow {
    /// Which web build ships with the bundle.
    public enum Web {
        /// `web:` in ratecard.yaml as the command read it (nil: not set), else `../site` beside the content.
        case configured(String?)
        case folder(String)
        /// The bundle alone: the release serves data and pages only.
        case none
    }

    public struct Options {
        public var destination: Destination
        public var change: ChangeRequest
        public var asOf: Day
        /// The run's caches.
        public var caches: Caches
        /// The commit to publish; nil for HEAD, whose content must be committed.
        public var revision: String?
        /// The revision as named: `revision`, else HEAD.
        public var revisionName: String { revision ?? "HEAD" }
        public var web: Web
        /// Only when something scheduled has taken effect since the live release was built:
        /// then the live release's own commit is rebuilt as of `asOf`.
        public var ifStale = false
        /// Whether `asOf` was given (`--as-of`), not read from the clock.
        public var asOfExplicit = false
        /// Publish a commit whose parent is not in this shallow clone, its history rules skipped
        /// (`--allow-shallow`); without it such a publish is refused (exit 4).
        public var allowShallow = false
        /// `--rollout PCT`: the share of installs (basis points) the release reaches first, live
        /// unchanged for the rest (`Rollouts`); nil: live for everyone.
        public var rollout: Int? = nil

        public init(destination: Destination, change: ChangeRequest, asOf: Day, caches: Caches, revision: String? = nil, web: Web) {
            self.destination = destination
            self.change = change
            self.asOf = asOf
            self.caches = caches
            self.revision = revision
            self.web = web
        }
    }

    /// How a publish ended. Every case but `published` changed nothing.
    public enum Outcome {
        /// `ifStale`, and the live release is current (or nothing is live): why.
        case current(Message)
        /// HEAD was to be published but these content files are not committed.
        case uncommitted([String])
        /// The web build's use of the native bridge is invalid, or an app version cannot run it.
        case bridge(BridgeGate.Verdict)
        case invalid(ValidationReport)
        case dryRun(plan: ReleasePlan, live: String?)
        case published(Publisher.Outcome)
    }

    /// What was built, with the outcome.
    public struct Result {
        public var outcome: Outcome
        /// The revision published, as named (or the live release's commit, for `ifStale`).
        public var revision: String
        public var bundleID: String?
        public var commit: ObjectID?
        /// The products re-rendered when the bundle was built onto the live one; nil for a full build.
        public var builtOntoLive: [String]?
        /// The approval a risky change to a protected environment was given.
        public var approval: ApprovalGate.Approval?
        /// Active products left out of the release because their compliance review has ended
        /// (DSC-21); empty for a build onto the live bundle (built the same day, it left out the same).
        public var reviewsExpired: [Product] = []
        /// `ifStale` during a rollout with something stale: the rollout halted (kept good) before
        /// live was refreshed (for a dry run: the one that would be), and why it was stale.
        public var haltedRollout: HaltedRollout? = nil
    }

    /// A rollout a scheduled refresh halted.
    public struct HaltedRollout: Equatable, Sendable {
        public var release: String
        public var rolloutID: String
        /// Whether the release being rolled out was stale itself, and since when.
        public var staleSince: Day?
        /// Whether the live release was stale, and since when.
        public var liveStaleSince: Day?
    }

    public var location: ContentLocation
    public var options: Options

    public init(location: ContentLocation, options: Options) {
        self.location = location
        self.options = options
    }

    /// Runs the publish. Throws `ApprovalGate.Refused` for an unapproved risky change,
    /// `ConflictError` when the lock is held or `expectLive` is not live, and other errors for
    /// I/O failures; in each case the live release is unchanged. Content that is not committed is
    /// reported before any other refusal or error: it is the first thing to fix.
    public func run(events: (FlowEvent) -> Void = { _ in }) throws -> Result {
        Trace.mark("publish: started")
        let cleanTree = try CleanTree(location, needed: options.revision == nil && !options.ifStale)
        let revision = options.revisionName
        do {
            let result = try steps(cleanTree, events: events)
            if case .published = result.outcome { return result }
            let paths = try cleanTree.uncommitted()
            return paths.isEmpty ? result : Result(outcome: .uncommitted(paths), revision: revision)
        } catch {
            let paths = try cleanTree.uncommitted()
            if paths.isEmpty { throw error }
            return Result(outcome: .uncommitted(paths), revision: revision)
        }
    }

    /// The steps after the clean-tree check has started, each a call.
    private func steps(_ cleanTree: CleanTree, events: (FlowEvent) -> Void) throws -> Result {
        let store = options.destination.store
        // What is live, read once for the checks before the lock (the publisher reads it again
        // under the lock): a large site's version.json lists every file.
        let live = try store.live()
        let liveInfo = live.flatMap { try? store.info(of: $0) }
        try Self.checkClock(options.asOf, explicit: options.asOfExplicit, live: live, info: liveInfo, name: options.destination.name)
        var result = Result(outcome: .current(.verbatim("")), revision: options.revisionName)
        if options.ifStale {
            switch try refresh(live: live, info: liveInfo) {
            case .current(let why):
                result.outcome = .current(why)
                return result
            case .stale(let commit, let halting):
                result.revision = options.revision ?? commit.hex
                result.haltedRollout = halting
            }
        }
        Trace.mark("publish: content found")
        let built = Swift.Result { try build(result.revision, live: live, info: liveInfo) }
        let web = try webFolder()
        let bridge = try BridgeGate.check(
            web: web, repositoryRoot: location.repository?.workdir, apps: options.destination.apps, environment: options.destination.name, cache: options.caches.build)
        switch bridge {
        case .invalid, .refused: return result.ending(.bridge(bridge))
        case .unused, .allowed: break
        }
        Trace.mark("publish: web folder and bridge checked")
        let bundle: BundleRun.Built
        switch try built.get() {
        case .invalid(let report): return result.ending(.invalid(report))
        case .built(let made): bundle = made
        }
        (result.bundleID, result.commit, result.builtOntoLive) = (bundle.output.manifest.bundleID, bundle.commit, bundle.builtOntoLive)
        result.reviewsExpired = bundle.content?.reviewsExpired(on: options.asOf) ?? []
        if let live, let content = bundle.content {
            let changed = try liveRecords(bundle, content: content, live: live, info: liveInfo)
            if !changed.isEmpty { return result.ending(.invalid(ValidationReport(diagnostics: changed, commits: [], filesParsed: 0, files: content.fileCount))) }
        }
        Trace.mark("publish: records checked against live")
        // The same bundle as a release a rollback marked bad here: not shipped again unnoticed.
        // Judged under the lock, on the journal read there (which a check before the lock would
        // read once more); a dry run, which takes no lock, judges it here.
        let (bundleID, change) = (bundle.output.manifest.bundleID, options.change)
        let refuseBad = { (liveBundle: String?) throws -> [String: JSON] in try change.refuseBadBundle(bundleID, in: [store], verb: ("publish", "게시를")) { liveBundle } }
        let forced = change.dryRun ? try refuseBad(liveInfo?.bundleID) : [:]
        let expectLive = try options.destination.expectedLive(options.change, live: .some(live))
        result.approval = try approvalGate(bundle, events: events)
        var request = makeRequest(bundle, web: web, expectLive: expectLive, approval: result.approval, liveInfo: liveInfo)
        request.bridge = bridge.requirement?.json
        request.extra.merge(forced) { $1 }
        if !change.dryRun { request.checkUnderLock = { _, info in try refuseBad(info?.bundleID) } }
        request.haltRollout = result.haltedRollout?.rolloutID
        let publisher = Publisher(root: store)
        let staged = try publisher.stage(request)
        if options.change.dryRun {
            let (plan, live) = try publisher.plan(staged, request)
            return result.ending(.dryRun(plan: plan, live: live))
        }
        let uncommitted = try cleanTree.uncommitted()
        guard uncommitted.isEmpty else { return result.ending(.uncommitted(uncommitted)) }
        // What the lock found: the rollout halted, or none (another command ended it first).
        let planned = result.haltedRollout
        result.haltedRollout = nil
        let outcome = try publisher.publish(
            staged, request, onWait: { events(.waiting($0)) }, onWarning: { events(.warning($0)) },
            onHalted: { halted in
                result.haltedRollout = planned.map {
                    HaltedRollout(release: halted.release, rolloutID: halted.id, staleSince: $0.staleSince, liveStaleSince: $0.liveStaleSince)
                }
            })
        return result.ending(.published(outcome))
    }

    /// The build step: onto the live bundle for the everyday rate update (only the changed
    /// products are read, checked and rendered), in full for a dry run and a protected
    /// destination (whose semantic diff reads all of the content) and every other change.
    private func build(_ revision: String, live: String?, info: ReleaseInfo?) throws -> BundleRun.BuildResult {
        let run = BundleRun(location: location, asOf: options.asOf, caches: options.caches, allowShallow: options.allowShallow)
        let onto = options.destination.needsWholeContent(options.change) ? nil : live.map { BundleRun.Base(store: options.destination.store, release: $0, info: info) }
        return try run.build(revision: revision, onto: onto)
    }

    /// The records that never change (published terms versions, rate tables once past), checked
    /// against the live release, not only against the commit's parent (which a root commit does
    /// not have, and which need not be what is live): against what its bundle shipped, always,
    /// and against its commit's content when this repository has that commit and it is neither
    /// the commit published nor its parent (whose check the build already ran).
    private func liveRecords(_ bundle: BundleRun.Built, content: Content, live: String, info: ReleaseInfo?) throws -> [Diagnostic] {
        // A live bundle that no longer matches its own listing cannot be compared with; a
        // publish is then how it is replaced (as the incremental build falls back to the full
        // one), and only its commit, when this repository has it, is compared with.
        var found: [Diagnostic] = []
        var liveCommit = info?.sourceCommit
        do {
            let shipped = try LiveBundle(store: options.destination.store, release: live, known: info)
            liveCommit = shipped.commit
            found = try LiveRecords(shipped).check(content, asOf: options.asOf, built: bundle.output.manifest)
        } catch is OperationalError {
            Trace.mark("publish: the live bundle cannot be read; its records are not compared")
        }
        if let liveCommit, let repository = location.repository, repository.hasObject(liveCommit), liveCommit != bundle.commit,
            bundle.commit.flatMap({ try? repository.commitInfo($0).parents.first }) != liveCommit
        {
            let before = try ValidationRun(location: location, context: ValidationContext(asOf: options.asOf), caches: options.caches).content(of: liveCommit)
            let diagnostics = Diagnostics()
            HistoryRules.check(content, base: before, context: ValidationContext(asOf: options.asOf), into: diagnostics)
            let reported = Set(found.map { "\($0.path)\u{0}\($0.rule)" })
            found += diagnostics.items.filter { Self.recordRules.contains($0.rule) && !reported.contains("\($0.path)\u{0}\($0.rule)") }
        }
        return found.sorted()
    }

    /// The history rules about records that never change, whatever happened in between.
    static let recordRules: Set<String> = [HistoryRules.frozenVersion.id, HistoryRules.bodyNeedsVersion.id, HistoryRules.deletedVersion.id, HistoryRules.pastTable.id]

    /// The web build to ship: a release without it leaves the app's screens blank, so only on request.
    private func webFolder() throws -> String? {
        let run = BundleRun(location: location, asOf: options.asOf, caches: options.caches)
        switch options.web {
        case .none: return nil
        case .configured(let setting): return try run.webFolder(override: nil, configured: setting)
        case .folder(let path): return try run.webFolder(override: path, configured: nil)
        }
    }

    /// The approval gate step: the semantic diff against live reads the live commit's content,
    /// so only when it is shown (a dry run) or gates (a protected destination).
    private func approvalGate(_ bundle: BundleRun.Built, events: (FlowEvent) -> Void) throws -> ApprovalGate.Approval? {
        guard let next = bundle.content, options.destination.needsWholeContent(options.change) else { return nil }
        let diff = ApprovalGate.liveDiff(root: options.destination.store, location: location, next: next, asOf: options.asOf, caches: options.caches)
        return try options.destination.gate(diff, next: next, asOf: options.asOf, change: options.change, events: events)
    }

    /// The release to stage: the bundle and the web build, who made it and why, and the first
    /// day it is no longer current: from the content; for a build onto the live bundle, the
    /// earlier of the live release's record and the dates in the tables re-read (an edit that
    /// drops a date can only make that early, a republish that changes nothing, never late).
    private func makeRequest(_ bundle: BundleRun.Built, web: String?, expectLive: String?, approval: ApprovalGate.Approval?, liveInfo: ReleaseInfo?) -> Publisher.Request {
        var author = ProcessUser.name
        if let commit = bundle.commit, let repository = location.repository, let info = try? repository.commitInfo(commit) {
            author = "\(info.authorName) <\(info.authorEmail)>"
        }
        var request = Publisher.Request(bundle: bundle.output, webFolder: web, author: author, message: options.change.message)
        request.expectLive = expectLive
        request.wait = options.change.wait
        request.extra = approval?.fields ?? [:]
        if let content = bundle.content {
            request.staleFrom = content.nextScheduledChange(after: options.asOf)
            request.reviewEnds = content.reviewEnds(shownOn: options.asOf)
            let expired = content.reviewsExpired(on: options.asOf).map(\.key).sorted()
            if !expired.isEmpty { request.extra["review_expired"] = .array(expired.map(JSON.string)) }
        } else {
            request.staleFrom = [liveInfo?.staleFrom.flatMap(Day.init), bundle.scheduledInChanged].compactMap { $0 }.min()
            request.reviewEnds = (liveInfo?.reviewEnds ?? [:]).compactMapValues(Day.init)
        }
        request.knownLive = liveInfo
        request.rollout = options.rollout
        return request
    }

    /// The staleness step (`ifStale`): the commit rebuilt is the one the live record names, only
    /// while that record matches its seal. The environment is stale when the live release is, or
    /// the release being rolled out is: either way live is refreshed and the rollout halted
    /// first, so that a scheduled change (a review that ends, DSC-21) reaches every phone on its
    /// day instead of waiting for the rollout to end.
    private func refresh(live: String?, info: ReleaseInfo?) throws -> Staleness {
        if let live, case .broken = try options.destination.store.sealedRecord(of: live) {
            throw RefusedError(
                "the live release \(live)'s version.json does not match the seal journaled when it was published (it was changed since); --if-stale rebuilds the commit it names, so nothing was published; publish a reviewed commit with --rev, or roll back to a release that matches its seal",
                ko: "라이브 릴리스 \(live)의 version.json이 게시할 때 저널에 기록된 봉인과 맞지 않습니다 (그 뒤에 바뀌었습니다); --if-stale은 그 파일이 가리키는 커밋을 다시 빌드하므로 아무것도 게시하지 않았습니다; 검토한 커밋을 --rev로 게시하거나, 봉인과 맞는 릴리스로 롤백하세요"
            )
        }
        let store = options.destination.store
        guard let live, let rollout = try store.journalLog.state().rollout, rollout.release != live else {
            return try Self.staleness(live: live, info: info, asOf: options.asOf)
        }
        let rolled = try? store.info(of: rollout.release)
        guard let rolled else {
            throw OperationalError(
                "the version.json of release \(rollout.release), being rolled out, cannot be read; run 'ratecard verify'",
                ko: "단계적으로 배포 중인 릴리스 \(rollout.release)의 version.json을 읽을 수 없습니다; 'ratecard verify'를 실행하세요")
        }
        let rolloutFreshness = Freshness(rolled, asOf: options.asOf)
        let liveStaleness = try Self.staleness(live: live, info: info, asOf: options.asOf)
        switch (liveStaleness, rolloutFreshness) {
        case (.stale(let commit, _), _):
            let since = info.flatMap { Freshness($0, asOf: options.asOf).staleFrom }
            return .stale(
                commit: commit,
                halting: HaltedRollout(release: rollout.release, rolloutID: rollout.id, staleSince: rolloutFreshness.isStale ? rolloutFreshness.staleFrom : nil, liveStaleSince: since))
        case (.current, .stale(let since)):
            guard let commit = info?.sourceCommit else {
                throw ConflictError(
                    "release \(rollout.release), being rolled out, is stale since \(since) but the live release \(live) names no commit to rebuild; publish with --rev",
                    ko: "단계적으로 배포 중인 릴리스 \(rollout.release)은(는) \(since)부터 오래된 상태인데 라이브 릴리스 \(live)에는 다시 빌드할 커밋이 없습니다; --rev로 게시하세요")
            }
            return .stale(commit: commit, halting: HaltedRollout(release: rollout.release, rolloutID: rollout.id, staleSince: since, liveStaleSince: nil))
        case (.current(let why), .current(let day)):
            return .current(
                why
                    + Message(
                        "; release \(rollout.release), being rolled out, is current until \(day.adding(days: -1))",
                        ko: "; 단계적으로 배포 중인 릴리스 \(rollout.release)은(는) \(day.adding(days: -1))까지 최신입니다"))
        case (.current(let why), .nothingScheduled):
            return .current(
                why
                    + Message(
                        "; release \(rollout.release), being rolled out, has nothing scheduled after \(rolled.asOf)",
                        ko: "; 단계적으로 배포 중인 릴리스 \(rollout.release)에는 \(rolled.asOf) 이후에 시행 예정인 것이 없습니다"))
        }
    }

    /// A publish dated by the clock must not go back in time: a date before the live release's
    /// as-of date means the clock is wrong (or the publish is meant to turn back what is
    /// current, which is said with --as-of).
    static func checkClock(_ asOf: Day, explicit: Bool, live: String?, info: ReleaseInfo?, name: String) throws {
        guard !explicit, let live, let info, let liveDay = Day(info.asOf), asOf < liveDay else { return }
        throw RefusedError(
            "today in Asia/Seoul (\(asOf)) is before the as-of date of the release live on \(name) (\(live), as of \(liveDay)): is this machine's clock set back? Nothing was published. To publish as of an earlier date on purpose, say so with --as-of \(asOf)",
            ko: "오늘(Asia/Seoul 기준 \(asOf))이 \(name)의 라이브 릴리스(\(live), 기준일 \(liveDay))의 기준일보다 앞섭니다: 이 컴퓨터의 시계가 뒤로 맞춰져 있지 않나요? 아무것도 게시하지 않았습니다. 일부러 이전 날짜 기준으로 게시하려면 --as-of \(asOf)로 밝히세요"
        )
    }

    enum Staleness {
        case current(Message)
        /// Stale: the commit to rebuild, and the rollout to halt first (nil: none is open).
        case stale(commit: ObjectID, halting: HaltedRollout?)
    }

    /// Whether the live release has gone stale by `asOf` (`ifStale`).
    static func staleness(live: String?, info: ReleaseInfo?, asOf: Day) throws -> Staleness {
        guard let live else { return .current(Message("nothing is live yet (--if-stale only refreshes what is live)", ko: "아직 라이브인 것이 없습니다 (--if-stale은 라이브인 것만 새로 빌드합니다)")) }
        guard let info else {
            throw OperationalError("the live release \(live)'s version.json cannot be read; run 'ratecard verify'", ko: "라이브 릴리스 \(live)의 version.json을 읽을 수 없습니다; 'ratecard verify'를 실행하세요")
        }
        let from: Day
        switch Freshness(info, asOf: asOf) {
        case .nothingScheduled:
            return .current(Message("release \(live) has nothing scheduled after \(info.asOf)", ko: "릴리스 \(live)에는 \(info.asOf) 이후에 시행 예정인 것이 없습니다"))
        case .current(let day):
            return .current(
                Message(
                    "release \(live) is current until \(day.adding(days: -1)) (something scheduled takes effect on \(day))",
                    ko: "릴리스 \(live)은(는) \(day.adding(days: -1))까지 최신입니다 (\(day)에 시행 예정인 것이 있습니다)"))
        case .stale(let since): from = since
        }
        guard let commit = info.sourceCommit else {
            throw ConflictError("release \(live) is stale since \(from) but names no commit to rebuild; publish with --rev", ko: "릴리스 \(live)은(는) \(from)부터 오래된 상태인데 다시 빌드할 커밋이 없습니다; --rev로 게시하세요")
        }
        return .stale(commit: commit, halting: nil)
    }
}

extension PublishFlow.Result {
    /// The result with `outcome`.
    func ending(_ outcome: PublishFlow.Outcome) -> Self {
        var result = self
        result.outcome = outcome
        return result
    }
}

/// "Is the work tree committed?": it walks the whole work tree, so it starts first and runs
/// beside the other steps; it is answered before anything is written, and before any other
/// refusal or error is reported.
final class CleanTree {
    private let check: Background<[String]>?
    private var answer: [String]?

    /// `needed`: HEAD is published from a work tree (a named revision, or `--if-stale`, which
    /// rebuilds the live release's commit, never reads the work tree).
    init(_ location: ContentLocation, needed: Bool) throws {
        check = needed && location.contentDir != nil ? try location.uncommittedContentFilesInBackground() : nil
    }

    /// The content files not committed (empty when none, or when not needed).
    func uncommitted() throws -> [String] {
        if let answer { return answer }
        let paths = try check?.join() ?? []
        Trace.mark("publish: git status joined")
        answer = paths
        return paths
    }
}
