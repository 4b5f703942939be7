import Glibc
import RatecardKit
import RatecardLoader

/// The keys that sign an environment's live.json: `--signing-key FILE` (more than once during a
/// rotation) or `RATECARD_SIGNING_KEY` (the key's text, for a CI secret), and `keys generate`.
enum SigningKeys {
    static let variable = "RATECARD_SIGNING_KEY"

    static let option = OptionSpec(
        "--signing-key", value: "FILE", "The private key that signs live.json where ratecard.yaml sets signing: (repeatable; else $RATECARD_SIGNING_KEY)")

    /// The keys given to the command, for a signed environment: each one read and checked (mode
    /// 0600 or stricter, outside the content repository, an Ed25519 key); what is wrong with one
    /// is kept in the delivery, and a changing command refuses with it before writing anything.
    static func attach(_ destination: inout Destination, _ arguments: ParsedArguments, _ invocation: Invocation) {
        destination.attachSigners { try load(arguments.values(SigningKeys.option.name), invocation) }
    }

    static func load(_ files: [String], _ invocation: Invocation) throws -> [LiveSigner] {
        var signers: [LiveSigner] = []
        for given in files {
            let path = RatecardCLI.resolve(given, against: invocation.directory)
            var status = stat()
            guard stat(path, &status) == 0, access(path, R_OK) == 0, let bytes = try? FileSystem.readFile(path) else {
                throw RefusedError(
                    "the signing key \(given) cannot be read; give the private key 'ratecard keys generate' wrote", ko: "서명 키 \(given)을(를) 읽을 수 없습니다; 'ratecard keys generate'가 쓴 개인 키를 주세요")
            }
            if status.st_mode & 0o077 != 0 {
                throw RefusedError(
                    "the signing key \(given) is readable by group or others; run 'chmod 600 \(given)'",
                    ko: "서명 키 \(given)을(를) 그룹이나 다른 사용자가 읽을 수 있습니다; 'chmod 600 \(given)'을 실행하세요")
            }
            if let repository = insideContentRepository(path, invocation) {
                throw RefusedError(
                    "the signing key \(given) is inside the content repository (\(repository)); move it out (a secret store, or a folder only the release manager can read) and remove it from git's history if it was committed",
                    ko: "서명 키 \(given)이(가) 콘텐츠 저장소(\(repository)) 안에 있습니다; 밖으로(비밀 저장소나 배포 담당자만 읽는 폴더로) 옮기고, 커밋했다면 git 이력에서도 지우세요")
            }
            guard let signer = LiveSigner(pem: bytes) else {
                throw RefusedError(
                    "\(given) is not an Ed25519 private key in PEM; make one with 'ratecard keys generate'", ko: "\(given)은(는) PEM 형식의 Ed25519 개인 키가 아닙니다; 'ratecard keys generate'로 만드세요")
            }
            signers.append(signer)
        }
        if signers.isEmpty, let text = invocation.environment[variable], !text.isEmpty {
            guard let signer = LiveSigner(pem: Array(text.utf8)) else {
                throw RefusedError(
                    "\(variable) does not hold an Ed25519 private key in PEM (the text of the .key file 'ratecard keys generate' wrote)",
                    ko: "\(variable)에 PEM 형식의 Ed25519 개인 키('ratecard keys generate'가 쓴 .key 파일의 내용)가 없습니다")
            }
            signers.append(signer)
        }
        return signers
    }

    /// The content repository's folder when `path` is inside it (nil otherwise).
    static func insideContentRepository(_ path: String, _ invocation: Invocation) -> String? {
        guard let location = try? ContentLocation.find(from: invocation.directory) else { return nil }
        guard let top = location.repository?.workdir ?? location.contentDir else { return nil }
        let real = (try? FileSystem.realPath(top)) ?? top
        let folder = real.hasSuffix("/") ? real : real + "/"
        var probe = path
        // The file may not exist yet (keys generate): its folder's real path decides.
        while !FileSystem.exists(probe), let slash = probe.lastIndex(of: "/"), slash != probe.startIndex { probe = String(probe[..<slash]) }
        let resolved = (try? FileSystem.realPath(probe)) ?? probe
        return (resolved + "/").hasPrefix(folder) ? String(folder.dropLast()) : nil
    }

    // MARK: keys generate

    static let keys = Command(
        name: "keys",
        abstract: "Make an Ed25519 key pair that signs live.json (what apps load).",
        usage: "generate --out <dir> [--name <name>]",
        options: [
            OptionSpec("--out", value: "DIR", "Where to write <name>.key (private, mode 0600) and <name>.pub; never inside the content repository"),
            OptionSpec("--name", value: "NAME", "The files' name (default: ratecard-signing)"),
        ],
        positionals: 1...1,
        discussion: """
            Writes DIR/<name>.key (the private key, PKCS#8 PEM, mode 0600) and DIR/<name>.pub (one line,
            ed25519:<base64>), then prints the signing: block to put under the environment in ratecard.yaml.
            Keep the private key in a secret store (CI: RATECARD_SIGNING_KEY holds its text) and give it to
            publish, promote, rollback, prune, releases --clear-bad and sign with --signing-key FILE.
            """,
        actions: ["generate"],
        run: runKeys)

