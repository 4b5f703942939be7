import Glibc
import RatecardCore
import RatecardOutput
import RatecardSupport

/// `preview --watch`: the content held in memory (`LiveBuild`), served on 127.0.0.1
/// (`PreviewServer`), rebuilt from what each edit changed (`FolderWatcher`) until a stop
/// descriptor becomes readable. It tells what happened through `Event`s; what to print is the
/// caller's.
public struct WatchLoop {
    /// What the loop tells as it goes.
    public enum Event {
        /// The content is loaded and served at `address` (after `milliseconds`).
        case serving(root: String, address: String, milliseconds: Int, snapshot: LiveBuild.Snapshot)
        /// An edit (`what`: the files, the web build, or files that could not be read) was rebuilt.
        case rebuilt(what: Message, milliseconds: Int, scope: LiveBuild.Scope, rendered: Int, version: Int, snapshot: LiveBuild.Snapshot)
        /// An edit could not be read; the loop goes on.
        case failed(any Error)
    }

    public var location: ContentLocation
    public var asOf: Day
    public var webFolder: String?
    public var port: Int
    public var caches: Caches
    /// The language of the problems page.
    public var language: Language

    public init(location: ContentLocation, asOf: Day, webFolder: String?, port: Int, caches: Caches, language: Language) {
        self.location = location
        self.asOf = asOf
        self.webFolder = webFolder
        self.port = port
        self.caches = caches
        self.language = language
    }

    /// Serves and rebuilds until `stop` (a descriptor, such as a signalfd for SIGINT and
    /// SIGTERM) is readable; then stops the server and returns.
    public func run(stop: Int32, events: (Event) -> Void) throws {
        let started = Trace.now()
        let live = try LiveBuild(location: location, asOf: asOf, webFolder: webFolder, caches: caches)
        var gitFolders: [String] = []
        if let repository = location.repository {
            gitFolders = [repository.gitDir, repository.commonDir + "/refs/heads"]
        }
        let watcher = try FolderWatcher(content: live.root, web: webFolder, gitFolders: gitFolders)
        var version = 1
        let server = try PreviewServer(port: port, webFolder: webFolder, initial: published(live.snapshot, version: version))
        server.start()
        defer { server.stop() }
        events(.serving(root: live.root, address: "http://127.0.0.1:\(server.port)/", milliseconds: Self.milliseconds(since: started), snapshot: live.snapshot))
        while true {
            // While a file or folder cannot be read, it is tried again twice a second even
            // without an event (descriptors freed elsewhere make no event).
            let retrying = live.hasUnreadable || watcher.hasUnwatched
            let (changed, stopped) = watcher.wait(timeout: retrying ? 500 : -1, also: stop)
            if stopped { break }
            var changes = changed ? watcher.collect(also: stop) : FolderWatcher.Changes()
            if watcher.hasUnwatched { changes.formUnion(watcher.retry()) }
            guard !changes.isEmpty || retrying else { continue }
            let start = Trace.now()
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
                events(.failed(error))
                continue
            }
            guard scope != .nothing || changes.web || live.isCurrent != wasCurrent || (live.hasUnreadable ? live.unreadable : []) != unreadable else { continue }
            version += 1
            server.publish(published(live.snapshot, version: version))
            let names = changes.content.sorted().prefix(3).joined(separator: ", ") + (changes.content.count > 3 ? ", ..." : "")
            let unreadableNames = unreadable.map(\.path).prefix(3).joined(separator: ", ")
            let what = !names.isEmpty ? .verbatim(names) : changes.web ? Message("web build", ko: "웹 빌드") : .verbatim(unreadableNames)
            events(.rebuilt(what: what, milliseconds: Self.milliseconds(since: start), scope: scope, rendered: live.rendered, version: version, snapshot: live.snapshot))
        }
    }

    /// What the server serves for a snapshot: its files, or the problems page while it has errors.
    func published(_ snapshot: LiveBuild.Snapshot, version: Int) -> PreviewServer.Published {
        PreviewServer.Published(
            version: version, files: snapshot.output?.files ?? [:],
            problemsPage: snapshot.current ? nil : ProblemsPage.render(snapshot.all, unreadable: snapshot.unreadable, version: version, language: language))
    }

    static func milliseconds(since start: Int) -> Int { (Trace.now() - start) / 1_000_000 }
}
