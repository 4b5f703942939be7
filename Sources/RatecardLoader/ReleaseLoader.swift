// The app's loader: fetches live.json, checks it, picks the app's bridge line and checks every
// file of that release before anything of it is served; keeps the last good release and opens it
// when the network or a check fails; rolls a new release back on this device when it does not
// report the bridge's `ready` in time. `ratecard fetch` runs this same code.
//
// The checks, in order, each failing closed: the envelope's format; when the app trusts keys, a
// signature by one of them that verifies (unknown keys are ignored; none, or only bad ones, is a
// refusal); the statement's format; its environment; its sequence not below the highest accepted
// (a replayed statement); not past its expiry (a frozen server); the bridge line; the file
// list's bytes against the line's hash, and its environment and release; every file's size and
// sha256. A redirect to another host is refused wherever it happens. A staged rollout on the
// line is followed only when it is well formed (an id, a share of 1...9999, a release and a file
// list hash) on a line that names a release of its own; when the rollout's release fails any
// check, the line's own release is checked and loaded instead.

import Foundation

public struct ReleaseLoader: Sendable {
    public struct Configuration: Sendable {
        /// Where the environment is served: live.json at `<base>/live.json`, objects at `<base>/o/<name>`.
        public var base: URL
        /// The environment the app belongs to; nil (the CLI's first fetch) takes the statement's.
        public var environment: String?
        /// The app's bridge version: it loads the greatest line at or below it.
        public var bridgeVersion: Int
        /// The public keys the app trusts; none: hashes are checked, the statement is unsigned.
        public var trustedKeys: [TrustedKey]
        /// Whether a new release becomes the last good one only once it reported ready (the app),
        /// or as soon as it is checked (the CLI, which runs no page).
        public var waitsForReady: Bool
        /// The install's id for staged rollouts; nil: the loader's own random one, made once and
        /// kept in its folder (`ReleaseCache.installID()`). No personal data goes into it.
        public var installID: String?

        public init(base: URL, environment: String?, bridgeVersion: Int, trustedKeys: [TrustedKey], waitsForReady: Bool, installID: String? = nil) {
            self.base = base
            self.environment = environment
            self.bridgeVersion = bridgeVersion
            self.trustedKeys = trustedKeys
            self.waitsForReady = waitsForReady
            self.installID = installID
        }
    }

    public enum Outcome: Equatable, Sendable {
        /// What is served passed every check. `isNew`: it is not the last good release (the app
        /// waits for its ready).
        case loaded(LoadedRelease, isNew: Bool)
        /// What is served was refused (or could not be fetched); the last good release is opened.
        case kept(LoadedRelease, because: LoadRefusal)
        /// Refused or unreachable, and nothing is kept.
        case failed(LoadRefusal)
    }

    /// How many redirects (on the same host) one fetch follows.
    public static let maximumRedirects = 5

    public let configuration: Configuration
    let transport: any LoaderTransport
    let verifier: any SignatureVerifier
    let digest: any ContentDigest
    let sequences: any AcceptedSequenceStore
    public let cache: ReleaseCache

    public init(
        configuration: Configuration, transport: any LoaderTransport, verifier: any SignatureVerifier, digest: any ContentDigest,
        sequences: any AcceptedSequenceStore, cache: ReleaseCache
    ) {
        self.configuration = configuration
        self.transport = transport
        self.verifier = verifier
        self.digest = digest
        self.sequences = sequences
        self.cache = cache
    }

    /// Loads what is served as of `now`, or keeps the last good release and says why.
    public func load(now: Date) -> Outcome {
        do {
            let (release, isNew) = try check(now: now)
            return .loaded(release, isNew: isNew)
        } catch let refusal as LoadRefusal {
            return fallBack(refusal)
        } catch {
            return fallBack(Self.storageRefusal(error))
        }
    }

    /// The last good release without asking the network (an offline start).
    public func kept() -> LoadedRelease? { try? cache.good() }

    /// The page of `release` sent the bridge's `ready`: it becomes the last good release.
    public func confirmReady(_ release: LoadedRelease) throws {
        var records = try cache.records()
        guard records.candidate?.release == release.release || records.good?.release == release.release else { return }
        records.good = release
        records.candidate = nil
        try cache.save(records)
    }

