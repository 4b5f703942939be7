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
    }

    /// `s3: {endpoint, bucket, prefix, region, lock_ttl_seconds, deadline_seconds}`. No credentials: those come
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
    public var environments: [Environment]
    /// Where ratecard.yaml holds keys that look like credentials (`key` at `line`): an error
    /// for validate, and a refusal to use any environment until they are gone.
    public var credentialKeys: [String] = []

    package static let defaultRateMoveWarn = Percent(thousandths: 3000)

    /// ratecard.yaml read outside a validation run (to find the environments or the web build):
    /// the one way it is read besides `read(_:path:diagnostics:)`, which that is built on. A file
    /// that does not read is an error listing every problem as `file:line:column: error RULE:
    /// message`; `path` names the file in it.
    public static func load(_ bytes: [UInt8], path: String) throws -> ServiceConfig {
        func failure(_ problems: [String]) -> OperationalError {
            OperationalError("\(path) is invalid:\n" + problems.map { "  \($0)\n" }.joined() + "Fix it ('ratecard validate' checks it) and run the command again")
        }
        let diagnostics = Diagnostics()
        let config: ServiceConfig?
        do {
            let text = try SourceText.decode(bytes)
            guard let node = try YAMLParser.parse(Array(text.utf8)) else { throw failure(["\(path):1:1: the file is empty"]) }
            config = read(node, path: path, diagnostics: diagnostics)
        } catch let error as YAMLError {
            throw failure(["\(path):\(error.mark): error \(FileRules.rule(for: error).id): \(FileRules.message(for: error, in: bytes))"])
        }
        let errors = diagnostics.items.filter { $0.severity == .error }.sorted()
        if let config, !config.credentialKeys.isEmpty {
            throw OperationalError(
                "\(path) holds credentials (\(config.credentialKeys.joined(separator: ", "))); remove them from the file and from its git history, rotate the key, and give ratecard credentials through AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or AWS_PROFILE. Nothing was done"
            )
        }
        guard let config, errors.isEmpty else {
            throw failure(errors.isEmpty ? ["\(path): required settings are missing"] : errors.map { "\($0.path):\($0.mark): error \($0.rule): \($0.message)" })
        }
        return config
    }

    package static func read(_ node: YAMLNode, path: String, diagnostics: Diagnostics) -> ServiceConfig? {
        guard let fields = MappingReader(node, path: path, what: "ratecard.yaml", diagnostics: diagnostics) else { return nil }
        defer { fields.finish() }
        let name = fields.string("service_name")
        let registration = fields.string("broker_registration_no")
        let timezone = fields.string("timezone")
        if let timezone, timezone.value != "Asia/Seoul" {
            diagnostics.report(SchemaRules.notAllowed, path, timezone.mark, "'timezone' is '\(timezone.value)'; content dates are in Asia/Seoul")
        }
        let web = fields.string("web", required: false)?.value
        let threshold = fields.percent("rate_move_warn_pp", required: false)?.value ?? defaultRateMoveWarn
        var environments: [Environment] = []
        var credentials: [String] = []
        if let envs = fields.mapping("environments", required: false) {
            for name in envs.keys {
                guard let entry = envs.mapping(name) else { continue }
                if !SchemaRules.isValidID(name) {
                    diagnostics.report(SchemaRules.identifier, path, envs.keyMark(name) ?? entry.node.mark, "environment name '\(name)' must match ^[a-z0-9][a-z0-9-]{0,62}$")
                }
                credentials += refuseCredentials(entry, path: path, diagnostics: diagnostics)
                let storage = entry.mapping("s3", required: false).flatMap { objectStorage($0, path: path, diagnostics: diagnostics, credentials: &credentials) }
                let hasS3 = entry.keys.contains("s3")
                let root = entry.string("root", required: !hasS3)
                if hasS3, let root {
                    diagnostics.report(SchemaRules.notAllowed, path, root.mark, "environment '\(name)' has both 'root' and 's3'; it is either a serve root folder or a place in object storage")
                }
                let protected = entry.bool("protected", required: false)?.value ?? false
                let apps = appVersions(entry.mapping("apps", required: false), path: path, diagnostics: diagnostics)
                entry.finish()
                if hasS3 {
                    if let storage, root == nil { environments.append(Environment(name: name, root: "", protected: protected, apps: apps, s3: storage)) }
                } else if let root {
                    environments.append(Environment(name: name, root: root.value, protected: protected, apps: apps))
                }
            }
            envs.finish()
        }
        guard let name, let registration, let timezone else { return nil }
        return ServiceConfig(
            path: path, serviceName: name, brokerRegistrationNo: registration, timezone: timezone,
            web: web, rateMoveWarn: threshold, environments: environments, credentialKeys: credentials)
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
            _ = reader.value(key, required: false)
            let mark = reader.keyMark(key) ?? reader.node.mark
            diagnostics.report(
                SchemaRules.notAllowed, path, mark,
                "'\(key)': credentials never go in ratecard.yaml (it is committed); set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), or AWS_PROFILE and the shared credentials file, where ratecard runs"
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
        var valid = true
        if let endpoint {
            let text = endpoint.value
            let scheme = text.hasPrefix("https://") ? "https://" : text.hasPrefix("http://") ? "http://" : nil
            let host = scheme.map { String(text.dropFirst($0.count).prefix { $0 != "/" && $0 != ":" }) } ?? ""
            let rest = scheme.map { String(text.dropFirst($0.count).drop { $0 != "/" }) } ?? ""
            if scheme == nil || host.isEmpty || !(rest.isEmpty || rest == "/") {
                diagnostics.report(SchemaRules.notAllowed, path, endpoint.mark, "'endpoint' is '\(text)'; expected https://host[:port] (the bucket and prefix are fields of their own)")
                valid = false
            } else if scheme == "http://" && !["127.0.0.1", "localhost", "[::1]"].contains(host) {
                diagnostics.report(SchemaRules.notAllowed, path, endpoint.mark, "'endpoint' is '\(text)'; object storage is reached over https:// (http:// only for a server on this machine)")
                valid = false
            }
        }
        if let bucket, !isBucketName(bucket.value) {
            diagnostics.report(
                SchemaRules.notAllowed, path, bucket.mark,
                "'bucket' is '\(bucket.value)'; an S3 bucket name is 3-63 lower-case letters, digits, '.' and '-', starting and ending with a letter or digit")
            valid = false
        }
        if let prefix, !isKeyPrefix(prefix.value) {
            diagnostics.report(SchemaRules.notAllowed, path, prefix.mark, "'prefix' is '\(prefix.value)'; a prefix is empty or folders of a-z, 0-9, '.', '_' and '-' each ending in '/' (like app/)")
            valid = false
        }
        if let region, !(region.value.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }) || region.value.isEmpty {
            diagnostics.report(SchemaRules.notAllowed, path, region.mark, "'region' is '\(region.value)'; expected a region name such as us-east-1")
            valid = false
        }
        if let ttl, !(1...86_400).contains(ttl.value) {
            diagnostics.report(SchemaRules.notAllowed, path, ttl.mark, "'lock_ttl_seconds' is \(ttl.value); a lock lives 1 to 86400 seconds after its last renewal")
            valid = false
        }
        if let deadline, !(1...86_400).contains(deadline.value) {
            diagnostics.report(SchemaRules.notAllowed, path, deadline.mark, "'deadline_seconds' is \(deadline.value); a command's deadline is 1 to 86400 seconds")
            valid = false
        }
        guard valid, let endpoint, let bucket else { return nil }
        return ObjectStorage(
            endpoint: endpoint.value, bucket: bucket.value, prefix: prefix?.value ?? "", region: region?.value ?? "us-east-1", lockTTLSeconds: ttl?.value,
            deadlineSeconds: deadline?.value)
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

    /// `apps: {ios-4.12: 3, android-4.12: 3}`: app version -> the bridge version it has.
    package static func appVersions(_ reader: MappingReader?, path: String, diagnostics: Diagnostics) -> [AppVersion] {
        guard let reader else { return [] }
        defer { reader.finish() }
        var apps: [AppVersion] = []
        for name in reader.keys {
            guard let bridge = reader.integer(name) else { continue }
            if bridge.value < 1 {
                diagnostics.report(SchemaRules.notAllowed, path, bridge.mark, "app '\(name)' has bridge \(bridge.value); bridge versions start at 1")
                continue
            }
            apps.append(AppVersion(name: name, bridge: bridge.value))
        }
        return apps
    }
}
