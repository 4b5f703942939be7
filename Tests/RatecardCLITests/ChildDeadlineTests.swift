import Foundation
import RatecardKit
import Testing

/// The helpers' waits on a child program end: one that outlives its deadline is killed, and the
/// test fails with what it wrote and where it was waiting, instead of hanging the test process.
@Suite(.enabled(if: TestTier.isFull, "waits out a child that does not end: in make test-full")) struct ChildDeadlineTests {
    @Test func aChildThatOutlivesItsDeadlineIsKilledAndFailsTheWaitWithItsOutputAndState() throws {
        var message = ""
        do {
            _ = try runTool("/bin/sh", ["-c", "echo still-waiting; exec sleep 120"], seconds: 1)
        } catch let error as OperationalError {
            message = error.message.english
        }
        #expect(message.contains("did not end within 1 s (killed; it was in state S"), "\(message)")
        #expect(message.contains("still-waiting"), "\(message)")
    }
}
