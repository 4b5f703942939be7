/// Reads a content snapshot from a source and parses every file into the content model.
///
/// Parsed files are cached by path and blob id, so validating many commits re-parses only
/// the files whose blobs changed. Not thread-safe.
public final class ContentLoader {
    /// How many files were actually parsed (cache misses); `validate --range` reports it.
    public private(set) var parses = 0
    private var cache: [String: ParsedFile] = [:]

    public init() {}

    /// Loads every file below the source's content root.
    public func load(_ source: any ContentSource) throws -> Content {
        var content = Content(prefix: source.displayPrefix)
        let entries = try source.entries()
        for entry in entries {
            let path = source.displayPrefix + entry.path
            switch entry.kind {
            case .symlink:
                content.fileDiagnostics.append(Diagnostic(
                    path: path, mark: .start, rule: FileRules.symlink,
                    message: "symlinks are not allowed in the content tree; replace it with the file itself"))
                continue
            case .submodule:
                content.fileDiagnostics.append(Diagnostic(
                    path: path, mark: .start, rule: FileRules.submodule,
                    message: "submodules are not allowed in the content tree; copy the files in"))
                continue
            case .file:
                break
            }
            let parsed: ParsedFile
            let key = entry.id.map { "\(path)\u{0}\($0.hex)" }
            if let key, let cached = cache[key] {
                parsed = cached
            } else {
                parsed = try parse(entry, path: path, source: source)
                parses += 1
                if let key { cache[key] = parsed }
            }
            content.add(parsed, relative: entry.path)
        }
        for required in ["ratecard.yaml", "regulatory/limits.yaml", "regulatory/phrases.yaml"]
        where !entries.contains(where: { $0.path == required }) {
            content.fileDiagnostics.append(Diagnostic(
                path: source.displayPrefix + required, mark: .start, rule: SchemaRules.missingFile,
                message: "required file \(required) is missing"))
        }
        return content
    }

    private func parse(_ entry: TreeEntry, path: String, source: any ContentSource) throws -> ParsedFile {
        let role = FileRole(entry.path)
        if case .asset = role { return ParsedFile(role: role, model: .asset, diagnostics: []) }
        if case .unexpected(let hint) = role {
            let diagnostic = Diagnostic(path: path, mark: .start, rule: SchemaRules.unexpectedFile, message: hint)
            return ParsedFile(role: role, model: .none, diagnostics: [diagnostic])
        }
        let diagnostics = Diagnostics()
        let bytes = try source.read(entry)
        var model: ParsedFile.Model
        do {
            let text = try SourceText.decode(bytes)
            model = try parseModel(role, text: text, bytes: bytes, path: path, diagnostics: diagnostics)
        } catch let error as YAMLError {
            diagnostics.report(FileRules.rule(for: error), path, error.mark, error.message)
            model = .none
            // A terms file that no longer parses still exists: history rules compare its text.
            if case .terms = role { model = .terms(nil, text: String(decoding: bytes, as: UTF8.self)) }
        }
        return ParsedFile(role: role, model: model, diagnostics: diagnostics.items)
    }

    private func parseModel(_ role: FileRole, text: String, bytes: [UInt8], path: String, diagnostics: Diagnostics) throws -> ParsedFile.Model {
        if case .terms(let document, let version) = role {
            let parts = try FrontMatter.split(text)
            guard let node = try YAMLParser.parse(Array(parts.yaml.utf8), lineOffset: 1) else {
                throw YAMLError(rule: FileRules.frontMatter.id, mark: .start, message: "the front matter is empty; it needs title, version, effective_from, consent, requires_reconsent and summary")
            }
            let terms = TermsVersion.read(node, path: path, documentID: document, fileVersion: version, body: parts.body, bodyLine: parts.bodyLine, diagnostics: diagnostics)
            return .terms(terms, text: text)
        }
        guard let node = try YAMLParser.parse(bytes) else {
            diagnostics.report(SchemaRules.empty, path, .start, "the file is empty")
            return .none
        }
        switch role {
        case .config: return .config(ServiceConfig.read(node, path: path, diagnostics: diagnostics))
        case .limits: return .limits(LegalLimits.read(node, path: path, diagnostics: diagnostics))
        case .phrases: return .phrases(Phrase.readAll(node, path: path, diagnostics: diagnostics))
        case .partner(let id): return .partner(Partner.read(node, path: path, fileID: id, diagnostics: diagnostics))
        case .product(let partner, let product):
            return .product(Product.read(node, path: path, folderPartner: partner, folderID: product, diagnostics: diagnostics))
        case .rateTable(let partner, let product, let date):
            return .rateTable(RateTable.read(node, path: path, productKey: "\(partner)/\(product)", fileDate: date, diagnostics: diagnostics))
        case .terms, .asset, .unexpected:
            return .none
        }
    }
}

