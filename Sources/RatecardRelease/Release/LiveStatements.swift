import Foundation
import RatecardCore
public import RatecardLoader
import RatecardSupport

/// A private signing key as given to a command (`--signing-key FILE`, `RATECARD_SIGNING_KEY`):
/// its 32-byte seed and its public key.
public struct LiveSigner: Sendable, Equatable {
    public let privateKey: [UInt8]
    public let publicKey: TrustedKey

    /// Nil when the seed is not an Ed25519 private key.
    public init?(privateKey: [UInt8]) {
        guard let raw = Ed25519.publicKey(ofPrivateKey: privateKey), let key = TrustedKey(raw: raw) else { return nil }
        self.privateKey = privateKey
        self.publicKey = key
    }

    /// Nil unless `pem` is an Ed25519 private key in PEM (PKCS#8, as `keys generate` writes it).
    public init?(pem: [UInt8]) {
        guard let seed = Ed25519.privateKey(pem: pem) else { return nil }
        self.init(privateKey: seed)
    }
}

/// What an environment's `live.json` says and who signs it: its name in ratecard.yaml, its
/// `signing:` block (nil: unsigned) and the private keys the command was given.
public struct LiveDelivery: Sendable, Equatable {
    public var environment: String
    public var signing: ServiceConfig.Signing?
    public var signers: [LiveSigner]
    /// Why a key given could not be used (unreadable, readable by others, in the content
    /// repository, not a key): a changing command refuses with it.
    public var keyProblem: Message?

    public init(environment: String, signing: ServiceConfig.Signing?, signers: [LiveSigner] = [], keyProblem: Message? = nil) {
        self.environment = environment
        self.signing = signing
        self.signers = signers
        self.keyProblem = keyProblem
    }
}

/// `live.json` beside the pointer, and the public file lists (`o/<sha256>.json`) of the releases
/// it names: written under the lock by every command that changes what apps load (after the
/// bridge lines), checked by `status` and `verify`, repaired by the next command after a crash.
///
/// The sequence of a statement is one more than the highest the journal recorded
/// (`live_sequence` of an entry) or live.json holds, and is journaled before the statement is
/// written, so it never repeats or goes down, even when live.json is deleted or replaced.
public enum LiveStatements {
    public static let fileName = "live.json"
    /// `status` warns when a signed statement expires within this many days: two days' notice
    /// for the daily `ratecard sign` timer to have failed twice, plus one of margin.
    public static let warnDays = 3

    /// The environment's name in statements: the one from ratecard.yaml, else the folder's (or
    /// the prefix's) last name.
    public static func environment(of root: any ReleaseStore) -> String {
        if let name = root.delivery?.environment { return name }
        let parts = root.location(of: nil).split(separator: "/")
        return parts.last.map(String.init) ?? "default"
    }

    /// Throws (exit 1, before anything is written) when the environment is signed and no key
    /// the command was given is listed in `signing.keys`.
    public static func requireSigner(_ root: any ReleaseStore) throws {
        guard let delivery = root.delivery, let signing = delivery.signing else { return }
        if let problem = delivery.keyProblem {
            throw RefusedError(problem.then(Message("nothing was changed", ko: "아무것도 바꾸지 않았습니다")))
        }
        if delivery.signers.isEmpty {
            throw RefusedError(
                "environment '\(delivery.environment)' is signed (signing: in ratecard.yaml), and no signing key was given; nothing was changed. Pass --signing-key FILE or set RATECARD_SIGNING_KEY to the private key",
                ko: "환경 '\(delivery.environment)'은(는) 서명하는 환경(ratecard.yaml의 signing:)인데 서명 키를 받지 못했습니다; 아무것도 바꾸지 않았습니다. --signing-key FILE을 주거나 RATECARD_SIGNING_KEY에 개인 키를 넣으세요")
        }
        for signer in delivery.signers where !signing.keys.contains(where: { TrustedKey($0) == signer.publicKey }) {
            throw RefusedError(
                "the signing key given (public key \(signer.publicKey.text)) is not listed in signing.keys of environment '\(delivery.environment)'; nothing was changed. Add its .pub line to ratecard.yaml, or give a listed key",
                ko: "받은 서명 키(공개 키 \(signer.publicKey.text))가 환경 '\(delivery.environment)'의 signing.keys에 없습니다; 아무것도 바꾸지 않았습니다. 그 .pub 줄을 ratecard.yaml에 넣거나 목록에 있는 키를 주세요")
        }
    }

