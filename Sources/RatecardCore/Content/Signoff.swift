import RatecardSupport

/// A sign-off for a change to the regulatory data, from `regulatory/signoffs.yaml`.
///
/// The legal caps and mandatory phrases are not content an editor may loosen: a change that
/// raises a cap, removes a cap period or weakens a mandatory phrase is an error (HIS-05, HIS-06)
/// unless a sign-off names exactly that change. The change is named by what it does, not by
/// commit ("max_apr_pct from 2021-07-07: 20.0 -> 24.0"), so the sign-off can be written in the
/// same commit, reviewed with it and kept in the history.
public struct Signoff: Sendable, Equatable {
    public var mark: SourceMark
    /// The regulatory file the change is in, content-relative (`regulatory/limits.yaml`).
    public var file: Located<String>
    /// The change, exactly as HIS-05 or HIS-06 names it.
    public var change: Located<String>
    public var approvedBy: Located<String>
    public var approvedOn: Located<Day>
    /// The compliance review or decision the sign-off rests on.
    public var reference: Located<String>

    package static let files = ["regulatory/limits.yaml", "regulatory/phrases.yaml"]

    package static func readAll(_ node: YAMLNode, path: String, diagnostics: Diagnostics) -> [Signoff]? {
        guard let fields = MappingReader(node, path: path, what: .verbatim("signoffs.yaml"), diagnostics: diagnostics, table: FieldTables.signoffs) else { return nil }
        defer { fields.finish() }
        guard let items = fields.list("signoffs") else { return nil }
        var signoffs: [Signoff] = []
        for item in items.value {
            guard let entry = MappingReader(item, path: path, what: Message("a sign-off", ko: "승인 기록"), diagnostics: diagnostics, table: FieldTables.signoff) else { continue }
            let file = entry.string("file")
            let change = entry.string("change")
            let approvedBy = entry.string("approved_by")
            let approvedOn = entry.day("approved_on")
            let reference = entry.string("reference")
            entry.finish()
            guard let file, let change, let approvedBy, let approvedOn, let reference else { continue }
            if !files.contains(file.value) {
                diagnostics.report(
                    SchemaRules.notAllowed, path, file.mark,
                    Message(
                        "file '\(file.value)' is not one of: \(files.joined(separator: ", ")); only regulatory data needs a sign-off",
                        ko: "file '\(file.value)'은(는) 쓸 수 없습니다. 쓸 수 있는 값: \(files.joined(separator: ", ")); 승인 기록은 규제 데이터에만 필요합니다"))
            }
            signoffs.append(Signoff(mark: item.mark, file: file, change: change, approvedBy: approvedBy, approvedOn: approvedOn, reference: reference))
        }
        return signoffs
    }
}
