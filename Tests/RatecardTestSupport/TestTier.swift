import Foundation
import Synchronization

/// Which tier of the suite runs: `make test` (the default, what CI runs) samples the deep
/// campaigns; `make test-full` (`RATECARD_TEST_TIER=full`) runs every random instant of them.
///
/// Sampled draws come from one generator seeded by `RATECARD_TEST_SEED`, or by a fresh seed
/// that the first draw prints, so a failing run can be repeated exactly and each new run covers
/// instants the last did not.
public enum TestTier {
    public static let isFull = ProcessInfo.processInfo.environment["RATECARD_TEST_TIER"] == "full"

    /// `full` in the full tier, `sampled` otherwise.
    public static func count(full: Int, sampled: Int) -> Int { isFull ? full : sampled }

    /// The seed of this process's draws.
    public static let seed: UInt64 = {
        if let text = ProcessInfo.processInfo.environment["RATECARD_TEST_SEED"], let value = UInt64(text) { return value }
        return UInt64.random(in: 1...UInt64.max)
    }()

    private static let generator: Mutex<SeededGenerator?> = Mutex(nil)

    /// A draw in `range`; the first draw of the process prints the seed.
    public static func random(in range: ClosedRange<Double>) -> Double {
        generator.withLock { state in
            if state == nil {
                print("test draws seeded with RATECARD_TEST_SEED=\(seed)")
                state = SeededGenerator(seed: seed)
            }
            return Double.random(in: range, using: &state!)
        }
    }

    /// `count` instants over `range`, one drawn in each of `count` equal strata, so that even a
    /// few cover the start and the end of the range.
    public static func stratified(_ count: Int, over range: ClosedRange<Double>) -> [Double] {
        guard count > 0 else { return [] }
        let width = (range.upperBound - range.lowerBound) / Double(count)
        return (0..<count).map { index in
            let low = range.lowerBound + Double(index) * width
            return random(in: low...(low + width))
        }
    }
}

/// SplitMix64: small, fast and good enough to spread kill instants.
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
