import Glibc

/// Named steps of the release protocol. Setting `RATECARD_CRASH_AT=<step>` makes the process
/// kill itself (SIGKILL) right after that step, so tests can prove each step is crash-safe.
public enum CrashPoint {
    private static let target: String? = {
        guard let value = getenv("RATECARD_CRASH_AT") else { return nil }
        return String(cString: value)
    }()

    /// Every named step, in protocol order (publish).
    public static let publishSteps = [
        "locked", "recovered", "objects-written", "objects-synced", "objects-verified", "objects-placed",
        "staged", "files-written", "version-written", "synced", "verified", "renamed", "linked", "swapped", "journaled", "lines-written", "live-written",
    ]

    /// Rollback's steps: the intent journaled, the new link made, swapped, journaled, the bridge lines written, live.json written.
    public static let rollbackSteps = ["intent", "linked", "swapped", "journaled", "lines-written", "live-written"]

    /// Promote's steps: the target recovered, its missing objects put, the release put, swapped.
    public static let promoteSteps = [
        "promote-recovered", "objects-written", "objects-synced", "objects-verified", "objects-placed", "promote-objects",
        "staged", "files-written", "version-written", "synced", "verified", "renamed", "linked", "swapped", "journaled", "lines-written", "live-written",
    ]

    /// Publish on object storage: the lock object made, the journal caught up, the objects
    /// uploaded, the entry files copied, the manifest created, the pointer flipped, journaled.
    public static let s3PublishSteps = ["locked", "recovered", "objects-written", "files-written", "version-written", "swapped", "served", "journaled", "lines-written"]

    /// Rollback on object storage: the intent journaled, the pointer flipped, journaled.
    public static let s3RollbackSteps = ["intent", "swapped", "served", "journaled", "lines-written"]

    /// `rollout`'s steps: locked, recovered, its entry journaled; a completion then flips through
    /// the publish's last steps (a bucket also writes `served`). `publish --rollout` journals its
    /// start (`rollout-journaled`) where a publish would flip.
    public static let rolloutSteps = ["rollout-locked", "rollout-recovered", "rollout-journaled", "swapped", "journaled", "lines-written", "live-written"]

    /// Prune's steps: locked, each release removed, all removed, each object deleted, all
    /// deleted, journaled.
    public static let pruneSteps = [
        "prune-locked", "prune-release-removed", "prune-releases-removed", "prune-object-removed", "prune-objects-removed", "prune-journaled",
    ]

    static func hit(_ step: String) {
        if target == step { kill(getpid(), SIGKILL) }
    }
}
