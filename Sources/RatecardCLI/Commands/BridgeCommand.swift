import RatecardKit

/// `ratecard bridge generate`: the app's Swift, the web build's runtime and its types, from
/// the web build's `bridge.yaml`.
enum BridgeCommand {
    static let command = Command(
        name: "bridge",
        abstract: "Generate the native bridge from bridge.yaml: Swift for the app and its loader, the JS runtime and .d.ts for the web build.",
        usage: "generate [--web <dir>] [--swift <file>]",
        options: [
            OptionSpec("--web", value: "DIR", "The web build folder holding bridge.yaml (default: 'web' in ratecard.yaml, else ../site)"),
            OptionSpec("--swift", value: "FILE", "Where to write the app's Swift (default: native/RatecardBridge.swift beside the web build)"),
        ],
        positionals: 1...1,
        discussion: """
            Writes <web>/app/bridge.js (the runtime the web build calls the app through), <web>/app/bridge.d.ts
            (its types) and the Swift file the app compiles (message types, the RatecardBridgeHandler protocol and
            a dispatcher that replies to every message), and beside it RatecardLoader.swift, the app's loader (the code
            'ratecard fetch' runs: it checks live.json and every file before the web view gets it; see docs/bridge.md).
            The output depends on bridge.yaml and this build of ratecard only. 'validate' checks
            that the web build ships what the schema generates and calls only what it declares. An invalid schema exits 1.
            """,
        actions: ["generate"],
        run: run)

    static func run(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        guard arguments.positionals[0] == "generate" else {
            let action = arguments.positionals[0]
            throw UsageError("Unknown bridge action '\(action)'; use 'generate'", ko: "알 수 없는 bridge 동작 '\(action)'; 'generate'를 쓰세요")
        }
        let web = try webFolder(arguments, invocation)
        let location = try? ContentLocation.find(from: invocation.directory)
        let prefix = BridgeCheck.displayPrefix(webFolder: web, repositoryRoot: location?.repository?.workdir)
        let diagnostics = Diagnostics()
        guard let schema = try BridgeSchema.load(webFolder: web, displayPath: prefix + BridgeSchema.fileName, diagnostics: diagnostics) else {
            if diagnostics.items.isEmpty {
                throw OperationalError("\(web)/\(BridgeSchema.fileName) is not there; the bridge schema lives in the web build", ko: "\(web)/\(BridgeSchema.fileName)이(가) 없습니다; 브리지 스키마는 웹 빌드 안에 둡니다")
            }
            for item in diagnostics.items.sorted() {
                invocation.console.out(TextReport.line(item, style: ReportStyle(messages: invocation.messages)) + "\n")
            }
            invocation.error(
                Message("\(BridgeSchema.fileName) is invalid; nothing was generated", ko: "\(BridgeSchema.fileName)에 오류가 있어 아무것도 생성하지 않았습니다"))
            return RatecardCLI.ExitCode.invalid
        }
        let swift = try arguments.value("--swift").map { RatecardCLI.resolve($0, against: invocation.directory) } ?? defaultSwift(web: web, content: location?.contentDir)
        let outputs = [
            (web + "/" + BridgeWebGenerator.runtimePath, BridgeWebGenerator.runtime(schema)),
            (web + "/" + BridgeWebGenerator.typesPath, BridgeWebGenerator.typeScript(schema)),
            (swift, BridgeSwiftGenerator.generate(schema)),
            (DurableFiles.parent(of: swift) + "/" + LoaderSwiftGenerator.fileName, LoaderSwiftGenerator.generate()),
        ]
        for (path, text) in outputs {
            try FileSystem.makeDirectories(DurableFiles.parent(of: path))
            try DurableFiles.replace(path, Array(text.utf8))
            invocation.out(Message("wrote \(path)\n", ko: "\(path)을(를) 썼습니다\n"))
        }
        let (name, version, fingerprint, commands, events) = (schema.name, schema.version, schema.fingerprint, schema.commands.count, schema.events.count)
        invocation.err(
            Message(
                "Bridge '\(name)' version \(version) (schema \(fingerprint)): \(commands) commands, \(events) events.\n",
                ko: "브리지 '\(name)' 버전 \(version) (스키마 \(fingerprint)): 명령 \(commands)개, 이벤트 \(events)개.\n"))
        return RatecardCLI.ExitCode.ok
    }

    static func webFolder(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> String {
        if let given = arguments.value("--web") {
            let path = RatecardCLI.resolve(given, against: invocation.directory)
            guard FileSystem.isDirectory(path) else { throw OperationalError("--web \(path) is not a folder", ko: "--web \(path)은(는) 폴더가 아닙니다") }
            return path
        }
        let location = try ContentLocation.find(from: invocation.directory)
        return try BundleRun(location: location, asOf: Day.todayInSeoul(now: invocation.now), caches: invocation.caches).webFolder(override: nil, configured: try invocation.settings()?.config.web)
    }

    /// `native/RatecardBridge.swift` beside the web build, unless that is inside the content
    /// folder (a web build kept in the content repository, as `ratecard init` makes it), where
    /// validate would refuse it (SCH-07): then the app's path must be given.
    static func defaultSwift(web: String, content: String?) throws -> String {
        let path = DurableFiles.parent(of: web) + "/native/RatecardBridge.swift"
        if let content, let root = try? FileSystem.realPath(content), let parent = try? FileSystem.realPath(DurableFiles.parent(of: web)),
            parent == root || parent.hasPrefix(root + "/")
        {
            throw UsageError(
                "the app's Swift would be written to \(path), inside the content folder, where validate refuses it (SCH-07); pass --swift <file in the app's repository>",
                ko: "앱의 Swift 파일이 콘텐츠 폴더 안인 \(path)에 쓰이게 되는데, validate는 그곳의 파일을 거부합니다 (SCH-07); --swift <앱 저장소 안의 파일>을 주세요")
        }
        return path
    }

}