    /// A release's public file list and its bytes (deterministic: the same release gives the
    /// same object).
    static func fileList(of release: String, info: ReleaseInfo, environment: String) -> (sha256: String, bytes: [UInt8]) {
        let list = ReleaseFileList(
            environment: environment, release: release,
            files: info.files.map { .init(path: $0.path, sha256: $0.sha256, size: $0.size, object: ObjectLayout.objectName($0)) })
        let bytes = bytes(of: list)
        return (SHA256.hex(bytes), bytes)
    }

    /// The file lists of one change (one command under the lock), by release: each release's
    /// version.json is read once and its list made at most once. A list the journal recorded
    /// when its release was made live (`file_list`) is taken as recorded, without being made
    /// again, while the version.json still hashes to what it was made from and the environment
    /// and the list format are the same: a list depends on nothing else. A release of 5,700
    /// files costs 15 ms to parse and list, twice per publish and rollback otherwise.
    final class FileLists {
        struct Listed {
            var sha256: String
            var size: Int
            /// The version.json it is made from, and its sha256.
            var manifest: [UInt8]
            var version: String
            /// The list's bytes: nil when it was taken from the journal and not made here.
            var bytes: [UInt8]?
        }

        private var known: [String: Listed] = [:]
        /// The journal as first read by this change (a bucket's journal is listed again on every
        /// read without the lock: one request per release named otherwise).
        private var journaled: [String: JournalState.FileListRecord]?

        /// Takes the journal's records from a state the caller read, unless one was read before.
        func read(_ state: JournalState) {
            if journaled == nil { journaled = state.fileLists }
        }

        /// Keeps a release whose version.json and parse the caller has (a publish, which just put it).
        func keep(_ release: String, manifest: [UInt8], info: ReleaseInfo, environment: String) {
            let (sha256, bytes) = LiveStatements.fileList(of: release, info: info, environment: environment)
            known[release] = Listed(sha256: sha256, size: bytes.count, manifest: manifest, version: SHA256.hex(manifest), bytes: bytes)
            Trace.mark("live.json: the file list of \(release) made")
        }

        func listed(_ release: String, root: any ReleaseStore) throws -> Listed {
            if let listed = known[release] { return listed }
            guard let manifest = try root.manifest(of: release) else {
                throw OperationalError("release \(release) does not exist in \(root.displayName)", ko: "\(root.displayName)에 릴리스 \(release)이(가) 없습니다")
            }
            let version = SHA256.hex(manifest)
            let environment = LiveStatements.environment(of: root)
            var listed: Listed
            if journaled == nil { journaled = try root.journalLog.state().fileLists }
            if let record = journaled?[release], record.version == version, record.environment == environment,
                record.format == ReleaseFileList.currentFormat
            {
                listed = Listed(sha256: record.sha256, size: record.size, manifest: manifest, version: version, bytes: nil)
                Trace.mark("live.json: the file list of \(release) taken from the journal")
            } else {
                listed = Listed(sha256: "", size: 0, manifest: manifest, version: version, bytes: nil)
                try make(&listed, release: release, root: root)
            }
            known[release] = listed
            return listed
        }

        /// The list's bytes, made from the version.json read when they were not.
        func bytes(_ release: String, root: any ReleaseStore) throws -> [UInt8] {
            var listed = try listed(release, root: root)
            if let bytes = listed.bytes { return bytes }
            try make(&listed, release: release, root: root)
            known[release] = listed
            return listed.bytes ?? []
        }

