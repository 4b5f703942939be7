import RatecardCore
import RatecardOutput
import RatecardRelease
import RatecardSupport

/// `promote`: ship a release (the same files) to another environment, where it takes that
/// environment's next sequence number and records the id it came from.
///
/// The release must run on every app version the target supports, and a protected target
/// gates it against what is live there now, failing closed when that cannot be computed.
public struct PromoteFlow {
    public struct Options {
        /// Where the release is promoted from.
        public var source: (name: String, store: any ReleaseStore)
        public var destination: Destination
        public var change: ChangeRequest
        /// The release to promote; nil for what is live in the source.
        public var release: String?
        /// The date the semantic diff compares on.
        public var asOf: Day
        /// The run's caches (the promoted and the live commit are read through them).
        public var caches: Caches

        public init(source: (name: String, store: any ReleaseStore), destination: Destination, change: ChangeRequest, release: String?, asOf: Day, caches: Caches) {
            self.source = source
            self.destination = destination
            self.change = change
            self.release = release
            self.asOf = asOf
            self.caches = caches
        }
    }

    /// How a promote ended. Every case but `promoted` changed nothing.
    public enum Outcome {
        /// An app version the target supports cannot run the release's web build.
        case bridge(BridgeGate.Verdict)
        case dryRun(release: String, live: String?, plan: ReleasePlan)
        case alreadyLive(release: String)
        case promoted(release: String, previous: String?)
    }

    /// Where the content is read from for the semantic diff (a failure to find it is a reason
    /// the diff is unknown, not an error).
    public var location: Result<ContentLocation, any Error>
    public var options: Options

    public init(location: Result<ContentLocation, any Error>, options: Options) {
        self.location = location
        self.options = options
    }

    /// Runs the promote. Throws `ApprovalGate.Refused` for an unapproved risky change to a
    /// protected target, `ConflictError` when its lock is held or `expectLive` is not live.
    public func run(events: (FlowEvent) -> Void = { _ in }) throws -> Outcome {
        let (source, destination) = (options.source.store, options.destination)
        // The bridge gate: the release's web build must run on every app version the target supports.
        let promoted = try options.release ?? source.live()
        if let promoted, let manifest = try source.manifest(of: promoted), let requirement = try BridgeRequirement.recorded(manifest: manifest) {
            let verdict = BridgeGate.check(requirement, apps: destination.apps, environment: destination.name)
            if case .refused = verdict { return .bridge(verdict) }
        }
        // A bundle a rollback marked bad, in the source or the target, is not shipped again unnoticed.
        var forced: [String: JSON] = [:]
        if let promoted, let bundleID = try? source.info(of: promoted).bundleID {
            let target = destination.store
            forced = try options.change.refuseBadBundle(bundleID, in: [source, target], verb: ("promote", "승격을")) {
                (try? target.live()).flatMap { $0 }.flatMap { try? target.info(of: $0).bundleID }
            }
        }
        let expectLive = try destination.expectedLive(options.change)
        // The approval gate: the semantic diff reads both commits' content, only when it is shown or gates.
        var approval: ApprovalGate.Approval?
        if destination.needsWholeContent(options.change) {
            let (diff, next) = liveDiff()
            approval = try destination.gate(diff, next: next, asOf: options.asOf, change: options.change, events: events)
        }
        if options.change.dryRun {
            guard let id = promoted else { throw ConflictError("\(options.source.name) has nothing live to promote", ko: "\(options.source.name)에는 승격할 라이브 릴리스가 없습니다") }
            return try plan(id)
        }
        var request = ReleaseHistory.Promotion(release: options.release, message: options.change.message)
        request.expectLive = expectLive
        request.wait = options.change.wait
        request.extra = (approval?.fields ?? [:]).merging(["from_env": .string(options.source.name)]) { $1 }.merging(forced) { $1 }
        let result = try ReleaseHistory.promote(request, from: source, to: destination.store, onWarning: { events(.warning($0)) })
        if result.alreadyLive { return .alreadyLive(release: result.id) }
        return .promoted(release: result.id, previous: result.previous)
    }

    /// What a promote of release `id` would change in the target (a dry run).
    private func plan(_ id: String) throws -> Outcome {
        let target = options.destination.store
        let next = try options.source.store.info(of: id)
        let live = try target.live()
        let liveInfo = try live.map { try target.info(of: $0) }
        let liveFiles = liveInfo.map { info in info.files.filter { !info.isCarried($0.path) } } ?? []
        let plan = ReleasePlan.between(live: liveFiles, next: next.files, liveBundle: liveInfo?.bundleID, nextBundle: next.bundleID)
        return .dryRun(release: id, live: live, plan: plan)
    }

    /// The semantic diff from what is live in the target to the release being promoted, and
    /// that release's content (nil when it cannot be read, which makes the diff unknown).
    private func liveDiff() -> (ApprovalGate.LiveDiff, Content?) {
        do {
            guard let id = try options.release ?? options.source.store.live() else { throw OperationalError("the source has nothing live to promote", ko: "원본 환경에 승격할 라이브 릴리스가 없습니다") }
            // The commit the promoted release names, from its record only while that matches its seal.
            let info: ReleaseInfo
            switch try options.source.store.sealedRecord(of: id) {
            case .sealed(let record): info = record
            case .unsealed:
                throw OperationalError(
                    "the journal of \(options.source.name) holds no seal for release \(id), so its version.json, which names its commit, cannot be checked",
                    ko: "\(options.source.name)의 저널에 릴리스 \(id)의 봉인이 없어, 커밋을 가리키는 version.json을 확인할 수 없습니다")
            case .broken:
                throw OperationalError(
                    "release \(id)'s version.json in \(options.source.name) does not match the seal journaled when it was published (it was changed since), so the commit it names is not trusted",
                    ko: "\(options.source.name)의 릴리스 \(id)의 version.json이 게시할 때 저널에 기록된 봉인과 맞지 않아 (그 뒤에 바뀌었습니다), 그 파일이 가리키는 커밋을 믿을 수 없습니다")
            }
            guard let commit = info.sourceCommit else { throw OperationalError("release \(id) names no source commit", ko: "릴리스 \(id)에는 원본 커밋이 없습니다") }
            let location = try location.get()
            guard location.repository != nil else { throw OperationalError("there is no git repository here to read commit \(commit.short) from", ko: "커밋 \(commit.short)을(를) 읽을 git 저장소가 여기에 없습니다") }
            let next: Content
            do {
                next = try ValidationRun(location: location, context: ValidationContext(asOf: options.asOf), caches: options.caches).content(of: commit)
            } catch {
                throw OperationalError(
                    "the promoted commit \(commit.short) cannot be read from this clone (\(error)); in a shallow clone fetch it with 'git fetch --unshallow'",
                    ko: "승격하는 커밋 \(commit.short)을(를) 이 클론에서 읽을 수 없습니다 (\(Message.of(error))); 얕은 클론이라면 'git fetch --unshallow'로 가져오세요")
            }
            return (ApprovalGate.liveDiff(root: options.destination.store, location: location, next: next, asOf: options.asOf, caches: options.caches), next)
        } catch {
            return (.unknown(Message.of(error)), nil)
        }
    }
}