/// What a file is, from its path alone.
enum FileRole: Sendable, Equatable {
    case config
    case limits
    case phrases
    case partner(String)
    case product(partner: String, product: String)
    case rateTable(partner: String, product: String, date: String)
    case terms(document: String, version: String)
    case asset
    case unexpected(String)

    init(_ path: String) {
        let parts = path.split(separator: "/").map(String.init)
        switch (parts.count, parts.first) {
        case (1, "ratecard.yaml"): self = .config
        case (2, "regulatory") where parts[1] == "limits.yaml": self = .limits
        case (2, "regulatory") where parts[1] == "phrases.yaml": self = .phrases
        case (2, "partners") where parts[1].hasSuffix(".yaml"):
            self = .partner(String(parts[1].dropLast(5)))
        case (4, "products") where parts[3] == "product.yaml":
            self = .product(partner: parts[1], product: parts[2])
        case (5, "products") where parts[3] == "rates" && parts[4].hasSuffix(".yaml"):
            self = .rateTable(partner: parts[1], product: parts[2], date: String(parts[4].dropLast(5)))
        case (3, "terms") where parts[2].hasSuffix(".md"):
            self = .terms(document: parts[1], version: String(parts[2].dropLast(3)))
        case (_, "assets") where parts.count >= 2 && (path.hasSuffix(".svg") || path.hasSuffix(".png")):
            self = .asset
        default:
            var hint = "unexpected file: content files are ratecard.yaml, regulatory/{limits,phrases}.yaml, partners/<id>.yaml, products/<partner>/<product>/product.yaml, products/<partner>/<product>/rates/<YYYY-MM-DD>.yaml, terms/<doc>/<version>.md and assets/*.svg|png"
            if path.hasSuffix(".yml") { hint = "unexpected file: YAML files end in .yaml, not .yml; rename it" }
            self = .unexpected(hint)
        }
    }
}

/// One parsed file: its model and the problems found reading it.
struct ParsedFile: Sendable {
    enum Model: Sendable {
        case config(ServiceConfig?)
        case limits(LegalLimits?)
        case phrases([Phrase]?)
        case partner(Partner?)
        case product(Product?)
        case rateTable(RateTable?)
        case terms(TermsVersion?, text: String)
        case asset
        case none
    }

    var role: FileRole
    var model: Model
    var diagnostics: [Diagnostic]
}

extension Content {
    mutating func add(_ file: ParsedFile, relative: String) {
        fileDiagnostics.append(contentsOf: file.diagnostics)
        switch file.role {
        case .partner(let id): partnerFiles.insert(id)
        case .product(let partner, let product): productFiles.insert("\(partner)/\(product)")
        case .asset: assets.insert(relative)
        default: break
        }
        switch file.model {
        case .config(let value): config = value
        case .limits(let value): limits = value
        case .phrases(let value): phrases = value
        case .partner(let value?): partners.append(value)
        case .product(let value?): products.append(value)
        case .rateTable(let value?): rateTables.append(value)
        case .terms(let value, let text):
            termsText[prefix + relative] = text
            if let value { terms.append(value) }
        default: break
        }
    }
}
