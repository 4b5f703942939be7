import Glibc
import RatecardCLI
import RatecardKit

// argv -> RatecardCLI -> exit code. Everything else lives in the libraries.
var now = timespec()
clock_gettime(CLOCK_REALTIME, &now)
let code = RatecardCLI.run(
    Array(CommandLine.arguments.dropFirst()), console: .standard(),
    directory: FileSystem.currentDirectory(), now: Double(now.tv_sec))
Trace.mark("done")
exit(code)
