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
        let slots = Slots<Result>(count: items.count)
        defer { slots.free() }
        // Worker k fills the slots k, k + n, k + 2n...; concurrentPerform returns when all are done.
        let workers = Workers.count
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var index = worker
            while index < items.count {
                slots.buffer[index] = transform(items[index])
                index += workers
            }
        }
        return slots.buffer.map { $0! }
    }

    /// Unchecked because it is a raw buffer: each index is written by exactly one worker, and
    /// read only after `concurrentPerform` has returned (which orders every write before it).
    private struct Slots<Result>: @unchecked Sendable {
        let buffer: UnsafeMutableBufferPointer<Result?>

        init(count: Int) {
            buffer = .allocate(capacity: count)
            buffer.initialize(repeating: nil)
        }

        func free() {
            _ = buffer.deinitialize()
            buffer.deallocate()
        }
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
