import RatecardCore
import RatecardOutput
import RatecardSupport

/// `publish`: validate, build and stage a release, then swap it live atomically.
///
/// The steps, in the order a refusal is reported: is the work tree committed, is the clock
/// sane, is anything stale (`ifStale`), is the web build's use of the native bridge valid and
/// runnable by every supported app version, is the content valid, is a risky change to a
/// protected environment approved. Only then is anything written; a refusal changes nothing.
public struct PublishFlow {
    /// Which web build ships with the bundle.
    public enum Web {
        /// `web:` in ratecard.yaml, else `../site` beside the content.
        case configured
        case folder(String)
        /// The bundle alone: the release serves data and pages only.
        case none
    }

    public struct Options {
        /// The environment's name (or the root as given), for messages and the journal.
        public var environment: String
        public var root: any ReleaseStore
        public var protected: Bool
        /// The app versions the environment supports (the bridge gate).
        public var apps: [ServiceConfig.AppVersion]
        /// The commit to publish; nil for HEAD, whose content must be committed.
        public var revision: String?
        /// Only when something scheduled has taken effect since the live release was built:
        /// then the live release's own commit is rebuilt as of `asOf`.
        public var ifStale: Bool
        public var web: Web
        public var asOf: Day
        /// Whether `asOf` was given (`--as-of`), not read from the clock.
        public var asOfExplicit: Bool
        public var expectLive: String?
        public var message: String
        public var dryRun: Bool
        public var approval: String?
        public var wait: Bool
        /// The run's caches.
        public var caches: Caches
        /// Publish a commit whose parent is not in this shallow clone, its history rules skipped
        /// (`--allow-shallow`); without it such a publish is refused (exit 4).
        public var allowShallow = false

        public init(
            environment: String, root: any ReleaseStore, protected: Bool, apps: [ServiceConfig.AppVersion], revision: String?, ifStale: Bool, web: Web, asOf: Day,
            asOfExplicit: Bool, expectLive: String?, message: String, dryRun: Bool, approval: String?, wait: Bool, caches: Caches, allowShallow: Bool = false
        ) {
            self.environment = environment
            self.root = root
            self.protected = protected
            self.apps = apps
            self.revision = revision
            self.ifStale = ifStale
            self.web = web
            self.asOf = asOf
            self.asOfExplicit = asOfExplicit
            self.expectLive = expectLive
            self.message = message
            self.dryRun = dryRun
            self.approval = approval
            self.wait = wait
            self.allowShallow = allowShallow
            self.caches = caches
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
    }

    public var location: ContentLocation
    public var options: Options

    public init(location: ContentLocation, options: Options) {
        self.location = location
        self.options = options
    }

