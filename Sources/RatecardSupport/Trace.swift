import Glibc

/// Phase timings on stderr when `RATECARD_TRACE` is set: where a command's wall time goes
/// (profilers see CPU, not the time spent waiting for the disk).
public enum Trace {
    private static let enabled = getenv("RATECARD_TRACE") != nil
    nonisolated(unsafe) private static var last = now()
    private static let start = now()

    /// Prints the milliseconds since the previous mark on any thread (or the process's first
    /// mark), and since the first.
    public static func mark(_ phase: @autoclosure () -> String) {
        Progress.note(phase())
        guard enabled else { return }
        let time = now()
        let elapsed = (time - last) / 1_000_000
        last = time
        standardError("trace: \(phase()): \(elapsed) ms (at \((time - start) / 1_000_000) ms)\n")
    }

    /// Prints one line without timing (safe from any thread: one write each).
    package static func note(_ text: @autoclosure () -> String) {
        guard enabled else { return }
        standardError("trace: \(text())\n")
    }

    /// Writes `text` to stderr as it is (for traces and progress lines, not reports).
    package static func standardError(_ text: String) {
        var text = text
        _ = text.withUTF8 { write(2, $0.baseAddress, $0.count) }
    }

    /// Nanoseconds of the monotonic clock.
    package static func now() -> Int {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return spec.tv_sec * 1_000_000_000 + spec.tv_nsec
    }
}
