import RatecardCore
import RatecardOutput
import RatecardRelease
import RatecardSupport

/// The rule for protected environments: risky changes need `--approve "reason"`.
///
/// The gate judges every change a release will show on any day it can be live: the change from
/// what is live now, and the changes it shows later, when a rate table it holds takes effect or
/// ends (`publish --if-stale` rebuilds it on those days). The approval is asked for when the
/// release is published and journaled with it, scheduled changes each with its day and values,
/// so that on that day `publish --if-stale` finds the approval instead of refusing.
///
/// The gate fails closed: when the risk of a change cannot be computed (the live release names
/// no commit, its commit is not in this clone, its version.json no longer matches the seal
/// journaled when it was published, the content cannot be read), a protected environment
/// refuses it like a risky change, and an approval records that it went unchecked.
public enum ApprovalGate {
    /// A refusal: the risky changes were listed; exit 1, nothing changed.
    public struct Refused: ErrorText, CustomStringConvertible {
        public var text: Message
        public var description: String { text.english }
    }

    /// What is known of the change from what is live to what is next.
    public enum LiveDiff {
        /// Nothing is live: there is nothing to compare with.
        case nothingLive
        case diff(SemanticDiff)
        /// The diff could not be computed, and why.
        case unknown(Message)

        public var semantic: SemanticDiff? {
            if case .diff(let diff) = self { return diff }
            return nil
        }
    }

    /// The semantic diff from what is live in `root` to `next`. The live release's version.json
    /// says which commit is live; it is used only when it still matches the seal journaled when
    /// the release was published.
    public static func liveDiff(root: any ReleaseStore, location: ContentLocation?, next: Content, asOf: Day, caches: Caches) -> LiveDiff {
        let commit: ObjectID
        let liveAsOf: Day?
        do {
            guard let live = try root.live() else { return .nothingLive }
            let info: ReleaseInfo
            switch try root.sealedRecord(of: live) {
            case .sealed(let record): info = record
            case .unsealed:
                return .unknown(
                    Message(
                        "the journal holds no seal for the live release \(live), so its version.json, which names the live commit, cannot be checked",
                        ko: "저널에 라이브 릴리스 \(live)의 봉인이 없어, 라이브 커밋을 가리키는 version.json을 확인할 수 없습니다"))
            case .broken:
                return .unknown(
                    Message(
                        "the live release \(live)'s version.json does not match the seal journaled when it was published (it was changed since), so the commit it names is not trusted",
                        ko: "라이브 릴리스 \(live)의 version.json이 게시할 때 저널에 기록된 봉인과 맞지 않아 (그 뒤에 바뀌었습니다), 그 파일이 가리키는 커밋을 믿을 수 없습니다"))
            }
            guard let named = info.sourceCommit else {
                return .unknown(Message("the live release \(live) names no source commit", ko: "라이브 릴리스 \(live)에는 원본 커밋이 없습니다"))
            }
            commit = named
            liveAsOf = Day(info.asOf)
        } catch {
            let why = Message.of(error)
            return .unknown(Message("the live release cannot be read (\(why))", ko: "라이브 릴리스를 읽을 수 없습니다 (\(why))"))
        }
        guard let location, location.repository != nil else {
            return .unknown(Message("there is no git repository here to read the live commit \(commit.short) from", ko: "라이브 커밋 \(commit.short)을(를) 읽을 git 저장소가 여기에 없습니다"))
        }
        let run = ValidationRun(location: location, context: ValidationContext(asOf: asOf), caches: caches)
        do {
            let before = try run.content(of: commit)
            return .diff(SemanticDiff.between(before, next, asOf: asOf, oldAsOf: liveAsOf))
        } catch {
            let why = Message.of(error)
            return .unknown(
                Message(
                    "the live commit \(commit.short) cannot be read from this clone (\(why)); in a shallow clone fetch it with 'git fetch --unshallow' (CI: a checkout with full history)",
                    ko: "라이브 커밋 \(commit.short)을(를) 이 클론에서 읽을 수 없습니다 (\(why)); 얕은 클론이라면 'git fetch --unshallow'로 가져오세요 (CI: 전체 이력을 체크아웃)"))
        }
    }