        /// What the entry that makes `release` live journals of its list (`file_list`).
        func record(_ release: String, root: any ReleaseStore) throws -> JournalState.FileListRecord {
            let listed = try listed(release, root: root)
            return .init(
                sha256: listed.sha256, size: listed.size, environment: LiveStatements.environment(of: root), format: ReleaseFileList.currentFormat,
                version: listed.version)
        }

        private func make(_ listed: inout Listed, release: String, root: any ReleaseStore) throws {
            let info = try ReleaseInfo.parse(listed.manifest, source: root.location(of: .release(release)))
            let (sha256, bytes) = LiveStatements.fileList(of: release, info: info, environment: LiveStatements.environment(of: root))
            // Made from the version.json a journaled record was made from, the list hashes as
            // recorded; a journal that says otherwise was not written by ratecard.
            if !listed.sha256.isEmpty, listed.sha256 != sha256 {
                throw OperationalError(
                    "the journal records file list \(listed.sha256) for release \(release), but its version.json gives \(sha256) (was the journal edited?); run 'ratecard verify'",
                    ko: "저널에는 릴리스 \(release)의 파일 목록이 \(listed.sha256)(으)로 적혀 있는데 그 version.json에서는 \(sha256)이(가) 나옵니다 (저널을 손으로 고쳤나요?); 'ratecard verify'를 실행하세요")
            }
            (listed.sha256, listed.size, listed.bytes) = (sha256, bytes.count, bytes)
            Trace.mark("live.json: the file list of \(release) made")
        }
    }

