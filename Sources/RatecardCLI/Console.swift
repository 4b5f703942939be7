import Glibc

/// Where a command writes: requested output to `out`, everything else to `err`.
public final class Console {
    /// A console writing to the process's stdout and stderr.
    public static func standard() -> Console { Console() }

    private init() {}

    public func out(_ text: String) {
        write(1, text)
    }

    public func err(_ text: String) {
        write(2, text)
    }

    /// Whether stdout is a terminal (colour and progress only then).
    public var outIsTerminal: Bool { isatty(1) == 1 }

    /// Whether what goes to stdout may carry source snippets and colour: a terminal, and
    /// no `NO_COLOR` (https://no-color.org) or `TERM=dumb`. Never in a pipe or a CI log.
    public var decoratesOut: Bool { outIsTerminal && Self.decorationAllowed }

    /// The same for stderr.
    public var decoratesErr: Bool { isatty(2) == 1 && Self.decorationAllowed }

    private static var decorationAllowed: Bool {
        let noColor = getenv("NO_COLOR").map { String(cString: $0) } ?? ""
        let term = getenv("TERM").map { String(cString: $0) } ?? ""
        return noColor.isEmpty && term != "dumb"
    }

    private func write(_ fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written <= 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
        bytes.removeAll()
    }
}