    /// The page of `release` did not send `ready` within `seconds`: the release is marked bad on
    /// this device (never loaded again here) and the last good one is opened instead.
    public func rollBack(_ release: LoadedRelease, afterSeconds seconds: Double) -> Outcome {
        let why = LoadRefusal(
            .notReady, "release \(release.release) did not report ready within \(Self.seconds(seconds)) s; it is marked bad on this device",
            ko: "릴리스 \(release.release)이(가) \(Self.seconds(seconds))초 안에 ready를 보내지 않아 이 기기에서 불량으로 표시했습니다")
        do {
            var records = try cache.records()
            records.bad[release.release] = why.english
            if records.candidate?.release == release.release { records.candidate = nil }
            if records.good?.release == release.release { records.good = nil }
            try cache.save(records)
            return records.good.map { .kept($0, because: why) } ?? .failed(why)
        } catch {
            return .failed(why)
        }
    }

    /// The bytes of the file served at `path` in `release` (see `LoadedRelease.file(at:)`), read
    /// from the cache and checked against its sha256 again; nil when the release has no such
    /// file or its bytes are not the checked ones.
    public func contents(of path: String, in release: LoadedRelease) -> [UInt8]? {
        guard let file = release.file(at: path) else { return nil }
        return cache.object(file.sha256, digest: digest)
    }

    // MARK: - The checks

    private func fallBack(_ refusal: LoadRefusal) -> Outcome {
        guard let good = try? cache.good() else { return .failed(refusal) }
        return .kept(good, because: refusal)
    }

    private func check(now: Date) throws -> (LoadedRelease, Bool) {
        let liveURL = url("live.json")
        let body = try fetch(liveURL)
        guard let envelope = try? JSONDecoder().decode(SignedLiveStatement.self, from: Data(body)) else {
            throw LoadRefusal(.envelope, "\(liveURL) is not a live.json envelope", ko: "\(liveURL)은(는) live.json 봉투 형식이 아닙니다")
        }
        guard envelope.format == LiveStatement.currentFormat else {
            throw LoadRefusal(
                .envelope, "live.json has envelope format \(envelope.format); this loader reads \(LiveStatement.currentFormat)",
                ko: "live.json의 봉투 형식이 \(envelope.format)입니다; 이 로더는 \(LiveStatement.currentFormat)만 읽습니다")
        }
        guard let payload = envelope.payloadBytes else {
            throw LoadRefusal(.envelope, "live.json's payload is not base64", ko: "live.json의 payload가 base64가 아닙니다")
        }
        let signers = try checkSignatures(envelope, payload: payload)
        let statement = try decodeStatement(payload)
        let environment = configuration.environment ?? statement.environment
        guard statement.environment == environment else {
            throw LoadRefusal(
                .environment, "the statement is for environment '\(statement.environment)', not '\(environment)'",
                ko: "이 선언은 '\(environment)' 환경이 아니라 '\(statement.environment)' 환경의 것입니다")
        }
        if let highest = try sequences.highestSequence(environment: environment), statement.sequence < highest {
            throw LoadRefusal(
                .replay, "the statement's sequence \(statement.sequence) is below \(highest), the highest accepted: an older statement replayed",
                ko: "선언의 순번 \(statement.sequence)이(가) 이미 받아들인 가장 높은 순번 \(highest)보다 낮습니다: 예전 선언을 다시 보낸 것입니다")
        }
        try checkExpiry(statement, signed: !signers.isEmpty, now: now)
        // No lines: no release needs anything of the app (its web build does not call the
        // bridge), and every app loads the live release.
        guard let offered = statement.lines.isEmpty ? statement.live : statement.line(forBridge: configuration.bridgeVersion) else {
            throw LoadRefusal(
                .line, "the statement has no line for bridge \(configuration.bridgeVersion) (lines: \(statement.lines.keys.sorted().joined(separator: ", ")))",
                ko: "선언에 브리지 \(configuration.bridgeVersion)용 라인이 없습니다 (라인: \(statement.lines.keys.sorted().joined(separator: ", ")))")
        }
        // A staged rollout: this install's share decides, unless its release failed here before.
        let own = LiveStatement.Line(release: offered.release, files: offered.files)
        var line = own
        if let rollout = offered.rollout, try cache.badReason(rollout.release) == nil {
            line = LiveStatement.pick(offered, installID: try configuration.installID ?? cache.installID(), digest: digest)
        }
        var rollout = line == own ? nil : offered.rollout?.id
        let list: ReleaseFileList
        do {
            list = try checkedFiles(line, environment: environment)
        } catch is LoadRefusal where rollout != nil {
            // The rollout's release fails a check (its file list missing, changed or not its
            // hash, a file not its sha256): this install loads the line's own release instead,
            // checked the same way; never any of the rollout's files unchecked.
            (line, rollout) = (own, nil)
            list = try checkedFiles(line, environment: environment)
        }
        let release = LoadedRelease(
            environment: environment, release: line.release, files: line.files, sequence: statement.sequence, signedAt: statement.signedAt,
            expiresAt: statement.expiresAt, signedBy: signers, fileList: list, rollout: rollout)
        try sequences.record(sequence: statement.sequence, environment: environment)
        var records = try cache.records()
        let isNew = records.good?.release != release.release || records.good?.files != release.files
        if isNew && configuration.waitsForReady {
            records.candidate = release
        } else {
            records.good = release
            records.candidate = nil
        }
        try cache.save(records)
        try cache.prune(keeping: records)
        return (release, isNew)
    }

