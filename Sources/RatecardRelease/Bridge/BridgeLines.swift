import RatecardOutput
import RatecardSupport

/// `ROOT/bridge-lines.json`: for each bridge version a release needs, the release an app of
/// that bridge version (or newer, up to the next line) should load.
///
/// ```json
/// {"lines": {"1": "000004", "3": "000007"}}
/// ```
/// An app of bridge version B loads the release of the greatest line at or below B; an app
/// below every line has no release it can run. Each line names the live release when the live
/// release needs no more than the line's version, else the newest release not marked bad that
/// does. The file is recomputed from the releases' version.json files after every publish,
/// promote, rollback and cleared bad mark (written to a temporary name, fsynced, renamed), and
/// `prune` keeps every release it names.
///
/// How an app chooses: it fetches `/bridge-lines.json` (no-cache), takes the greatest line at
/// or below its own bridge version, and loads `/index.html` when that line names the live
/// release, else `/r/<release>/index.html` (nginx serves kept releases there; their pages use
/// relative URLs, so they read their own data).
public enum BridgeLines {
    public static let fileName = "bridge-lines.json"

    /// Line (a bridge version) -> release id, and what each release requires. What a release
    /// requires is taken from the file's own record where it has one (a release never changes),
    /// so a rollback does not re-read every release's version.json (hundreds of kilobytes each
    /// on a large site).
    static func computeWithRequirements(root: any ReleaseStore, known new: [String: Int] = [:]) throws -> (lines: [Int: String], requires: [String: Int]) {
        // A pointer naming a release that is gone (removed by hand) names no line: the rollback
        // that mends it repairs the file first, and must not be refused for it.
        let ids = try root.releaseIDs()
        let pointer = try root.pointer()
        let live = pointer.flatMap { ids.contains($0) ? $0 : nil }
        let journal = try root.journalLog.state()
        try journal.requireUndamaged()
        let bad = journal.badReleases(live: pointer)
        let known = ((try? recordedRequirements(root: root)) ?? [:]).merging(new) { $1 }
        var requires: [String: Int] = [:]
        for id in ids {
            // What the journal recorded when the release was published (0: the web build needs
            // nothing of the app), else the file's own record, else the release's version.json.
            if let journaled = journal.publications[id]?.bridgeRequires {
                if journaled > 0 { requires[id] = journaled }
            } else if let recorded = known[id] {
                requires[id] = recorded
            } else if let requirement = try? root.manifest(of: id).flatMap(BridgeRequirement.recorded(manifest:)) {
                requires[id] = requirement.requires
            }
        }
        // A release being rolled out reaches only its share, through live.json: no line names it.
        let rolling = journal.rollout.flatMap { $0.release == live ? nil : $0.release }
        var lines: [Int: String] = [:]
        for line in Set(requires.values) {
            if let live, let needed = requires[live], needed <= line {
                lines[line] = live
            } else if let newest = requires.keys.filter({ requires[$0]! <= line && !bad.contains($0) && $0 != rolling }).max() {
                lines[line] = newest
            }
        }
        return (lines, requires)
    }

    /// Recomputes and writes the file (nothing when no release records a requirement).
    @discardableResult
    /// `known`: requirements already at hand (release id -> bridge version), which spares reading
    /// those releases' version.json (a publish knows what it just published).
    public static func update(root: any ReleaseStore, known: [String: Int] = [:]) throws -> [Int: String] {
        let (lines, requires) = try computeWithRequirements(root: root, known: known)
        guard try !lines.isEmpty || root.readState(fileName) != nil else { return lines }
        let object = JSON.object([
            "lines": .object(Dictionary(uniqueKeysWithValues: lines.map { (String($0.key), JSON.string($0.value)) })),
            "requires": .object(requires.mapValues { JSON.int($0) }),
        ])
        try root.write(state: fileName, Array((object.serialized() + "\n").utf8))
        return lines
    }

    /// How the file differs from what it must say now (after a crash between a flip and the
    /// file's rewrite): one problem per line, empty when it is current.
    public static func staleness(root: any ReleaseStore) throws -> [Message] {
        let (expected, _) = try computeWithRequirements(root: root)
        let written = try read(root: root)
        guard try !expected.isEmpty || root.readState(fileName) != nil else { return [] }
        var problems: [Message] = []
        func release(_ id: String?) -> Message { id.map { Message("release \($0)", ko: "릴리스 \($0)") } ?? Message("nothing", ko: "아무것도 없음") }
        for line in Set(expected.keys).union(written.keys).sorted() where expected[line] != written[line] {
            let (now, due) = (release(written[line]), release(expected[line]))
            problems.append(
                Message(
                    "stale: \(fileName) gives apps of bridge \(line) \(now), not \(due)",
                    ko: "오래됨: \(fileName)이(가) 브리지 \(line) 앱에 \(due)이(가) 아니라 \(now)을(를) 줍니다"))
        }
        return problems
    }

