/// What a publish or promote tells as it goes, before its outcome.
public enum FlowEvent {
    /// Another process holds the root's lock: who, while this one waits.
    case waiting(Message)
    /// The semantic diff from what is live, computed for a dry run or a protected environment
    /// (before the gate refuses or approves).
    case liveDiff(ApprovalGate.LiveDiff)
    /// A risky change to a protected environment was approved.
    case approved(ApprovalGate.Approval)
    /// Something went wrong after the live release changed that does not undo the change.
    case warning(Message)
}
