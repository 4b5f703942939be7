import RatecardCore
import RatecardOutput
import RatecardSupport

/// A key of a release store: an immutable object named by its sha256, a release manifest
/// (`version.json`) named by the release id, a file of a release's entry folder, the one
/// mutable pointer (what is live), or a small served state file (`bridge-lines.json`).
public enum StoreKey: Hashable, Sendable {
    case object(String)
    case release(String)
    case entry(release: String, path: String)
    case pointer
    case state(String)
}

/// What a store holds under a key kind (`list`).
public enum StoreKind: Sendable {
    case objects
    case releases
}

/// A name a store lists, with the bytes it takes (-1 when the store does not say).
public struct StoreListing: Sendable, Equatable {
    public var name: String
    public var size: Int

    public init(name: String, size: Int) {
        self.name = name
        self.size = size
    }
}

/// One item to put: its key, the sha256 and size its bytes must have, and the bytes (nil when
/// the item must already be in the store, as an object an incremental build reused). A release
/// manifest may come with its parsed `info`, which the store then does not parse again.
public struct StoreItem: Sendable {
    public var key: StoreKey
    public var sha256: String
    public var size: Int
    public var bytes: [UInt8]?
    public var info: ReleaseInfo?

    public init(key: StoreKey, sha256: String, size: Int, bytes: [UInt8]?, info: ReleaseInfo? = nil) {
        self.key = key
        self.sha256 = sha256
        self.size = size
        self.bytes = bytes
        self.info = info
    }

    /// A put's items as the stores take them: objects first, then release manifests. The
    /// pointer is never put (it changes only by compare-and-swap, `flip`).
    static func partition(_ items: [StoreItem]) throws -> (objects: [StoreItem], releases: [StoreItem]) {
        var objects: [StoreItem] = []
        var releases: [StoreItem] = []
        for item in items {
            switch item.key {
            case .object: objects.append(item)
            case .release: releases.append(item)
            case .pointer: throw OperationalError("the pointer is changed with flip, not put", ko: "포인터는 put이 아니라 flip으로 바꿉니다")
            case .entry, .state: throw OperationalError("a store makes a release's entry files and its state itself", ko: "릴리스의 엔트리 파일과 상태는 저장소가 직접 만듭니다")
            }
        }
        return (objects, releases)
    }
}

/// Where releases are published: a serve root folder (`ServeRoot`, in `Store/Local`) or a
/// prefix of an S3-compatible bucket (`S3Root`, in `Store/S3`). Publish, rollback, promote,
/// prune, status, releases and verify are written against these twelve calls only, so each
/// backend runs the same protocol (lock, recover, put objects, put the release, flip the pointer
/// by compare-and-swap, journal, unlock) and a new backend is one folder beside those two.
///
/// - `put` stores each item whose key is absent and returns only when every item is durable and
///   read back equal to its hash; an item already present is checked against its hash, never
///   overwritten. A release manifest is put only after every object it names, and the store
///   makes the release's entry files from it (exactly those, whatever a crash left before).
/// - `read` returns what each key holds (`.pointer`: the live release id), nil when absent.
/// - `list` names the objects (with their sizes) or the complete releases.
/// - `delete` removes keys; deleting a release never touches the objects it names.
/// - `flip` points the pointer at a release, only if it still names `expected`
///   (compare-and-swap; nil: no release live yet), and is the only change readers see at once.
public protocol ReleaseStore {
    /// How messages name a key of the store (`<root>/objects/<name>`, `s3://bucket/prefix/current`),
    /// or with nil the store itself (the folder, or `s3://bucket/prefix/`).
    func location(of key: StoreKey?) -> String
    /// The journal: who did what, when and why (what is live is the pointer, never the journal).
    var journalLog: any JournalLog { get }
    /// Takes the one lock for changes here (making the place first if it is missing), waiting
    /// for the holder unless `wait` is false (then a held lock is a `ConflictError`). A holder
    /// that died is never waited on forever.
    func acquireLock(command: String, wait: Bool, onWait: (Message) -> Void) throws -> any ReleaseLease
    /// Under the lock: removes what a crash or a prune left (unfinished releases, entry files of
    /// releases that are gone) and records a flip the journal missed.
    @discardableResult
    func recover() throws -> [String]
    /// What each key holds, nil where it is absent (in parallel where the store can).
    func read(_ keys: [StoreKey]) throws -> [[UInt8]?]
    func list(_ kind: StoreKind) throws -> [StoreListing]
    @discardableResult
    func put(_ items: [StoreItem]) throws -> Int
    /// Deletes the keys (objects, releases); durable when it returns.
    func delete(_ keys: [StoreKey]) throws
    func flip(expected: String?, to release: String) throws
    /// The problems of a release against its version.json (`missing: path`, `changed object:
    /// path`, `unlisted: path`, ...), empty when it is whole: every file and object re-hashed
    /// when `deep`, else what the store can tell without reading them (a bucket's listing).
    func drift(of release: String, deep: Bool) throws -> [String]
    /// Replaces a small state file served beside the releases (`bridge-lines.json`) atomically.
    func write(state name: String, _ bytes: [UInt8]) throws
    /// What this command sent to storage (object storage only), for `--format json`.
    var usage: JSON? { get }
    /// Claims sequence number `number` for release `id` (under the lock): false when another
    /// release has it. A store whose lock cannot be lost (a serve root's `flock`) needs no claim.
    func claimReleaseNumber(_ number: Int, for id: String) throws -> Bool
    /// Under the lock: puts back the entry files of `release` that are missing, from its
    /// manifest and its objects; returns their paths. Throws `UnrestorableEntries` after
    /// restoring the others when an object is missing too.
    func restoreEntries(of release: String) throws -> [String]
    /// Whether a file of a release of `format` is in its entry folder in this store.
    func inEntryFolder(_ path: String, format: Int) -> Bool
    /// Whether the store serves the live release's `index.html` beside the pointer (a bucket's
    /// prefix does), so that one missing there is stale.
    var servesEntryDocument: Bool { get }
    /// Whether `put` reads an object that is already there and compares its bytes with its hash
    /// (a bucket's conditional create does), so that a caller need not read it first.
    var putReadsPresentObjects: Bool { get }
    /// The environment's name, its `signing:` and the keys given, for `live.json`
    /// (`LiveStatements`); nil for a serve root named by path alone (unsigned, named after it).
    var delivery: LiveDelivery? { get set }
}