    /// The risk of a first release to a protected environment.
    public static let firstRelease = Message(
        "nothing is live yet: this first release makes all of its content live at once, with nothing to compare it with",
        ko: "아직 라이브인 것이 없습니다: 이 첫 릴리스는 비교할 대상 없이 모든 콘텐츠를 한꺼번에 라이브로 만듭니다")

    /// A change a protected environment asks an approval for.
    public struct Risk: Sendable, Equatable {
        /// What the change is, for a person.
        public var message: Message
        /// The English text, as the journal records it.
        public var text: String { message.english }
        /// The change value for value (`identity(of:)`), when it can be matched with an approval
        /// given before; nil for what no earlier approval can cover.
        public var identity: String?
        /// The day a scheduled change takes effect; nil for a change shown from the publish on.
        public var from: Day?
    }

    /// Every risk of making `next` live as of `asOf`: the risky changes of `diff` (from what is
    /// live), or why they are unknown, then those `next` shows on the later days on which its
    /// scheduled rate tables take effect or end, each against the day before.
    public static func risks(_ diff: LiveDiff, next: Content?, asOf: Day, threshold: Percent) -> [Risk] {
        var risks: [Risk] = []
        switch diff {
        case .nothingLive:
            // A first release has nothing to be compared with: every partner, rate table and terms
            // document goes live at once, unreviewed against anything. It needs an approval.
            risks.append(Risk(message: Self.firstRelease, identity: nil, from: nil))
        case .diff(let semantic):
            for change in semantic.changes {
                if let text = change.isRisky(threshold: threshold) { risks.append(Risk(message: text, identity: identity(of: change), from: nil)) }
            }
        case .unknown(let reason):
            risks.append(
                Risk(message: Message("the change could not be checked for risks: \(reason)", ko: "변경의 위험을 확인하지 못했습니다: \(reason)"), identity: nil, from: nil))
        }
        if let next {
            for (day, change) in SemanticDiff.scheduled(next, after: asOf) {
                guard let text = change.isRisky(threshold: threshold) else { continue }
                risks.append(Risk(message: Message("scheduled from \(day): \(text)", ko: "\(day)부터 시행 예정: \(text)"), identity: identity(of: change), from: day))
            }
        }
        return risks
    }

    /// What a change is, value for value, for matching it with an approval journaled before: a
    /// band's product, bounds and every value before and after. Nil for other changes.
    public static func identity(of change: SemanticChange) -> String? {
        guard case .bandChanged(let band) = change else { return nil }
        return
            "\(band.key) \(band.scale.describe(band.min, band.max).english): apr_min_pct \(band.aprMin.old) to \(band.aprMin.new), apr_max_pct \(band.aprMax.old) to \(band.aprMax.new), limit_max_krw \(band.limit.old) to \(band.limit.new)"
    }

    /// An approval for a risky change: what the journal records, and the risks it covered.
    public struct Approval {
        public var reason: String
        public var by: String
        public var risks: [String]
        /// The scheduled changes approved with the release (`Risk.from` set).
        public var scheduled: [Risk]
        /// Releases whose journaled approvals covered risks of this one.
        public var approvedIn: [String]

        /// The journal's `approval` field.
        public var fields: [String: JSON] {
            var approval: [String: JSON] = ["reason": .string(reason), "by": .string(by), "risks": .array(risks.map(JSON.string))]
            if !scheduled.isEmpty {
                approval["scheduled"] = .array(
                    scheduled.compactMap { risk in
                        guard let day = risk.from, let identity = risk.identity else { return nil }
                        return .object(["from": .string(day.description), "change": .string(identity), "risk": .string(risk.text)])
                    })
            }
            if !approvedIn.isEmpty { approval["approved_in"] = .array(approvedIn.map(JSON.string)) }
            return ["approval": .object(approval)]
        }

