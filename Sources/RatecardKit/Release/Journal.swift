import Glibc

/// `.ratecard/journal.jsonl`: one JSON object per line, appended and fsynced, never rewritten.
///
/// The journal records history (who, when, why); what is live is always `readlink(current)`.
public struct Journal {
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

    /// Every entry, oldest first. A torn last line (a crash mid-append) is skipped.
    public func entries() throws -> [Entry] {
        guard FileSystem.exists(path) else { return [] }
        let bytes = try FileSystem.readFile(path)
        var result: [Entry] = []
        for line in bytes.split(separator: 0x0A) where !line.isEmpty {
            guard let value = try? JSONReader.parse(Array(line)), case .object(let fields) = value else { continue }
            result.append(Entry(fields))
        }
        return result
    }

    /// Appends one entry and fsyncs it.
    public func append(_ fields: [String: JSON]) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FileSystem.failure("open", path) }
        defer { close(fd) }
        let line = JSON.object(fields).serialized(pretty: false) + "\n"
        try FileSystem.writeAll(fd, Array(line.utf8), path: path)
        guard fsync(fd) == 0 else { throw FileSystem.failure("fsync", path) }
    }

    /// Releases marked bad: every release a rollback left.
    public func badReleases() throws -> Set<String> {
        Set(try entries().filter { $0.action == "rollback" }.compactMap(\.from))
    }
}
