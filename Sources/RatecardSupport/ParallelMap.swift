internal import CShims
import Dispatch
import Foundation
import Synchronization

/// How many threads the parallel steps use: the processors this process may run on (its CPU
/// affinity, which `taskset` and container CPU sets narrow; else the machine's), at most 8:
/// past that the steps are bound by the disk and by allocation, not by cores.
public enum Workers {
    public static let count: Int = {
        let allowed = Int(cshims_allowed_cpus())
        return min(max(allowed > 0 ? allowed : ProcessInfo.processInfo.activeProcessorCount, 1), 8)
    }()
}

/// `map` on `Workers.count` threads for long lists of independent, pure work (rendering 2,000
/// terms pages, 3,000 product documents, hashing thousands of files); the results keep the
/// input order.
package enum ParallelMap {
    package static func map<Item: Sendable, Result: Sendable>(_ items: [Item], threshold: Int = 64, _ transform: @Sendable (Item) -> Result) -> [Result] {
        guard items.count >= threshold else { return items.map(transform) }
        let slots = ResultSlots<Result>(count: items.count)
        defer { slots.free() }
        // Each worker takes the next item not yet taken, so a worker that drew long items (or
        // lost its core for a while) does not leave the other waiting at the end; every slot is
        // filled once concurrentPerform returns.
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: Workers.count) { _ in
            while true {
                let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard index < items.count else { return }
                slots.set(index, transform(items[index]))
            }
        }
        return slots.values()
    }

}

/// One result slot per item of parallel work. Unchecked because it is a raw buffer: each index
/// is written by exactly one worker, and the slots are read only after every worker has
/// finished (`concurrentPerform` returned, or every worker thread was joined), which orders
/// every write before the read.
package struct ResultSlots<Result>: @unchecked Sendable {
    private let buffer: UnsafeMutableBufferPointer<Result?>

    package init(count: Int) {
        buffer = .allocate(capacity: count)
        buffer.initialize(repeating: nil)
    }

    /// Each index is written by exactly one worker.
    package func set(_ index: Int, _ value: Result) { buffer[index] = value }

    /// Every result, once all are set.
    package func values() -> [Result] { buffer.map { $0! } }

    package func free() {
        _ = buffer.deinitialize()
        buffer.deallocate()
    }
}

/// Work started on a thread of its own, its result (or error) taken with `join`.
public final class Background<Value: Sendable>: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let result = Mutex<Result<Value, any Error>?>(nil)

    public init(_ work: @escaping @Sendable () throws -> Value) {
        DispatchQueue.global().async { [self] in
            let outcome = Result { try work() }
            result.withLock { $0 = outcome }
            done.signal()
        }
    }

    /// Waits for the work and returns what it gave, or throws what it threw.
    public func join() throws -> Value {
        done.wait()
        defer { done.signal() }
        return try result.withLock { $0! }.get()
    }
}