        /// For a person: the reason, and where it was given when it was carried from earlier.
        public var summary: Message {
            let releases = approvedIn.joined(separator: ", ")
            return approvedIn.isEmpty
                ? .verbatim(reason) : Message("\(reason) (approved with release \(releases))", ko: "\(reason) (릴리스 \(releases)과(와) 함께 승인됨)")
        }
    }

    /// The approval a change needs and was given (nil when it needs none), or a refusal listing
    /// the risks (or why they are unknown). `journal` holds the target's entries: a scheduled
    /// change approved with an earlier release (the same product, band and values, the same day)
    /// needs no second approval, and on or after its day neither does the change itself (what
    /// `publish --if-stale` makes live), so the approval is carried into this release's entry.
    /// A rate move is risky from `rate_move_warn_pp` in ratecard.yaml (3 points when unset).
    public static func check(_ diff: LiveDiff, next: Content?, asOf: Day, environment: String, approval: String?, journal: JournalState) throws(Refused) -> Approval? {
        let threshold = next?.config?.rateMoveWarn ?? Percent(thousandths: 3000)
        let risks = risks(diff, next: next, asOf: asOf, threshold: threshold)
        guard !risks.isEmpty else { return nil }
        var uncovered: [Risk] = []
        var covering: [(release: String?, approval: Journal.Approval)] = []
        for risk in risks {
            if let found = cover(risk, asOf: asOf, journal: journal) { covering.append(found) } else { uncovered.append(risk) }
        }
        let scheduled = risks.filter { $0.from != nil }
        var approvedIn: [String] = []
        for release in covering.compactMap(\.release) where !approvedIn.contains(release) { approvedIn.append(release) }
        if uncovered.isEmpty, let latest = covering.last {
            return Approval(reason: latest.approval.reason, by: latest.approval.by ?? "", risks: risks.map(\.text), scheduled: scheduled, approvedIn: approvedIn)
        }
        guard let approval, !approval.isEmpty else {
            var text =
                Message("\(environment) is protected and this change is risky:\n", ko: "\(environment)은(는) 보호된 환경이고 이 변경에는 위험이 있습니다:\n")
                + uncovered.map { Message.verbatim("  - ") + $0.message + .verbatim("\n") }.joined(separator: "")
            if uncovered.contains(where: { $0.from != nil }) {
                text += Message(
                    "Re-run with --approve \"reason\" to ship it anyway; the approval is recorded in the journal, with the scheduled changes, which 'publish --if-stale' then makes live on their day.",
                    ko: "그래도 내보내려면 --approve \"사유\"를 붙여 다시 실행하세요; 승인은 시행 예정 변경과 함께 저널에 기록되고, 'publish --if-stale'이 그날 라이브로 만듭니다.")
            } else {
                text += Message(
                    "Re-run with --approve \"reason\" to ship it anyway; the approval is recorded in the journal.",
                    ko: "그래도 내보내려면 --approve \"사유\"를 붙여 다시 실행하세요; 승인은 저널에 기록됩니다.")
            }
            throw Refused(text: text)
        }
        return Approval(reason: approval, by: ProcessUser.name, risks: risks.map(\.text), scheduled: scheduled, approvedIn: approvedIn)
    }

    /// The latest journaled approval of `risk`'s change as a scheduled one: for the same day, or
    /// (for a change made live now) for a day that has come.
    static func cover(_ risk: Risk, asOf: Day, journal: JournalState) -> (release: String?, approval: Journal.Approval)? {
        guard let identity = risk.identity else { return nil }
        for (release, approval) in journal.scheduledApprovals.reversed() {
            guard let scheduled = approval.scheduled else { continue }
            let matches = scheduled.contains { item in
                guard item.change == identity, let day = Day(item.from) else { return false }
                return risk.from.map { $0 == day } ?? (day <= asOf)
            }
            if matches { return (release, approval) }
        }
        return nil
    }
}
