import Foundation
import Glibc
import RatecardCore
import RatecardSupport
import Synchronization

/// Where a target keeps its journal: entries appended durably, in order, never rewritten.
public protocol JournalLog {
    /// Every entry, oldest first, and what could not be read as one (the history: `log`).
    func read() throws -> Journal.Contents
    /// What the journal says about releases (`JournalState`), for every other command; a target
    /// may answer it from a checkpoint without reading the whole history.
    func state() throws -> JournalState
    /// Appends one entry; returns once it is durable.
    func append(_ fields: [String: JSON]) throws
    /// Appends the entry of a flip that has happened (`journalAfterSwap`): it records a fact,
    /// so a store whose lock can be lost does not renew it first (the entry is still refused
    /// once the command knows it lost the lock, and written only where no entry is).
    func appendAfterSwap(_ fields: [String: JSON]) throws
}

extension JournalLog {
    public func appendAfterSwap(_ fields: [String: JSON]) throws { try append(fields) }

    /// Every entry that could be read, oldest first (`read()` also says which lines could not).
    public func entries() throws -> [Journal.Entry] { try read().entries }

    /// Releases marked bad (see `JournalState.badReleases(live:)`). A damaged line may have
    /// been a bad mark, so a damaged journal is refused here: a rollback, a prune or the bridge
    /// lines must not choose a release whose bad mark was lost.
    public func badReleases(live: String? = nil) throws -> Set<String> {
        let state = try state()
        try state.requireUndamaged()
        return state.badReleases(live: live)
    }
}

/// `.ratecard/journal.jsonl`: one JSON object per line, appended and fsynced, never rewritten.
///
/// The journal records history (who, when, why); what is live is always `readlink(current)`.
public struct Journal: JournalLog {
    /// What an entry records; the raw values are the `action` written on disk.
    public enum Action: String, Sendable, Equatable, CaseIterable {
        case publish, promote, rollback, recover, prune, failure
        /// live.json written with nothing else changed (`ratecard sign`, or repaired after a crash).
        case sign
        case rollbackIntent = "rollback-intent"
        case clearBad = "clear-bad"
        /// A staged rollout: started by `publish --rollout`, its share changed, completed (the
        /// flip, journaled like a publish) or halted (`ratecard rollout`).
        case rolloutStart = "rollout-start"
        case rolloutPercent = "rollout-percent"
        case rolloutComplete = "rollout-complete"
        case rolloutHalt = "rollout-halt"

        /// The fields an entry of this action cannot be read without, besides `action` and `time`.
        var requiredFields: [String] {
            switch self {
            case .publish, .promote, .recover, .clearBad: return ["release"]
            case .rolloutStart, .rolloutPercent, .rolloutComplete, .rolloutHalt: return ["release"]
            case .rollback, .rollbackIntent: return ["from", "to"]
            case .prune, .failure, .sign: return []
            }
        }
    }

    /// Who approved a risky change, and which risks they saw.
    public struct Approval: Sendable, Equatable, Decodable {
        public var reason: String
        public var by: String?
        public var risks: [String]?
        /// The risky changes the release shows on later days (a scheduled rate table taking
        /// effect), approved with it: `publish --if-stale` finds them here on their day.
        public var scheduled: [Scheduled]?
        /// The releases whose approvals covered changes of this one (an approval carried, not given).
        public var approvedIn: [String]?

        /// One scheduled change approved: the day it takes effect and what it is
        /// (`ApprovalGate.identity`: the product, the band and every value before and after).
        public struct Scheduled: Sendable, Equatable, Decodable {
            public var from: String
            public var change: String

            public init(from: String, change: String) {
                self.from = from
                self.change = change
            }
        }

        enum CodingKeys: String, CodingKey {
            case reason, by, risks, scheduled
            case approvedIn = "approved_in"
        }

        public init(reason: String, by: String?, risks: [String]?, scheduled: [Scheduled]? = nil, approvedIn: [String]? = nil) {
            self.reason = reason
            self.by = by
            self.risks = risks
            self.scheduled = scheduled
            self.approvedIn = approvedIn
        }
    }

