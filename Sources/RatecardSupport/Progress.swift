import Glibc
import Synchronization

/// Progress of long work on a terminal: once a command has run for a second, each phase it
/// finishes (the marks `Trace` takes) replaces one status line on stderr, and the line is
/// cleared at the end. Off unless a command turns it on, which it does only when stderr is a
/// terminal and the output is not JSON: nothing extra in a pipe, a CI log or a script.
public enum Progress {
    package struct State {
        package var enabled = false
        package var command = ""
        package var started = 0
        package var shown = false
    }

    private static let state = Mutex(State())

    /// After how long the line appears (`RATECARD_PROGRESS_AFTER_MS`, default 1000).
    package static let threshold: Int = {
        guard let text = getenv("RATECARD_PROGRESS_AFTER_MS").map({ String(cString: $0) }), let value = Int(text) else { return 1000 }
        return max(0, value)
    }()

    /// Turns progress on for `command`.
    public static func begin(_ command: String) {
        state.withLock { $0 = State(enabled: true, command: command, started: Trace.now(), shown: false) }
    }

    /// A phase finished: shown when the command has run past the threshold.
    package static func note(_ phase: @autoclosure () -> String) {
        let line: String? = state.withLock { state in
            guard state.enabled else { return nil }
            let elapsed = (Trace.now() - state.started) / 1_000_000
            guard elapsed >= threshold else { return nil }
            state.shown = true
            // One line that fits an 80-column terminal: a wrapped line would not be replaced.
            var text = "\(state.command): \(phase())"
            if text.count > 66 { text = String(text.prefix(65)) + "…" }
            return "\r\u{1B}[K\(text) (\(elapsed / 1000).\(elapsed % 1000 / 100) s)"
        }
        if let line { Trace.standardError(line) }
    }

    /// Clears the line (if one was shown) and turns progress off.
    public static func end() {
        let shown = state.withLock { state -> Bool in
            defer { state = State() }
            return state.shown
        }
        if shown { Trace.standardError("\r\u{1B}[K") }
    }
}
