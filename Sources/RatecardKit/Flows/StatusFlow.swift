import RatecardCore
import RatecardOutput
import RatecardSupport

/// `status`: what is live in one environment, since when and by whose hand, whether its record
/// matches its seal, whether what is served beside the pointer follows it, when scheduled
/// content makes it stale, and what its live.json says. A constant number of reads: the files
/// themselves are `verify`'s to check.
public struct StatusFlow {
    /// One environment with something live.
    public struct Status {
        public var live: String
        /// Its version.json.
        public var info: ReleaseInfo
        /// The activation that made it live, nil when the journal does not say.
        public var since: JournalState.Activation?
        /// The approval of a risky change it was published with.
        public var approval: String?
        /// Its record against its seal, and what is served beside the pointer, in words (empty:
        /// as published).
        public var drift: [Message]
        public var freshness: Freshness
        /// Its live.json, nil when there is none.
        public var statement: LiveStatements.Summary?
        /// The journal's damaged lines, each named by the environment.
        public var warnings: [Message]
        /// The journal as replayed (its rollout, for `status`).
        public var journal: JournalState
        /// The version.json of the release being rolled out, and its freshness on the day asked
        /// about: `publish --if-stale` refreshes live (halting the rollout) when it is stale.
        /// Nil when no rollout is in progress, or its version.json cannot be read.
        public var rollout: (info: ReleaseInfo, freshness: Freshness)? = nil
        /// How live.json names the environment (the selector its summary is shown with).
        public var statementEnvironment = ""
    }

    public var destination: Destination
    /// How the environment is named on a command line (`--env staging`, `--root DIR`), for the
    /// commands a problem's message suggests.
    public var selector: String

    public init(destination: Destination, selector: String) {
        self.destination = destination
        self.selector = selector
    }

    /// The status on `asOf`, `now` seconds since the epoch; nil when nothing has been published.
    public func run(asOf: Day, now: Int) throws -> Status? {
        let (root, name) = (destination.store, destination.name)
        guard let live = try root.live() else { return nil }
        let info = try root.info(of: live)
        let journal = try root.journalLog.state()
        let warnings = journal.warnings.map { .verbatim("\(name): ") + $0 }
        // The live version.json against the seal journaled when every file was verified.
        let sealProblems = try root.sealProblems(of: live)
        // No seal because the flip to it was never journaled (a command killed between the two),
        // not because it predates seals.
        let unjournaled = sealProblems == nil && journal.lastActivated != live
        let noSeal =
            unjournaled
            ? Message(
                "the flip to \(live) is not in the journal (a command was stopped between the flip and its journal entry); run 'ratecard repair \(selector)', then 'ratecard verify'",
                ko: "\(live)(으)로의 전환이 저널에 없습니다 (전환과 저널 기록 사이에 명령이 멈췄습니다); 'ratecard repair \(selector)'를 실행한 다음 'ratecard verify'를 실행하세요")
            : Message("no seal in the journal (published before seals); run 'ratecard verify'", ko: "저널에 봉인이 없습니다 (봉인 도입 전에 게시됨); 'ratecard verify'를 실행하세요")
        let sealDrift = sealProblems?.map(Self.driftText) ?? [noSeal]
        let drift: [Message] =
            sealDrift
            + (try BridgeLines.servedStaleness(root: root)).filter { stale in !sealDrift.contains { $0.english == stale.english } }.map {
                $0 + Message(" (run 'ratecard repair \(selector)')", ko: " ('ratecard repair \(selector)'을(를) 실행하세요)")
            }
        var status = Status(
            live: live, info: info, since: journal.activations(of: live).last, approval: journal.publications[live]?.approval?.reason, drift: drift,
            freshness: Freshness(info, asOf: asOf), statement: try LiveStatements.summary(root: root, now: now), warnings: warnings,
            journal: journal)
        status.statementEnvironment = LiveStatements.environment(of: root)
        if let rollout = journal.rollout, rollout.release != live, let rolled = try? root.info(of: rollout.release) {
            status.rollout = (rolled, Freshness(rolled, asOf: asOf))
        }
        return status
    }

    /// The release each app version the environment supports loads (`bridge-lines.json`; nil:
    /// none it can run), in the order ratecard.yaml lists them; empty when it lists none.
    public func apps() -> [(app: ServiceConfig.AppVersion, release: String?)] {
        guard !destination.apps.isEmpty else { return [] }
        let lines = (try? BridgeLines.read(root: destination.store)) ?? [:]
        return destination.apps.map { ($0, BridgeLines.release(for: $0.bridge, in: lines)?.release) }
    }

    /// One problem `verify` or `status` found with a release's files (`missing: path`,
    /// `changed object: path`, as the store words them), in words.
    public static func driftText(_ problem: String) -> Message {
        let kinds: [(String, (String) -> Message)] = [
            ("missing object: ", { Message("missing object: \($0)", ko: "오브젝트 없음: \($0)") }), ("changed object: ", { Message("changed object: \($0)", ko: "오브젝트 바뀜: \($0)") }),
            ("missing: ", { Message("missing: \($0)", ko: "없음: \($0)") }), ("changed: ", { Message("changed: \($0)", ko: "바뀜: \($0)") }),
            ("unlisted: ", { Message("unlisted: \($0)", ko: "목록에 없는 파일: \($0)") }),
        ]
        for (prefix, text) in kinds where problem.hasPrefix(prefix) { return text(String(problem.dropFirst(prefix.count))) }
        return .verbatim(problem)
    }
}
