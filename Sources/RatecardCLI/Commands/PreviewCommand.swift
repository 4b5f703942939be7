internal import CShims
import Glibc
import RatecardKit

/// `ratecard preview`: web build + bundle in one folder a person can open, or (`--watch`)
/// served on 127.0.0.1 and rebuilt from memory on every edit.
enum PreviewCommand {
    static let command = Command(
        name: "preview",
        abstract: "Render the web build and the bundle into one folder to open in a browser, or serve it and rebuild on every edit (--watch).",
        usage: "[--rev <rev>] [--as-of <date>] [--web <dir>] [--out <dir> | --watch [--port <port>]]",
        options: [
            OptionSpec("--rev", value: "REV", "Preview a commit (default: the work tree)"),
            OptionSpec("--as-of", value: "DATE", "The date that decides what is current (default: today in Asia/Seoul)"),
            OptionSpec("--web", value: "DIR", "The web build folder (default: 'web' in ratecard.yaml, else ../site)"),
            OptionSpec("--out", value: "DIR", "Where to write (default: .preview in the content folder)"),
            OptionSpec("--watch", "Serve the preview on 127.0.0.1, watch the content and web folders, rebuild what an edit changed and reload open pages"),
            OptionSpec("--port", value: "PORT", "The port --watch listens on, on 127.0.0.1 only (default 8000; 0 picks a free one)"),
        ],
        discussion: """
            --watch keeps the parsed content in memory: an edit re-reads the files it touched, checks again what
            they can change, and rebuilds the bundle re-rendering only what changed. Nothing is written to disk
            (besides the build cache). While the content has errors, or a file cannot be read, every page shows
            them (path:line:column, rule, message; or the read error) instead of the last build; open pages reload
            by themselves after each rebuild. Pages are served as built, with one script added (and 'self'
            allowed for it in their security policy). Stop it with Ctrl-C.
            """,
        run: run)

    static func run(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        if arguments.has("--watch") {
            if arguments.value("--rev") != nil {
                throw UsageError("'--watch' watches the work tree; it cannot be used with '--rev'", ko: "'--watch'는 작업 트리를 감시하므로 '--rev'와 함께 쓸 수 없습니다")
            }
            if arguments.value("--out") != nil {
                throw UsageError("'--watch' serves the preview from memory; it cannot be used with '--out'", ko: "'--watch'는 미리보기를 메모리에서 제공하므로 '--out'과 함께 쓸 수 없습니다")
            }
            return try watch(arguments, invocation)
        }
        if arguments.value("--port") != nil { throw UsageError("'--port' is for '--watch'", ko: "'--port'는 '--watch'와 함께 씁니다") }
        let location = try ContentLocation.find(from: invocation.directory)
        // A preview is for a person to look at, not a gate: history rules that cannot run in a
        // shallow clone are skipped (an invalid report says so).
        let run = BundleRun(location: location, asOf: try invocation.asOf(arguments), caches: invocation.caches, allowShallow: true)
        let web = try run.webFolder(
            override: arguments.value("--web").map { RatecardCLI.resolve($0, against: invocation.directory) }, configured: try invocation.settings()?.config.web)
        switch try run.render(revision: arguments.value("--rev")) {
        case .invalid(let report):
            invocation.console.out(ReportFormat.text.render(report, version: RatecardCLI.version, style: ReportStyle(messages: invocation.messages)))
            invocation.error(Message("the content is invalid; nothing was written", ko: "콘텐츠에 오류가 있어 아무것도 쓰지 않았습니다"))
            return RatecardCLI.ExitCode.invalid
        case .built(let output, _):
            let out =
                arguments.value("--out").map { RatecardCLI.resolve($0, against: invocation.directory) }
                ?? (location.contentDir ?? invocation.directory) + "/.preview"
            try BundleWriter.write(output.files, to: out, extraTrees: [web], manifest: output.manifest, cache: invocation.caches.build)
            let id = output.manifest.bundleID
            let folder = CommandName.shellWord(out)
            let name = CommandName.current(environment: invocation.environment).typed
            invocation.out(
                Message(
                    """
                    Preview of bundle \(id) is in \(out)
                    Serve it and open it in a browser:
                      cd \(folder) && python3 -m http.server 8000 --bind 127.0.0.1
                      then open http://127.0.0.1:8000/index.html
                    Or let ratecard serve it and rebuild on every edit: \(name) preview --watch

                    """,
                    ko: """
                        번들 \(id)의 미리보기를 \(out)에 만들었습니다
                        웹 서버로 띄운 다음 브라우저에서 여세요:
                          cd \(folder) && python3 -m http.server 8000 --bind 127.0.0.1
                          그런 다음 http://127.0.0.1:8000/index.html 을 여세요
                        ratecard가 직접 띄우고 고칠 때마다 다시 빌드하게 하려면: \(name) preview --watch

                        """))
            return RatecardCLI.ExitCode.ok
        }
    }

