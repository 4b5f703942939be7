import RatecardCore
import RatecardOutput
import RatecardRelease
import RatecardSupport

/// What a borrower was shown at a past moment (`ratecard show`): the release the journal says
/// was live then, and from its data a product's document or a terms document's version in force.
/// A release that prune removed is rebuilt from the commit and as-of date journaled for it, and
/// the rebuild counts only when its bundle id (a sha256 over the data folder's listing) is the
/// one journaled: builds are byte-identical, so the data is then what was served.
public struct ShowFlow {
    public enum Subject: Sendable {
        case product(String)
        case terms(String)
    }

    /// What `show` found.
    public struct Shown {
        public var release: String
        /// The journal entry that made it live (publish, promote, rollback), and when.
        public var activatedBy: String
        public var activatedAt: String
        /// The sha256 of its version.json, as journaled when it was published.
        public var seal: String?
        public var commit: ObjectID?
        public var asOf: String
        public var bundleID: String?
        /// Nil when the release was read from the store; else how it was rebuilt.
        public var rebuilt: Message?
        /// The product's document, or the terms document's index entry with the version in force.
        public var document: JSON
        /// Bridge version -> the release an app of that version (up to the next line) loaded then,
        /// as `bridge-lines.json` said it (empty when no release needed the bridge).
        public var bridgeLines: [Int: String] = [:]
    }

    public var store: any ReleaseStore
    public var location: ContentLocation?
    public var caches: Caches

    public init(store: any ReleaseStore, location: ContentLocation?, caches: Caches) {
        self.store = store
        self.location = location
        self.caches = caches
    }

