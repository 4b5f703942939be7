import Foundation
import RatecardSupport

/// `ratecard.yaml`: the service, its broker registration and where it is served.
public struct ServiceConfig: Sendable, Equatable {
    public struct Environment: Sendable, Equatable {
        public var name: String
        /// The serve root folder ("" for an environment in object storage).
        public var root: String
        public var protected: Bool
        /// The app versions in the field that this environment serves, each with its bridge version.
        public var apps: [AppVersion] = []
        /// Where the environment lives in S3-compatible object storage (`s3:`), instead of a folder.
        public var s3: ObjectStorage? = nil
        /// `signing:`: the keys live.json must be signed by, and how long a statement is good for.
        public var signing: Signing? = nil
    }

    /// `signing: {keys: ["ed25519:<base64>", ...], expires_after_days: N}`: every change of what
    /// the environment's apps load is signed by one of the keys (during a rotation, by several),
    /// and a statement is good for N days (re-signed by `ratecard sign` before then).
    public struct Signing: Sendable, Equatable {
        /// Public keys as `keys generate` writes them (`ed25519:<base64 of 32 bytes>`).
        public var keys: [String]
        public var expiresAfterDays: Int

        public init(keys: [String], expiresAfterDays: Int) {
            self.keys = keys
            self.expiresAfterDays = expiresAfterDays
        }
    }

    /// `s3: {endpoint, bucket, prefix, region, lock_ttl_seconds, lock_wait_seconds, deadline_seconds}`. No credentials: those come
    /// from the environment of the process (AWS_ACCESS_KEY_ID, ..., AWS_PROFILE), never from a
    /// file that is committed.
    public struct ObjectStorage: Sendable, Equatable {
        public var endpoint: String
        public var bucket: String
        public var prefix: String
        public var region: String
        public var lockTTLSeconds: Int?
        /// How long any one command may take against the bucket before it gives up (exit 4).
        public var deadlineSeconds: Int? = nil
        /// How long a command waits for a lock another live command holds (exit 3 after).
        public var lockWaitSeconds: Int? = nil
    }

    /// An app version still in use (`apps:` under an environment) and the bridge version it has.
    public struct AppVersion: Sendable, Equatable {
        public var name: String
        public var bridge: Int

        public init(name: String, bridge: Int) {
            self.name = name
            self.bridge = bridge
        }
    }

    public var path: String
    public var serviceName: Located<String>
    public var brokerRegistrationNo: Located<String>
    public var timezone: Located<String>
    public var web: String?
    public var rateMoveWarn: Percent
    /// How many days before a compliance review ends `validate` warns of it (DSC-22) and
    /// `status` lists it (`review_warning_days`, default 30).
    public var reviewWarningDays = ServiceConfig.defaultReviewWarningDays
    public var environments: [Environment]
    /// Where ratecard.yaml holds keys that look like credentials (`key` at `line`): an error
    /// for validate, and a refusal to use any environment until they are gone.
    public var credentialKeys: [String] = []

    package static let defaultRateMoveWarn = Percent(thousandths: 3000)
    public static let defaultReviewWarningDays = 30