    /// The trusted keys whose signatures verify; empty when the app trusts no key.
    private func checkSignatures(_ envelope: SignedLiveStatement, payload: [UInt8]) throws -> [String] {
        guard !configuration.trustedKeys.isEmpty else { return [] }
        guard !envelope.signatures.isEmpty else {
            throw LoadRefusal(.signature, "live.json carries no signature, and this app trusts signed statements only", ko: "live.json에 서명이 없는데, 이 앱은 서명된 선언만 믿습니다")
        }
        let trusted = Set(configuration.trustedKeys)
        let message = SignedLiveStatement.signedBytes(payload: payload)
        var verified: [String] = []
        var failed: [String] = []
        var unknown: [String] = []
        for signature in envelope.signatures {
            guard let key = TrustedKey(signature.key), trusted.contains(key) else {
                unknown.append(signature.key)
                continue
            }
            if let bytes = Data(base64Encoded: signature.sig), verifier.isValidSignature(Array(bytes), of: message, by: key.raw) {
                if !verified.contains(key.text) { verified.append(key.text) }
            } else {
                failed.append(key.text)
            }
        }
        if !verified.isEmpty { return verified }
        if !failed.isEmpty {
            throw LoadRefusal(
                .signature, "the signature by trusted key \(failed.joined(separator: ", ")) does not verify: live.json was changed after it was signed",
                ko: "믿는 키 \(failed.joined(separator: ", "))의 서명이 맞지 않습니다: 서명한 뒤에 live.json이 바뀌었습니다")
        }
        throw LoadRefusal(
            .signature, "live.json is signed only by keys this app does not trust (\(unknown.joined(separator: ", ")))",
            ko: "live.json은 이 앱이 믿지 않는 키로만 서명되어 있습니다 (\(unknown.joined(separator: ", ")))")
    }

    private struct FormatOnly: Decodable { var format: Int }

    private func decodeStatement(_ payload: [UInt8]) throws -> LiveStatement {
        guard let format = try? JSONDecoder().decode(FormatOnly.self, from: Data(payload)).format else {
            throw LoadRefusal(.statement, "live.json's statement is not readable JSON", ko: "live.json의 선언을 JSON으로 읽을 수 없습니다")
        }
        guard format == LiveStatement.currentFormat else {
            throw LoadRefusal(
                .statement, "the statement has format \(format); this loader reads \(LiveStatement.currentFormat)",
                ko: "선언의 형식이 \(format)입니다; 이 로더는 \(LiveStatement.currentFormat)만 읽습니다")
        }
        do {
            return try JSONDecoder().decode(LiveStatement.self, from: Data(payload))
        } catch {
            throw LoadRefusal(.statement, "live.json's statement is not readable: \(error)", ko: "live.json의 선언을 읽을 수 없습니다: \(error)")
        }
    }

