import Foundation
import RatecardKit
import Testing

/// Long work shows progress on a terminal's stderr, on one line it clears at the end, and
/// nothing extra in a pipe or with JSON output.
@Suite struct ProgressTests {
    /// Runs the binary under a pseudo-terminal (util-linux `script`); what the terminal shows.
    func onTerminal(_ arguments: [String], in directory: String) throws -> String {
        let quoted = ([Bundle.main.bundleURL.appendingPathComponent("ratecard").path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        var environment = testEnvironment
        environment["TERM"] = "xterm"
        environment["NO_COLOR"] = nil
        // Shown from the first phase on, so a small content shows it too.
        environment["RATECARD_PROGRESS_AFTER_MS"] = "0"
        return try runTool("/usr/bin/script", ["-qec", "cd '\(directory)' && " + quoted.joined(separator: " "), "/dev/null"], environment: environment).1
    }

    @Test func buildShowsItsPhasesOnATerminalAndNothingInAPipe() throws {
        try withTemporaryDirectory { directory in
            let fixture = try PublishFixture(in: directory, commits: 1)
            let shown = try onTerminal(["build", "--as-of", "2026-11-29", "--out", directory + "/one"], in: fixture.repo)
            #expect(shown.contains("\r\u{1B}[Kratecard build: load: "), "\(shown.debugDescription)")
            // The status line is cleared before the result is printed.
            let cleared = try #require(shown.range(of: "\r\u{1B}[K", options: .backwards))
            #expect(!shown[cleared.upperBound...].contains("ratecard build:"), "\(shown.debugDescription)")
            let json = try onTerminal(["build", "--as-of", "2026-11-29", "--out", directory + "/two", "--format", "json"], in: fixture.repo)
            #expect(!json.contains("\u{1B}[K"), "\(json.debugDescription)")
            let piped = try ratecard(["build", "--as-of", "2026-11-29", "--out", directory + "/three"], in: fixture.repo, environment: ["RATECARD_PROGRESS_AFTER_MS": "0"])
            #expect(piped.status == 0)
            #expect(piped.err.isEmpty, "\(piped.err.debugDescription)")
        }
    }
}