    static func runKeys(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        guard arguments.positionals[0] == "generate" else {
            let action = arguments.positionals[0]
            throw UsageError("Unknown keys action '\(action)'; use 'generate'", ko: "알 수 없는 keys 동작 '\(action)'; 'generate'를 쓰세요")
        }
        guard let out = arguments.value("--out") else { throw UsageError("Missing expected option '--out <dir>'", ko: "'--out <dir>' 옵션이 필요합니다") }
        let name = arguments.value("--name") ?? "ratecard-signing"
        guard !name.isEmpty, !name.contains("/"), !name.hasPrefix(".") else {
            throw UsageError("'--name' must be a file name, not '\(name)'", ko: "'--name'에는 파일 이름을 써야 합니다 (지금 값: '\(name)')")
        }
        let folder = RatecardCLI.resolve(out, against: invocation.directory)
        if let repository = insideContentRepository(folder + "/" + name + ".key", invocation) {
            throw RefusedError(
                "\(out) is inside the content repository (\(repository)); a private key must never be there. Choose a folder outside it",
                ko: "\(out)은(는) 콘텐츠 저장소(\(repository)) 안에 있습니다; 개인 키는 그곳에 두면 안 됩니다. 저장소 밖의 폴더를 고르세요")
        }
        let keyPath = folder + "/" + name + ".key"
        let pubPath = folder + "/" + name + ".pub"
        for path in [keyPath, pubPath] where FileSystem.exists(path) {
            throw ConflictError("\(path) already exists; nothing was written (choose another --name)", ko: "\(path)이(가) 이미 있습니다; 아무것도 쓰지 않았습니다 (다른 --name을 고르세요)")
        }
        guard let pair = Ed25519.generate(), let pem = Ed25519.privateKeyPEM(pair.privateKey), let publicKey = TrustedKey(raw: pair.publicKey) else {
            throw OperationalError("libcrypto could not make an Ed25519 key pair", ko: "libcrypto가 Ed25519 키 쌍을 만들지 못했습니다")
        }
        try FileSystem.makeDirectories(folder, mode: 0o700)
        try DurableFiles.create(keyPath, pem, mode: 0o600)
        try DurableFiles.create(pubPath, Array((publicKey.text + "\n").utf8), mode: 0o644)
        invocation.out(
            Message(
                """
                Wrote \(keyPath) (private, mode 0600) and \(pubPath).
                Put this under the environment in ratecard.yaml:

                    signing:
                      keys: ["\(publicKey.text)"]
                      expires_after_days: 7

                Keep the private key out of the content repository: in a secret store (CI: put its text in \(variable)), or a folder only the release manager can read, and pass it with --signing-key FILE.

                """,
                ko: """
                    \(keyPath)(개인 키, 모드 0600)와 \(pubPath)를 썼습니다.
                    ratecard.yaml의 환경 아래에 다음을 넣으세요:

                        signing:
                          keys: ["\(publicKey.text)"]
                          expires_after_days: 7

                    개인 키는 콘텐츠 저장소 밖에 두세요: 비밀 저장소(CI에서는 그 내용을 \(variable)에)나 배포 담당자만 읽을 수 있는 폴더에 두고 --signing-key FILE로 주세요.

                    """))
        return RatecardCLI.ExitCode.ok
    }

    // MARK: sign

    static let sign = Command(
        name: "sign",
        abstract: "Re-sign live.json for what is live now (a new sequence and expiry), before it expires.",
        usage: "(--env <name> | --root <dir>) [--signing-key <file>]... [--no-wait]",
        options: ServeRootOptions.options + [option, ServeRootOptions.noWait],
        discussion: """
            Run it daily (beside 'publish --if-stale'): apps refuse a statement past its expiry, so a server that
            stops changing cannot keep them on an old release for longer than expires_after_days.
            """,
        run: runSign)

    static func runSign(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        let root = try ServeRootOptions.existing(arguments, invocation)
        if let signed = try SignFlow(store: root, wait: !arguments.has("--no-wait")).run() {
            let (name, sequence, summary, file) = (signed.environment, signed.sequence, signed.statement, signed.fileName)
            let expiry = summary.expiresAt ?? "never (unsigned)"
            invocation.out(
                Message(
                    "Signed \(file) of \(name): sequence \(sequence), expires \(expiry)\n",
                    ko: "\(name)의 \(file)에 서명했습니다: 순번 \(sequence), 만료 \(summary.expiresAt ?? "없음 (서명 안 함)")\n"))
        }
        return RatecardCLI.ExitCode.ok
    }
}
