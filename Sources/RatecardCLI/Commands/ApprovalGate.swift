import RatecardKit

/// The rule for protected environments: risky changes need `--approve "reason"`.
enum ApprovalGate {
    /// A refusal: the risky changes were listed; exit 1, nothing changed.
    struct Refused: Error, CustomStringConvertible {
        var description: String
    }

    /// The semantic diff from what is live in `root` to `next`, when live came from a commit we can read.
    static func liveDiff(root: ServeRoot, location: ContentLocation, next: Content, asOf: Day) throws -> SemanticDiff? {
        guard let live = try root.live(),
              let commit = try ReleaseInfo.read(from: root.folder(of: live)).sourceCommit,
              location.repository != nil else { return nil }
        let run = ValidationRun(location: location, context: ValidationContext(asOf: asOf))
        guard let before = try? run.content(at: commit) else { return nil }
        return SemanticDiff.between(before, next, asOf: asOf)
    }

    /// Journal fields recording the approval, or a refusal listing the risks.
    static func check(_ diff: SemanticDiff, threshold: Percent, environment: String, approval: String?, console: Console) throws -> [String: JSON] {
        let risks = diff.risks(threshold: threshold)
        guard !risks.isEmpty else { return [:] }
        guard let approval, !approval.isEmpty else {
            throw Refused(description: "\(environment) is protected and this change is risky:\n" + risks.map { "  - \($0)\n" }.joined() + "Re-run with --approve \"reason\" to ship it anyway; the approval is recorded in the journal.")
        }
        console.err("Approved risky change for \(environment): \(approval)\n")
        return ["approval": .object(["reason": .string(approval), "by": .string(ProcessUser.name), "risks": .array(risks.map(JSON.string))])]
    }
}