    /// One journal line, read into its action and the fields ratecard reads back. Fields it
    /// does not read back (`bundle_id`, `removed`, ...) stay on disk and are not kept here.
    public struct Entry: Sendable, Equatable, Decodable {
        public var action: Action
        public var time: String
        public var user: String?
        /// The release published, promoted, recovered, cleared, or a failure was about.
        public var release: String?
        /// A rollback's (or its intent's) live release before and after.
        public var from: String?
        public var to: String?
        /// What was live before a publish or promote.
        public var previous: String?
        /// The commit of the release activated (publish, promote).
        public var commit: ObjectID?
        public var message: String?
        /// The sha256 of the version.json as published (`JournalFields.seal`).
        public var seal: String?
        public var approval: Approval?
        /// Every field of the line as written, those above and the rest (`log --format json`).
        public var fields: [String: JSON]

        enum CodingKeys: String, CodingKey {
            case action, time, user, release, from, to, previous, commit, message, approval
            case seal = "version_sha256"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let name = try container.decode(String.self, forKey: .action)
            guard let action = Action(rawValue: name) else {
                throw Journal.Unreadable("unknown action \"\(name)\"")
            }
            self.action = action
            time = try container.decode(String.self, forKey: .time)
            user = try container.decodeIfPresent(String.self, forKey: .user)
            release = try container.decodeIfPresent(String.self, forKey: .release)
            from = try container.decodeIfPresent(String.self, forKey: .from)
            to = try container.decodeIfPresent(String.self, forKey: .to)
            previous = try container.decodeIfPresent(String.self, forKey: .previous)
            if let text = try container.decodeIfPresent(String.self, forKey: .commit) {
                guard let id = ObjectID(validating: text) else { throw Journal.Unreadable("\"commit\": \"\(text)\" is not a commit id") }
                commit = id
            }
            message = try container.decodeIfPresent(String.self, forKey: .message)
            seal = try container.decodeIfPresent(String.self, forKey: .seal)
            approval = try container.decodeIfPresent(Approval.self, forKey: .approval)
            fields = try decoder.singleValueContainer().decode([String: JSON].self)
            let missing = action.requiredFields.filter { field in
                switch field {
                case "release": return release == nil
                case "from": return from == nil
                default: return to == nil
                }
            }
            guard missing.isEmpty else {
                throw Journal.Unreadable("a \(name) entry needs \(missing.map { "\"\($0)\"" }.joined(separator: " and "))")
            }
        }

        /// Whether a rollback (or its intent) marks the release it left bad. Only a bare rollback
        /// or `--mark-bad` does: its entry says `"marks_bad": false` otherwise. An entry without
        /// the field was written when every rollback marked the release it left, and keeps that
        /// meaning.
        public var marksBad: Bool { fields["marks_bad"]?.boolValue ?? true }

        /// Whether a rollback (or its intent) made a newer release live than the one it left: a
        /// roll forward. Its entry says `"direction": "forward"`; an entry without the field is
        /// read from its release numbers.
        public var rollsForward: Bool {
            guard action == .rollback || action == .rollbackIntent else { return false }
            if let direction = fields["direction"]?.stringValue { return direction == "forward" }
            return Self.rollsForward(from: from, to: to)
        }

        /// Whether going from release `from` to release `to` goes to a newer one.
        public static func rollsForward(from: String?, to: String?) -> Bool {
            func sequence(_ id: String?) -> Int { Int(id?.prefix { $0.isNumber } ?? "") ?? 0 }
            return from != nil && to != nil && sequence(to) > sequence(from)
        }

        /// The release this entry made live, if it activated one.
        public var activated: String? {
            switch action {
            case .publish, .promote, .recover, .rolloutComplete: return release
            case .rollback: return to
            default: return nil
            }
        }