    /// Runs the publish. Throws `ApprovalGate.Refused` for an unapproved risky change,
    /// `ConflictError` when the lock is held or `expectLive` is not live, and other errors for
    /// I/O failures; in each case the live release is unchanged.
    public func run(events: (FlowEvent) -> Void = { _ in }) throws -> Result {
        Trace.mark("publish: started")
        let root = options.root
        let run = BundleRun(location: location, asOf: options.asOf, caches: options.caches, allowShallow: options.allowShallow)
        var revision = options.revision ?? "HEAD"
        var result = Result(outcome: .current(.verbatim("")), revision: revision)
        // "Is the work tree committed?" walks the whole work tree: it starts first, runs beside
        // the rest, and is answered before anything is reported or written. (`ifStale` rebuilds
        // the live release's commit, never the work tree.)
        var dirtyCheck: Background<[String]>?
        if options.revision == nil, !options.ifStale, location.contentDir != nil {
            dirtyCheck = try location.uncommittedContentFilesInBackground()
        }
        // What is live, read once for the checks before the lock (the publisher reads it again
        // under the lock): a large site's version.json lists every file.
        let live = try root.live()
        let liveInfo = live.flatMap { try? root.info(of: $0) }
        try Self.checkClock(options.asOf, explicit: options.asOfExplicit, live: live, info: liveInfo, name: options.environment)
        if options.ifStale {
            // The commit rebuilt is the one the live record names: only while it matches its seal.
            if let live, case .broken = try root.sealedRecord(of: live) {
                throw RefusedError(
                    "the live release \(live)'s version.json does not match the seal journaled when it was published (it was changed since); --if-stale rebuilds the commit it names, so nothing was published; publish a reviewed commit with --rev, or roll back to a release that matches its seal",
                    ko: "라이브 릴리스 \(live)의 version.json이 게시할 때 저널에 기록된 봉인과 맞지 않습니다 (그 뒤에 바뀌었습니다); --if-stale은 그 파일이 가리키는 커밋을 다시 빌드하므로 아무것도 게시하지 않았습니다; 검토한 커밋을 --rev로 게시하거나, 봉인과 맞는 릴리스로 롤백하세요"
                )
            }
            switch try Self.staleness(live: live, info: liveInfo, asOf: options.asOf) {
            case .current(let text):
                result.outcome = .current(text)
                return result
            case .stale(let commit):
                // The live release's own commit, as of today: a timer never ships unreviewed HEAD.
                if options.revision == nil { revision = commit.hex }
            }
        }
        result.revision = revision
        Trace.mark("publish: content found")
        // The everyday rate update builds onto the live bundle (only the changed products are
        // read, checked and rendered); the semantic diff of a dry run and protected roots, and
        // every other change, take the full build. Its outcome is reported after the checks
        // below, in their order.
        var built: (output: BundleBuilder.Output, commit: ObjectID?, content: Content?)?
        var scheduledInChanged: Day?
        var rendered: Swift.Result<BundleRun.Outcome, any Error>?
        // The live bundle is read from the store, a folder or a bucket alike: only the files the
        // build splices are read.
        if !options.dryRun, !options.protected, let live, let repository = location.repository,
            let commit = try? repository.resolveCommit(revision),
            case .built(let output, let products, let scheduled)? = IncrementalBundle(location: location, asOf: options.asOf, caches: options.caches).build(
                commit: commit, root: root, live: live, known: liveInfo)
        {
            built = (output, commit, nil)
            result.builtOntoLive = products
            scheduledInChanged = scheduled
        } else {
            rendered = Swift.Result { try run.render(revision: revision) }
        }
        // "Is the work tree committed?" is answered when its answer is due: just before the staged
        // release is written (the web build, the bridge, the validation and the staging run beside
        // it), or before any other outcome or error is reported, which it comes first of.
        guard let dirtyCheck else {
            return try proceed(result: result, built: built, rendered: rendered, run: run, liveInfo: liveInfo, scheduledInChanged: scheduledInChanged, beforeWriting: nil, events: events)
        }
        var answer: [String]?
        func uncommitted() throws -> [String] {
            if let answer { return answer }
            let paths = try dirtyCheck.join()
            Trace.mark("publish: git status joined")
            answer = paths
            return paths
        }
        struct Uncommitted: Error { var paths: [String] }
        var refused = result
        do {
            let proceeded = try proceed(
                result: result, built: built, rendered: rendered, run: run, liveInfo: liveInfo, scheduledInChanged: scheduledInChanged,
                beforeWriting: {
                    let paths = try uncommitted()
                    if !paths.isEmpty { throw Uncommitted(paths: paths) }
                }, events: events)
            if case .published = proceeded.outcome { return proceeded }
            let paths = try uncommitted()
            if paths.isEmpty { return proceeded }
            refused.outcome = .uncommitted(paths)
        } catch let error as Uncommitted {
            refused.outcome = .uncommitted(error.paths)
        } catch {
            let paths = try uncommitted()
            if paths.isEmpty { throw error }
            refused.outcome = .uncommitted(paths)
        }
        return refused
    }

