import RatecardSupport

/// Renders a semantic diff as text (optionally coloured), Markdown or JSON.
public enum DiffFormatter {
    public static func text(_ diff: SemanticDiff, title: Message, colour: Bool, language: Language = .en) -> String {
        func paint(_ text: String, _ code: String) -> String { colour ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
        guard !diff.changes.isEmpty else { return Message("\(title): no changes", ko: "\(title): 변경 없음").text(language) + "\n" }
        let count = diff.changes.count
        var out = Message("\(title): \(count) change\(count == 1 ? "" : "s")", ko: "\(title): 변경 \(count)건").text(language) + "\n"
        for change in diff.changes {
            let (sign, line) = describe(change)
            let code = sign == "+" ? "32" : sign == "-" ? "31" : "33"
            out += paint("  \(sign) ", code) + line.text(language) + "\n"
        }
        return out
    }

    public static func markdown(_ diff: SemanticDiff, title: Message, language: Language = .en) -> String {
        guard !diff.changes.isEmpty else { return "### \(title.text(language))\n\n" + Message("No changes.", ko: "변경 없음.").text(language) + "\n" }
        var sections: [(Message, [Message])] = [
            (Message("Partners", ko: "제휴사"), []), (Message("Products", ko: "상품"), []), (Message("Rates", ko: "금리"), []), (Message("Terms", ko: "약관"), []),
            (Message("Regulatory", ko: "규제"), []),
        ]
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
        var out = "### \(title.text(language))\n"
        for (heading, lines) in sections where !lines.isEmpty {
            out += "\n**\(heading.text(language))**\n\n" + lines.map { "- \(escapeMarkdown($0.text(language)))\n" }.joined()
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
    public static func describe(_ change: SemanticChange) -> (String, Message) {
        func move(_ pair: (old: Percent, new: Percent)) -> String {
            let delta = pair.new - pair.old
            let sign = delta.thousandths > 0 ? "+" : ""
            return "\(pair.old.displayed)% -> \(pair.new.displayed)% (\(sign)\(delta)"
        }
        switch change {
        case .partnerAdded(let id, let name): return ("+", Message("partner \(name) (\(id)) added", ko: "제휴사 \(name)(\(id)) 추가"))
        case .partnerRemoved(let id, let name): return ("-", Message("partner \(name) (\(id)) removed", ko: "제휴사 \(name)(\(id)) 삭제"))
        case .partnerStatus(let id, let name, let from, let to, let reason):
            let verb =
                to == "paused"
                ? Message("paused", ko: "일시 중지") : from == "paused" && to == "active" ? Message("resumed", ko: "재개") : Message("\(from) -> \(to)", ko: "상태 \(from) -> \(to)")
            let why = reason.map { ": \($0)" } ?? ""
            return ("~", Message("partner \(name) (\(id)) \(verb)\(why)", ko: "제휴사 \(name)(\(id)) \(verb)\(why)"))
        case .productAdded(let key, let name): return ("+", Message("product \(name) (\(key)) added", ko: "상품 \(name)(\(key)) 추가"))
        case .productRemoved(let key, let name): return ("-", Message("product \(name) (\(key)) removed", ko: "상품 \(name)(\(key)) 삭제"))
        case .productStatus(let key, let name, let from, let to):
            return (
                "~",
                to == "withdrawn"
                    ? Message("product \(name) (\(key)) withdrawn", ko: "상품 \(name)(\(key)) 판매 중단")
                    : Message("product \(name) (\(key)) \(from) -> \(to)", ko: "상품 \(name)(\(key)) 상태 \(from) -> \(to)")
            )
        case .bandChanged(let band):
            var parts: [Message] = []
            if band.aprMin.old != band.aprMin.new { parts.append(Message("APR min \(move(band.aprMin))pp)", ko: "최저 금리 \(move(band.aprMin))%p)")) }
            if band.aprMax.old != band.aprMax.new { parts.append(Message("APR max \(move(band.aprMax))pp)", ko: "최고 금리 \(move(band.aprMax))%p)")) }
            if band.limit.old != band.limit.new {
                let limit = "\(KoreanLabels.won(band.limit.old)) -> \(KoreanLabels.won(band.limit.new))"
                parts.append(Message("limit \(limit)", ko: "한도 \(limit)"))
            }
            let range = band.scale.describe(band.min, band.max)
            return ("~", Message("\(band.name) (\(band.key)) \(range): ", ko: "\(band.name)(\(band.key)) \(range) 구간: ") + parts.joined(separator: ", "))
        case .tableScheduled(let key, let name, let day):
            return ("+", Message("\(name) (\(key)) new rate table scheduled from \(day)", ko: "\(name)(\(key)) 새 금리표 \(day)부터 시행 예정"))
        case .termsAdded(let document, let version, let title, let summary, let reconsent):
            return (
                "+",
                Message(
                    "terms \(title) (\(document)) version \(version): \(summary)\(reconsent ? " — needs re-consent" : "")",
                    ko: "약관 \(title)(\(document)) 버전 \(version): \(summary)\(reconsent ? " — 재동의 필요" : "")")
            )
        case .limitChanged(let id, let day, let old, let new):
            return (
                "~",
                Message(
                    "legal limit \(id) from \(day): \(old ?? "none") -> \(new ?? "none")", ko: "법정 한도 \(id) (\(day)부터): \(old ?? "없음") -> \(new ?? "없음")")
            )
        case .phraseChanged(let id, let old, let new):
            let sign = old == nil ? "+" : new == nil ? "-" : "~"
            return (
                sign,
                old == nil
                    ? Message("mandatory phrase \(id) added", ko: "필수 문구 \(id) 추가")
                    : new == nil ? Message("mandatory phrase \(id) removed", ko: "필수 문구 \(id) 삭제") : Message("mandatory phrase \(id) reworded", ko: "필수 문구 \(id) 문구 변경")
            )
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
