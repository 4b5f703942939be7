import RatecardCore
import RatecardSupport

/// What every command reads of a store, in terms of its twelve calls: the pointer, the
/// releases and their manifests and files, the journal's judgements.
extension ReleaseStore {
    /// What one key holds, nil when absent.
    public func read(_ key: StoreKey) throws -> [UInt8]? { try read([key])[0] }

    /// The release the pointer names, whether or not it exists (rollback mends a dangling one).
    public func pointer() throws -> String? {
        guard let bytes = try read(.pointer) else { return nil }
        let id = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: " \n\r\t")
        guard Self.isReleaseID(id) else {
            throw OperationalError(
                "\(location(of: .pointer)) holds '\(id.prefix(80))', not a release id; ratecard did not write it. Make a kept release live with 'ratecard rollback --to <id>'",
                ko: "\(location(of: .pointer))에 릴리스 id가 아닌 '\(id.prefix(80))'이(가) 들어 있습니다; ratecard가 쓴 것이 아닙니다. 보관된 릴리스를 'ratecard rollback --to <id>'로 라이브로 만드세요")
        }
        return id
    }

    /// The live release id, nil before the first publish; an error when the pointer names a
    /// release that does not exist.
    public func live() throws -> String? {
        guard let id = try pointer() else { return nil }
        guard try manifest(of: id) != nil else {
            throw OperationalError(
                "\(location(of: .pointer)) points at release \(id), which does not exist (\(location(of: .release(id))) is missing: removed by hand?); the app has nothing to load. Make a kept release live with 'ratecard rollback --to <id>' (see 'ratecard releases')",
                ko:
                    "\(location(of: .pointer))이(가) 가리키는 릴리스 \(id)이(가) 없습니다 (\(location(of: .release(id)))이(가) 없습니다: 손으로 지웠나요?); 앱이 불러올 것이 없습니다. 보관된 릴리스를 'ratecard rollback --to <id>'로 라이브로 만드세요 ('ratecard releases' 참고)"
            )
        }
        return id
    }

    /// Complete releases, oldest first.
    public func releaseIDs() throws -> [String] { try list(.releases).map(\.name) }

    /// A release's version.json bytes, nil when there is no such release.
    public func manifest(of release: String) throws -> [UInt8]? { try read(.release(release)) }

    /// A release's version.json.
    public func info(of release: String) throws -> ReleaseInfo {
        guard let bytes = try manifest(of: release) else {
            throw OperationalError("release \(release) does not exist in \(displayName)", ko: "\(displayName)에 릴리스 \(release)이(가) 없습니다")
        }
        return try ReleaseInfo.parse(bytes, source: location(of: .release(release)))
    }

    /// The bytes of `path` in `release` (its object, or for a release of the folder layout its
    /// entry folder's file), nil when the release does not list it.
    public func readFile(_ path: String, of release: String, info known: ReleaseInfo? = nil) throws -> [UInt8]? {
        let info = try known ?? self.info(of: release)
        guard let file = info.files.first(where: { $0.path == path }) else { return nil }
        let key: StoreKey = info.format >= ObjectLayout.objectsSince ? .object(ObjectLayout.objectName(file)) : .entry(release: release, path: path)
        guard let bytes = try read(key) else {
            throw OperationalError(
                "\(location(of: key)) (\(path) of release \(release)) is missing; run 'ratecard verify'", ko: "\(location(of: key))(릴리스 \(release)의 \(path))이(가) 없습니다; 'ratecard verify'를 실행하세요")
        }
        return bytes
    }

    /// The bytes of the named objects (to copy them elsewhere); an absent one is an error.
    public func objects(_ names: [String]) throws -> [String: [UInt8]] {
        let found = try read(names.map(StoreKey.object))
        var objects: [String: [UInt8]] = [:]
        for (name, bytes) in zip(names, found) {
            guard let bytes else { throw OperationalError("\(location(of: .object(name))) is missing; run 'ratecard verify'", ko: "\(location(of: .object(name)))이(가) 없습니다; 'ratecard verify'를 실행하세요") }
            objects[name] = bytes
        }
        return objects
    }

    /// A small served state file (`bridge-lines.json`), nil when absent.
    public func readState(_ name: String) throws -> [UInt8]? { try read(.state(name)) }

    /// How messages name the store: the folder, or `s3://bucket/prefix/`.
    public var displayName: String { location(of: nil) }

    /// `000042-3f2a9c0d1e4b`, as ratecard names releases.
    static func isReleaseID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x7A) || $0 == 0x2D }
    }

    /// The release a user named: an id, its unique prefix, or its sequence number (`1` or `000001`).
    public func release(named text: String) throws -> ReleaseMatch {
        let ids = try releaseIDs()
        if ids.contains(text) { return .found(text) }
        var matches = ids.filter { $0.hasPrefix(text) }
        if matches.isEmpty, !text.isEmpty, text.allSatisfy(\.isNumber), let number = Int(text) {
            matches = ids.filter { Int($0.prefix { $0.isNumber }) == number }
        }
        switch matches.count {
        case 0: return .none(known: ids)
        case 1: return .found(matches[0])
        default: return .ambiguous(matches)
        }
    }

    /// Releases marked bad, judged against what the pointer names now.
    public func badReleases() throws -> Set<String> {
        try journalLog.badReleases(live: try pointer())
    }

    /// The newest release marked bad here whose bundle is `bundleID`, with the rollback that
    /// marked it (who, when, why): a publish or promote of that bundle would ship again what
    /// was taken down. Nil when no bad release holds that bundle.
    public func badMark(ofBundle bundleID: String) throws -> BadMark? {
        let state = try journalLog.state()
        try state.requireUndamaged()
        // A release's id ends with its bundle id's first 12 characters: only those are read.
        let suffix = "-" + bundleID.prefix(12)
        for release in state.badReleases(live: try pointer()).sorted(by: >) where release.hasSuffix(suffix) {
            guard let info = try? info(of: release), info.bundleID == bundleID else { continue }
            return BadMark(release: release, bundleID: bundleID, rollback: state.badMarkingRollback(of: release), store: displayName)
        }
        return nil
    }

    /// Releases that were live, newest first, without repeats.
    public func activationHistory() throws -> [String] {
        try journalLog.state().activationHistory
    }

    /// The sha256 of a release's version.json as it is stored.
    public func versionHash(of release: String) throws -> String {
        guard let bytes = try manifest(of: release) else { throw OperationalError("release \(release) does not exist in \(displayName)", ko: "\(displayName)에 릴리스 \(release)이(가) 없습니다") }
        return SHA256.hex(bytes)
    }

    /// The cheap check a rollback makes: the release's version.json still hashes to the seal the
    /// journal recorded when every file was verified. Returns the problems found, or nil when the
    /// journal holds no seal for the release (published before seals; re-hash instead).
    public func sealProblems(of release: String) throws -> [String]? {
        guard let seal = try journalLog.state().seals[release] else { return nil }
        guard let bytes = try manifest(of: release) else { return ["missing: \(ReleaseInfo.fileName)"] }
        return SHA256.hex(bytes) == seal ? [] : ["changed: \(ReleaseInfo.fileName)"]
    }

    /// A release's version.json checked against the seal journaled when it was published, read
    /// once (the bytes hashed are the bytes parsed): the record a decision may rest on, such as
    /// the approval gate's "which commit is live". A record that no longer matches its seal was
    /// changed since (by hand, or by anyone who can write the target) and is not to be trusted.
    /// Throws when it is missing or cannot be read.
    public func sealedRecord(of release: String) throws -> SealedRecord {
        guard let bytes = try manifest(of: release) else { throw OperationalError("release \(release) does not exist in \(displayName)", ko: "\(displayName)에 릴리스 \(release)이(가) 없습니다") }
        let info = try ReleaseInfo.parse(bytes, source: location(of: .release(release)))
        guard let seal = try journalLog.state().seals[release] else { return .unsealed(info) }
        return SHA256.hex(bytes) == seal ? .sealed(info) : .broken
    }

    /// Appends a journal entry for a flip that already happened. A failure is returned as a
    /// warning for the command to report, never thrown, because live has moved and the next
    /// run's `recover()` records it.
    public func journalAfterSwap(_ fields: [String: JSON]) -> Message? {
        do {
            try journalLog.appendAfterSwap(fields)
            return nil
        } catch {
            let why = Message.of(error)
            return Message(
                "\(displayName): live was switched, but the journal could not be written (\(why.english)); the next run records it",
                ko: "\(displayName): 라이브는 바뀌었지만 저널을 쓰지 못했습니다 (\(why.korean)); 다음 실행이 이를 기록합니다")
        }
    }

    /// Records a flip the journal missed (a run killed after it): a `recover` entry. A release
    /// the journal holds no seal for gets its seal there (the sha256 of its version.json): its
    /// publish or promote verified every file before the flip and nothing rewrites a release's
    /// version.json, but the entry that carried the seal was lost with the kill. Without it, every
    /// later rollback to the release would re-hash all of its files.
    func recoverJournal() throws {
        let state = try journalLog.state()
        if let live = try pointer(), state.lastActivated != live {
            var fields = JournalFields.base(action: "recover").merging([
                "release": .string(live), "message": .string("the pointer named \(live) but the journal did not say so (a run was interrupted after the swap)"),
            ]) { $1 }
            if state.seals[live] == nil, let bytes = try manifest(of: live) { fields[JournalFields.seal] = .string(SHA256.hex(bytes)) }
            try journalLog.append(fields)
        }
    }

    /// `000042-3f2a9c0d1e4b`: a sequence number above every release ever seen, and the bundle id.
    /// The number is claimed in the store (`claimReleaseNumber`), so no two releases of one
    /// environment share it whatever ran at the same time; one claimed meanwhile is skipped.
    func nextReleaseID(bundleID: String) throws -> String {
        var highest = try journalLog.state().highestRelease
        for name in try releaseIDs() { highest = max(highest, Int(name.prefix { $0.isNumber }) ?? 0) }
        for number in (highest + 1)...(highest + 16) {
            let id = Self.releaseNumber(number) + "-" + String(bundleID.prefix(12))
            if try claimReleaseNumber(number, for: id) { return id }
        }
        throw ConflictError(
            "the release numbers after \(highest) in \(displayName) kept being taken by another command; nothing was changed, try again",
            ko: "\(displayName)에서 \(highest) 다음의 릴리스 번호를 다른 명령이 계속 가져갔습니다; 아무것도 바꾸지 않았습니다, 다시 시도하세요")
    }

    /// A sequence number as release ids spell it (at least six digits).
    static func releaseNumber(_ number: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }
}

