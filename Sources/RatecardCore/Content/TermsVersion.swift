import RatecardSupport

/// One version of a terms document: `terms/<doc-id>/<version>.md`.
public struct TermsVersion: Sendable, Equatable {
    public enum Consent: String, CaseIterable, Sendable {
        case required
        case optional
        case none
    }

    public var path: String
    public var documentID: String
    /// The version in the file name.
    public var fileVersion: String
    public var mark: SourceMark
    public var title: Located<String>
    public var version: Located<String>
    public var effectiveFrom: Located<Day>
    public var consent: Located<Consent>
    public var requiresReconsent: Located<Bool>
    public var summary: Located<String>
    /// The day the change was announced to users (`announced_on`, optional; DSC-15).
    public var announcedOn: Located<Day>?
    /// `recipients: partners`: a consent to provide data to the partners, which must name every
    /// partner that is not terminated (DSC-16).
    public var namesPartners: Located<Bool>?
    /// The Markdown body below the front matter.
    public var body: String { text.body }
    /// The file's text and body, decoded when first read (`TermsText`).
    public var text: TermsText
    /// The 1-based line the body starts on.
    public var bodyLine: Int
    /// Prohibited advertising wording in the rendered body (DSC-06), found once when the file is
    /// read: the loader caches parsed files by blob, so `validate --range` does not rescan
    /// unchanged text.
    package var prohibitedWording: [AdWording.Hit] = []
    /// What the page leaves out of the body (DSC-20: raw HTML, unsafe link targets), found by
    /// the same scan.
    package var droppedMarkup: [CommonMark.Dropped] = []

    /// The semantic version numbers, if the file name is one.
    public var semver: [Int]? { TermsVersion.semver(fileVersion) }

    package static func semver(_ text: String) -> [Int]? {
        // Read from the UTF-8 bytes: every build sorts the 2,000 versions of a large site by it.
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var numbers: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                part.count == 1 || part.first != UInt8(ascii: "0"), let number = Int(String(decoding: part, as: UTF8.self))
            else { return nil }
            numbers.append(number)
        }
        return numbers
    }

    /// `scan` reads the body's rendered text once (`TermsScan`, through the build cache); it is
    /// given the body, the line it starts on and the title.
    package static func read(
        _ node: YAMLNode, path: String, documentID: String, fileVersion: String, text: TermsText, bodyLine: Int, diagnostics: Diagnostics,
        scan: (String, Int, String) -> TermsScan.Result = { body, line, _ in TermsScan.scan(body: body, firstLine: line) }
    ) -> TermsVersion? {
        guard let fields = MappingReader(node, path: path, what: Message("terms front matter", ko: "약관 머리말"), diagnostics: diagnostics, table: FieldTables.termsFrontMatter) else { return nil }
        defer { fields.finish() }
        let title = fields.string("title")
        let version = fields.string("version")
        let from = fields.day("effective_from")
        let consent: Located<Consent>? = fields.choice("consent")
        let reconsent = fields.bool("requires_reconsent")
        let summary = fields.string("summary")
        let announced = fields.day("announced_on", required: false)
        var namesPartners: Located<Bool>?
        if let recipients = fields.string("recipients", required: false) {
            if recipients.value == "partners" {
                namesPartners = Located(true, at: recipients.mark)
            } else {
                diagnostics.report(
                    SchemaRules.notAllowed, path, recipients.mark,
                    Message("recipients '\(recipients.value)' is not one of: partners", ko: "recipients '\(recipients.value)'은(는) 쓸 수 없습니다. 쓸 수 있는 값: partners"))
            }
        }
        guard let title, let version, let from, let consent, let reconsent, let summary else { return nil }
        let found = scan(text.body, bodyLine, title.value)
        return TermsVersion(
            path: path, documentID: documentID, fileVersion: fileVersion, mark: node.mark, title: title, version: version,
            effectiveFrom: from, consent: consent, requiresReconsent: reconsent, summary: summary, announcedOn: announced, namesPartners: namesPartners, text: text, bodyLine: bodyLine,
            prohibitedWording: found.wording, droppedMarkup: found.dropped)
    }
}
