import RatecardCore
import RatecardOutput
import RatecardSupport

/// The rule for protected environments: risky changes need `--approve "reason"`.
///
/// The gate fails closed: when the risk of a change cannot be computed (the live release names
/// no commit, its commit is not in this clone, the content cannot be read), a protected
/// environment refuses it like a risky change, and an approval records that it went unchecked.
public enum ApprovalGate {
    /// A refusal: the risky changes were listed; exit 1, nothing changed.
    public struct Refused: Error, CustomStringConvertible {
        public var description: String
    }

    /// What is known of the change from what is live to what is next.
    public enum LiveDiff {
        /// Nothing is live: there is nothing to compare with.
        case nothingLive
        case diff(SemanticDiff)
        /// The diff could not be computed, and why.
        case unknown(String)

        public var semantic: SemanticDiff? {
            if case .diff(let diff) = self { return diff }
            return nil
        }
    }

    /// The semantic diff from what is live in `root` to `next`.
    public static func liveDiff(root: any ReleaseTarget, location: ContentLocation?, next: Content, asOf: Day, caches: Caches) -> LiveDiff {
        let commit: ObjectID
        let liveAsOf: Day?
        do {
            guard let live = try root.live() else { return .nothingLive }
            let info = try root.info(of: live)
            guard let named = info.sourceCommit else {
                return .unknown("the live release \(live) names no source commit")
            }
            commit = named
            liveAsOf = Day(info.asOf)
        } catch {
            return .unknown("the live release cannot be read (\(error))")
        }
        guard let location, location.repository != nil else { return .unknown("there is no git repository here to read the live commit \(commit.short) from") }
        let run = ValidationRun(location: location, context: ValidationContext(asOf: asOf), caches: caches)
        do {
            let before = try run.content(of: commit)
            return .diff(SemanticDiff.between(before, next, asOf: asOf, oldAsOf: liveAsOf))
        } catch {
            return .unknown(
                "the live commit \(commit.short) cannot be read from this clone (\(error)); in a shallow clone fetch it with 'git fetch --unshallow' (CI: a checkout with full history)")
        }
    }

    /// An approval given for a risky change: what the journal records, and the risks it covered.
    public struct Approval {
        public var reason: String
        public var risks: [String]

        /// The journal's `approval` field.
        public var fields: [String: JSON] {
            ["approval": .object(["reason": .string(reason), "by": .string(ProcessUser.name), "risks": .array(risks.map(JSON.string))])]
        }
    }

    /// The approval a change needs and was given (nil when it needs none), or a refusal listing
    /// the risks (or why they are unknown).
    public static func check(_ diff: LiveDiff, threshold: Percent, environment: String, approval: String?) throws(Refused) -> Approval? {
        let risks: [String]
        switch diff {
        case .nothingLive: return nil
        case .diff(let semantic): risks = semantic.risks(threshold: threshold)
        case .unknown(let reason): risks = ["the change could not be checked for risks: \(reason)"]
        }
        guard !risks.isEmpty else { return nil }
        guard let approval, !approval.isEmpty else {
            throw Refused(
                description: "\(environment) is protected and this change is risky:\n" + risks.map { "  - \($0)\n" }.joined()
                    + "Re-run with --approve \"reason\" to ship it anyway; the approval is recorded in the journal.")
        }
        return Approval(reason: approval, risks: risks)
    }
}
