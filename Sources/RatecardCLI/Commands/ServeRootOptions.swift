import RatecardKit

/// `--env E | --root DIR`, shared by every command that works on a serve root.
enum ServeRootOptions {
    static let options = [
        OptionSpec("--env", value: "NAME", "An environment named in ratecard.yaml"),
        OptionSpec("--root", value: "DIR", "A serve root folder"),
    ]

    static let noWait = OptionSpec("--no-wait", "Exit 3 at once if another ratecard process holds the root's lock")

    static let force = OptionSpec("--force", "Ship a bundle that a release marked bad holds (else exit 3; recorded in the journal)")

    static let format = OptionSpec("--format", value: "FORMAT", "text (default) or json")

    /// The place the arguments name (a serve root folder, or a bucket prefix for an `s3:`
    /// environment) as a `Destination`: its name, store, protection and app versions, from the
    /// command's one read of ratecard.yaml.
    static func resolve(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Destination {
        var destination = try place(arguments, invocation)
        SigningKeys.attach(&destination, arguments, invocation)
        return destination
    }

    private static func place(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Destination {
        switch (arguments.value("--env"), arguments.value("--root")) {
        case (let env?, nil):
            let environment = try environment(env, invocation)
            return Destination(environment, store: try environment.store())
        case (nil, let root?):
            return try byPath(RatecardCLI.resolve(root, against: invocation.directory), shown: root, invocation)
        case (.some, .some):
            throw UsageError("'--env' and '--root' cannot be used together", ko: "'--env'와 '--root'는 함께 쓸 수 없습니다")
        case (nil, nil):
            throw UsageError("Missing expected option '--env <name>' or '--root <dir>'", ko: "'--env <name>'이나 '--root <dir>' 옵션이 필요합니다")
        }
    }

    /// An environment named in ratecard.yaml; an unknown name is a usage error that lists the
    /// known ones (and the nearest, when it looks like a typo).
    static func environment(_ name: String, _ invocation: Invocation) throws -> Environment {
        let settings = try invocation.requiredSettings()
        let known = settings.environments.map(\.name)
        guard let environment = settings.environment(named: name) else {
            let list = known.joined(separator: ", ")
            let message = Message("Unknown environment '\(name)'", ko: "알 수 없는 환경 '\(name)'")
                .then(
                    known.isEmpty
                        ? Message("ratecard.yaml names no environments", ko: "ratecard.yaml에 환경이 하나도 없습니다")
                        : Message("ratecard.yaml names these environments: \(list)", ko: "ratecard.yaml에 있는 환경: \(list)")
                )
                .then(Suggestion.didYouMean(name, in: known))
            throw UsageError(message)
        }
        return environment
    }

    /// A serve root given as a folder. When it is the folder of an environment named in
    /// ratecard.yaml (compared after resolving symlinks and `..`), it is that environment, with
    /// its protection and app versions: a path must not be a way around a gate. Without a
    /// content folder it is a bare root; a ratecard.yaml that does not read is an error.
    static func byPath(_ path: String, shown: String, _ invocation: Invocation) throws -> Destination {
        let normalized = Environment.lexicallyNormalized(path)
        let real = (try? FileSystem.realPath(normalized)) ?? normalized
        for environment in try invocation.settings()?.environments ?? [] {
            guard let folder = environment.folder else { continue }
            if folder == normalized || (try? FileSystem.realPath(folder)) == real {
                var matched = environment
                matched.kind = .folder(normalized)
                return Destination(matched, store: try matched.store())
            }
        }
        return .folder(normalized, name: shown)
    }

    /// Like `resolve`, but the place must already hold releases.
    static func existing(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> any ReleaseStore {
        try resolve(arguments, invocation).existing()
    }

    /// A serve root folder, for what only a folder has (nginx-conf); an environment in object
    /// storage is a usage error that says so.
    static func folder(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> (path: String, name: String) {
        if let name = arguments.value("--env") {
            let environment = try environment(name, invocation)
            switch environment.kind {
            case .bucket(let s3):
                throw UsageError(
                    "environment '\(name)' is in object storage (s3://\(s3.bucket)/\(s3.prefix)); this command works on a serve root folder",
                    ko: "환경 '\(name)'은(는) 오브젝트 스토리지(s3://\(s3.bucket)/\(s3.prefix))에 있습니다; 이 명령은 서빙 루트 폴더에만 씁니다")
            case .folder(let path): return (path, name)
            }
        }
        let destination = try resolve(arguments, invocation)
        return (destination.store.displayName, destination.name)
    }

    /// `--port` (0-65535; 0: any free port), or `fallback`.
    static func port(_ arguments: ParsedArguments, default fallback: Int) throws -> Int {
        guard let text = arguments.value("--port") else { return fallback }
        guard let value = Int(text), (0...65535).contains(value) else {
            throw UsageError("'--port' must be a port number (0-65535), not '\(text)'", ko: "'--port'에는 포트 번호(0-65535)를 써야 합니다 (지금 값: '\(text)')")
        }
        return value
    }

    /// How a publish or promote is to make its change live: -m, --expect-live, --approve,
    /// --dry-run, --no-wait, --force.
    static func change(_ arguments: ParsedArguments) -> ChangeRequest {
        ChangeRequest(
            message: arguments.value("-m") ?? "", expectLive: arguments.value("--expect-live"), approval: arguments.value("--approve"),
            dryRun: arguments.has("--dry-run"), wait: !arguments.has("--no-wait"), force: arguments.has("--force"))
    }

    /// Why the bridge gate refused a web build, on stderr.
    static func report(_ verdict: BridgeGate.Verdict, _ invocation: Invocation) {
        switch verdict {
        case .invalid(let errors):
            for item in errors { invocation.console.err(TextReport.line(item, style: ReportStyle(messages: invocation.messages)) + "\n") }
            invocation.error(
                Message("the web build's use of the native bridge is invalid; nothing was published", ko: "웹 빌드가 네이티브 브리지를 잘못 쓰고 있어 아무것도 게시하지 않았습니다"))
        case .refused(let problems):
            for problem in problems { invocation.error(problem) }
            invocation.error(Message("installed apps cannot run this web build; nothing was changed", ko: "설치된 앱이 이 웹 빌드를 실행할 수 없어 아무것도 바꾸지 않았습니다"))
        case .unused, .allowed: break
        }
    }
}
