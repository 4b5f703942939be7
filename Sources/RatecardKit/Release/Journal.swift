import Glibc

/// Where a target keeps its journal: entries appended durably, in order, never rewritten.
public protocol JournalLog {
    /// Every entry, oldest first, and what could not be read as one.
    func read() throws -> Journal.Contents
    /// Appends one entry; returns once it is durable.
    func append(_ fields: [String: JSON]) throws
}

extension JournalLog {
    /// Every entry, oldest first (`read()` also says which were skipped).
    public func entries() throws -> [Journal.Entry] { try read().entries }

    /// Releases marked bad: every release a rollback left, less those cleared since and the
    /// target of any later rollback. A rollback journals its intent before its swap: the intent
    /// counts once the swap is known to have happened (its `rollback` entry, the `recover` entry
    /// of the next run, or `live` being its target now), and never when it was not (a crash
    /// before the swap, a failed swap).
    public func badReleases(live: String? = nil) throws -> Set<String> {
        var bad: Set<String> = []
        var pending: (from: String, to: String)?
        func apply(from: String?, to: String?) {
            if let from { bad.insert(from) }
            if let to { bad.remove(to) }
        }
        for entry in try entries() {
            switch entry.action {
            case "rollback":
                apply(from: entry.from, to: entry.to)
                pending = nil
            case "rollback-intent":
                if let from = entry.from, let to = entry.to { pending = (from, to) }
            case "recover":
                if let intent = pending, entry.release == intent.to { apply(from: intent.from, to: intent.to) }
                pending = nil
            case "clear-bad":
                if let release = entry.release { bad.remove(release) }
            default:
                if entry.activated != nil { pending = nil }
            }
        }
        if let intent = pending, live == intent.to { apply(from: intent.from, to: intent.to) }
        return bad
    }
}

/// `.ratecard/journal.jsonl`: one JSON object per line, appended and fsynced, never rewritten.
///
/// The journal records history (who, when, why); what is live is always `readlink(current)`.
public struct Journal: JournalLog {
    public struct Entry: Sendable, Equatable {
        public var fields: [String: JSON]

        public init(_ fields: [String: JSON]) { self.fields = fields }

        public var action: String { fields["action"]?.stringValue ?? "" }
        public var release: String? { fields["release"]?.stringValue }
        public var from: String? { fields["from"]?.stringValue }
        public var to: String? { fields["to"]?.stringValue }
        public var time: String { fields["time"]?.stringValue ?? "" }

        /// The release this entry made live, if it activated one.
        public var activated: String? {
            switch action {
            case "publish", "promote", "recover": return release
            case "rollback": return to
            default: return nil
            }
        }
    }

    public let path: String

    public init(path: String) { self.path = path }

    private var folder: String { DurableFiles.parent(of: path) }
    private var name: String { DurableFiles.name(of: path) }

    /// The journal as read: its entries, oldest first, and the lines that are not entries (a
    /// line torn by a crash mid-append, or damage), by 1-based line number.
    public struct Contents: Sendable {
        public var entries: [Entry] = []
        public var malformedLines: [Int] = []
        /// What a number in `malformedLines` counts: a line of the file, or an entry object.
        public var unit = "line"

        public init(entries: [Entry] = [], malformedLines: [Int] = [], unit: String = "line") {
            self.entries = entries
            self.malformedLines = malformedLines
            self.unit = unit
        }

        /// One warning per malformed line, for the commands that show history.
        public func warnings(path: String) -> [String] {
            malformedLines.map { "\(path) \(unit) \($0) is not a journal entry (torn by a crash, or edited); it was skipped" }
        }
    }

    /// Every entry and every line that is not one. The file is opened without following a symlink.
    public func read() throws -> Contents {
        guard let bytes = try StateFiles.read(folder, name) else { return Contents() }
        var contents = Contents()
        for (number, line) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            guard let value = try? JSONReader.parse(Array(line)), case .object(let fields) = value else {
                contents.malformedLines.append(number + 1)
                continue
            }
            contents.entries.append(Entry(fields))
        }
        return contents
    }

    /// Appends one entry and fsyncs it. A last line left without its newline by a crash is
    /// ended first, so the new entry starts on a line of its own instead of gluing onto it.
    public func append(_ fields: [String: JSON]) throws {
        let fd = try StateFiles.open(folder, name, flags: O_RDWR | O_CREAT | O_APPEND)
        defer { close(fd) }
        var line = Array((JSON.object(fields).serialized(pretty: false) + "\n").utf8)
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileSystem.failure("fstat", path) }
        if info.st_size > 0 {
            var last: UInt8 = 0
            guard pread(fd, &last, 1, off_t(info.st_size - 1)) == 1 else { throw FileSystem.failure("pread", path) }
            if last != 0x0A { line.insert(0x0A, at: 0) }
        }
        try FileSystem.writeAll(fd, line, path: path)
        guard fsync(fd) == 0 else { throw FileSystem.failure("fsync", path) }
    }
}
