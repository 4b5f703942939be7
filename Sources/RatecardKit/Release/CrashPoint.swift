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
        "locked", "recovered", "staged", "files-written", "version-written", "synced", "verified",
        "renamed", "linked", "swapped", "journaled",
    ]

    static func hit(_ step: String) {
        if target == step { kill(getpid(), SIGKILL) }
    }
}
