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
            if arguments.value("--rev") != nil { throw UsageError("'--watch' watches the work tree; it cannot be used with '--rev'") }
            if arguments.value("--out") != nil { throw UsageError("'--watch' serves the preview from memory; it cannot be used with '--out'") }
            return try watch(arguments, invocation)
        }
        if arguments.value("--port") != nil { throw UsageError("'--port' is for '--watch'") }
        let location = try ContentLocation.find(from: invocation.directory)
        // A preview is for a person to look at, not a gate: history rules that cannot run in a
        // shallow clone are skipped (an invalid report says so).
        let run = BundleRun(location: location, asOf: try invocation.asOf(arguments), caches: invocation.caches, allowShallow: true)
        let web = try run.webFolder(override: arguments.value("--web").map { RatecardCLI.resolve($0, against: invocation.directory) })
        switch try run.render(revision: arguments.value("--rev")) {
        case .invalid(let report):
            invocation.console.out(ReportFormat.text.render(report, version: RatecardCLI.version))
            invocation.console.err("Error: the content is invalid; nothing was written\n")
            return RatecardCLI.ExitCode.invalid
        case .built(let output, _):
            let out =
                arguments.value("--out").map { RatecardCLI.resolve($0, against: invocation.directory) }
                ?? (location.contentDir ?? invocation.directory) + "/.preview"
            try BundleWriter.write(output.files, to: out, extraTrees: [web])
            invocation.console.out(
                """
                Preview of bundle \(output.manifest.bundleID) is in \(out)
                Serve it and open it in a browser:
                  cd \(out) && python3 -m http.server 8000 --bind 127.0.0.1
                  then open http://127.0.0.1:8000/index.html
                Or let ratecard serve it and rebuild on every edit: ratecard preview --watch

                """)
            return RatecardCLI.ExitCode.ok
        }
    }

    /// `--watch`: serve, watch, rebuild, until SIGINT or SIGTERM.
    static func watch(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        let port: Int
        if let text = arguments.value("--port") {
            guard let value = Int(text), (0...65535).contains(value) else { throw UsageError("'--port' must be a port number (0-65535), not '\(text)'") }
            port = value
        } else {
            port = 8000
        }
        let asOf = try invocation.asOf(arguments)
        let location = try ContentLocation.find(from: invocation.directory)
        guard location.contentDir != nil else { throw OperationalError("'--watch' needs a work tree; this is a bare repository") }
        let web = try BundleRun(location: location, asOf: asOf, caches: invocation.caches).webFolder(override: arguments.value("--web").map { RatecardCLI.resolve($0, against: invocation.directory) })
        // Ctrl-C and SIGTERM are read from a descriptor in the loop below, never handled
        // between two steps of a rebuild: blocked before any thread starts, so every thread
        // inherits the mask.
        let signals = cshims_stop_signals_fd()
        guard signals >= 0 else { throw OperationalError("cannot set up signal handling: \(String(cString: strerror(errno)))") }
        defer { close(signals) }

        let started = Clock.now()
        let live = try LiveBuild(location: location, asOf: asOf, webFolder: web, caches: invocation.caches)
        var gitFolders: [String] = []
        if let repository = location.repository {
            gitFolders = [repository.gitDir, repository.commonDir + "/refs/heads"]
        }
        let watcher = try FolderWatcher(content: live.root, web: web, gitFolders: gitFolders)
        var version = 1
        let server = try PreviewServer(port: port, webFolder: web, initial: published(live.snapshot, version: version))
        server.start()
        let console = invocation.console
        console.out(
            """
            Serving the preview of \(live.root) at http://127.0.0.1:\(server.port)/ (loaded in \(Clock.milliseconds(since: started)) ms)
            Watching the content and \(web) for edits; Ctrl-C stops.

            """)
        report(live.snapshot, console: console)
        while true {
            // While a file or folder cannot be read, it is tried again twice a second even
            // without an event (descriptors freed elsewhere make no event).
            let retrying = live.hasUnreadable || watcher.hasUnwatched
            let (events, stop) = watcher.wait(timeout: retrying ? 500 : -1, also: signals)
            if stop { break }
            var changes = events ? watcher.collect(also: signals) : FolderWatcher.Changes()
            if watcher.hasUnwatched { changes.formUnion(watcher.retry()) }
            guard !changes.isEmpty || retrying else { continue }
            let start = Clock.now()
            let unreadable = live.hasUnreadable ? live.unreadable : []
            let wasCurrent = live.isCurrent
            let scope: LiveBuild.Scope
            do {
                if changes.overflow {
                    scope = try live.reloadEverything()
                } else {
                    scope = try live.update(changed: changes.content, webChanged: changes.web, gitChanged: changes.git)
                }
            } catch {
                console.err("Error: \(error)\n")
                continue
            }
            guard scope != .nothing || changes.web || live.isCurrent != wasCurrent || (live.hasUnreadable ? live.unreadable : []) != unreadable else { continue }
            version += 1
            server.publish(published(live.snapshot, version: version))
            var what = changes.content.sorted().prefix(3).joined(separator: ", ") + (changes.content.count > 3 ? ", ..." : "")
            if what.isEmpty { what = changes.web ? "web build" : unreadable.map(\.path).prefix(3).joined(separator: ", ") }
            console.out(
                "\(Clock.stamp()) \(what): rebuilt in \(Clock.milliseconds(since: start)) ms (\(describe(scope)), \(live.rendered) rendered, version \(version))\n")
            report(live.snapshot, console: console)
        }
        server.stop()
        console.out("Stopped.\n")
        return RatecardCLI.ExitCode.ok
    }

    static func published(_ snapshot: LiveBuild.Snapshot, version: Int) -> PreviewServer.Published {
        PreviewServer.Published(
            version: version, files: snapshot.output?.files ?? [:],
            problemsPage: snapshot.current ? nil : ProblemsPage.render(snapshot.all, unreadable: snapshot.unreadable, version: version))
    }

    static func describe(_ scope: LiveBuild.Scope) -> String {
        switch scope {
        case .nothing: return "nothing to check"
        case .products(let keys): return "checked \(keys.count == 1 ? keys[0] : "\(keys.count) products") again"
        case .document(let id): return "checked terms/\(id) again"
        case .everything: return "checked everything again"
        }
    }

    /// The errors now, as validate prints them (the page shows them too).
    static func report(_ snapshot: LiveBuild.Snapshot, console: Console) {
        for failure in snapshot.unreadable { console.out("  \(failure.path): error: \(failure.message)\n") }
        let errors = snapshot.all.filter { $0.severity == .error }
        guard !errors.isEmpty else { return }
        for finding in errors.prefix(20) {
            console.out("  \(finding.path):\(finding.mark.line):\(finding.mark.column): error \(finding.rule): \(finding.message)\n")
        }
        if errors.count > 20 { console.out("  ... and \(errors.count - 20) more (every one is on the page)\n") }
    }
}

/// Wall-clock helpers for the watch loop's messages.
enum Clock {
    static func now() -> Int {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return spec.tv_sec * 1_000_000_000 + spec.tv_nsec
    }

    static func milliseconds(since start: Int) -> Int { (now() - start) / 1_000_000 }

    /// HH:MM:SS of the local clock.
    static func stamp() -> String {
        var seconds = time(nil)
        var parts = tm()
        localtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }
}