    /// ratecard.yaml read outside a validation run (to find the environments or the web build):
    /// the one way it is read besides `read(_:path:diagnostics:)`, which that is built on. A file
    /// that does not read is an error listing every problem as `file:line:column: error RULE:
    /// message`; `path` names the file in it. `RATECARD_TRACE` notes each call
    /// (`trace: ratecard.yaml read: <path>`), so a test can count them per command.
    public static func load(_ bytes: [UInt8], path: String) throws -> ServiceConfig {
        Trace.note("ratecard.yaml read: \(path)")
        func failure(_ problems: [Message]) -> OperationalError {
            let lines = problems.map { Message.verbatim("  ") + $0 + .verbatim("\n") }.joined(separator: "")
            return OperationalError(
                Message("\(path) is invalid:\n", ko: "\(path)에 문제가 있습니다:\n") + lines
                    + Message("Fix it ('ratecard validate' checks it) and run the command again", ko: "고친 다음('ratecard validate'로 확인할 수 있습니다) 명령을 다시 실행하세요"))
        }
        func line(_ mark: SourceMark, _ rule: String, _ message: Message) -> Message {
            Message("\(path):\(mark): error \(rule): \(message)", ko: "\(path):\(mark): 오류 \(rule): \(message)")
        }
        let diagnostics = Diagnostics()
        let config: ServiceConfig?
        do {
            let text = try SourceText.decode(bytes)
            guard let node = try YAMLParser.parse(Array(text.utf8)) else {
                throw failure([Message("\(path):1:1: the file is empty", ko: "\(path):1:1: 파일이 비어 있습니다")])
            }
            config = read(node, path: path, diagnostics: diagnostics)
        } catch let error as YAMLError {
            throw failure([line(error.mark, FileRules.rule(for: error).id, FileRules.message(for: error, in: bytes))])
        }
        let errors = diagnostics.items.filter { $0.severity == .error }.sorted()
        if let config, !config.credentialKeys.isEmpty {
            throw OperationalError(
                "\(path) holds credentials (\(config.credentialKeys.joined(separator: ", "))); remove them from the file and from its git history, rotate the key, and give ratecard credentials through AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or AWS_PROFILE. Nothing was done",
                ko:
                    "\(path)에 자격 증명이 들어 있습니다 (\(config.credentialKeys.joined(separator: ", "))); 파일과 git 기록에서 지우고 키를 교체한 다음, ratecard에는 AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY 또는 AWS_PROFILE로 자격 증명을 주세요. 아무것도 하지 않았습니다"
            )
        }
        guard let config, errors.isEmpty else {
            throw failure(
                errors.isEmpty
                    ? [Message("\(path): required settings are missing", ko: "\(path): 필수 설정이 빠져 있습니다")] : errors.map { line($0.mark, $0.rule, $0.message) })
        }
        return config
    }

    package static func read(_ node: YAMLNode, path: String, diagnostics: Diagnostics) -> ServiceConfig? {
        guard let fields = MappingReader(node, path: path, what: .verbatim("ratecard.yaml"), diagnostics: diagnostics, table: FieldTables.service) else { return nil }
        defer { fields.finish() }
        let name = fields.string("service_name")
        let registration = fields.string("broker_registration_no")
        let timezone = fields.string("timezone")
        if let timezone, timezone.value != "Asia/Seoul" {
            diagnostics.report(
                SchemaRules.notAllowed, path, timezone.mark,
                Message("'timezone' is '\(timezone.value)'; content dates are in Asia/Seoul", ko: "'timezone' 값이 '\(timezone.value)'입니다; 콘텐츠의 날짜는 Asia/Seoul 기준입니다"))
        }
        let web = fields.string("web", required: false)?.value
        let threshold = fields.percent("rate_move_warn_pp", required: false)?.value ?? defaultRateMoveWarn
        // Days ahead; 0 (or less) never warns.
        let reviewWarning = fields.integer("review_warning_days", required: false)
        var environments: [Environment] = []
        var credentials: [String] = []
        if let envs = fields.mapping("environments", required: false) {
            for name in envs.keys {
                guard let entry = envs.mapping(name) else { continue }
                if !SchemaRules.isValidID(name) {
                    diagnostics.report(
                        SchemaRules.identifier, path, envs.keyMark(name) ?? entry.node.mark,
                        Message("environment name '\(name)' must match ^[a-z0-9][a-z0-9-]{0,62}$", ko: "환경 이름 '\(name)'은(는) ^[a-z0-9][a-z0-9-]{0,62}$ 형식이어야 합니다"))
                }
                credentials += refuseCredentials(entry, path: path, diagnostics: diagnostics)
                let storage = entry.mapping("s3", required: false).flatMap { objectStorage($0, path: path, diagnostics: diagnostics, credentials: &credentials) }
                let hasS3 = entry.keys.contains("s3")
                let root = entry.string("root", required: !hasS3)
                if hasS3, let root {
                    diagnostics.report(
                        SchemaRules.notAllowed, path, root.mark,
                        Message(
                            "environment '\(name)' has both 'root' and 's3'; it is either a serve root folder or a place in object storage",
                            ko: "환경 '\(name)'에 'root'와 's3'가 모두 있습니다; 환경은 서빙 루트 폴더이거나 오브젝트 스토리지의 위치, 둘 중 하나입니다"))
                }
                let protected = entry.bool("protected", required: false)?.value ?? false
                let apps = appVersions(entry.mapping("apps", required: false), path: path, diagnostics: diagnostics)
                let signing = entry.mapping("signing", required: false).flatMap { signingBlock($0, path: path, diagnostics: diagnostics) }
                entry.finish()
                if hasS3 {
                    if let storage, root == nil { environments.append(Environment(name: name, root: "", protected: protected, apps: apps, s3: storage, signing: signing)) }
                } else if let root {
                    environments.append(Environment(name: name, root: root.value, protected: protected, apps: apps, signing: signing))
                }
            }
            envs.finish()
        }
        guard let name, let registration, let timezone else { return nil }
        var config = ServiceConfig(
            path: path, serviceName: name, brokerRegistrationNo: registration, timezone: timezone,
            web: web, rateMoveWarn: threshold, environments: environments, credentialKeys: credentials)
        if let reviewWarning { config.reviewWarningDays = reviewWarning.value }
        return config
    }

