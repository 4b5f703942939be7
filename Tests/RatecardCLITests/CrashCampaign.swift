import Foundation
import Glibc
import Testing

/// Kills a command with SIGKILL after each of its named steps (`RATECARD_CRASH_AT`) and at
/// random instants, checking after every kill what must survive one, then lets `settle` run
/// the command to completion (or do what the next round needs).
///
/// The random instants are spread over [0, 1.5 ×] the longest of three runs that are not killed
/// (one in the sampled tier), one instant drawn in each of equal strata of that span. `make test`
/// kills at a sample of them (`TestTier`), `make test-full` at all `randomKills`; every named
/// step is killed in both.
/// Some kills must come after the command ended: that is what shows the instants covered all
/// of it. Other tests share the cores, so a command can run slower during the kills than when it
/// was timed; when every kill still landed before the end, kills at up to 4 × that time are
/// added until one comes after it (a command that never ends fails the campaign).
struct CrashCampaign {
    var label: String
    var steps: [String]
    var randomKills: Int
    /// Starts the command with extra environment variables.
    var start: (_ arguments: [String], _ environment: [String: String]) throws -> Process
    /// What must hold after a kill (`what` says which).
    var check: (_ what: String) throws -> Void
    /// The arguments of the next round (`named`: the round kills at a named step).
    var prepare: (_ named: Bool) throws -> [String]
    var settle: (_ arguments: [String]) throws -> Void

    func run() throws {
        var hit = 0
        for step in steps {
            let arguments = try prepare(true)
            let crashed = try killed(arguments, at: step, after: 0)
            #expect(crashed, "\(label): no crash at \(step)")
            if crashed { hit += 1 }
            try check("killed at \(step)")
            try settle(arguments)
        }
        var cycle = 0.0
        var fastest = Double.infinity
        for _ in 0..<TestTier.count(full: 3, sampled: 2) {
            let arguments = try prepare(false)
            let started = Date()
            let process = try start(arguments, [:])
            process.waitUntilExit()
            cycle = max(cycle, Date().timeIntervalSince(started))
            fastest = min(fastest, Date().timeIntervalSince(started))
            try settle(arguments)
        }
        let kills = TestTier.count(full: randomKills, sampled: min(randomKills, Self.sampledKills))
        var landed = 0
        for (index, instant) in TestTier.stratified(kills, over: 0...(1.5 * cycle)).enumerated() {
            if try killAt(index, after: instant) { landed += 1 }
        }
        // Other tests share the cores, so the timed runs can be far slower than the later ones:
        // when no kill landed before the end, kills early in the fastest run are added until one does.
        var early = 0
        while landed == 0, early < 20 {
            if try killAt(kills + early, after: TestTier.random(in: 0...(0.5 * fastest))) { landed += 1 }
            early += 1
        }
        // Whether some kill came after the command had ended.
        var ended = landed < kills + early
        var late = 0
        while !ended, late < 20 {
            ended = try !killAt(kills + early + late, after: TestTier.random(in: (1.5 * cycle)...(4 * cycle)))
            late += 1
        }
        print(
            "crash safety of \(label): \(hit) named steps, \(kills) random kills in [0, 1.5×] a \(Int(cycle * 1000)) ms run (\(landed) landed before it ended)"
                + (late > 0 ? ", then \(late) in [1.5×, 4×]" : ""))
        #expect(landed > 0, "\(label): no kill landed before the command ended")
        #expect(ended, "\(label): every kill, even at 4× the timed run, landed before the command ended")
    }

    /// Random kills per campaign in the sampled tier.
    static let sampledKills = 4

    /// Kills a run `seconds` after its start; true when it landed before the end.
    private func killAt(_ index: Int, after seconds: Double) throws -> Bool {
        let arguments = try prepare(false)
        let landed = try killed(arguments, at: nil, after: seconds)
        try check("killed at random instant \(index)")
        try settle(arguments)
        return landed
    }

    /// Runs the command killed at `step`, or after `seconds` when there is no step; true when
    /// the kill ended it.
    private func killed(_ arguments: [String], at step: String?, after seconds: Double) throws -> Bool {
        let process = try start(arguments, step.map { ["RATECARD_CRASH_AT": $0] } ?? [:])
        if step == nil {
            usleep(useconds_t(seconds * 1_000_000))
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        return process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
    }
}
