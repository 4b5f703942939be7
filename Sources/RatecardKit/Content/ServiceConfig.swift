/// `ratecard.yaml`: the service, its broker registration and where it is served.
public struct ServiceConfig: Sendable, Equatable {
    public struct Environment: Sendable, Equatable {
        public var name: String
        public var root: String
        public var protected: Bool
        /// The app versions in the field that this environment serves, each with its bridge version.
        public var apps: [AppVersion] = []
    }

    /// An app version still in use (`apps:` under an environment) and the bridge version it has.
    public struct AppVersion: Sendable, Equatable {
        public var name: String
        public var bridge: Int
    }

    public var path: String
    public var serviceName: Located<String>
    public var brokerRegistrationNo: Located<String>
    public var timezone: Located<String>
    public var web: String?
    public var rateMoveWarn: Percent
    public var environments: [Environment]

    static let defaultRateMoveWarn = Percent(thousandths: 3000)

    static func read(_ node: YAMLNode, path: String, diagnostics: Diagnostics) -> ServiceConfig? {
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
        if let envs = fields.mapping("environments", required: false) {
            for name in envs.keys {
                guard let entry = envs.mapping(name) else { continue }
                if !SchemaRules.isValidID(name) {
                    diagnostics.report(SchemaRules.identifier, path, envs.keyMark(name) ?? entry.node.mark, "environment name '\(name)' must match ^[a-z0-9][a-z0-9-]{0,62}$")
                }
                let root = entry.string("root")
                let protected = entry.bool("protected", required: false)?.value ?? false
                let apps = appVersions(entry.mapping("apps", required: false), path: path, diagnostics: diagnostics)
                entry.finish()
                if let root { environments.append(Environment(name: name, root: root.value, protected: protected, apps: apps)) }
            }
            envs.finish()
        }
        guard let name, let registration, let timezone else { return nil }
        return ServiceConfig(
            path: path, serviceName: name, brokerRegistrationNo: registration, timezone: timezone,
            web: web, rateMoveWarn: threshold, environments: environments)
    }

    /// `apps: {ios-4.12: 3, android-4.12: 3}`: app version -> the bridge version it has.
    static func appVersions(_ reader: MappingReader?, path: String, diagnostics: Diagnostics) -> [AppVersion] {
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
