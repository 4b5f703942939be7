/// Rules about the shape of each file: fields, types, allowed values, ids and file names.
public enum SchemaRules {
    public static let missingField = Rule("SCH-01", .error, "required fields present", "The app shows every required field; a missing one breaks a screen.")
    public static let unknownField = Rule("SCH-02", .error, "no unknown fields", "A misspelt field is silently ignored, so the intended value never ships.")
    public static let wrongType = Rule("SCH-03", .error, "values have the right type", "Text where a number belongs (or the reverse) is a typo the app cannot show.")
    public static let notAllowed = Rule("SCH-04", .error, "values from the allowed set", "Categories, statuses and types drive regulation and display; unknown ones cannot be handled.")
    public static let identifier = Rule("SCH-05", .error, "ids well-formed and equal to file names", "Ids are API keys for the app and analytics; the file name is the id.")
    public static let date = Rule("SCH-06", .error, "dates are real YYYY-MM-DD dates", "Effective dates decide which rate and which cap apply.")
    public static let unexpectedFile = Rule("SCH-07", .error, "no unexpected files", "A file in the wrong place or with the wrong extension is never read, so the change silently does not ship.")
    public static let missingFile = Rule("SCH-08", .error, "required files present", "ratecard.yaml and the regulatory files are needed to check anything else.")
    public static let empty = Rule("SCH-09", .error, "lists and files not empty", "An empty rate table or limit list cannot price or constrain anything.")

    public static let all = [missingField, unknownField, wrongType, notAllowed, identifier, date, unexpectedFile, missingFile, empty]

    /// The pattern every id matches.
    public static func isValidID(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, text.unicodeScalars.count <= 63 else { return false }
        func allowed(_ scalar: Unicode.Scalar) -> Bool {
            ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
        }
        return allowed(first) && text.unicodeScalars.allSatisfy { allowed($0) || $0 == "-" }
    }
}

extension SchemaRules {
    /// Ids equal their file and folder names and match the id pattern.
    package static func check(_ content: Content, into diagnostics: Diagnostics) {
        for partner in content.partners {
            checkID(partner.id, expected: partner.fileID, what: "partner id", file: "the file name", path: partner.path, diagnostics)
        }
        for product in content.products {
            checkID(product.id, expected: product.folderID, what: "product id", file: "its folder name", path: product.path, diagnostics)
            if !isValidID(product.folderPartner) {
                diagnostics.report(identifier, product.path, .start, "partner folder '\(product.folderPartner)' must match ^[a-z0-9][a-z0-9-]{0,62}$")
            }
        }
        for table in content.rateTables where Day(table.fileDate) == nil {
            diagnostics.report(identifier, table.path, .start, "rate table files are named by their effective date (YYYY-MM-DD.yaml), not '\(table.fileDate)'")
        }
        for terms in content.terms {
            if !isValidID(terms.documentID) {
                diagnostics.report(identifier, terms.path, .start, "document id '\(terms.documentID)' must match ^[a-z0-9][a-z0-9-]{0,62}$")
            }
            if terms.semver == nil {
                diagnostics.report(identifier, terms.path, .start, "terms files are named by a semantic version (MAJOR.MINOR.PATCH.md), not '\(terms.fileVersion)'")
            }
        }
    }

    private static func checkID(_ id: Located<String>, expected: String, what: String, file: String, path: String, _ diagnostics: Diagnostics) {
        if !isValidID(id.value) {
            diagnostics.report(identifier, path, id.mark, "\(what) '\(id.value)' must match ^[a-z0-9][a-z0-9-]{0,62}$")
        } else if id.value != expected {
            diagnostics.report(identifier, path, id.mark, "\(what) '\(id.value)' differs from \(file) '\(expected)'; they must be equal")
        }
    }
}
