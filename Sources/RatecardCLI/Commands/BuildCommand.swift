import RatecardKit

/// `ratecard build`: render the bundle (JSON data, HTML pages, manifest) into a folder.
enum BuildCommand {
    static let command = Command(
        name: "build",
        abstract: "Render the content into a bundle: JSON data, HTML pages and a sha256 manifest.",
        usage: "[--rev <rev>] [--as-of <date>] [--format <format>] [--allow-shallow] --out <dir>",
        options: [
            OptionSpec("--rev", value: "REV", "Build a commit, read from git objects (default: the work tree)"),
            OptionSpec("--as-of", value: "DATE", "The date that decides the current rate tables and terms (default: today in Asia/Seoul)"),
            OptionSpec("--out", value: "DIR", "The folder to write; replaced only when the new bundle is complete"),
            OptionSpec("--format", value: "FORMAT", "How to print problems if the content is invalid (text, json, github, sarif, junit); json also prints what was built"),
            OptionSpec("--allow-shallow", "Build a commit whose parent is not in this shallow clone, its history rules skipped (else exit 4)"),
        ],
        discussion: "The same commit and --as-of always give byte-identical output. Invalid content exits 1 with the\nsame report as 'ratecard validate' and writes nothing.",
        run: run)

    static func run(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        guard let out = arguments.value("--out") else { throw UsageError("Missing expected option '--out <dir>'", ko: "'--out <dir>' 옵션이 필요합니다") }
        let format = try ReportFormat.named(arguments.value("--format"))
        var run = BundleRun(
            location: try ContentLocation.find(from: invocation.directory), asOf: try invocation.asOf(arguments), caches: invocation.caches,
            allowShallow: arguments.has("--allow-shallow"))
        // Terms pages and product documents the build cache holds are read only when the writer
        // writes them (most are on disk already after an edit); one damaged since it was looked
        // up makes the command build again, reading every one.
        run.namesCachedPages = true
        let destination = RatecardCLI.resolve(out, against: invocation.directory)
        var warned = false
        while true {
            switch try run.render(revision: arguments.value("--rev")) {
            case .invalid(let report):
                invocation.console.out(format.render(report, version: RatecardCLI.version, style: ReportStyle(messages: invocation.messages)))
                invocation.error(Message("the content is invalid; nothing was written", ko: "콘텐츠에 오류가 있어 아무것도 쓰지 않았습니다"))
                return RatecardCLI.ExitCode.invalid
            case .built(let output, let snapshot):
                if !warned {
                    for product in snapshot.content.reviewsExpired(on: run.asOf) { invocation.warning(ProductDisclosureRules.leftOut(product, on: run.asOf)) }
                    warned = true
                }
                do {
                    try BundleWriter.write(
                        output.files, to: destination, manifest: output.manifest, cache: invocation.caches.build, cached: output.cached.mapValues(\.key))
                } catch is BundleWriter.CachedFileUnreadable where run.namesCachedPages {
                    run.namesCachedPages = false
                    continue
                }
                let (files, bytes) = output.size
                if arguments.value("--format") == "json" {
                    invocation.console.out(
                        JSON.object([
                            "bundle_id": .string(output.manifest.bundleID), "files": .int(files), "bytes": .int(bytes), "out": .string(destination),
                        ]).serialized() + "\n")
                } else {
                    let id = output.manifest.bundleID
                    invocation.out(
                        Message("Built bundle \(id) (\(files) files, \(bytes) bytes) into \(out)\n", ko: "번들 \(id)을(를) \(out)에 빌드했습니다 (파일 \(files)개, \(bytes)바이트)\n"))
                }
                return RatecardCLI.ExitCode.ok
            }
        }
    }
}
