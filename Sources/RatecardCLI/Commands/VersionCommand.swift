import RatecardKit

/// `ratecard version` (and `ratecard --version`): the version and the build fingerprint.
enum VersionCommand {
    static let command = Command(
        name: "version",
        abstract: "Print the version and the build fingerprint (this binary and its cmark, libyaml and libgit2).",
        usage: "",
        options: [],
        discussion: "The fingerprint is written into every bundle's manifest as 'build': a publish builds onto the live\nbundle only when it was made by the same build.",
        run: { _, invocation in
            invocation.console.out(text)
            return RatecardCLI.ExitCode.ok
        })

    static var text: String { "ratecard \(RatecardCLI.version) (build \(BuildFingerprint.value))\n" }
}
