import RatecardCore
import RatecardSupport

/// Checks a web build against its bridge schema: the schema itself, that the generated runtime
/// is current, and every use of the runtime in the build's JavaScript (`validate`, `publish`).
public struct BridgeCheck {
    public var schema: BridgeSchema?
    /// What the web build needs from the app (nil without a schema or when the schema is invalid).
    public var requirement: BridgeRequirement?
    public var diagnostics: [Diagnostic]

    /// The app versions an environment supports (`apps:` in ratecard.yaml).
    public typealias Apps = (environment: String, apps: [ServiceConfig.AppVersion])

    /// Runs the check on `webFolder`; paths in findings start with `displayPrefix` (the web
    /// folder relative to the repository, e.g. `site/`). With `apps` (validate), each call
    /// made outside a capability check that a listed app version lacks is an error (BRG-10), at
    /// the call. A web build without `bridge.yaml` has nothing to check.
    public static func run(webFolder: String, displayPrefix: String, apps: [Apps] = []) throws -> BridgeCheck {
        let collected = Diagnostics()
        guard let schema = try BridgeSchema.load(webFolder: webFolder, displayPath: displayPrefix + BridgeSchema.fileName, diagnostics: collected) else {
            return BridgeCheck(schema: nil, requirement: nil, diagnostics: collected.items.sorted())
        }
        var diagnostics = collected.items
        for (path, expected) in [(BridgeWebGenerator.runtimePath, BridgeWebGenerator.runtime(schema)), (BridgeWebGenerator.typesPath, BridgeWebGenerator.typeScript(schema))] {
            let file = webFolder + "/" + path
            let actual = FileSystem.exists(file) ? try FileSystem.readFile(file) : nil
            if actual != Array(expected.utf8) {
                let message =
                    actual == nil
                    ? Message("\(path) is missing; run 'ratecard bridge generate'", ko: "\(path)이(가) 없습니다; 'ratecard bridge generate'를 실행하세요")
                    : Message(
                        "\(path) is not what \(BridgeSchema.fileName) generates (edited by hand, or the schema changed); run 'ratecard bridge generate'",
                        ko: "\(path)이(가) \(BridgeSchema.fileName)에서 생성한 내용과 다릅니다 (손으로 고쳤거나 스키마가 바뀌었습니다); 'ratecard bridge generate'를 실행하세요")
                diagnostics.append(Diagnostic(path: displayPrefix + path, mark: .start, rule: BridgeRules.stale, message: message))
            }
        }
        let scan = try BridgeUsageScanner.scan(webFolder: webFolder, displayPrefix: displayPrefix)
        let (requirement, found) = BridgeRequirement.evaluate(scan, schema: schema)
        diagnostics += found
        for use in scan.uses where use.kind == .call && !use.guarded {
            guard let since = schema.command(use.name)?.since else { continue }
            for (environment, versions) in apps {
                let lacking = versions.filter { $0.bridge < since }
                guard !lacking.isEmpty else { continue }
                let names = lacking.map { "\($0.name) (bridge \($0.bridge))" }.joined(separator: ", ")
                diagnostics.append(
                    Diagnostic(
                        path: use.path, mark: use.mark, rule: BridgeRules.unsupported,
                        message: Message(
                            "'\(use.name)' needs bridge \(since); app versions supported in \(environment) lack it: \(names); guard the call with if (RatecardBridge.has(\"\(use.name)\")) { ... }, or stop listing those versions under apps: in ratecard.yaml",
                            ko:
                                "'\(use.name)' 명령에는 브리지 \(since) 이상이 필요합니다; \(environment) 환경이 지원하는 앱 버전 중 이 명령이 없는 버전: \(names); if (RatecardBridge.has(\"\(use.name)\")) { ... }로 호출을 감싸거나, ratecard.yaml의 apps:에서 그 버전들을 빼세요"
                        )))
            }
        }
        return BridgeCheck(schema: schema, requirement: requirement, diagnostics: diagnostics.sorted())
    }

    /// The web folder as a path prefix relative to `repositoryRoot` (`site/`), or "" outside it.
    public static func displayPrefix(webFolder: String, repositoryRoot: String?) -> String {
        guard let repositoryRoot else { return "" }
        let top = ((try? FileSystem.realPath(repositoryRoot)) ?? repositoryRoot).trimmingSuffix("/")
        let web = (try? FileSystem.realPath(webFolder)) ?? webFolder
        guard web.hasPrefix(top + "/") else { return "" }
        return String(web.dropFirst(top.count + 1)) + "/"
    }

    public var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) && count > 1 ? String(dropLast(suffix.count)) : self
    }
}
