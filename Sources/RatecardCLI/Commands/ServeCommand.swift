internal import CShims
import Glibc
import RatecardKit

/// `ratecard serve`: a serve root's live release on loopback, read-only, as nginx serves it.
enum ServeCommand {
    static let command = Command(
        name: "serve",
        abstract: "Serve what is live in a serve root on 127.0.0.1, read-only, as the nginx-conf block serves it.",
        usage: "(--env <name> | --root <dir>) [--port <n>]",
        options: ServeRootOptions.options + [OptionSpec("--port", value: "N", "The port on 127.0.0.1 (default 8080; 0: any free port)")],
        discussion: """
            For looking at an environment on your own machine without nginx: the live release at /, its objects
            at /o/<sha256>.<ext>, every kept release at /r/<id>/ and bridge-lines.json, with the block's
            Cache-Control and security headers and its 404s (dot-files, version.json). A publish or rollback
            shows on the next request. Nothing is written; GET and HEAD only; symlinks in releases are not
            followed (but a release's terms link). A bucket is served by its CDN or static website instead.
            Ctrl-C stops it.
            """,
        run: run)

    static func run(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        let port: Int
        if let text = arguments.value("--port") {
            guard let value = Int(text), (0...65535).contains(value) else { throw UsageError("'--port' must be a port number (0-65535), not '\(text)'") }
            port = value
        } else {
            port = 8080
        }
        if let name = arguments.value("--env"), let s3 = try ServeRootOptions.environment(name, invocation).s3 {
            throw UsageError(
                "environment '\(name)' is in object storage (s3://\(s3.bucket)/\(s3.prefix)); serve shows a serve root folder: look at a bucket through its CDN or static website")
        }
        let (root, name) = try ServeRootOptions.folder(arguments, invocation)
        guard let live = try root.live() else {
            throw ConflictError("nothing is live in \(name) yet (\(root.path)); publish to it first")
        }
        // Ctrl-C and SIGTERM are read from a descriptor, blocked before the server's threads start.
        let signals = cshims_stop_signals_fd()
        guard signals >= 0 else { throw OperationalError("cannot set up signal handling: \(String(cString: strerror(errno)))") }
        defer { close(signals) }
        let server = try ServeRootServer(root: root.path, port: port)
        server.start()
        invocation.console.out(
            """
            Serving \(name) (live: \(live)) read-only at http://127.0.0.1:\(server.port)/ as its nginx block serves it
            Kept releases are at /r/<id>/; a publish or rollback shows on the next request. Ctrl-C stops.

            """)
        // One signalfd_siginfo (128 bytes) arrives when Ctrl-C or SIGTERM does.
        var info = [UInt8](repeating: 0, count: 128)
        while read(signals, &info, info.count) < 0 && errno == EINTR {}
        server.stop()
        invocation.console.out("Stopped.\n")
        return RatecardCLI.ExitCode.ok
    }
}