        /// Reads one journal line (or S3 entry object).
        public static func read(_ bytes: [UInt8]) throws(Journal.Unreadable) -> Entry {
            do {
                return try JSONDecoder().decode(Entry.self, from: Data(bytes))
            } catch let error as Journal.Unreadable {
                throw error
            } catch let error as DecodingError {
                throw Journal.Unreadable(error)
            } catch {
                throw Journal.Unreadable("\(error)")
            }
        }
    }

    /// Why a line is not a journal entry, in words.
    public struct Unreadable: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String

        init(_ description: String) { self.description = description }

        init(_ error: DecodingError) { description = JSONDecoding.reason(error).english }
    }

    /// A line (or S3 entry) that is not a journal entry.
    public struct Problem: Sendable, Equatable {
        /// `<file>:<line>`, or the S3 key of the entry.
        public var location: String
        /// The 1-based line number, or the S3 entry number.
        public var number: Int
        public var reason: String
        /// An append cut short by a crash: the line starts as every entry does, with `{`, and
        /// ends before the closing `}`. An append returns only after its fsync, and a rollback's intent is
        /// fsynced before its swap, so a torn line never held a bad mark that took effect.
        public var torn: Bool

        public init(location: String, number: Int, reason: String, torn: Bool) {
            self.location = location
            self.number = number
            self.reason = reason
            self.torn = torn
        }

        public var description: String { text.english }

        /// What is wrong with the line; `reason` stays as the reader wrote it (a detail of the
        /// file, kept in the journal state).
        public var text: Message {
            torn
                ? Message(
                    "\(location): an entry torn by a crash mid-append (\(reason)); it was skipped", ko: "\(location): 기록하던 중 중단되어 끊긴 항목입니다 (\(reason)); 건너뛰었습니다")
                : Message("\(location): not a journal entry: \(reason)", ko: "\(location): 저널 항목이 아닙니다: \(reason)")
        }
    }

    public let path: String

    public init(path: String) { self.path = path }

    private var folder: String { DurableFiles.parent(of: path) }
    private var name: String { DurableFiles.name(of: path) }

    /// The journal as read: its entries, oldest first, and what is not an entry.
    public struct Contents: Sendable {
        public var entries: [Entry] = []
        public var problems: [Problem] = []

        public init(entries: [Entry] = [], problems: [Problem] = []) {
            self.entries = entries
            self.problems = problems
        }

        /// The line (or entry) numbers of the problems.
        public var malformedLines: [Int] { problems.map(\.number) }

        /// One warning per problem, for the commands that only show history.
        public var warnings: [Message] { problems.map(\.text) }

        /// The entries folded (`JournalState`).
        public var state: JournalState {
            var state = JournalState()
            state.apply(self, through: entries.count + problems.count)
            return state
        }

        /// Throws at the first problem that is not a torn append: a line edited or damaged may
        /// have been a bad mark (a rollback) and a decision must not be made without it.
        public func requireUndamaged() throws { try state.requireUndamaged() }

        /// Releases marked bad (`JournalState.badReleases(live:)`).
        public func badReleases(live: String? = nil) -> Set<String> { state.badReleases(live: live) }

        /// Adds the entry in `bytes`, or the problem with it.
        mutating func add(_ bytes: ArraySlice<UInt8>, number: Int, location: String, tearable: Bool) {
            do {
                entries.append(try Entry.read(Array(bytes)))
            } catch {
                let torn = tearable && bytes.first == UInt8(ascii: "{") && bytes.last != UInt8(ascii: "}")
                problems.append(Problem(location: location, number: number, reason: error.description, torn: torn))
            }
        }
    }

    /// Every entry and every line that is not one. The file is opened without following a symlink.
    public func read() throws -> Contents {
        guard let bytes = try StateFiles.read(folder, name) else { return Contents() }
        // The journal only grows: lines read before by this process (a publish reads it several
        // times, and it holds the whole history) are not decoded again.
        var contents = Contents()
        var start = 0
        var number = 0
        if let known = Self.lastRead.withLock({ $0 }), known.path == path, known.bytes.count <= bytes.count,
            bytes.starts(with: known.bytes)
        {
            (contents, start, number) = (known.contents, known.bytes.count, known.lines)
        }
        for line in bytes[start...].split(separator: 0x0A, omittingEmptySubsequences: false) {
            number += 1
            if !line.isEmpty { contents.add(line, number: number, location: "\(path):\(number)", tearable: true) }
        }
        // Remembered when every line is complete (a last line without its line break may be torn).
        if bytes.last == 0x0A {
            Self.lastRead.withLock { $0 = (path, bytes, contents, bytes.count(where: { $0 == 0x0A })) }
        }
        return contents
    }

    /// The whole file folded (a serve root's journal is one local file: reading it costs no requests).
    public func state() throws -> JournalState { try read().state }

    /// The journal this process read last, with what it held and its number of lines.
    private static let lastRead = Mutex<(path: String, bytes: [UInt8], contents: Contents, lines: Int)?>(nil)

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

/// The journal's vocabulary that every store and command shares: the fields every entry
/// carries, and the field that seals a release.
public enum JournalFields {
    /// The journal field that seals a release: the sha256 of its version.json, recorded when the
    /// release was staged and verified (publish) or copied and verified (promote).
    public static let seal = "version_sha256"

    public static func base(action: String) -> [String: JSON] {
        ["action": .string(action), "time": .string(Timestamp.now()), "user": .string(ProcessUser.name)]
    }
}
