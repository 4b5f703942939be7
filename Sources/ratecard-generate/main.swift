import Glibc
import RatecardCLI
import RatecardKit

// argv -> `ratecard generate` -> exit code: the benchmark's content generator as a program of
// its own (its code is the RatecardGenerate target, outside the library).
var now = timespec()
clock_gettime(CLOCK_REALTIME, &now)
let code = RatecardCLI.run(
    ["generate"] + Array(CommandLine.arguments.dropFirst()), console: .standard(),
    directory: FileSystem.currentDirectory(), now: Double(now.tv_sec))
exit(code)