    /// Keys that would put a secret into ratecard.yaml, which is committed and pushed.
    package static func isCredentialKey(_ key: String) -> Bool {
        let lowered = key.lowercased().replacingOccurrences(of: "-", with: "_")
        return ["secret", "access_key", "accesskey", "credential", "token", "password", "aws_access_key_id"].contains { lowered.contains($0) }
    }

    /// Reports every credential-like key of a mapping (without its value), marks it read and
    /// returns where each is.
    package static func refuseCredentials(_ reader: MappingReader, path: String, diagnostics: Diagnostics) -> [String] {
        var found: [String] = []
        for key in reader.keys where isCredentialKey(key) {
            reader.excuse(key)
            let mark = reader.keyMark(key) ?? reader.node.mark
            diagnostics.report(
                SchemaRules.notAllowed, path, mark,
                Message(
                    "'\(key)': credentials never go in ratecard.yaml (it is committed); set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), or AWS_PROFILE and the shared credentials file, where ratecard runs",
                    ko: "'\(key)': 자격 증명은 ratecard.yaml에 두지 않습니다 (커밋되는 파일입니다); ratecard를 실행하는 곳에서 AWS_ACCESS_KEY_ID와 AWS_SECRET_ACCESS_KEY(필요하면 AWS_SESSION_TOKEN), 또는 AWS_PROFILE과 공유 자격 증명 파일을 설정하세요")
            )
            found.append("'\(key)' at line \(mark.line)")
        }
        return found
    }

