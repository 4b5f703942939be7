import Glibc
import RatecardCore
import RatecardSupport

/// What the last build wrote into an output folder (`--out`), kept in the build cache: each
/// file's sha256 and the file as the build left it (inode, size, change and modification
/// times to the nanosecond). A later build into the same folder takes a file whose bytes it
/// would write again from the folder only when the file is still exactly that one: a plain
/// file of mode 0644, the same inode, size and times, with no name but those the writer knows. A file anyone changed,
/// replaced, renamed in or gave another name since (each changes one of those) is read and
/// compared, or written anew; so is every file when there is no record (no build cache, another
/// folder, a record that does not decode).
package struct OutputRecord: Equatable {
    /// One file as the build left it; its content is the file's sha256.
    package typealias Stamp = FileStamp

    /// The stamp of a plain file of mode 0644 (what a build writes) holding bytes of `sha256`;
    /// nil for anything else.
    static func stamp(_ info: stat, sha256: String) -> Stamp? {
        guard info.st_mode & S_IFMT == S_IFREG, info.st_mode & 0o7777 == 0o644 else { return nil }
        return Stamp(info, content: sha256)
    }

    /// By path relative to the folder.
    package var files: [String: Stamp] = [:]

    package init(files: [String: Stamp] = [:]) { self.files = files }

    /// The cache key of the record of the folder at `realPath` (its absolute, link-free path).
    static func key(_ realPath: String) -> BuildCache.Key { BuildCache.Key("output-record", [realPath]) }

    /// The record the cache holds for the folder at `realPath`, if a whole one.
    static func read(_ realPath: String, from cache: BuildCache) -> OutputRecord? {
        guard let payload = cache.read(key(realPath)) else { return nil }
        return FileStamp.decode(payload).map { OutputRecord(files: $0) }
    }

    /// Keeps this record for the folder at `realPath` (written with the run's other new entries).
    func write(_ realPath: String, to cache: BuildCache) {
        cache.write(Self.key(realPath), FileStamp.encode(files))
    }
}
