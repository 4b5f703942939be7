import Glibc

/// Writes a file tree into a folder all at once: staged beside it, flushed, then renamed into
/// place. On failure nothing is left behind, and an existing folder is untouched.
public enum BundleWriter {
    /// Writes `files` (relative path -> bytes) as the folder `destination`.
    ///
    /// An existing `destination` must be empty or hold an earlier build (`data/manifest.json`);
    /// it is replaced only after the new tree is complete.
    public static func write(_ files: [String: [UInt8]], to destination: String, extraTrees: [String] = []) throws {
        let parent = DurableFiles.parent(of: destination)
        let name = DurableFiles.name(of: destination)
        if FileSystem.exists(destination) {
            guard FileSystem.isDirectory(destination) else {
                throw OperationalError("\(destination) exists and is not a folder; choose another --out")
            }
            let entries = try FileSystem.listDirectory(destination)
            if !entries.isEmpty && !FileSystem.exists(destination + "/" + BundleLayout.manifest) {
                throw OperationalError("\(destination) is not empty and holds no earlier build (no \(BundleLayout.manifest)); refusing to replace it")
            }
        }
        do {
            try FileSystem.makeDirectories(parent)
        } catch {
            throw OperationalError("cannot create the output folder: \(error)")
        }
        let staging = "\(parent)/.\(name).staging-\(getpid())"
        try? FileSystem.removeTree(staging)
        do {
            try FileSystem.makeDirectories(staging)
            for tree in extraTrees { try FileSystem.copyTree(from: tree, to: staging) }
            var made: Set<String> = [staging]
            for path in files.keys.sorted() {
                let target = staging + "/" + path
                let folder = DurableFiles.parent(of: target)
                if !made.contains(folder) {
                    try FileSystem.makeDirectories(folder)
                    made.insert(folder)
                }
                try? FileSystem.removeTree(target)
                try DurableFiles.create(target, files[path]!, sync: false)
            }
            try DurableFiles.syncFilesystem(of: staging)
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
}
