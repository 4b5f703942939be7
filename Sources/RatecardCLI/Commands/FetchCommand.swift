import Foundation
import RatecardKit
import RatecardLoader

/// `ratecard fetch URL`: loads a served environment as the app's generated loader does (the same
/// code, `RatecardLoader`), through libcurl and libcrypto: a release manager's probe of what
/// phones get through the CDN.
enum FetchCommand {
    static let command = Command(
        name: "fetch",
        abstract: "Load a served environment exactly as the app's generated loader does, checking live.json and every file.",
        usage: "<url> [--trust <pubfile>]... --bridge <n> [--state <dir>] [--install-id <id>] [--now <time>] [--format text|json]",
        options: [
            OptionSpec("--trust", value: "PUBFILE", "A public key the app trusts (a .pub file of 'keys generate', or ed25519:<base64>); repeat for several"),
            OptionSpec("--bridge", value: "N", "The app's bridge version: the greatest line at or below it is loaded"),
            OptionSpec("--state", value: "DIR", "Where the checked files, the last good release and the highest accepted sequence are kept between runs"),
            OptionSpec(
                "--install-id", value: "ID",
                "The install's id for staged rollouts (default: a random one made once in the --state folder): probe what one phone gets"),
            OptionSpec("--now", value: "TIME", "The time to check expiry against, RFC 3339 (default: now)"),
            OptionSpec("--format", value: "FORMAT", "text (default) or json: the outcome, the release and why it was refused"),
        ],
        positionals: 1...1,
        discussion: """
            Fetches <url>/live.json, checks its signature by a trusted key (without --trust: hashes only, and the
            statement is reported unsigned), its environment, that its sequence is not below the highest one
            accepted before and that it has not expired, picks the bridge line, then fetches the release's file list
            and every file from <url>/o/ and checks each against its sha256 and size. A redirect to another host is
            refused. With --state, checked files are kept by hash, and the first environment loaded is the one
            expected afterwards. During a staged rollout the install's id decides whether it loads the release being
            rolled out (--install-id, else a random id kept in the state folder), as on a phone. Exit 0: prints the
            release the app would load. Exit 1: what is served was refused; prints why and the last good release
            kept (the app would open it). Exit 4: nothing could be fetched (the release kept, if any, is what the
            app would open).
            """,
        run: run)