    /// What is served beside the pointer and must follow it, and is not current: the bridge
    /// lines, and a served `index.html` (a bucket's) that is missing or does not serve the live
    /// release. A constant number of reads, for `status` and `verify`.
    public static func servedStaleness(root: any ReleaseStore) throws -> [Message] {
        var problems = try staleness(root: root) + LiveStatements.staleness(root: root)
        let served = try root.readState("index.html")
        if served != nil || root.servesEntryDocument, let live = try? root.live(), let page = try? root.readFile("index.html", of: live) {
            if served == nil {
                problems.append(
                    Message("stale: index.html is missing (the app's stable URL serves nothing)", ko: "오래됨: index.html이 없습니다 (앱의 고정 URL이 아무것도 보여 주지 않습니다)"))
            } else if ObjectLayout.servedEntry(page, release: live) != served {
                problems.append(Message("stale: index.html does not serve the live release \(live)", ko: "오래됨: index.html이 라이브 릴리스 \(live)을(를) 보여 주지 않습니다"))
            }
        }
        return problems
    }

    /// Rewrites the file when it is stale (the next command after a crash does; under the lock).
    public static func repair(root: any ReleaseStore) throws {
        if try !staleness(root: root).isEmpty { try update(root: root) }
    }

    /// After the live release or a bad mark changed (under the same lock): the file rewritten.
    /// The change happened, so a failure here is reported as such, with what repairs it.
    public static func updateAfterChange(root: any ReleaseStore, live: String, known: [String: Int] = [:]) throws {
        do {
            try update(root: root, known: known)
        } catch {
            let why = Message.of(error)
            throw OperationalError(
                "release \(live) is live in \(root.displayName), but \(fileName) could not be written (\(why)), so older apps may still load another release; the next publish, rollback, promote or prune there rewrites it (a publish of what is live changes nothing else)",
                ko:
                    "\(root.displayName)에서 릴리스 \(live)이(가) 라이브가 되었지만 \(fileName)을(를) 쓰지 못해(\(why)) 옛 앱은 아직 다른 릴리스를 불러올 수 있습니다; 그곳에서 다음에 'publish', 'rollback', 'promote', 'prune' 중 하나를 하면 다시 씁니다 (라이브인 것을 다시 게시해도 다른 것은 바뀌지 않습니다)"
            )
        }
    }

    /// bridge-lines.json as written: line (a bridge version, as text) -> release id, and the
    /// bridge version each release requires.
    struct Record: Decodable {
        var lines: [String: String]
        var requires: [String: Int]?
    }

    /// The file as written, nil when there is none; a malformed one is an error naming it.
    static func record(root: any ReleaseStore) throws -> Record? {
        guard let bytes = try root.readState(fileName) else { return nil }
        // A serve root's path, or an S3 target's `s3://bucket/prefix/`.
        let source = root.location(of: .state(fileName))
        let record = try JSONDecoding.decode(Record.self, from: bytes, source: source)
        if let bad = record.lines.keys.first(where: { Int($0) == nil }) {
            throw OperationalError("\(source) is malformed: line \"\(bad)\" is not a whole number", ko: "\(source)의 형식이 잘못되었습니다: 줄 \"\(bad)\"이(가) 정수가 아닙니다")
        }
        return record
    }

    /// The bridge version each release requires, as the file recorded it.
    static func recordedRequirements(root: any ReleaseStore) throws -> [String: Int] {
        try record(root: root)?.requires ?? [:]
    }

    /// The lines as written (empty when there is no file).
    public static func read(root: any ReleaseStore) throws -> [Int: String] {
        var lines: [Int: String] = [:]
        for (key, id) in try record(root: root)?.lines ?? [:] { lines[Int(key)!] = id }
        return lines
    }

    /// The release an app of bridge version `bridge` loads: the greatest line at or below it.
    public static func release(for bridge: Int, in lines: [Int: String]) -> (line: Int, release: String)? {
        guard let line = lines.keys.filter({ $0 <= bridge }).max() else { return nil }
        return (line, lines[line]!)
    }
}
