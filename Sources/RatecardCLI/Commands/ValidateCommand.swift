import RatecardKit

/// `ratecard validate`: every problem in the content, in one run.
enum ValidateCommand {
    static let command = Command(
        name: "validate",
        abstract: "Check the content: schema, legal caps, references, bands, dates, disclosures, history.",
        usage: "[--rev <rev> | --range <a..b> | --staged] [--format <format>] [--as-of <date>] [--allow-shallow]",
        options: [
            OptionSpec("--rev", value: "REV", "Validate a commit, read from git objects (no checkout; works in a bare clone)"),
            OptionSpec("--range", value: "A..B", "Validate every commit in A..B and say which commit introduced each problem"),
            OptionSpec("--staged", "Validate what is staged in git's index (the pre-commit hook uses this)"),
            OptionSpec("--format", value: "FORMAT", "text (default), json, github, sarif or junit"),
            OptionSpec("--as-of", value: "DATE", "The date that decides what is current (default: today in Asia/Seoul)"),
            OptionSpec("--allow-shallow", "Skip the history rules of a commit whose parent is not in this shallow clone instead of failing (exit 4)"),
        ],
        discussion: """
            Without --rev or --range the work tree is checked, with history rules against HEAD. --rev checks
            history rules against the commit's parent; in a shallow clone without it they cannot run, every
            report lists them as not run and validate exits 4 (fetch the parent with 'git fetch --deepen=1',
            or skip them on purpose with --allow-shallow). --range reports each problem with the commit that
            introduced it; one a later commit of the range fixed is listed as history and does not count.
            On a terminal (and without NO_COLOR) each problem shows its source line with a caret, in colour.
            Warnings alone exit 0.
            """,
        run: run)

    static func run(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Int32 {
        let format = try ReportFormat.named(arguments.value("--format"))
        if arguments.value("--rev") != nil && arguments.value("--range") != nil {
            throw UsageError("'--rev' and '--range' cannot be used together", ko: "'--rev'와 '--range'는 함께 쓸 수 없습니다")
        }
        let context = ValidationContext(asOf: try invocation.asOf(arguments))
        // --staged reads the commit git is making: in a hook, git names its repository and index in the environment.
        let staged =
            arguments.has("--staged")
            ? try StagedCommit.find(from: invocation.directory, environment: invocation.environment, currentDirectory: FileSystem.currentDirectory()) : nil
        let location = try staged?.location ?? ContentLocation.find(from: invocation.directory)
        let run = ValidationRun(location: location, context: context, caches: invocation.caches, allowShallow: arguments.has("--allow-shallow"))
        let report: ValidationReport
        if let staged {
            report = try run.validateStaged(indexFile: staged.indexFile)
        } else if let range = arguments.value("--range") {
            report = try run.validate(range: range)
        } else if let revision = arguments.value("--rev") {
            report = try run.validate(revision: revision)
        } else {
            report = try run.validateWorkingTreeAndWebBuild()
        }
        // Snippets show each file as the report read it: the last commit of --rev or --range, else the work tree.
        let read = arguments.has("--staged") ? nil : report.commits.last?.id
        invocation.console.out(format.render(report, version: RatecardCLI.version, style: invocation.reportStyle(location, commit: read)))
        // A rule that could not run is never a pass: the report lists it, and the run fails.
        if let refusal = report.refusal { throw OperationalError(refusal) }
        return report.hasErrors ? RatecardCLI.ExitCode.invalid : RatecardCLI.ExitCode.ok
    }
}
