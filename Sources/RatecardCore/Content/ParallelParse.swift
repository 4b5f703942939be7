import Dispatch
import RatecardSupport
import Synchronization

/// A source that can give a second thread a reader of its own (a libgit2 repository handle is
/// used by one thread at a time).
package protocol ConcurrentlyReadable: ContentSource {
    /// Opens the other thread's reader when called (on that thread, so the opening runs in
    /// parallel with the first thread's reads); reads nothing of this source's handles then.
    func readerOpener() -> @Sendable () throws -> any ContentSource
}

extension CommitSource: ConcurrentlyReadable {
    package func readerOpener() -> @Sendable () throws -> any ContentSource {
        let (gitDir, commit, contentRoot) = (repository.gitDir, commit, contentRoot)
        return { CommitSource(repository: try Repository.open(at: gitDir), commit: commit, contentRoot: contentRoot) }
    }
}

extension WorkingTreeSource: ConcurrentlyReadable {
    package func readerOpener() -> @Sendable () throws -> any ContentSource {
        let (root, contentRoot, stamps) = (root, contentRoot, stamps)
        return { WorkingTreeSource(root: root, contentRoot: contentRoot, stamps: stamps) }
    }
}

/// Loads the files of a tree (`ContentLoader.loadFile`: from the cache, or read and parsed),
/// split over `Workers.count` threads when there are enough of them (parsing is most of `validate --rev` on
/// a large repository, and a load touches nothing shared but the locked cache).
package enum ParallelParse {
    /// Below this many files one thread is quicker than starting a second.
    package static let threshold = 256
    /// Files a thread takes at a time: few enough that neither thread waits long for the other
    /// at the end, enough that taking them is not contended.
    package static let batch = 8

    /// The loaded files by entry index (nil for the entries not in `jobs`). Throws the error of
    /// the first job (in `jobs` order) that failed, as loading them one after another would.
    package static func run(_ jobs: [Int], of entries: [TreeEntry], from source: any ContentSource, caches: Caches) throws -> [ContentLoader.LoadedFile?] {
        var loaded = [ContentLoader.LoadedFile?](repeating: nil, count: entries.count)
        guard jobs.count >= threshold, let readable = source as? any ConcurrentlyReadable else {
            for index in jobs {
                loaded[index] = try ContentLoader.loadFile(entries[index], path: source.contentRoot.path(entries[index].path), source: source, caches: caches)
            }
            return loaded
        }
        let open = readable.readerOpener()
        let root = source.contentRoot
        let failures = Mutex<[(position: Int, error: any Error)]>([])
        let next = Atomic<Int>(0)
        try loaded.withUnsafeMutableBufferPointer { buffer in
            // The threads take batches in turn (large terms files and small rate tables are not
            // spread evenly over the tree, and the other process on the machine may hold a core
            // for a while), each writing only the slots of its own jobs; the call returns when
            // all are done, so sharing the buffer with them is safe.
            let shared = Shared(buffer: buffer, source: source)
            DispatchQueue.concurrentPerform(iterations: Workers.count) { worker in
                // Every other thread opens its own reader, and only once it has a file to read.
                var reader: (any ContentSource)? = worker == 0 ? shared.source : nil
                while true {
                    let start = next.wrappingAdd(batch, ordering: .relaxed).oldValue
                    guard start < jobs.count else { return }
                    for position in start..<min(start + batch, jobs.count) {
                        let index = jobs[position]
                        let entry = entries[index]
                        do {
                            if reader == nil { reader = try open() }
                            shared.buffer[index] = try ContentLoader.loadFile(entry, path: root.path(entry.path), source: reader!, caches: caches)
                        } catch {
                            failures.withLock { $0.append((position, error)) }
                        }
                    }
                }
            }
            if let first = failures.withLock({ $0.min { $0.position < $1.position } }) { throw first.error }
        }
        return loaded
    }

    /// What every thread uses: the result slots, and the source the calling thread reads through.
    /// Unchecked because the slots are a raw buffer, each index written by one worker and read
    /// after all have joined, and the source (a libgit2 repository, not thread-safe) is read
    /// by one worker only, worker 0, while the calling thread waits.
    private struct Shared: @unchecked Sendable {
        let buffer: UnsafeMutableBufferPointer<ContentLoader.LoadedFile?>
        let source: any ContentSource
    }
}
