/// A 1-based position in a source file.
///
/// `column` counts Unicode scalars (characters as libyaml counts them), not bytes.
public struct SourceMark: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// The start of a file, used for problems that concern the file as a whole.
    public static let start = SourceMark(line: 1, column: 1)

    public static func < (lhs: SourceMark, rhs: SourceMark) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }

    public var description: String { "\(line):\(column)" }

    /// The same mark moved down by `lines` lines (front matter starts below its fence).
    public func offset(lines: Int) -> SourceMark {
        SourceMark(line: line + lines, column: column)
    }
}
