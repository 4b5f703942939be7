import Foundation
import Glibc
import RatecardSupport
import Synchronization

/// Writes a file tree into a folder all at once: staged beside it, flushed, then renamed into
/// place. On failure nothing is left behind, and an existing folder is untouched.
public enum BundleWriter {
    /// Writes `files` (relative path -> bytes) as the folder `destination`.
    ///
    /// An existing `destination` must be empty or hold an earlier build (`data/manifest.json`);
    /// it is replaced only after the new tree is complete. A file of the earlier build whose
    /// bytes equal the new file's (at the same path, or where the earlier manifest lists the same
    /// sha256: data files move with the bundle id) is linked into the new tree, not written
    /// again: a build after a small edit writes (and flushes) only what the edit changed.
    public static func write(_ files: [String: [UInt8]], to destination: String, extraTrees: [String] = []) throws {
        let parent = DurableFiles.parent(of: destination)
        let name = DurableFiles.name(of: destination)
        var earlier: String?
        if FileSystem.exists(destination) {
            guard FileSystem.isDirectory(destination) else {
                throw ConflictError("\(destination) exists and is not a folder; choose another --out", ko: "\(destination)은(는) 이미 있고 폴더가 아닙니다; 다른 --out을 고르세요")
            }
            let entries = try FileSystem.listDirectory(destination)
            if !entries.isEmpty && !FileSystem.exists(destination + "/" + BundleLayout.manifest) {
                throw ConflictError(
                    "\(destination) is not empty and holds no earlier build (no \(BundleLayout.manifest)); refusing to replace it",
                    ko: "\(destination)은(는) 비어 있지 않고 이전 빌드도 아닙니다 (\(BundleLayout.manifest) 없음); 바꾸지 않습니다")
            }
            if !entries.isEmpty { earlier = destination }
        }
        do {
            try FileSystem.makeDirectories(parent)
        } catch {
            let why = Message.of(error)
            throw OperationalError("cannot create the output folder: \(why)", ko: "출력 폴더를 만들 수 없습니다: \(why)")
        }
        let staging = "\(parent)/.\(name).staging-\(getpid())"
        try? FileSystem.removeTree(staging)
        do {
            try FileSystem.makeDirectories(staging)
            for tree in extraTrees { try FileSystem.copyTree(from: tree, to: staging) }
            let paths = files.keys.sorted()
            // The earlier tree as the kernel resolves it: a file is linked only from inside it.
            let earlier = earlier.flatMap { try? FileSystem.realPath($0) }
            let moved = earlier.map { movedFiles(from: $0, to: files) } ?? [:]
            try ParallelWrite.makeFolders(for: paths, in: staging)
            // Creating thousands of files is mostly kernel time; two threads, each its own files.
            try ParallelWrite.each(paths) { path in
                let target = staging + "/" + path
                if let earlier {
                    let source = earlier + "/" + (moved[path] ?? path)
                    if unchanged(source, files[path]!, inside: earlier), link(source, target) == 0 { return }
                }
                // A bundle file replaces a web build file of the same path.
                if (try? DurableFiles.create(target, files[path]!, sync: false)) == nil {
                    try? FileSystem.removeTree(target)
                    try DurableFiles.create(target, files[path]!, sync: false)
                }
            }
            Trace.mark("write: files")
            try DurableFiles.syncFilesystem(of: staging)
            Trace.mark("write: synced")
            var old: String?
            if FileSystem.exists(destination) {
                old = "\(parent)/.\(name).old-\(getpid())"
                guard rename(destination, old!) == 0 else { throw FileSystem.failure("rename", destination) }
            }
            guard rename(staging, destination) == 0 else {
                let failure = FileSystem.failure("rename", staging)
                if let old { rename(old, destination) }
                throw failure
            }
            try DurableFiles.syncDirectory(parent)
            if let old { try? FileSystem.removeTree(old) }
        } catch {
            try? FileSystem.removeTree(staging)
            throw error
        }
    }

    /// The earlier build's path of each new file that its manifest lists with the same sha256
    /// as the new manifest does under another path; the bytes are compared before any is used.
    static func movedFiles(from earlier: String, to files: [String: [UInt8]]) -> [String: String] {
        guard let new = files[BundleLayout.manifest], let (_, listed) = try? JSONReader.parseListingFiles(new),
            let old = try? FileSystem.readFile(earlier + "/" + BundleLayout.manifest), let (_, before) = try? JSONReader.parseListingFiles(old)
        else { return [:] }
        var bySum: [String: String] = [:]
        for file in before where !file.path.hasPrefix("/") && !file.path.split(separator: "/").contains("..") { bySum[file.sha256] = file.path }
        var moved: [String: String] = [:]
        for file in listed {
            if let path = bySum[file.sha256], path != file.path { moved[file.path] = path }
        }
        return moved
    }

    /// Whether `path` is a plain file of the earlier build at `root` (mode 0644, not a link, no
    /// other name, reached through no symlinked folder) holding exactly `bytes`, so the new tree
    /// can link it instead of writing it again. A file of another tree, planted in the earlier
    /// one through a link, is never shared with the new build: it is written anew.
    static func unchanged(_ path: String, _ bytes: [UInt8], inside root: String) -> Bool {
        guard let resolved = try? FileSystem.realPath(path), resolved.hasPrefix(root + "/") else { return false }
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_mode & 0o7777 == 0o644, info.st_nlink == 1, Int(info.st_size) == bytes.count,
            let read = try? FileSystem.readAll(fd, path: path)
        else { return false }
        return read == bytes
    }
}

/// Runs a throwing step for every item, on two threads when there are many (file creation).
package enum ParallelWrite {
    package static let threshold = 256

    package static func each(_ items: [String], _ step: @escaping @Sendable (String) throws -> Void) throws {
        guard items.count >= threshold else {
            for item in items { try step(item) }
            return
        }
        let failures = Failures()
        // Each thread takes one half of the (sorted) list, so the two mostly work in different
        // folders: creating files in one folder from two threads serializes on its lock.
        let half = (items.count + 1) / 2
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            for index in (worker == 0 ? 0..<half : half..<items.count) {
                do {
                    try step(items[index])
                } catch {
                    failures.record(error)
                    return
                }
            }
        }
        if let failure = failures.first { throw failure }
    }

    /// Makes the folders of every relative path under `root` (which exists), shallowest first,
    /// those of one depth on two threads (their parents exist by then). Returns them, sorted.
    @discardableResult
    package static func makeFolders(for paths: [String], in root: String) throws -> [String] {
        var folders: Set<String> = []
        for path in paths {
            var folder = DurableFiles.parent(of: path)
            while folder != "." && folders.insert(folder).inserted { folder = DurableFiles.parent(of: folder) }
        }
        let byDepth = Dictionary(grouping: folders) { $0.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: "/") ? 1 : 0) } }
        for depth in byDepth.keys.sorted() {
            try each(byDepth[depth]!.sorted()) { folder in
                guard mkdir(root + "/" + folder, 0o755) == 0 || errno == EEXIST else { throw FileSystem.failure("mkdir", root + "/" + folder) }
            }
        }
        return folders.sorted()
    }

    private final class Failures: Sendable {
        private let errors = Mutex<[any Error]>([])

        func record(_ error: any Error) { errors.withLock { $0.append(error) } }

        var first: (any Error)? { errors.withLock { $0.first } }
    }
}
