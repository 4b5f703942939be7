import RatecardKit

/// `ratecard preview`: web build + bundle in one folder a person can open.
enum PreviewCommand {
    static let command = Command(
        name: "preview",
        abstract: "Render the web build and the bundle into one folder to open in a browser.",
        usage: "[--rev <rev>] [--as-of <date>] [--web <dir>] [--out <dir>]",
        options: [
            OptionSpec("--rev", value: "REV", "Preview a commit (default: the work tree)"),
            OptionSpec("--as-of", value: "DATE", "The date that decides what is current (default: today in Asia/Seoul)"),
            OptionSpec("--web", value: "DIR", "The web build folder (default: 'web' in ratecard.yaml, else ../site)"),
            OptionSpec("--out", value: "DIR", "Where to write (default: .preview in the content folder)"),
        ],
        run: run)

    static func run(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        let location = try ContentLocation.find(from: invocation.directory)
        let run = BundleRun(location: location, asOf: try invocation.asOf(arguments))
        let web = try run.webFolder(override: arguments.value("--web").map { RatecardCLI.resolve($0, against: invocation.directory) })
        switch try run.render(revision: arguments.value("--rev")) {
        case .invalid(let report):
            invocation.console.out(ReportFormat.text.render(report, version: RatecardCLI.version))
            invocation.console.err("Error: the content is invalid; nothing was written\n")
            return RatecardCLI.ExitCode.invalid
        case .built(let output, _):
            let out = arguments.value("--out").map { RatecardCLI.resolve($0, against: invocation.directory) }
                ?? (location.contentDir ?? invocation.directory) + "/.preview"
            try BundleWriter.write(output.files, to: out, extraTrees: [web])
            invocation.console.out("""
                Preview of bundle \(output.manifest.bundleID) is in \(out)
                Serve it and open it in a browser:
                  cd \(out) && python3 -m http.server 8000 --bind 127.0.0.1
                  then open http://127.0.0.1:8000/index.html

                """)
            return RatecardCLI.ExitCode.ok
        }
    }
}
