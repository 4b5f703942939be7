import RatecardSupport

/// Renders a semantic diff as text (optionally coloured), Markdown or JSON.
public enum DiffFormatter {
    public static func text(_ diff: SemanticDiff, title: String, colour: Bool) -> String {
        func paint(_ text: String, _ code: String) -> String { colour ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
        guard !diff.changes.isEmpty else { return "\(title): no changes\n" }
        var out = "\(title): \(diff.changes.count) change\(diff.changes.count == 1 ? "" : "s")\n"
        for change in diff.changes {
            let (sign, line) = describe(change)
            let code = sign == "+" ? "32" : sign == "-" ? "31" : "33"
            out += paint("  \(sign) ", code) + line + "\n"
        }
        return out
    }

    public static func markdown(_ diff: SemanticDiff, title: String) -> String {
        guard !diff.changes.isEmpty else { return "### \(title)\n\nNo changes.\n" }
        var sections: [(String, [String])] = [("Partners", []), ("Products", []), ("Rates", []), ("Terms", []), ("Regulatory", [])]
        for change in diff.changes {
            let (_, line) = describe(change)
            let index: Int
            switch change {
            case .partnerAdded, .partnerRemoved, .partnerStatus: index = 0
            case .productAdded, .productRemoved, .productStatus: index = 1
            case .bandChanged, .tableScheduled: index = 2
            case .termsAdded: index = 3
            case .limitChanged, .phraseChanged: index = 4
            }
            sections[index].1.append(line)
        }
        var out = "### \(title)\n"
        for (heading, lines) in sections where !lines.isEmpty {
            out += "\n**\(heading)**\n\n" + lines.map { "- \(escapeMarkdown($0))\n" }.joined()
        }
        return out
    }

    public static func json(_ diff: SemanticDiff) -> JSON {
        .object(["changes": .array(diff.changes.map(json))])
    }

    package static func json(_ change: SemanticChange) -> JSON {
        switch change {
        case .partnerAdded(let id, let name): return .object(["type": .string("partner_added"), "partner": .string(id), "name": .string(name)])
        case .partnerRemoved(let id, let name): return .object(["type": .string("partner_removed"), "partner": .string(id), "name": .string(name)])
        case .partnerStatus(let id, let name, let from, let to, let reason):
            return .object(["type": .string("partner_status"), "partner": .string(id), "name": .string(name), "from": .string(from), "to": .string(to), "reason": reason.map(JSON.string) ?? .null])
        case .productAdded(let key, let name): return .object(["type": .string("product_added"), "product": .string(key), "name": .string(name)])
        case .productRemoved(let key, let name): return .object(["type": .string("product_removed"), "product": .string(key), "name": .string(name)])
        case .productStatus(let key, let name, let from, let to):
            return .object(["type": .string("product_status"), "product": .string(key), "name": .string(name), "from": .string(from), "to": .string(to)])
        case .bandChanged(let band):
            return .object([
                "type": .string("band_changed"), "product": .string(band.key), "name": .string(band.name),
                band.scale.minKey: .int(band.min), band.scale.maxKey: .int(band.max),
                "apr_min_pct": .object(["old": .number(band.aprMin.old.description), "new": .number(band.aprMin.new.description)]),
                "apr_max_pct": .object(["old": .number(band.aprMax.old.description), "new": .number(band.aprMax.new.description)]),
                "limit_max_krw": .object(["old": .int(band.limit.old), "new": .int(band.limit.new)]),
                "largest_move_pp": .number(band.largestMove.description),
            ])
        case .tableScheduled(let key, let name, let day):
            return .object(["type": .string("table_scheduled"), "product": .string(key), "name": .string(name), "effective_from": .string(day.description)])
        case .termsAdded(let document, let version, let title, let summary, let reconsent):
            return .object([
                "type": .string("terms_added"), "document": .string(document), "version": .string(version), "title": .string(title), "summary": .string(summary),
                "requires_reconsent": .bool(reconsent),
            ])
        case .limitChanged(let id, let day, let old, let new):
            return .object([
                "type": .string("limit_changed"), "limit": .string(id), "effective_from": .string(day.description), "old": old.map(JSON.number) ?? .null, "new": new.map(JSON.number) ?? .null,
            ])
        case .phraseChanged(let id, let old, let new):
            return .object(["type": .string("phrase_changed"), "phrase": .string(id), "old": old.map(JSON.string) ?? .null, "new": new.map(JSON.string) ?? .null])
        }
    }

    /// `(sign, sentence)`: + added, - removed, ~ changed.
    public static func describe(_ change: SemanticChange) -> (String, String) {
        func move(_ pair: (old: Percent, new: Percent)) -> String {
            let delta = pair.new - pair.old
            let sign = delta.thousandths > 0 ? "+" : ""
            return "\(pair.old.displayed)% -> \(pair.new.displayed)% (\(sign)\(delta)pp)"
        }
        switch change {
        case .partnerAdded(let id, let name): return ("+", "partner \(name) (\(id)) added")
        case .partnerRemoved(let id, let name): return ("-", "partner \(name) (\(id)) removed")
        case .partnerStatus(let id, let name, let from, let to, let reason):
            let verb = to == "paused" ? "paused" : from == "paused" && to == "active" ? "resumed" : "\(from) -> \(to)"
            return ("~", "partner \(name) (\(id)) \(verb)\(reason.map { ": \($0)" } ?? "")")
        case .productAdded(let key, let name): return ("+", "product \(name) (\(key)) added")
        case .productRemoved(let key, let name): return ("-", "product \(name) (\(key)) removed")
        case .productStatus(let key, let name, let from, let to):
            return ("~", "product \(name) (\(key)) \(to == "withdrawn" ? "withdrawn" : "\(from) -> \(to)")")
        case .bandChanged(let band):
            var parts: [String] = []
            if band.aprMin.old != band.aprMin.new { parts.append("APR min \(move(band.aprMin))") }
            if band.aprMax.old != band.aprMax.new { parts.append("APR max \(move(band.aprMax))") }
            if band.limit.old != band.limit.new { parts.append("limit \(KoreanLabels.won(band.limit.old)) -> \(KoreanLabels.won(band.limit.new))") }
            return ("~", "\(band.name) (\(band.key)) \(band.scale.describe(band.min, band.max)): " + parts.joined(separator: ", "))
        case .tableScheduled(let key, let name, let day): return ("+", "\(name) (\(key)) new rate table scheduled from \(day)")
        case .termsAdded(let document, let version, let title, let summary, let reconsent):
            return ("+", "terms \(title) (\(document)) version \(version): \(summary)\(reconsent ? " — needs re-consent" : "")")
        case .limitChanged(let id, let day, let old, let new):
            return ("~", "legal limit \(id) from \(day): \(old ?? "none") -> \(new ?? "none")")
        case .phraseChanged(let id, let old, let new):
            return (old == nil ? "+" : new == nil ? "-" : "~", "mandatory phrase \(id) \(old == nil ? "added" : new == nil ? "removed" : "reworded")")
        }
    }

    package static func escapeMarkdown(_ text: String) -> String {
        var out = ""
        for character in text {
            if "\\`*_[]<|#".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }
}