    /// A file list's bytes: what `encode` gives (JSONEncoder, sorted keys, slashes as they are),
    /// written here directly when every string in it is printable ASCII without `"` or `\\`
    /// (ids, hex digests, object names and content paths are), which both write as they are;
    /// else by `encode`. A release of 5,700 files is listed twice per publish and rollback.
    static func bytes(of list: ReleaseFileList) -> [UInt8] {
        func plain(_ text: String) -> Bool {
            var text = text
            return text.withUTF8 { $0.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C } }
        }
        guard plain(list.environment), plain(list.release), list.files.allSatisfy({ plain($0.path) && plain($0.sha256) && plain($0.object) }) else {
            return encode(list)
        }
        var out: [UInt8] = []
        out.reserveCapacity(list.files.reduce(128) { $0 + $1.path.utf8.count + $1.object.utf8.count + 130 })
        out.append(contentsOf: #"{"environment":""#.utf8)
        out.append(contentsOf: list.environment.utf8)
        out.append(contentsOf: #"","files":["#.utf8)
        for (index, file) in list.files.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(contentsOf: #"{"object":""#.utf8)
            out.append(contentsOf: file.object.utf8)
            out.append(contentsOf: #"","path":""#.utf8)
            out.append(contentsOf: file.path.utf8)
            out.append(contentsOf: #"","sha256":""#.utf8)
            out.append(contentsOf: file.sha256.utf8)
            out.append(contentsOf: #"","size":"#.utf8)
            Bytes.appendDecimal(file.size, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: #"],"format":"#.utf8)
        Bytes.appendDecimal(list.format, to: &out)
        out.append(contentsOf: #","release":""#.utf8)
        out.append(contentsOf: list.release.utf8)
        out.append(contentsOf: #""}"#.utf8)
        return out
    }

    /// The object name of a release's public file list (`<sha256>.json`).
    public static func fileListObject(root: any ReleaseStore, release: String) throws -> String {
        fileList(of: release, info: try root.info(of: release), environment: environment(of: root)).sha256 + ".json"
    }

    /// The object names of the file lists of `releases` (which prune keeps).
    static func fileListObjects(root: any ReleaseStore, infos: [String: ReleaseInfo]) -> Set<String> {
        let environment = environment(of: root)
        return Set(infos.map { fileList(of: $0.key, info: $0.value, environment: environment).sha256 + ".json" })
    }

    static func encode<T: Encodable>(_ value: T) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(value)) ?? Data())
    }

    /// What the statement must say now (sequence and times aside): the live release and each
    /// bridge line's release, and the releases whose file lists it names. Nil when nothing is live.
    static func expected(root: any ReleaseStore, lists: FileLists) throws -> (live: LiveStatement.Line, lines: [String: LiveStatement.Line], releases: [String])? {
        // A pointer naming a release that is gone (removed by hand) states nothing: the rollback
        // that mends it writes the statement, and must not be refused for it.
        guard let live = try root.pointer(), try root.releaseIDs().contains(live) else { return nil }
        let (lines, requires) = try BridgeLines.computeWithRequirements(root: root)
        var named: [Int: String] = lines
        // A live release that needs nothing of the app is what every app below the first line loads.
        if requires[live] == nil { named[0] = live }
        // A staged rollout rides on every line whose apps can run its release (the bridge gate), and
        // on `live` when its release needs nothing of the app; it ends once its release is live.
        let state = try root.journalLog.state()
        lists.read(state)
        let rollout = state.rollout.flatMap { $0.release == live ? nil : $0 }
        let releases = Set(named.values).union([live]).union(rollout.map { [$0.release] } ?? []).sorted()
        var files: [String: String] = [:]
        for id in releases { files[id] = try lists.listed(id, root: root).sha256 }
        let rolloutNeeds = rollout.map { requires[$0.release] ?? 0 } ?? 0
        func line(_ id: String, bridge: Int) -> LiveStatement.Line {
            var line = LiveStatement.Line(release: id, files: files[id]!)
            if let rollout, rolloutNeeds <= bridge, id != rollout.release {
                line.rollout = LiveStatement.Rollout(id: rollout.id, release: rollout.release, files: files[rollout.release]!, share: rollout.share)
            }
            return line
        }
        return (line(live, bridge: 0), Dictionary(uniqueKeysWithValues: named.map { (String($0.key), line($0.value, bridge: $0.key)) }), releases)
    }

    /// The next sequence: one more than the highest the journal recorded or live.json holds.
    static func nextSequence(root: any ReleaseStore) throws -> Int {
        let journaled = try root.journalLog.state().highestLiveSequence
        let served = (try? read(root: root))?.statement.sequence ?? 0
        return max(journaled, served) + 1
    }

    /// Writes live.json for what is live now with sequence `sequence` (which the caller has
    /// journaled, or journals here when `journal` is set), putting the file lists first.
    @discardableResult
    public static func write(root: any ReleaseStore, sequence given: Int? = nil, journal: [String: JSON]? = nil, now: Int = time(nil)) throws -> Int? {
        try write(root: root, sequence: given, journal: journal, now: now, lists: FileLists())
    }

    @discardableResult
    static func write(root: any ReleaseStore, sequence given: Int?, journal: [String: JSON]?, now: Int = time(nil), lists: FileLists) throws -> Int? {
        try requireSigner(root)
        guard let expected = try expected(root: root, lists: lists) else { return nil }
        let sequence = try given ?? nextSequence(root: root)
        if var fields = journal {
            fields["live_sequence"] = .int(sequence)
            try root.journalLog.append(fields)
        }
        try putFileLists(expected.releases, lists: lists, root: root)
        let delivery = root.delivery
        let expires = delivery?.signing.map { Timestamp.format(seconds: now + $0.expiresAfterDays * 86400) }
        let statement = LiveStatement(
            environment: environment(of: root), sequence: sequence, signedAt: Timestamp.format(seconds: now), expiresAt: expires, live: expected.live,
            lines: expected.lines)
        let payload = encode(statement)
        var signatures: [SignedLiveStatement.Signature] = []
        if delivery?.signing != nil {
            for signer in delivery?.signers ?? [] {
                guard let signature = Ed25519.sign(SignedLiveStatement.signedBytes(payload: payload), privateKey: signer.privateKey) else {
                    throw OperationalError("libcrypto could not sign \(fileName)", ko: "libcrypto가 \(fileName)에 서명하지 못했습니다")
                }
                signatures.append(.init(key: signer.publicKey.text, sig: Data(signature).base64EncodedString()))
            }
        }
        try root.write(state: fileName, encode(SignedLiveStatement(payload: payload, signatures: signatures)) + [0x0A])
        CrashPoint.hit("live-written")
        return sequence
    }

    /// Puts the file lists a statement names. A file list is derived from its release: one
    /// changed in the store is replaced, not kept. A store whose put reads and checks a present
    /// object is not asked first (a new list is one conditional create); only when that put
    /// fails are the lists read, the changed ones deleted and all put again.
    /// A list taken from the journal (not made by this change) is read and hashed where it is
    /// (a serve root); one missing or changed is made and put with the others.
    static func putFileLists(_ releases: [String], lists: FileLists, root: any ReleaseStore) throws {
        var made: [(String, [UInt8])] = []
        var unmade: [(release: String, sha256: String)] = []
        for release in releases {
            let listed = try lists.listed(release, root: root)
            if let bytes = listed.bytes { made.append((listed.sha256, bytes)) } else { unmade.append((release, listed.sha256)) }
        }
        // A bucket creates a list that is there in one request, as it is made: there it is made.
        let kept = root.putReadsPresentObjects || unmade.isEmpty ? [] : try root.read(unmade.map { .object($0.sha256 + ".json") })
        for (index, (release, sha256)) in unmade.enumerated() where index >= kept.count || kept[index].map({ SHA256.hex($0) }) != sha256 {
            made.append((sha256, try lists.bytes(release, root: root)))
        }
        guard !made.isEmpty else { return }
        let items = made.map { StoreItem(key: .object($0.0 + ".json"), sha256: $0.0, size: $0.1.count, bytes: $0.1) }
        if root.putReadsPresentObjects {
            do {
                try root.put(items)
                return
            } catch let error as ConflictError {
                throw error
            } catch {
                Trace.mark("live.json: a file list was not put (\(error)); the lists are read and put again")
            }
        }
        let present = try root.read(made.map { .object($0.0 + ".json") })
        let changed = zip(made, present).compactMap { list, bytes in bytes != nil && bytes! != list.1 ? StoreKey.object(list.0 + ".json") : nil }
        if !changed.isEmpty { try root.delete(changed) }
        try root.put(items)
    }

    /// After the live release or a bad mark changed (under the same lock): live.json rewritten.
    /// The change happened, so a failure here is reported as such, with what repairs it.
    public static func writeAfterChange(root: any ReleaseStore, live: String, sequence: Int?) throws {
        try writeAfterChange(root: root, live: live, sequence: sequence, lists: FileLists())
    }

    static func writeAfterChange(root: any ReleaseStore, live: String, sequence: Int?, lists: FileLists) throws {
        do {
            try write(root: root, sequence: sequence, journal: nil, lists: lists)
        } catch {
            let why = Message.of(error)
            throw OperationalError(
                "release \(live) is live in \(root.displayName), but \(fileName) could not be written (\(why)), so apps with the loader keep loading what it named before; the next publish, rollback, promote, prune or sign there rewrites it",
                ko:
                    "\(root.displayName)에서 릴리스 \(live)이(가) 라이브가 되었지만 \(fileName)을(를) 쓰지 못해(\(why)) 로더가 있는 앱은 전에 적힌 것을 계속 불러옵니다; 그곳에서 다음에 'publish', 'rollback', 'promote', 'prune', 'sign' 중 하나를 하면 다시 씁니다"
            )
        }
    }

    /// live.json as served, decoded (nil when there is none).
    public static func read(root: any ReleaseStore) throws -> (envelope: SignedLiveStatement, statement: LiveStatement)? {
        guard let bytes = try root.readState(fileName) else { return nil }
        let source = root.location(of: .state(fileName))
        let envelope = try JSONDecoding.decode(SignedLiveStatement.self, from: bytes, source: source)
        guard let payload = envelope.payloadBytes else {
            throw OperationalError("\(source) is malformed: its payload is not base64", ko: "\(source)의 형식이 잘못되었습니다: payload가 base64가 아닙니다")
        }
        return (envelope, try JSONDecoding.decode(LiveStatement.self, from: payload, source: source))
    }

    /// What is wrong with live.json against the pointer, the bridge lines, the file lists and
    /// `signing:` (one problem each; empty when it is current). `verify` adds the signatures'
    /// and file lists' checks (`check`).
    public static func staleness(root: any ReleaseStore) throws -> [Message] {
        try staleness(root: root, lists: FileLists())
    }

    static func staleness(root: any ReleaseStore, lists: FileLists) throws -> [Message] {
        guard let expected = try expected(root: root, lists: lists) else { return [] }
        guard let (envelope, statement) = try read(root: root) else {
            // A root last changed before live.json existed has none until its next command; one
            // that had it (the journal recorded a sequence) or is signed must.
            if root.delivery?.signing == nil, try root.journalLog.state().highestLiveSequence == 0 { return [] }
            return [Message("stale: \(fileName) is missing (apps with the loader find nothing to load)", ko: "오래됨: \(fileName)이(가) 없습니다 (로더가 있는 앱은 불러올 것을 찾지 못합니다)")]
        }
        var problems: [Message] = []
        if statement.live != expected.live {
            problems.append(
                Message(
                    "stale: \(fileName) names release \(statement.live.release) as live, not \(expected.live.release)",
                    ko: "오래됨: \(fileName)이(가) 라이브 릴리스를 \(expected.live.release)이(가) 아니라 \(statement.live.release)(으)로 적고 있습니다"))
        }
        for line in Set(statement.lines.keys).union(expected.lines.keys).sorted(by: { (Int($0) ?? 0) < (Int($1) ?? 0) })
        where statement.lines[line] != expected.lines[line] {
            let (now, due) = (statement.lines[line]?.release ?? "nothing", expected.lines[line]?.release ?? "nothing")
            problems.append(
                Message(
                    "stale: \(fileName) gives apps of bridge \(line) \(now), not \(due)", ko: "오래됨: \(fileName)이(가) 브리지 \(line) 앱에 \(due)이(가) 아니라 \(now)을(를) 줍니다"))
        }
        if statement.environment != environment(of: root) {
            problems.append(
                Message(
                    "stale: \(fileName) is for environment '\(statement.environment)', not '\(environment(of: root))'",
                    ko: "오래됨: \(fileName)이(가) 환경 '\(environment(of: root))'이(가) 아니라 '\(statement.environment)'의 것입니다"))
        }
        if let signing = root.delivery?.signing {
            let listed = Set(signing.keys.compactMap { TrustedKey($0) })
            if !envelope.signatures.contains(where: { TrustedKey($0.key).map(listed.contains) ?? false }) {
                problems.append(
                    Message(
                        "stale: \(fileName) is not signed by a key listed in signing.keys (run 'ratecard sign')",
                        ko: "오래됨: \(fileName)에 signing.keys에 있는 키의 서명이 없습니다 ('ratecard sign'을 실행하세요)"))
            }
        }
        return problems
    }

    /// Under the lock, after recovery: rewrites live.json (journaled as a `sign` entry) when it
    /// is stale, e.g. after a crash between the flip and its write.
    public static func repair(root: any ReleaseStore) throws {
        try repair(root: root, lists: FileLists())
    }

    static func repair(root: any ReleaseStore, lists: FileLists) throws {
        guard try !staleness(root: root, lists: lists).isEmpty else { return }
        var fields = JournalFields.base(action: "sign")
        fields["message"] = .string("live.json repaired")
        try write(root: root, sequence: nil, journal: fields, lists: lists)
    }

    /// What `status` and `verify` show of the statement: its sequence, signers and expiry.
    public struct Summary: Sendable {
        public var sequence: Int
        public var signers: [String]
        public var signedAt: String
        public var expiresAt: String?
        /// Seconds until it expires (negative: expired); nil when unsigned.
        public var expiresIn: Int?
    }

    public static func summary(root: any ReleaseStore, now: Int = time(nil)) throws -> Summary? {
        guard let (envelope, statement) = try read(root: root) else { return nil }
        return Summary(
            sequence: statement.sequence, signers: envelope.signatures.map(\.key), signedAt: statement.signedAt, expiresAt: statement.expiresAt,
            expiresIn: statement.expiresAt.flatMap(seconds).map { $0 - now })
    }

    /// `verify`'s check: each signature against the keys listed (one by a listed key must
    /// verify; a bad one is a problem), the statement against the pointer and the lines
    /// (`staleness`), and each named file list against its hash and its release's files.
    public static func check(root: any ReleaseStore) throws -> [Message] {
        var problems = try staleness(root: root)
        guard let (envelope, statement) = try read(root: root) else { return problems }
        let listed = Set((root.delivery?.signing?.keys ?? []).compactMap { TrustedKey($0) })
        let signed = envelope.signedBytes ?? []
        for signature in envelope.signatures {
            let valid = TrustedKey(signature.key).map { key in
                Data(base64Encoded: signature.sig).map { Ed25519.isValid(signature: Array($0), of: signed, publicKey: key.raw) } ?? false
            }
            if valid != true {
                problems.append(
                    Message(
                        "\(fileName): the signature by \(signature.key) does not verify", ko: "\(fileName): \(signature.key)의 서명이 맞지 않습니다"))
            } else if !listed.isEmpty, let key = TrustedKey(signature.key), !listed.contains(key) {
                problems.append(
                    Message("\(fileName): signed by \(signature.key), which signing.keys does not list", ko: "\(fileName): signing.keys에 없는 \(signature.key)(으)로 서명했습니다"))
            }
        }
        let environment = environment(of: root)
        var seen: Set<String> = []
        let named = ([statement.live] + statement.lines.values.sorted { $0.release < $1.release }).flatMap { line in
            [line] + (line.rollout.map { [LiveStatement.Line(release: $0.release, files: $0.files)] } ?? [])
        }
        for line in named where seen.insert(line.release + " " + line.files).inserted {
            let name = line.files + ".json"
            guard let bytes = try root.read([.object(name)]).first ?? nil else {
                problems.append(
                    Message(
                        "\(fileName): the file list of release \(line.release) (o/\(name)) is missing", ko: "\(fileName): 릴리스 \(line.release)의 파일 목록(o/\(name))이 없습니다"))
                continue
            }
            let expected = (try? root.info(of: line.release)).map { fileList(of: line.release, info: $0, environment: environment) }
            if SHA256.hex(bytes) != line.files || expected?.bytes != bytes {
                problems.append(
                    Message(
                        "\(fileName): the file list of release \(line.release) (o/\(name)) does not match its hash or the release's files",
                        ko: "\(fileName): 릴리스 \(line.release)의 파일 목록(o/\(name))이 해시나 릴리스의 파일과 맞지 않습니다"))
            }
        }
        return problems
    }

    /// Seconds since 1970 of an RFC 3339 UTC time (`2026-12-04T18:00:00Z`), nil for another form.
    public static func seconds(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[10] == UInt8(ascii: "T"), bytes[19] == UInt8(ascii: "Z"), let day = Day(String(text.prefix(10))) else { return nil }
        let clock = text.dropFirst(11).prefix(8).split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3 else { return nil }
        return day.ordinal * 86400 + clock[0] * 3600 + clock[1] * 60 + clock[2]
    }
}