    private func checkExpiry(_ statement: LiveStatement, signed: Bool, now: Date) throws {
        guard let text = statement.expiresAt else {
            if signed {
                throw LoadRefusal(.expired, "the signed statement has no expiry", ko: "서명된 선언에 만료 시각이 없습니다")
            }
            return
        }
        guard let expiry = Self.parseTime(text) else {
            throw LoadRefusal(.expired, "the statement's expires_at '\(text)' is not an RFC 3339 time", ko: "선언의 expires_at '\(text)'은(는) RFC 3339 시각이 아닙니다")
        }
        guard now <= expiry else {
            let current = Self.formatTime(now)
            throw LoadRefusal(
                .expired, "the statement expired at \(text) (now \(current)): the server is not re-signing, or serves a frozen copy",
                ko: "선언이 \(text)에 만료되었습니다 (지금 \(current)): 서버가 다시 서명하지 않거나 멈춘 사본을 주고 있습니다")
        }
    }

    /// The file list of `line`'s release with every file checked, unless the release was marked
    /// bad on this device.
    private func checkedFiles(_ line: LiveStatement.Line, environment: String) throws -> ReleaseFileList {
        if let why = try cache.badReason(line.release) {
            throw LoadRefusal(.markedBad, "release \(line.release) was marked bad on this device: \(why)", ko: "릴리스 \(line.release)은(는) 이 기기에서 불량으로 표시되었습니다: \(why)")
        }
        let list = try fileList(line, environment: environment)
        for file in list.files { try checkFile(file) }
        return list
    }

    private func fileList(_ line: LiveStatement.Line, environment: String) throws -> ReleaseFileList {
        guard Self.isSHA256(line.files) else {
            throw LoadRefusal(.fileList, "the line's file list hash '\(line.files)' is not a sha256", ko: "라인의 파일 목록 해시 '\(line.files)'은(는) sha256이 아닙니다")
        }
        let bytes: [UInt8]
        if let kept = cache.object(line.files, digest: digest) {
            bytes = kept
        } else {
            bytes = try fetch(url("o/\(line.files).json"))
            let actual = digest.sha256Hex(bytes)
            guard actual == line.files else {
                throw LoadRefusal(
                    .fileList, "the file list of release \(line.release) hashes to \(actual), not \(line.files) as the statement says",
                    ko: "릴리스 \(line.release)의 파일 목록 해시가 선언에 적힌 \(line.files)가 아니라 \(actual)입니다")
            }
        }
        guard let list = try? JSONDecoder().decode(ReleaseFileList.self, from: Data(bytes)), list.format == ReleaseFileList.currentFormat else {
            throw LoadRefusal(
                .fileList, "the file list of release \(line.release) is not a file list of format \(ReleaseFileList.currentFormat)",
                ko: "릴리스 \(line.release)의 파일 목록이 형식 \(ReleaseFileList.currentFormat)의 파일 목록이 아닙니다")
        }
        guard list.environment == environment, list.release == line.release else {
            throw LoadRefusal(
                .fileList, "the file list is release \(list.release) of '\(list.environment)', not \(line.release) of '\(environment)'",
                ko: "파일 목록이 '\(environment)'의 \(line.release)가 아니라 '\(list.environment)'의 \(list.release) 것입니다")
        }
        try cache.store(bytes, sha256: line.files)
        return list
    }