    /// The rest of `run` once the build is under way: every step after the dirty check's start.
    private func proceed(
        result: Result, built: (output: BundleBuilder.Output, commit: ObjectID?, content: Content?)?, rendered: Swift.Result<BundleRun.Outcome, any Error>?,
        run: BundleRun, liveInfo: ReleaseInfo?, scheduledInChanged: Day?, beforeWriting: (() throws -> Void)?, events: (FlowEvent) -> Void
    ) throws -> Result {
        var result = result
        var built = built
        let root = options.root
        // A release without the web app leaves the app's screens blank: only on request.
        let web: String?
        switch options.web {
        case .none: web = nil
        case .configured: web = try run.webFolder(override: nil)
        case .folder(let path): web = try run.webFolder(override: path)
        }
        // The native bridge: refused when an app version this environment supports lacks a call.
        let bridge = try BridgeGate.check(web: web, repositoryRoot: location.repository?.workdir, apps: options.apps, environment: options.environment, cache: options.caches.build)
        switch bridge {
        case .invalid, .refused:
            result.outcome = .bridge(bridge)
            return result
        case .unused, .allowed: break
        }
        Trace.mark("publish: web folder and bridge checked")
        if let rendered {
            switch try rendered.get() {
            case .invalid(let report):
                result.outcome = .invalid(report)
                return result
            case .built(let output, let snapshot):
                built = (output, snapshot.commit, snapshot.content)
            }
        }
        guard let built else { throw OperationalError("nothing was built", ko: "아무것도 빌드하지 않았습니다") }
        result.bundleID = built.output.manifest.bundleID
        result.commit = built.commit
        var author = ProcessUser.name
        if let commit = built.commit, let repository = location.repository, let info = try? repository.commitInfo(commit) {
            author = "\(info.authorName) <\(info.authorEmail)>"
        }
        // A protected environment is gated against the release live now; the swap must still find
        // that release live (another publish in between was never gated against this change).
        var expectLive = options.expectLive
        if options.protected, expectLive == nil { expectLive = try root.live() ?? "none" }
        // The semantic diff against live reads the live commit's content: only when it is shown or gates.
        if let next = built.content, options.dryRun || options.protected {
            let diff = ApprovalGate.liveDiff(root: root, location: location, next: next, asOf: options.asOf, caches: options.caches)
            events(.liveDiff(diff))
            if options.protected {
                let threshold = next.config?.rateMoveWarn ?? Percent(thousandths: 3000)
                result.approval = try ApprovalGate.check(
                    diff, next: next, asOf: options.asOf, threshold: threshold, environment: options.environment, approval: options.approval,
                    journal: try root.journalLog.state())
                if let approval = result.approval { events(.approved(approval)) }
            }
        }
        // What is scheduled next: from the content; for a build onto the live bundle, the earlier
        // of the live release's record and the dates in the tables re-read. An edit that drops a
        // date can only make that early (a republish that changes nothing), never late.
        let staleFrom: Day?
        if let content = built.content {
            staleFrom = content.nextScheduledChange(after: options.asOf)
        } else {
            let recorded = liveInfo?.staleFrom.flatMap(Day.init)
            staleFrom = [recorded, scheduledInChanged].compactMap { $0 }.min()
        }
        var request = Publisher.Request(
            bundle: built.output, webFolder: web, author: author, message: options.message,
            expectLive: expectLive, wait: options.wait, extra: result.approval?.fields ?? [:], staleFrom: staleFrom)
        request.bridge = bridge.requirement?.json
        request.knownLive = liveInfo
        request.beforeWriting = beforeWriting
        let publisher = Publisher(root: root)
        if options.dryRun {
            let (plan, live) = try publisher.plan(request)
            result.outcome = .dryRun(plan: plan, live: live)
            return result
        }
        let outcome = try publisher.publish(request, onWait: { events(.waiting($0)) })
        result.outcome = .published(outcome)
        return result
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
        case stale(commit: ObjectID)
    }

    /// Whether the live release has gone stale by `asOf` (`ifStale`).
    static func staleness(live: String?, info: ReleaseInfo?, asOf: Day) throws -> Staleness {
        guard let live else { return .current(Message("nothing is live yet (--if-stale only refreshes what is live)", ko: "아직 라이브인 것이 없습니다 (--if-stale은 라이브인 것만 새로 빌드합니다)")) }
        guard let info else {
            throw OperationalError("the live release \(live)'s version.json cannot be read; run 'ratecard verify'", ko: "라이브 릴리스 \(live)의 version.json을 읽을 수 없습니다; 'ratecard verify'를 실행하세요")
        }
        guard let from = info.staleFrom.flatMap(Day.init) else {
            return .current(Message("release \(live) has nothing scheduled after \(info.asOf)", ko: "릴리스 \(live)에는 \(info.asOf) 이후에 시행 예정인 것이 없습니다"))
        }
        guard from <= asOf else {
            return .current(
                Message(
                    "release \(live) is current until \(from.adding(days: -1)) (something scheduled takes effect on \(from))",
                    ko: "릴리스 \(live)은(는) \(from.adding(days: -1))까지 최신입니다 (\(from)에 시행 예정인 것이 있습니다)"))
        }
        guard let commit = info.sourceCommit else {
            throw ConflictError("release \(live) is stale since \(from) but names no commit to rebuild; publish with --rev", ko: "릴리스 \(live)은(는) \(from)부터 오래된 상태인데 다시 빌드할 커밋이 없습니다; --rev로 게시하세요")
        }
        return .stale(commit: commit)
    }
}
