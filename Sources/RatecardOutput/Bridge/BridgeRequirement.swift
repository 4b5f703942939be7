import RatecardCore
import RatecardSupport

/// What a web build needs from the app: the commands it calls without a capability check,
/// each with the bridge version that introduced it. Recorded in the release's version.json
/// (`"bridge"`), checked against the app versions an environment supports.
public struct BridgeRequirement: Sendable, Equatable {
    /// The schema the web build was checked against.
    public var schemaVersion: Int
    public var fingerprint: String
    /// The lowest bridge version an app needs to run this web build.
    public var requires: Int
    /// Unguarded commands -> the bridge version that introduced each.
    public var calls: [String: Int]
    /// Commands called only behind `RatecardBridge.has(...)`.
    public var guarded: [String]
    /// Where each unguarded command is first called (`site/app/app.js:296:7`), for messages.
    public var firstUse: [String: String] = [:]

    /// The requirement of `scan` under `schema`, with the scan's findings and what `schema`
    /// says of its uses (undeclared and deprecated messages) as diagnostics.
    public static func evaluate(_ scan: BridgeUsageScanner.Result, schema: BridgeSchema) -> (BridgeRequirement, [Diagnostic]) {
        var diagnostics: [Diagnostic] = []
        var calls: [String: Int] = [:]
        var firstUse: [String: String] = [:]
        var guarded: Set<String> = []
        diagnostics += scan.findings
        for use in scan.uses {
            let declared = use.kind == .on ? schema.event(use.name) : schema.command(use.name)
            guard let message = declared else {
                let names = (use.kind == .on ? schema.events : schema.commands).map(\.name)
                let hint = Suggestion.didYouMean(use.name, in: names)
                let list = names.joined(separator: ", ")
                let message =
                    use.kind == .on
                    ? Message(
                        "'\(use.name)' is not an event in \(schema.path) (bridge \(schema.version)); declare it there or use one of: \(list)",
                        ko: "'\(use.name)'은(는) \(schema.path)(브리지 \(schema.version))의 이벤트가 아닙니다; 거기에 선언하거나 다음 중 하나를 쓰세요: \(list)")
                    : Message(
                        "'\(use.name)' is not a command in \(schema.path) (bridge \(schema.version)); declare it there or use one of: \(list)",
                        ko: "'\(use.name)'은(는) \(schema.path)(브리지 \(schema.version))의 명령이 아닙니다; 거기에 선언하거나 다음 중 하나를 쓰세요: \(list)")
                diagnostics.append(Diagnostic(path: use.path, mark: use.mark, rule: BridgeRules.undeclared, message: message.then(hint)))
                continue
            }
            if let deprecated = message.deprecated, use.kind != .has {
                diagnostics.append(
                    Diagnostic(
                        path: use.path, mark: use.mark, rule: BridgeRules.deprecated, message: Message("'\(use.name)' is deprecated: \(deprecated)", ko: "'\(use.name)'은(는) 사용 중단되었습니다: \(deprecated)"))
                )
            }
            guard use.kind == .call else { continue }
            if use.guarded {
                guarded.insert(use.name)
            } else {
                calls[use.name] = message.since
                if firstUse[use.name] == nil { firstUse[use.name] = "\(use.path):\(use.mark)" }
            }
        }
        let requirement = BridgeRequirement(
            schemaVersion: schema.version, fingerprint: schema.fingerprint, requires: calls.values.max() ?? 1,
            calls: calls, guarded: guarded.subtracting(calls.keys).sorted(), firstUse: firstUse)
        return (requirement, diagnostics)
    }

    /// One sentence per unguarded command that some supported app version lacks.
    public func problems(apps: [ServiceConfig.AppVersion], environment: String) -> [Message] {
        var problems: [Message] = []
        for (name, since) in calls.sorted(by: { $0.key < $1.key }) {
            let lacking = apps.filter { $0.bridge < since }
            guard !lacking.isEmpty else { continue }
            let names = lacking.map { "\($0.name) (bridge \($0.bridge))" }.joined(separator: ", ")
            let at = firstUse[name].map { " at \($0)" } ?? ""
            let atKorean = firstUse[name].map { " (\($0))" } ?? ""
            problems.append(
                Message(
                    "the web build calls '\(name)'\(at), which needs bridge \(since); app versions supported in \(environment) lack it: \(names). Guard the call with RatecardBridge.has(\"\(name)\"), or stop listing those versions under apps: in ratecard.yaml",
                    ko:
                        "웹 빌드가 '\(name)'을(를) 호출하는데\(atKorean), 이 명령에는 브리지 \(since) 이상이 필요합니다; \(environment) 환경이 지원하는 앱 버전 중 이 명령이 없는 버전: \(names). RatecardBridge.has(\"\(name)\")로 호출을 감싸거나, ratecard.yaml의 apps:에서 그 버전들을 빼세요"
                ))
        }
        return problems
    }

    /// The `"bridge"` field of version.json.
    public var json: JSON {
        .object([
            "schema_version": .int(schemaVersion), "fingerprint": .string(fingerprint), "requires": .int(requires),
            "calls": .object(calls.mapValues(JSON.int)), "guarded": .array(guarded.map(JSON.string)),
        ])
    }

    public init(schemaVersion: Int, fingerprint: String, requires: Int, calls: [String: Int], guarded: [String], firstUse: [String: String] = [:]) {
        self.schemaVersion = schemaVersion
        self.fingerprint = fingerprint
        self.requires = requires
        self.calls = calls
        self.guarded = guarded
        self.firstUse = firstUse
    }

    public init?(json: JSON?) {
        guard let json, let requires = json["requires"]?.intValue else { return nil }
        var calls: [String: Int] = [:]
        if case .object(let fields)? = json["calls"] {
            for (name, value) in fields { if let since = value.intValue { calls[name] = since } }
        }
        self.init(
            schemaVersion: json["schema_version"]?.intValue ?? 0, fingerprint: json["fingerprint"]?.stringValue ?? "",
            requires: requires, calls: calls, guarded: (json["guarded"]?.arrayValue ?? []).compactMap(\.stringValue))
    }

    /// The requirement recorded in a release's version.json bytes, if any.
    public static func recorded(manifest: [UInt8]) throws -> BridgeRequirement? {
        let (json, _) = try JSONReader.parseListingFiles(manifest)
        return BridgeRequirement(json: json["bridge"])
    }
}
