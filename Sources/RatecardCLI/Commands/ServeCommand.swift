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
        let port = try ServeRootOptions.port(arguments, default: 8080)
        if let name = arguments.value("--env"), case .bucket(let s3) = try ServeRootOptions.environment(name, invocation).kind {
            let place = "s3://\(s3.bucket)/\(s3.prefix)"
            throw UsageError(
                "environment '\(name)' is in object storage (\(place)); serve shows a serve root folder: look at a bucket through its CDN or static website",
                ko: "'\(name)' 환경은 오브젝트 스토리지에 있습니다 (\(place)); serve는 서빙 루트 폴더만 보여 줍니다: 버킷은 CDN이나 정적 웹사이트에서 확인하세요")
        }
        let (path, name) = try ServeRootOptions.folder(arguments, invocation)
        guard let live = try Destination.folder(path, name: name).store.live() else {
            throw ConflictError("nothing is live in \(name) yet (\(path)); publish to it first", ko: "'\(name)' 환경에는 아직 라이브 릴리스가 없습니다 (\(path)); 먼저 게시하세요")
        }
        // Ctrl-C and SIGTERM are read from a descriptor, blocked before the server's threads start.
        let signals = cshims_stop_signals_fd()
        guard signals >= 0 else {
            let reason = String(cString: strerror(errno))
            throw OperationalError("cannot set up signal handling: \(reason)", ko: "시그널 처리를 준비할 수 없습니다: \(reason)")
        }
        defer { close(signals) }
        let server = try ServeRootServer(root: path, port: port)
        server.start()
        let address = "http://127.0.0.1:\(server.port)/"
        invocation.out(
            Message(
                """
                Serving \(name) (live: \(live)) read-only at \(address) as its nginx block serves it
                Kept releases are at /r/<id>/; a publish or rollback shows on the next request. Ctrl-C stops.

                """,
                ko: """
                    \(name)(라이브: \(live))을(를) \(address)에서 nginx 설정 블록과 같은 방식으로 읽기 전용으로 보여 줍니다
                    보관된 릴리스는 /r/<id>/에 있고, publish나 rollback은 다음 요청부터 보입니다. Ctrl-C로 멈춥니다.

                    """))
        // One signalfd_siginfo (128 bytes) arrives when Ctrl-C or SIGTERM does.
        var info = [UInt8](repeating: 0, count: 128)
        while read(signals, &info, info.count) < 0 && errno == EINTR {}
        server.stop()
        invocation.out(Message("Stopped.\n", ko: "멈췄습니다.\n"))
        return RatecardCLI.ExitCode.ok
    }
}