extension ReleaseStore {
    public func claimReleaseNumber(_ number: Int, for id: String) throws -> Bool { true }
    public func restoreEntries(of release: String) throws -> [String] { [] }
    public func inEntryFolder(_ path: String, format: Int) -> Bool { ObjectLayout.inEntryFolder(path) }
    public var servesEntryDocument: Bool { false }
    public var putReadsPresentObjects: Bool { false }
}

/// Thrown by `flip` when the pointer did flip but what the store keeps in step with it (a
/// bucket's served `index.html`) could not be written: the release is live, and the next
/// command that changes the store repairs the rest. The flows journal the flip, then fail.
public struct AfterFlipError: ErrorText, Sendable, CustomStringConvertible {
    public var text: Message
    public init(_ english: String, ko korean: Korean) { self.text = Message(english, ko: korean) }
    public var description: String { text.english }
}

/// A held lock; `release()` gives it up (also done when it is freed).
public protocol ReleaseLease: AnyObject {
    /// Throws a `ConflictError` when the lock is no longer held (object storage: it expired and
    /// was taken over); called before the pointer is flipped.
    func confirm() throws
    func release()
}

/// How a release of the object layout (version.json `"format": 2` or 3) keeps its files.
///
/// Every file is an object, `objects/<sha256><.ext>` (served as `/o/<sha256><.ext>`). The data
/// documents (`data/<bundle-id>/**.json`) are objects only; every other file (the web build,
/// `data/manifest.json`, `data/entry.json`, the HTML pages, terms pages and logos) is also in
/// the release's small entry folder, which `current` points at, as a hard link to its object.
///
/// Format 3 (what a publish writes now) names objects from a page by `../../o/`, which reaches
/// the objects from a release served at the root (`/index.html`: a browser stops `..` at the
/// root) and from one served in a release folder (`/r/<id>/index.html`, or `r/<id>/` below a
/// bucket's prefix) alike, so no server needs a rule to map them; and a bucket keeps only the
/// web build and `data/entry.json` in a release's folder (`S3Store`), every page being found by
/// its hash. Format 2 named objects by `o/` (nginx maps `/r/<id>/o/` to the store).
public enum ObjectLayout {
    /// What a publish writes.
    public static let format = 3
    /// The first format whose files are objects (format 1: each release a complete folder).
    public static let objectsSince = 2
    /// Where the app finds objects, relative to the page that reads an entry document
    /// (`data/manifest.json`'s and `data/entry.json`'s `objects`).
    public static let urlPrefix = "../../o/"

    /// `<sha256>.<ext>`: the extension gives the web server the Content-Type.
    public static func objectName(sha256: String, path: String) -> String {
        // Read from the end of the path's bytes: it is asked for every file of a release, several
        // times a publish. The extension is the name's last 1-8 bytes after a dot, letters or
        // digits, lower-cased (other bytes, a "/" or no dot before them: no extension).
        var path = path
        return path.withUTF8 { bytes -> String in
            var start = bytes.count
            while start > 0 && bytes.count - start <= 8 {
                let byte = bytes[start - 1]
                if byte == UInt8(ascii: ".") { break }
                let lower = byte | 0x20
                guard (lower >= UInt8(ascii: "a") && lower <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) else { return sha256 }
                start -= 1
            }
            guard start > 0, bytes[start - 1] == UInt8(ascii: "."), start < bytes.count, bytes.count - start <= 8 else { return sha256 }
            var name = sha256
            name.reserveCapacity(sha256.utf8.count + 1 + bytes.count - start)
            name.append(".")
            name.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start...]), as: UTF8.self).lowercased())
            return name
        }
    }

    public static func objectName(_ file: BundleManifest.File) -> String { objectName(sha256: file.sha256, path: file.path) }

    /// Whether a file of a format-2 release is in its entry folder (else it is an object only).
    public static func inEntryFolder(_ path: String) -> Bool {
        BundleLayout.isEntryDocument(path) || !path.hasSuffix(".json")
    }

    /// Whether `name` is an object name (64 hex, an optional short extension).
    public static func isObjectName(_ name: String) -> Bool {
        let bytes = name.utf8
        guard bytes.count >= 64, bytes.count != 65, bytes.count <= 73 else { return false }
        for (index, byte) in bytes.enumerated() {
            switch index {
            case 0..<64:
                guard (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f")) else { return false }
            case 64:
                guard byte == UInt8(ascii: ".") else { return false }
            default:
                guard byte != UInt8(ascii: "."), byte < 0x80 else { return false }
            }
        }
        return true
    }
}