    /// `YYYY-MM-DD HH:MM` in Asia/Seoul as the journal's time of the end of that minute
    /// (`2026-11-29T06:30:59Z`); `YYYY-MM-DD HH:MM:SS` names a second. Nil when malformed.
    public static func moment(_ text: String) -> String? {
        let parts = text.split(separator: " ")
        guard parts.count == 2, let day = Day(String(parts[0])) else { return nil }
        let clock = parts[1].split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(clock.count), clock.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isASCII) }), let hour = Int(clock[0]), let minute = Int(clock[1]),
            (0..<24).contains(hour), (0..<60).contains(minute)
        else { return nil }
        guard let second = clock.count == 3 ? Int(clock[2]) : 59, (0..<60).contains(second) else { return nil }
        return Timestamp.format(seconds: day.ordinal * 86400 + hour * 3600 + minute * 60 + second - 9 * 3600)
    }

    /// The release live at `moment` (a journal time) and what it showed of `subject`.
    public func show(_ subject: Subject, at moment: String, name: String) throws -> Shown {
        let entries = try store.journalLog.entries()
        guard let activation = entries.last(where: { $0.activated != nil && $0.time <= moment }), let release = activation.activated else {
            throw ConflictError(
                "nothing was live on \(name) at \(Timestamp.seoul(moment)) (the journal's first release went live later, or nothing was published)",
                ko: "\(Timestamp.seoul(moment))에 \(name)에서 라이브인 것이 없었습니다 (저널의 첫 릴리스가 그 뒤에 라이브가 되었거나, 게시한 적이 없습니다)")
        }
        let published = entries.last { ($0.action == .publish || $0.action == .promote) && $0.release == release }
        var past = JournalState()
        for entry in entries where entry.time <= moment { past.apply(entry) }
        var shown = Shown(
            release: release, activatedBy: activation.action.rawValue, activatedAt: activation.time, seal: published?.seal, commit: published?.commit,
            asOf: published?.fields["as_of"]?.stringValue ?? String(Timestamp.seoul(published?.time ?? activation.time).prefix(10)),
            bundleID: published?.fields["bundle_id"]?.stringValue, rebuilt: nil, document: .null, bridgeLines: Self.bridgeLines(past, live: release))
        let files: (String) throws -> [UInt8]?
        if let manifest = try store.manifest(of: release) {
            if let seal = shown.seal, SHA256.hex(manifest) != seal {
                throw RefusedError(
                    "release \(release)'s version.json does not match the seal journaled when it was published (it was changed since), so what it holds is not evidence; nothing is shown",
                    ko: "릴리스 \(release)의 version.json이 게시할 때 저널에 기록된 봉인과 맞지 않아 (그 뒤에 바뀌었습니다) 증거가 되지 못합니다; 아무것도 보여 주지 않습니다")
            }
            let info = try ReleaseInfo.parse(manifest, source: "\(release)/\(ReleaseInfo.fileName)")
            (shown.asOf, shown.bundleID, shown.commit) = (info.asOf, info.bundleID, info.sourceCommit)
            files = { path in
                guard let listed = info.files.first(where: { $0.path == path }) else { return nil }
                guard let bytes = try store.readFile(path, of: release, info: info), SHA256.hex(bytes) == listed.sha256 else {
                    throw RefusedError("\(path) of release \(release) does not match its version.json", ko: "릴리스 \(release)의 \(path)이(가) version.json과 맞지 않습니다")
                }
                return bytes
            }
        } else {
            let output = try rebuild(&shown)
            files = { output.files[$0] }
        }
        guard let bundle = shown.bundleID, let index = try files(BundleLayout.dataFolder(bundle) + "terms.json") else {
            throw OperationalError("release \(release) has no data folder to read", ko: "릴리스 \(release)에 읽을 데이터 폴더가 없습니다")
        }
        switch subject {
        case .product(let key):
            guard let bytes = try files(BundleLayout.dataFolder(bundle) + "products/\(key).json") else {
                throw UsageError("release \(release) shows no product '\(key)' (use <partner-id>/<product-id>)", ko: "릴리스 \(release)에는 상품 '\(key)'이(가) 없습니다 (<제휴사-id>/<상품-id> 꼴로 쓰세요)")
            }
            shown.document = try JSONReader.parse(bytes)
        case .terms(let id):
            guard let document = try JSONReader.parse(index)["documents"]?.arrayValue?.first(where: { $0["id"]?.stringValue == id }) else {
                throw UsageError("release \(release) shows no terms document '\(id)'", ko: "릴리스 \(release)에는 약관 문서 '\(id)'이(가) 없습니다")
            }
            shown.document = document
        }
        return shown
    }

    /// The bridge lines as they were computed then (`BridgeLines`): for each bridge version a
    /// release published by then needs, the live release when it needs no more, else the newest
    /// release not marked bad that does, from the journal folded up to that moment.
    static func bridgeLines(_ past: JournalState, live: String) -> [Int: String] {
        let requires = past.publications.compactMapValues { $0.bridgeRequires.flatMap { $0 > 0 ? $0 : nil } }
        let bad = past.badReleases(live: live)
        var lines: [Int: String] = [:]
        for line in Set(requires.values) {
            if let needed = requires[live], needed <= line {
                lines[line] = live
            } else if let newest = requires.keys.filter({ requires[$0]! <= line && !bad.contains($0) }).max() {
                lines[line] = newest
            }
        }
        return lines
    }

    /// Rebuilds a pruned release's bundle from its journaled commit and as-of date, proven by
    /// its journaled bundle id; says what is missing when it cannot.
    private func rebuild(_ shown: inout Shown) throws -> BundleBuilder.Output {
        let release = shown.release
        guard let commit = shown.commit, let bundle = shown.bundleID else {
            throw OperationalError(
                "release \(release) is no longer in the store (pruned), and the journal names no commit and bundle id to rebuild it from",
                ko: "릴리스 \(release)은(는) 저장소에 없고 (정리됨), 저널에 다시 빌드할 커밋과 번들 id가 없습니다")
        }
        guard let location, let repository = location.repository else {
            throw OperationalError(
                "release \(release) is no longer in the store (pruned), and there is no content repository here to rebuild it from commit \(commit.hex): run show inside it",
                ko: "릴리스 \(release)은(는) 저장소에 없고 (정리됨), 여기에는 커밋 \(commit.hex)에서 다시 빌드할 콘텐츠 저장소가 없습니다: 그 저장소 안에서 show를 실행하세요")
        }
        guard repository.hasObject(commit) else {
            throw OperationalError(
                "release \(release) is no longer in the store (pruned), and its commit \(commit.hex) is not in this repository's history, so it cannot be rebuilt: fetch that commit (or restore the release from a backup)",
                ko: "릴리스 \(release)은(는) 저장소에 없고 (정리됨), 그 커밋 \(commit.hex)이(가) 이 저장소 이력에 없어 다시 빌드할 수 없습니다: 그 커밋을 가져오거나 (fetch) 백업에서 릴리스를 복원하세요")
        }
        guard let asOf = Day(shown.asOf) else { throw OperationalError("release \(release) has no as-of date to rebuild it as of", ko: "릴리스 \(release)에 다시 빌드할 기준일이 없습니다") }
        let run = BundleRun(location: location, asOf: asOf, caches: caches, allowShallow: true)
        guard case .built(let output, _) = try run.render(revision: commit.hex) else {
            throw OperationalError(
                "release \(release) is no longer in the store (pruned), and its commit \(commit.hex) does not build as of \(asOf) with this ratecard",
                ko: "릴리스 \(release)은(는) 저장소에 없고 (정리됨), 그 커밋 \(commit.hex)이(가) 이 ratecard로는 \(asOf) 기준으로 빌드되지 않습니다")
        }
        guard output.manifest.bundleID == bundle else {
            throw OperationalError(
                "release \(release) is no longer in the store (pruned); its commit \(commit.hex) rebuilt as of \(asOf) gives bundle \(output.manifest.bundleID), not the \(bundle) journaled, so the rebuild is not what was served (another ratecard version or as-of date built it)",
                ko:
                    "릴리스 \(release)은(는) 저장소에 없고 (정리됨), 그 커밋 \(commit.hex)을(를) \(asOf) 기준으로 다시 빌드하면 번들이 저널의 \(bundle)이(가) 아니라 \(output.manifest.bundleID)이므로, 게시했던 것과 같다고 할 수 없습니다 (다른 ratecard 버전이나 기준일로 빌드했습니다)"
            )
        }
        shown.rebuilt = Message(
            "rebuilt: release \(release) was pruned; rebuilt from commit \(commit.short) as of \(asOf), its bundle id \(bundle) matches the journal (the data is byte for byte what was served)",
            ko: "다시 빌드함: 릴리스 \(release)은(는) 정리되었습니다. 커밋 \(commit.short)을(를) \(asOf) 기준으로 다시 빌드했고, 번들 id \(bundle)이(가) 저널과 같습니다 (데이터가 게시했던 것과 바이트 단위로 같습니다)")
        return output
    }
}
