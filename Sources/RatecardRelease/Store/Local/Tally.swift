import Synchronization

/// A byte count that two writer threads add to.
final class Tally: Sendable {
    private let count = Atomic<Int>(0)

    func add(_ bytes: Int) { count.add(bytes, ordering: .relaxed) }
    var total: Int { count.load(ordering: .relaxed) }
}
