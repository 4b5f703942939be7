import Dispatch

/// A source that can give a second thread a reader of its own (a libgit2 repository handle is
/// used by one thread at a time).
protocol ConcurrentlyReadable: ContentSource {
    func readerForAnotherThread() throws -> any ContentSource
}

extension CommitSource: ConcurrentlyReadable {
    func readerForAnotherThread() throws -> any ContentSource {
        CommitSource(repository: try Repository.open(at: repository.gitDir), commit: commit, treePrefix: treePrefix)
    }
}

extension WorkingTreeSource: ConcurrentlyReadable {
    func readerForAnotherThread() throws -> any ContentSource { self }
}

/// Reads and parses the files a load did not find in the cache, split over two threads when
/// there are enough of them (parsing is most of `validate --rev` on a large repository, and
/// a parse touches nothing shared but the locked cache).
enum ParallelParse {
    /// Below this many files one thread is quicker than starting a second.
    static let threshold = 256

    static func run(_ jobs: [Int], of entries: [TreeEntry], from source: any ContentSource, into parsed: inout [ParsedFile?],
                    hashed: inout [String: ObjectID]) throws {
        guard jobs.count >= threshold, let readable = source as? any ConcurrentlyReadable else {
            for index in jobs {
                let result = try ContentLoader.readAndParse(entries[index], path: source.displayPrefix + entries[index].path, source: source)
                parsed[index] = result.file
                if let id = result.hashed { hashed[entries[index].path] = id }
            }
            return
        }
        let readers = [source, try readable.readerForAnotherThread()]
        let workers = readers.count
        let results = UnsafeMutableBufferPointer<(file: ParsedFile, hashed: ObjectID?)?>.allocate(capacity: jobs.count)
        results.initialize(repeating: nil)
        let failures = UnsafeMutableBufferPointer<(any Error)?>.allocate(capacity: workers)
        failures.initialize(repeating: nil)
        defer {
            _ = results.deinitialize()
            results.deallocate()
            _ = failures.deinitialize()
            failures.deallocate()
        }
        // Each worker takes every other file (terms files are the large ones, spread evenly),
        // reads through its own reader and writes only its own slots; the call returns when
        // both are done, so sharing these with the workers is safe.
        let shared = Shared(readers: readers, results: results, failures: failures)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            let (reader, results, failures) = (shared.readers[worker], shared.results, shared.failures)
            var position = worker
            while position < jobs.count {
                let entry = entries[jobs[position]]
                do {
                    results[position] = try ContentLoader.readAndParse(entry, path: reader.displayPrefix + entry.path, source: reader)
                } catch {
                    failures[worker] = error
                    return
                }
                position += workers
            }
        }
        if let failure = failures.compactMap({ $0 }).first { throw failure }
        for (position, index) in jobs.enumerated() {
            parsed[index] = results[position]?.file
            if let id = results[position]?.hashed { hashed[entries[index].path] = id }
        }
    }

    private struct Shared: @unchecked Sendable {
        let readers: [any ContentSource]
        let results: UnsafeMutableBufferPointer<(file: ParsedFile, hashed: ObjectID?)?>
        let failures: UnsafeMutableBufferPointer<(any Error)?>
    }
}