    private func checkFile(_ file: ReleaseFileList.File) throws {
        let ext = file.object.dropFirst(64)
        guard Self.isSafePath(file.path), Self.isSHA256(file.sha256), file.object.hasPrefix(file.sha256), file.size >= 0,
            ext.isEmpty || (ext.hasPrefix(".") && ext.count <= 9 && ext.dropFirst().allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber) }))
        else {
            throw LoadRefusal(
                .fileList, "the file list's entry \(file.path) (object \(file.object)) is not a valid entry",
                ko: "파일 목록의 항목 \(file.path)(오브젝트 \(file.object))이(가) 올바른 항목이 아닙니다")
        }
        if cache.object(file.sha256, digest: digest) != nil { return }
        let bytes = try fetch(url("o/" + file.object))
        guard bytes.count == file.size else {
            throw LoadRefusal(
                .file, "\(file.path) (o/\(file.object)) is \(bytes.count) bytes, not \(file.size) as the file list says",
                ko: "\(file.path)(o/\(file.object))이(가) 파일 목록에 적힌 \(file.size)바이트가 아니라 \(bytes.count)바이트입니다")
        }
        let actual = digest.sha256Hex(bytes)
        guard actual == file.sha256 else {
            throw LoadRefusal(
                .file, "\(file.path) (o/\(file.object)) hashes to \(actual), not \(file.sha256) as the file list says",
                ko: "\(file.path)(o/\(file.object))의 해시가 파일 목록에 적힌 \(file.sha256)가 아니라 \(actual)입니다")
        }
        try cache.store(bytes, sha256: file.sha256)
    }

    // MARK: - The network

    private func url(_ path: String) -> URL {
        var text = configuration.base.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return URL(string: text + "/" + path)!
    }

    /// The body of a 200 for `url`, following redirects that stay on the base's host.
    func fetch(_ url: URL) throws -> [UInt8] {
        var current = url
        for _ in 0...Self.maximumRedirects {
            let response: LoaderResponse
            do {
                response = try transport.get(current)
            } catch {
                throw LoadRefusal(.unreachable, "cannot reach \(current): \(error)", ko: "\(current)에 연결할 수 없습니다: \(error)")
            }
            if [301, 302, 303, 307, 308].contains(response.status) {
                guard let location = response.location, let next = URL(string: location, relativeTo: current)?.absoluteURL else {
                    throw LoadRefusal(.redirect, "\(current) redirects without a usable Location", ko: "\(current)이(가) 쓸 수 있는 Location 없이 리디렉션합니다")
                }
                guard Self.origin(next) == Self.origin(configuration.base) else {
                    throw LoadRefusal(
                        .redirect, "\(current) redirects to another host (\(next)); only \(Self.origin(configuration.base)) is loaded from",
                        ko: "\(current)이(가) 다른 호스트(\(next))로 리디렉션합니다; \(Self.origin(configuration.base))에서만 받습니다")
                }
                current = next
                continue
            }
            guard response.status == 200 else {
                throw LoadRefusal(.status, "\(current) answered HTTP \(response.status)", ko: "\(current)이(가) HTTP \(response.status)로 응답했습니다")
            }
            return response.body
        }
        throw LoadRefusal(
            .redirect, "\(url) redirects more than \(Self.maximumRedirects) times", ko: "\(url)이(가) \(Self.maximumRedirects)번 넘게 리디렉션합니다")
    }

    // MARK: - Small parts

    /// `scheme://host:port`, lower-cased, with the scheme's default port.
    static func origin(_ url: URL) -> String {
        let scheme = (url.scheme ?? "").lowercased()
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\((url.host ?? "").lowercased()):\(port)"
    }

    static func isSHA256(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// A relative path of plain segments (no `.`, `..`, empty segment, backslash or NUL).
    static func isSafePath(_ path: String) -> Bool {
        !path.isEmpty && !path.contains("\\") && !path.contains("\0")
            && path.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }

    /// The Content-Type the app serves a release's file with, by its extension.
    public static func mediaType(forPath path: String) -> String {
        let ext = path.split(separator: "/").last.flatMap { name in name.contains(".") ? name.split(separator: ".").last.map { $0.lowercased() } : nil }
        switch ext {
        case "html", "htm": return "text/html; charset=utf-8"
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "json": return "application/json"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "webp": return "image/webp"
        case "woff2": return "font/woff2"
        case "txt": return "text/plain; charset=utf-8"
        default: return "application/octet-stream"
        }
    }

    /// The Content-Security-Policy of a page, as the nginx block sends it (scripts from the
    /// release only, nothing inline or made from text), and of every other file (a sandboxed
    /// document of its own when opened directly): the web view gets what a browser gets.
    public static let pagePolicy =
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'"
    public static let dataPolicy = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; frame-ancestors 'self'; sandbox"

    /// The policy the app serves the file at `path` with: a page's for HTML, else the data one.
    public static func contentSecurityPolicy(forPath path: String) -> String {
        mediaType(forPath: path).hasPrefix("text/html") ? pagePolicy : dataPolicy
    }

    /// An RFC 3339 time (`2026-12-04T18:00:00Z`), nil when it is not one.
    public static func parseTime(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    public static func formatTime(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    static func storageRefusal(_ error: any Error) -> LoadRefusal {
        LoadRefusal(.storage, "the loader's storage on this device failed: \(error)", ko: "이 기기에 있는 로더 저장소가 실패했습니다: \(error)")
    }
}