    /// `s3:` of an environment, checked: an https endpoint (http only for this machine), an S3
    /// bucket name, a prefix of safe key characters ending in `/`, a region, a lock lifetime.
    package static func objectStorage(_ reader: MappingReader, path: String, diagnostics: Diagnostics, credentials: inout [String]) -> ObjectStorage? {
        defer { reader.finish() }
        credentials += refuseCredentials(reader, path: path, diagnostics: diagnostics)
        let endpoint = reader.string("endpoint")
        let bucket = reader.string("bucket")
        let prefix = reader.string("prefix", required: false)
        let region = reader.string("region", required: false)
        let ttl = reader.integer("lock_ttl_seconds", required: false)
        let deadline = reader.integer("deadline_seconds", required: false)
        let lockWait = reader.integer("lock_wait_seconds", required: false)
        var valid = true
        if let endpoint {
            let text = endpoint.value
            let scheme = text.hasPrefix("https://") ? "https://" : text.hasPrefix("http://") ? "http://" : nil
            let host = scheme.map { String(text.dropFirst($0.count).prefix { $0 != "/" && $0 != ":" }) } ?? ""
            let rest = scheme.map { String(text.dropFirst($0.count).drop { $0 != "/" }) } ?? ""
            if scheme == nil || host.isEmpty || !(rest.isEmpty || rest == "/") {
                diagnostics.report(
                    SchemaRules.notAllowed, path, endpoint.mark,
                    Message(
                        "'endpoint' is '\(text)'; expected https://host[:port] (the bucket and prefix are fields of their own)",
                        ko: "'endpoint' 값이 '\(text)'입니다; https://host[:port] 형식이어야 합니다 (버킷과 접두사는 따로 쓰는 필드입니다)"))
                valid = false
            } else if scheme == "http://" && !["127.0.0.1", "localhost", "[::1]"].contains(host) {
                diagnostics.report(
                    SchemaRules.notAllowed, path, endpoint.mark,
                    Message(
                        "'endpoint' is '\(text)'; object storage is reached over https:// (http:// only for a server on this machine)",
                        ko: "'endpoint' 값이 '\(text)'입니다; 오브젝트 스토리지는 https://로 접속합니다 (http://는 이 컴퓨터의 서버에만 씁니다)"))
                valid = false
            }
        }
        if let bucket, !isBucketName(bucket.value) {
            diagnostics.report(
                SchemaRules.notAllowed, path, bucket.mark,
                Message(
                    "'bucket' is '\(bucket.value)'; an S3 bucket name is 3-63 lower-case letters, digits, '.' and '-', starting and ending with a letter or digit",
                    ko: "'bucket' 값이 '\(bucket.value)'입니다; S3 버킷 이름은 영문 소문자, 숫자, '.', '-'로 된 3-63자이고 영문자나 숫자로 시작하고 끝나야 합니다"))
            valid = false
        }
        if let prefix, !isKeyPrefix(prefix.value) {
            diagnostics.report(
                SchemaRules.notAllowed, path, prefix.mark,
                Message(
                    "'prefix' is '\(prefix.value)'; a prefix is empty or folders of a-z, 0-9, '.', '_' and '-' each ending in '/' (like app/)",
                    ko: "'prefix' 값이 '\(prefix.value)'입니다; 접두사는 비워 두거나, a-z, 0-9, '.', '_', '-'로 된 폴더 이름을 '/'로 끝맺어 씁니다 (예: app/)"))
            valid = false
        }
        if let region, !(region.value.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }) || region.value.isEmpty {
            diagnostics.report(
                SchemaRules.notAllowed, path, region.mark,
                Message("'region' is '\(region.value)'; expected a region name such as us-east-1", ko: "'region' 값이 '\(region.value)'입니다; us-east-1 같은 리전 이름이어야 합니다"))
            valid = false
        }
        if let ttl, !(1...86_400).contains(ttl.value) {
            diagnostics.report(
                SchemaRules.notAllowed, path, ttl.mark,
                Message("'lock_ttl_seconds' is \(ttl.value); a lock lives 1 to 86400 seconds after its last renewal", ko: "'lock_ttl_seconds' 값이 \(ttl.value)입니다; 잠금은 마지막 갱신 뒤 1초에서 86400초까지 유지됩니다"))
            valid = false
        }
        if let lockWait, !(1...86_400).contains(lockWait.value) {
            valid = false
            diagnostics.report(
                SchemaRules.notAllowed, path, lockWait.mark,
                Message("'lock_wait_seconds' is \(lockWait.value); a command waits 1 to 86400 seconds for a held lock", ko: "'lock_wait_seconds' 값이 \(lockWait.value)입니다; 잡힌 잠금은 1초에서 86400초까지 기다립니다"))
        }
        if let deadline, !(1...86_400).contains(deadline.value) {
            diagnostics.report(
                SchemaRules.notAllowed, path, deadline.mark,
                Message("'deadline_seconds' is \(deadline.value); a command's deadline is 1 to 86400 seconds", ko: "'deadline_seconds' 값이 \(deadline.value)입니다; 명령의 제한 시간은 1초에서 86400초까지입니다"))
            valid = false
        }
        guard valid, let endpoint, let bucket else { return nil }
        return ObjectStorage(
            endpoint: endpoint.value, bucket: bucket.value, prefix: prefix?.value ?? "", region: region?.value ?? "us-east-1", lockTTLSeconds: ttl?.value,
            deadlineSeconds: deadline?.value, lockWaitSeconds: lockWait?.value)
    }

    package static func isBucketName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (3...63).contains(bytes.count) else { return false }
        func alnum(_ byte: UInt8) -> Bool { (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) }
        return alnum(bytes.first!) && alnum(bytes.last!) && bytes.allSatisfy { alnum($0) || $0 == 0x2E || $0 == 0x2D } && !name.contains("..")
    }

    package static func isKeyPrefix(_ prefix: String) -> Bool {
        guard !prefix.isEmpty else { return true }
        guard prefix.hasSuffix("/") else { return false }
        return prefix.dropLast().split(separator: "/", omittingEmptySubsequences: false).allSatisfy { part in
            !part.isEmpty && part != "." && part != ".." && !part.hasPrefix(".")
                && part.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "." || $0 == "_" || $0 == "-") }
        }
    }

    /// `signing: {keys: [...], expires_after_days: N}`: at least one key, each `ed25519:` and the
    /// base64 of 32 bytes; N from 1 to 366.
    package static func signingBlock(_ reader: MappingReader, path: String, diagnostics: Diagnostics) -> Signing? {
        defer { reader.finish() }
        let keys = reader.strings("keys")
        let days = reader.integer("expires_after_days")
        var valid: [String] = []
        for key in keys?.value ?? [] {
            let decoded = key.value.hasPrefix("ed25519:") ? Data(base64Encoded: String(key.value.dropFirst(8))) : nil
            guard let decoded, decoded.count == 32 else {
                diagnostics.report(
                    SchemaRules.notAllowed, path, key.mark,
                    Message(
                        "signing key '\(key.value)' is not a public key as 'ratecard keys generate' writes it (ed25519:<base64 of 32 bytes>)",
                        ko: "서명 키 '\(key.value)'은(는) 'ratecard keys generate'가 쓰는 공개 키 형식(ed25519:<32바이트의 base64>)이 아닙니다"))
                continue
            }
            valid.append(key.value)
        }
        if let keys, keys.value.isEmpty {
            diagnostics.report(
                SchemaRules.notAllowed, path, keys.mark,
                Message("'signing' lists no keys; list the public key of each signing key", ko: "'signing'에 키가 없습니다; 서명 키마다 공개 키를 적으세요"))
        }
        if let days, !(1...366).contains(days.value) {
            diagnostics.report(
                SchemaRules.notAllowed, path, days.mark,
                Message(
                    "'expires_after_days' is \(days.value); a statement is good for 1 to 366 days", ko: "'expires_after_days' 값이 \(days.value)입니다; 서명은 1일에서 366일까지 유효할 수 있습니다"))
        }
        guard let keys, let days, !keys.value.isEmpty, valid.count == keys.value.count, (1...366).contains(days.value) else { return nil }
        return Signing(keys: valid, expiresAfterDays: days.value)
    }

    /// `apps: {ios-4.12: 3, android-4.12: 3}`: app version -> the bridge version it has.
    package static func appVersions(_ reader: MappingReader?, path: String, diagnostics: Diagnostics) -> [AppVersion] {
        guard let reader else { return [] }
        defer { reader.finish() }
        var apps: [AppVersion] = []
        for name in reader.keys {
            guard let bridge = reader.integer(name) else { continue }
            if bridge.value < 1 {
                diagnostics.report(
                    SchemaRules.notAllowed, path, bridge.mark,
                    Message("app '\(name)' has bridge \(bridge.value); bridge versions start at 1", ko: "앱 '\(name)'의 bridge 값이 \(bridge.value)입니다; 브리지 버전은 1부터 시작합니다"))
                continue
            }
            apps.append(AppVersion(name: name, bridge: bridge.value))
        }
        return apps
    }
}
