import Glibc
import RatecardCLI
import RatecardKit

// argv -> RatecardCLI -> exit code. Everything else lives in the libraries.
// cmark-gfm's extension registry is global: filled once, before any thread renders Markdown.
CommonMark.registerExtensions()
var now = timespec()
clock_gettime(CLOCK_REALTIME, &now)
let code = RatecardCLI.run(
    Array(CommandLine.arguments.dropFirst()), console: .standard(),
    directory: FileSystem.currentDirectory(), now: Double(now.tv_sec))
Trace.mark("done")
exit(code)