    /// `--watch`: serve, watch, rebuild, until SIGINT or SIGTERM.
    static func watch(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        let port = try ServeRootOptions.port(arguments, default: 8000)
        let asOf = try invocation.asOf(arguments)
        let location = try ContentLocation.find(from: invocation.directory)
        guard location.contentDir != nil else {
            throw OperationalError("'--watch' needs a work tree; this is a bare repository", ko: "'--watch'에는 작업 트리가 필요합니다; 이 저장소는 bare 저장소입니다")
        }
        let web = try BundleRun(location: location, asOf: asOf, caches: invocation.caches).webFolder(
            override: arguments.value("--web").map { RatecardCLI.resolve($0, against: invocation.directory) }, configured: try invocation.settings()?.config.web)
        // Ctrl-C and SIGTERM are read from a descriptor in the loop below, never handled
        // between two steps of a rebuild: blocked before any thread starts, so every thread
        // inherits the mask.
        let signals = cshims_stop_signals_fd()
        guard signals >= 0 else { throw FileSystem.failure("signalfd", "SIGINT/SIGTERM") }
        defer { close(signals) }

        let language = invocation.messages.language
        let loop = WatchLoop(location: location, asOf: asOf, webFolder: web, port: port, caches: invocation.caches, language: language)
        try loop.run(stop: signals) { event in
            switch event {
            case .serving(let root, let address, let loaded, let snapshot):
                invocation.out(
                    Message(
                        """
                        Serving the preview of \(root) at \(address) (loaded in \(loaded) ms)
                        Watching the content and \(web) for edits; Ctrl-C stops.

                        """,
                        ko: """
                            \(root)의 미리보기를 \(address)에서 제공합니다 (불러오는 데 \(loaded) ms)
                            콘텐츠와 \(web)의 수정을 감시합니다; Ctrl-C로 멈춥니다.

                            """))
                report(snapshot, invocation)
            case .rebuilt(let what, let took, let scope, let rendered, let version, let snapshot):
                let (stamp, scopeText) = (Clock.stamp(), describe(scope))
                invocation.out(
                    Message(
                        "\(stamp) \(what): rebuilt in \(took) ms (\(scopeText), \(rendered) rendered, version \(version))\n",
                        ko: "\(stamp) \(what): \(took) ms 만에 다시 빌드했습니다 (\(scopeText), \(rendered)개 렌더링, 버전 \(version))\n"))
                report(snapshot, invocation)
            case .failed(let error): invocation.error(Message.of(error))
            }
        }
        invocation.out(Message("Stopped.\n", ko: "멈췄습니다.\n"))
        return RatecardCLI.ExitCode.ok
    }

    static func describe(_ scope: LiveBuild.Scope) -> Message {
        switch scope {
        case .nothing: return Message("nothing to check", ko: "검사할 것 없음")
        case .products(let keys) where keys.count == 1: return Message("checked \(keys[0]) again", ko: "\(keys[0]) 다시 검사")
        case .products(let keys): return Message("checked \(keys.count) products again", ko: "상품 \(keys.count)개 다시 검사")
        case .document(let id): return Message("checked terms/\(id) again", ko: "terms/\(id) 다시 검사")
        case .everything: return Message("checked everything again", ko: "전체 다시 검사")
        }
    }

    /// The errors now, as validate prints them (the page shows them too).
    static func report(_ snapshot: LiveBuild.Snapshot, _ invocation: Invocation) {
        let error = Message("error", ko: "오류")
        for failure in snapshot.unreadable { invocation.out(Message.verbatim("  \(failure.path): ") + error + .verbatim(": \(failure.message)\n")) }
        let errors = snapshot.all.filter { $0.severity == .error }
        guard !errors.isEmpty else { return }
        let style = ReportStyle(messages: invocation.messages)
        for finding in errors.prefix(20) {
            invocation.console.out("  " + TextReport.line(finding, style: style) + "\n")
        }
        let more = errors.count - 20
        if more > 0 { invocation.out(Message("  ... and \(more) more (every one is on the page)\n", ko: "  ... 외 \(more)개 (모두 페이지에 있습니다)\n")) }
    }
}

/// The wall clock of the watch loop's messages.
enum Clock {
    /// HH:MM:SS in Asia/Seoul, as every other time ratecard prints (whatever the machine's zone).
    static func stamp() -> String { Timestamp.seoulClock(seconds: time(nil)) }
}