/// A release's version.json as checked against its journaled seal (`sealedRecord(of:)`).
public enum SealedRecord {
    /// It hashes to the seal journaled when the release was published or promoted.
    case sealed(ReleaseInfo)
    /// The journal holds no seal for it (published before seals, or its entry was lost): it
    /// cannot be checked.
    case unsealed(ReleaseInfo)
    /// It no longer hashes to its seal: changed since it was published.
    case broken
}

/// A release a user named, looked up among the releases.
public enum ReleaseMatch: Equatable, Sendable {
    case found(String)
    case none(known: [String])
    case ambiguous([String])
}

/// A release marked bad, found by its bundle: what refuses shipping that bundle again.
public struct BadMark: Sendable {
    public var release: String
    public var bundleID: String
    /// The rollback that marked it, when the journal's recent activations still hold it.
    public var rollback: JournalState.Activation?
    /// How messages name the store it is marked in.
    public var store: String

    /// "release 000002 in <store> was marked bad by a rollback (kim, 2026-…): 'why'".
    public var description: Message {
        let by = [rollback?.user, rollback?.time].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ", ")
        let reason = rollback?.message.map { ": '\($0)'" } ?? ""
        let who = by.isEmpty ? "" : " (\(by))"
        return Message(
            "release \(release) in \(store) holds the same bundle (\(bundleID)) and was marked bad by a rollback\(who)\(reason)",
            ko: "\(store)의 릴리스 \(release)이(가) 같은 번들(\(bundleID))이며 롤백 때 bad로 표시되었습니다\(who)\(reason)")
    }
}