    static func run(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        let address = arguments.positionals[0]
        guard let base = URL(string: address), let scheme = base.scheme?.lowercased(), scheme == "http" || scheme == "https", base.host != nil else {
            throw UsageError("'\(address)' is not an http:// or https:// URL", ko: "'\(address)'은(는) http:// 또는 https:// URL이 아닙니다")
        }
        guard let bridgeText = arguments.value("--bridge") else {
            throw UsageError("--bridge <n> is required: the app's bridge version", ko: "--bridge <n>이(가) 필요합니다: 앱의 브리지 버전")
        }
        guard let bridge = Int(bridgeText), bridge >= 0 else {
            throw UsageError("--bridge '\(bridgeText)' is not a bridge version (a whole number)", ko: "--bridge '\(bridgeText)'은(는) 브리지 버전(0 이상의 정수)이 아닙니다")
        }
        let json = try ServeRootCommands.format(arguments)
        let installID = arguments.value("--install-id")
        if let installID, installID.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw UsageError("--install-id must not be empty", ko: "--install-id는 비어 있으면 안 됩니다")
        }
        let keys = try arguments.values("--trust").map { try trustedKey($0, invocation) }
        var now = Date(timeIntervalSince1970: invocation.now)
        if let text = arguments.value("--now") {
            guard let given = ReleaseLoader.parseTime(text) else {
                throw UsageError("--now '\(text)' is not an RFC 3339 time (2026-12-04T18:00:00Z)", ko: "--now '\(text)'은(는) RFC 3339 시각(2026-12-04T18:00:00Z)이 아닙니다")
            }
            now = given
        }
        let state: String
        var temporary: String?
        if let given = arguments.value("--state") {
            state = RatecardCLI.resolve(given, against: invocation.directory)
        } else {
            let folder = NSTemporaryDirectory() + "/ratecard-fetch-" + UUID().uuidString
            temporary = folder
            state = folder
        }
        defer { if let temporary { try? FileManager.default.removeItem(atPath: temporary) } }
        let sequences = FileSequenceStore(path: state + "/accepted-sequences.json")
        let known: [String: Int]
        do {
            known = try sequences.all()
        } catch {
            let reason = String(describing: error)
            throw OperationalError("cannot read \(sequences.path): \(reason)", ko: "\(sequences.path)을(를) 읽을 수 없습니다: \(reason)")
        }
        let loader = ReleaseLoader(
            configuration: .init(
                base: base, environment: known.count == 1 ? known.keys.first : nil, bridgeVersion: bridge, trustedKeys: keys, waitsForReady: false,
                installID: installID),
            transport: CurlLoaderTransport(), verifier: LibcryptoSignatureVerifier(), digest: LibcryptoDigest(), sequences: sequences,
            cache: ReleaseCache(folder: state + "/cache"))
        let outcome = loader.load(now: now)
        if json {
            invocation.console.out(report(outcome, signed: !keys.isEmpty).serialized() + "\n")
            return code(outcome)
        }
        switch outcome {
        case .loaded(let release, _):
            invocation.out(loads(release))
            if keys.isEmpty {
                invocation.warning(
                    Message(
                        "the statement is unsigned as far as this check goes (no --trust): only hashes were checked",
                        ko: "--trust가 없어 선언의 서명은 확인하지 않았습니다: 해시만 확인했습니다"))
            }
            return RatecardCLI.ExitCode.ok
        case .kept(let release, let refusal):
            invocation.error(message(refusal))
            invocation.out(
                Message(
                    "keeps release \(release.release) of \(release.environment) (sequence \(release.sequence)), the last good one\n",
                    ko: "마지막으로 문제없던 \(release.environment)의 릴리스 \(release.release)(순번 \(release.sequence))을(를) 유지합니다\n"))
            return code(outcome)
        case .failed(let refusal):
            invocation.error(message(refusal))
            invocation.err(Message("no release is kept: the app would have nothing to open\n", ko: "유지한 릴리스가 없습니다: 앱은 열 것이 없습니다\n"))
            return code(outcome)
        }
    }

    /// 0 loaded; 1 refused for what is served; 4 nothing could be fetched (or the state folder failed).
    static func code(_ outcome: ReleaseLoader.Outcome) -> Int32 {
        switch outcome {
        case .loaded: return RatecardCLI.ExitCode.ok
        case .kept(_, let refusal), .failed(let refusal):
            return refusal.kind == .unreachable || refusal.kind == .storage ? RatecardCLI.ExitCode.failure : RatecardCLI.ExitCode.invalid
        }
    }

    /// `--format json`: `outcome` (loaded, kept, failed), the release loaded or kept, and the refusal.
    static func report(_ outcome: ReleaseLoader.Outcome, signed: Bool) -> JSON {
        func release(_ release: LoadedRelease) -> JSON {
            .object([
                "environment": .string(release.environment), "release": .string(release.release), "files_sha256": .string(release.files),
                "sequence": .int(release.sequence), "signed_at": .string(release.signedAt), "expires_at": release.expiresAt.map(JSON.string) ?? .null,
                "signed_by": .array(release.signedBy.map(JSON.string)), "files": .int(release.fileList.files.count),
                "rollout": release.rollout.map(JSON.string) ?? .null,
            ])
        }
        func refusal(_ refusal: LoadRefusal) -> JSON {
            .object(["kind": .string(refusal.kind.rawValue), "message": .string(refusal.english), "message_ko": .string(message(refusal).korean)])
        }
        switch outcome {
        case .loaded(let loaded, _):
            return .object(["outcome": .string("loaded"), "signature_checked": .bool(signed), "release": release(loaded), "refusal": .null])
        case .kept(let kept, let why):
            return .object(["outcome": .string("kept"), "signature_checked": .bool(signed), "release": release(kept), "refusal": refusal(why)])
        case .failed(let why):
            return .object(["outcome": .string("failed"), "signature_checked": .bool(signed), "release": .null, "refusal": refusal(why)])
        }
    }

    /// The loader's refusal as the CLI prints it (the Korean's particles fitted to their words).
    static func message(_ refusal: LoadRefusal) -> Message {
        Message(refusal.english, ko: Korean(stringLiteral: refusal.korean))
    }

    private static func loads(_ release: LoadedRelease) -> Message {
        let count = release.fileList.files.count
        let signed =
            release.signedBy.isEmpty
            ? Message("unsigned (hashes checked)", ko: "서명 확인 없음 (해시만 확인)")
            : Message(
                "signed by \(release.signedBy.joined(separator: ", ")), expires \(release.expiresAt ?? "-")",
                ko: "\(release.signedBy.joined(separator: ", "))의 서명 확인, \(release.expiresAt ?? "-")에 만료")
        return Message(
            "loads release \(release.release) of \(release.environment) (sequence \(release.sequence), \(count) files checked, ",
            ko: "\(release.environment)의 릴리스 \(release.release)을(를) 불러옵니다 (순번 \(release.sequence), 파일 \(count)개 확인, "
        ) + signed + .verbatim(")\n") + rollout(release)
    }

    /// The line that says a release came through a staged rollout (nothing otherwise).
    private static func rollout(_ release: LoadedRelease) -> Message {
        guard let id = release.rollout else { return .verbatim("") }
        return Message("this install is in rollout \(id)\n", ko: "이 설치는 단계적 배포 \(id)에 들어 있습니다\n")
    }

    /// A key given to --trust: a file holding `ed25519:<base64>`, or that text itself.
    private static func trustedKey(_ given: String, _ invocation: Invocation) throws -> TrustedKey {
        if given.hasPrefix(TrustedKey.prefix) {
            guard let key = TrustedKey(given) else {
                throw UsageError("--trust '\(given)' is not ed25519:<base64 of 32 bytes>", ko: "--trust '\(given)'은(는) ed25519:<32바이트의 base64>가 아닙니다")
            }
            return key
        }
        let path = RatecardCLI.resolve(given, against: invocation.directory)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw OperationalError("cannot read the public key file \(path)", ko: "공개 키 파일 \(path)을(를) 읽을 수 없습니다")
        }
        guard let key = TrustedKey(String(decoding: data, as: UTF8.self)) else {
            throw UsageError("\(path) does not hold a public key (one line: ed25519:<base64 of 32 bytes>)", ko: "\(path)에 공개 키가 없습니다 (한 줄: ed25519:<32바이트의 base64>)")
        }
        return key
    }
}
