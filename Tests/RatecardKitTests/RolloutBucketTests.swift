import Foundation
import RatecardKit
import RatecardLoader
import Testing

/// The loader's rollout decision (`LiveStatement.Rollout`, `LiveStatement.pick`), the code the
/// generated loader and `ratecard fetch --install-id` run, over many install ids in-process.
@Suite struct RolloutBucketTests {
    static let digest = LibcryptoDigest()
    static let installs = (0..<1000).map { "install-\($0)" }

    static func rollout(id: String, percent: Int) -> LiveStatement.Rollout {
        LiveStatement.Rollout(id: id, release: "000002-bbbbbbbbbbbb", files: String(repeating: "b", count: 64), share: percent * 100)
    }

    static func included(_ rollout: LiveStatement.Rollout) -> Set<String> {
        Set(installs.filter { rollout.includes(installID: $0, digest: digest) })
    }

    @Test("10% reaches 10% ± 3% of 1,000 installs; 50% keeps every one of them; another rollout picks others")
    func shareIsEvenStableAndMonotone() {
        let ten = Self.included(Self.rollout(id: "000002-bbbbbbbbbbbb@7", percent: 10))
        #expect((70...130).contains(ten.count), "10% reached \(ten.count) of 1000")
        // The same install, asked again, gets the same answer.
        #expect(Self.included(Self.rollout(id: "000002-bbbbbbbbbbbb@7", percent: 10)) == ten)
        let fifty = Self.included(Self.rollout(id: "000002-bbbbbbbbbbbb@7", percent: 50))
        #expect((450...550).contains(fifty.count), "50% reached \(fifty.count) of 1000")
        #expect(ten.isSubset(of: fifty), "widening dropped \(ten.subtracting(fifty).sorted().prefix(5))")
        // A new rollout (a new id) draws its share afresh: about 10% of the first 10% again.
        let other = Self.included(Self.rollout(id: "000002-bbbbbbbbbbbb@9", percent: 10))
        #expect((70...130).contains(other.count), "the other rollout reached \(other.count) of 1000")
        #expect(ten.intersection(other).count < 40, "two rollouts picked \(ten.intersection(other).count) of the same installs")
    }

    @Test("the bucket is sha256(install id, newline, rollout id), first 8 bytes big-endian, mod 10,000")
    func bucketIsTheDocumentedFunction() {
        let hash = Self.digest.sha256(Array("phone-1\n000002-bbbbbbbbbbbb@7".utf8))
        let value = hash.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect(LiveStatement.Rollout.bucket(installID: "phone-1", rolloutID: "000002-bbbbbbbbbbbb@7", digest: Self.digest) == Int(value % 10_000))
    }

    @Test("pick gives the rollout's release inside the share and the line's own outside it, without the rollout")
    func pickChoosesByShare() throws {
        let rollout = Self.rollout(id: "000002-bbbbbbbbbbbb@7", percent: 10)
        let line = LiveStatement.Line(release: "000001-aaaaaaaaaaaa", files: String(repeating: "a", count: 64), rollout: rollout)
        let inside = try #require(Self.installs.first { rollout.includes(installID: $0, digest: Self.digest) })
        let outside = try #require(Self.installs.first { !rollout.includes(installID: $0, digest: Self.digest) })
        #expect(LiveStatement.pick(line, installID: inside, digest: Self.digest) == LiveStatement.Line(release: rollout.release, files: rollout.files))
        #expect(LiveStatement.pick(line, installID: outside, digest: Self.digest) == LiveStatement.Line(release: line.release, files: line.files))
    }

    /// What a loader from before rollouts decodes a line as.
    struct LineBeforeRollouts: Decodable, Equatable {
        var release: String
        var files: String
    }

    @Test("a statement with a rollout is read by a loader that knows none as the line's own release")
    func oldLoaderIgnoresTheRollout() throws {
        let line = LiveStatement.Line(
            release: "000001-aaaaaaaaaaaa", files: String(repeating: "a", count: 64), rollout: Self.rollout(id: "000002-bbbbbbbbbbbb@7", percent: 10))
        let bytes = try JSONEncoder().encode(line)
        #expect(String(decoding: bytes, as: UTF8.self).contains("\"share_bp\":1000"))
        let old = try JSONDecoder().decode(LineBeforeRollouts.self, from: bytes)
        #expect(old == LineBeforeRollouts(release: line.release, files: line.files))
        // A line without a rollout is written as before: no new field.
        let plain = try JSONEncoder().encode(LiveStatement.Line(release: line.release, files: line.files))
        #expect(!String(decoding: plain, as: UTF8.self).contains("rollout"))
    }

    @Test("the journal's state knows the rollout in progress after replay, from entries or from its checkpoint")
    func journalStateFoldsRollouts() throws {
        func entry(_ json: String) throws -> Journal.Entry { try Journal.Entry.read(Array(json.utf8)) }
        var state = JournalState()
        let time = "2026-12-05T01:00:00Z"
        state.apply(try entry(#"{"action":"publish","time":"\#(time)","release":"000001-aaaa"}"#))
        state.apply(
            try entry(#"{"action":"rollout-start","time":"\#(time)","user":"kim","release":"000002-bbbb","rollout_id":"000002-bbbb@3","share_bp":1000,"message":"first"}"#))
        state.apply(try entry(#"{"action":"rollout-percent","time":"\#(time)","release":"000002-bbbb","rollout_id":"000002-bbbb@3","share_bp":5000}"#))
        #expect(state.rollout?.release == "000002-bbbb" && state.rollout?.share == 5000 && state.rollout?.id == "000002-bbbb@3")
        #expect(state.rolloutHistory(of: "000002-bbbb").map(\.action) == [.rolloutStart, .rolloutPercent])
        #expect(state.publications["000002-bbbb"]?.action == .rolloutStart)
        let checkpoint = try #require(JournalState(json: state.json))
        #expect(checkpoint == state)
        // Halted: none in progress, and its release is marked bad (unless marks_bad is false).
        var halted = state
        halted.apply(try entry(#"{"action":"rollout-halt","time":"\#(time)","release":"000002-bbbb","rollout_id":"000002-bbbb@3","share_bp":0}"#))
        #expect(halted.rollout == nil && halted.badReleases(live: "000001-aaaa") == ["000002-bbbb"])
        // Completed, or its flip recovered after a kill: none in progress, its release activated.
        var completed = state
        completed.apply(try entry(#"{"action":"rollout-complete","time":"\#(time)","release":"000002-bbbb","rollout_id":"000002-bbbb@3"}"#))
        #expect(completed.rollout == nil && completed.lastActivated == "000002-bbbb")
        var recovered = state
        recovered.apply(try entry(#"{"action":"recover","time":"\#(time)","release":"000002-bbbb"}"#))
        #expect(recovered.rollout == nil && recovered.lastActivated == "000002-bbbb")
        // A checkpoint from before rollouts has none in progress.
        guard case .object(var fields) = JournalState().json else { return #expect(Bool(false)) }
        fields["rollout"] = nil
        fields["rollout_history"] = nil
        #expect(JournalState(json: .object(fields))?.rollout == nil)
    }
}
