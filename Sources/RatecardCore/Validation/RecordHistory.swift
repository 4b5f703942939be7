import RatecardSupport

/// The history rules that keep the regulatory data and the published records intact
/// (HIS-05 to HIS-10), against the commit before.
extension HistoryRules {
    /// HIS-05 to HIS-07: loosening the caps or weakening a mandatory phrase needs a sign-off
    /// naming the change; sign-offs themselves are never changed or removed.
    package static func checkRegulatory(_ content: Content, base: Content, into diagnostics: Diagnostics) {
        let signed = Set(content.signoffs.map { "\($0.file.value)\u{0}\($0.change.value)" })
        func signedOff(_ file: String, _ change: String) -> Bool { signed.contains("\(file)\u{0}\(change)") }
        func report(_ rule: Rule, _ path: String, _ change: RegulatoryChange, file: String) {
            let label = change.label
            let message = change.what + Message(" (\(label))", ko: " (변경 이름: `\(label)`)")
            // The fix in one commit is the sign-off with the change; `validate --range` also takes
            // it from a later commit of the range.
            let english = "in the same commit as the change (in a pull request, a later commit of its range covers it too)"
            let korean = "변경과 같은 커밋에서 regulatory/signoffs.yaml의 signoffs: 아래에 이 승인 기록을 추가하고(풀 리퀘스트에서는 범위 안의 나중 커밋에 추가해도 됩니다)"
            let hint = Message(
                "if compliance approved it, add this sign-off under signoffs: in regulatory/signoffs.yaml \(english), with who approved it, when and on what: \(signoffSnippet(file: file, change: change.label, language: .en))",
                ko: "준법감시 승인을 받았다면 \(korean) 승인자, 승인일, 근거를 채우세요: \(signoffSnippet(file: file, change: change.label, language: .ko))")
            diagnostics.report(rule, path, change.mark, message.then(hint))
        }
        if let old = base.limits, let new = content.limits {
            let file = "regulatory/limits.yaml"
            for change in limitChanges(from: old, to: new) where !signedOff(file, change.label) {
                report(regulatoryLimits, new.path, change, file: file)
            }
        }
        if let old = base.phrases, let new = content.phrases {
            let file = "regulatory/phrases.yaml"
            let path = content.root.path(file)
            let changes = phraseChanges(from: old, to: new) + quotationWarningChanges(from: base.quotationWarnings, to: content.quotationWarnings)
            for change in changes where !signedOff(file, change.label) {
                report(regulatoryPhrases, path, change, file: file)
            }
        }
        let kept = Set(content.signoffs.map(signoffKey))
        for old in base.signoffs where !kept.contains(signoffKey(old)) {
            let path = content.root.path("regulatory/signoffs.yaml")
            let same = content.signoffs.first { $0.change.value == old.change.value && $0.file.value == old.file.value }
            var mark = SourceMark.start
            if let same {
                mark =
                    same.approvedBy.value != old.approvedBy.value
                    ? same.approvedBy.mark
                    : same.approvedOn.value != old.approvedOn.value ? same.approvedOn.mark : same.reference.mark
            }
            diagnostics.report(
                signoffKept, path, mark,
                Message(
                    "the sign-off for \"\(old.change.value)\" (\(old.approvedBy.value), \(old.approvedOn.value)) was \(same == nil ? "removed" : "changed"); restore it as committed and add a new sign-off instead",
                    ko: "\"\(old.change.value)\"에 대한 승인 기록(\(old.approvedBy.value), \(old.approvedOn.value))이 \(same == nil ? "지워졌습니다" : "바뀌었습니다"); 커밋된 그대로 되돌리고 대신 새 승인 기록을 추가하세요"
                )
            )
        }
    }

    /// The sign-off a HIS-05 or HIS-06 message suggests, as one YAML list item to add under
    /// `signoffs:`: the file and the change exactly as the rule names them (quoted so that they
    /// read back as the same text), and placeholders for who approved it, when (a date the
    /// editor must write: as printed the item does not validate) and on what.
    package static func signoffSnippet(file: String, change: String, language: Language) -> String {
        let (who, reference) = language == .ko ? ("승인자 이름", "심의 번호") : ("who approved it", "review number")
        return "- "
            + YAMLText.flowMapping([
                ("file", file, false), ("change", change, false), ("approved_by", who, false), ("approved_on", "YYYY-MM-DD", true), ("reference", reference, false),
            ])
    }

    private static func signoffKey(_ signoff: Signoff) -> String {
        [signoff.file.value, signoff.change.value, signoff.approvedBy.value, signoff.approvedOn.value.description, signoff.reference.value].joined(separator: "\u{0}")
    }

    package struct RegulatoryChange {
        /// How a sign-off names it.
        package var label: String
        /// What happened, for the editor.
        package var what: Message
        package var mark: SourceMark
    }

    /// Every loosening change between two versions of the limits: a period removed, a value
    /// made looser, or a new period looser than what was in force on its date.
    package static func limitChanges(from old: LegalLimits, to new: LegalLimits) -> [RegulatoryChange] {
        func key(_ entry: LegalLimits.Entry) -> String { entry.label }
        let newByKey = Dictionary(new.entries.map { (key($0), $0) }, uniquingKeysWith: { first, _ in first })
        let oldKeys = Set(old.entries.map(key))
        var changes: [RegulatoryChange] = []
        for entry in old.entries {
            guard let now = newByKey[key(entry)] else {
                changes.append(
                    RegulatoryChange(
                        label: "\(entry.label): \(entry.value) -> deleted",
                        what: Message(
                            "the \(entry.kind.rawValue) period from \(entry.effectiveFrom) (\(entry.value)) was removed; the dated history of every limit is kept",
                            ko: "\(entry.effectiveFrom)부터의 \(entry.kind.rawValue) 기간(\(entry.value))이 지워졌습니다; 모든 한도의 날짜별 기록은 보존합니다"), mark: .start))
                continue
            }
            if looser(now.value, than: entry.value, entry.kind) {
                changes.append(
                    RegulatoryChange(
                        label: "\(entry.label): \(entry.value) -> \(now.value)",
                        what: Message(
                            "\(entry.kind.rawValue) from \(entry.effectiveFrom) was loosened from \(entry.value) to \(now.value)",
                            ko: "\(entry.effectiveFrom)부터의 \(entry.kind.rawValue)이(가) \(entry.value)에서 \(now.value)(으)로 완화되었습니다"),
                        mark: now.valueMark))
            }
        }
        for entry in new.entries where !oldKeys.contains(key(entry)) {
            let before = old.inForce(entry.kind, on: entry.effectiveFrom, program: entry.program)
            guard let before, looser(entry.value, than: before.value, entry.kind) else { continue }
            changes.append(
                RegulatoryChange(
                    label: "\(entry.label): \(before.value) -> \(entry.value)",
                    what: Message(
                        "a new \(entry.kind.rawValue) period from \(entry.effectiveFrom) loosens \(before.value) to \(entry.value)",
                        ko: "\(entry.effectiveFrom)부터의 새 \(entry.kind.rawValue) 기간이 \(before.value)을(를) \(entry.value)(으)로 완화합니다"),
                    mark: entry.valueMark))
        }
        return changes
    }

    package static func looser(_ value: Percent, than old: Percent, _ kind: LegalLimits.Kind) -> Bool {
        guard value != old else { return false }
        switch kind.higherIsLooser {
        case true?: return old < value
        case false?: return value < old
        case nil: return true
        }
    }

    /// Every weakening change between two versions of the phrases: a phrase removed, its text
    /// changed, or a page or document it was required on dropped.
    package static func phraseChanges(from old: [Phrase], to new: [Phrase]) -> [RegulatoryChange] {
        let newByID = Dictionary(new.map { ($0.id.value, $0) }, uniquingKeysWith: { first, _ in first })
        var changes: [RegulatoryChange] = []
        for phrase in old {
            let id = phrase.id.value
            guard let now = newByID[id] else {
                changes.append(
                    RegulatoryChange(label: "phrase \(id): deleted", what: Message("the mandatory phrase '\(id)' was removed", ko: "필수 문구 '\(id)'이(가) 지워졌습니다"), mark: .start))
                continue
            }
            if now.ko.value != phrase.ko.value {
                changes.append(
                    RegulatoryChange(
                        label: "phrase \(id) ko: \"\(phrase.ko.value)\" -> \"\(now.ko.value)\"", what: Message("the wording of the mandatory phrase '\(id)' changed", ko: "필수 문구 '\(id)'의 문구가 바뀌었습니다"),
                        mark: now.ko.mark))
            }
            let pages = Set(now.pages.map(\.value))
            if !phrase.pages.allSatisfy({ pages.contains($0.value) }) {
                let before = phrase.pages.map(\.value.rawValue).joined(separator: ", ")
                let after = now.pages.map(\.value.rawValue).joined(separator: ", ")
                changes.append(
                    RegulatoryChange(
                        label: "phrase \(id) pages: \(before) -> \(after.isEmpty ? "none" : after)",
                        what: Message("the mandatory phrase '\(id)' is no longer required on every page it was", ko: "필수 문구 '\(id)'이(가) 원래 필요했던 페이지 중 일부에서 더는 필수가 아닙니다"),
                        mark: now.id.mark)
                )
            }
            let categories = Set(now.requiredForCategories)
            if !phrase.requiredForCategories.allSatisfy(categories.contains) {
                let before = phrase.requiredForCategories.map(\.rawValue).joined(separator: ", ")
                let after = now.requiredForCategories.map(\.rawValue).joined(separator: ", ")
                changes.append(
                    RegulatoryChange(
                        label: "phrase \(id) partner categories: \(before) -> \(after.isEmpty ? "none" : after)",
                        what: Message(
                            "the mandatory phrase '\(id)' is no longer required on the products of every partner category it was",
                            ko: "필수 문구 '\(id)'이(가) 원래 필요했던 제휴사 분류 중 일부의 상품에서 더는 필수가 아닙니다"), mark: now.id.mark))
            }
            let documents = Set(now.documents.map(\.value))
            if !phrase.documents.allSatisfy({ documents.contains($0.value) }) {
                let before = phrase.documents.map(\.value).joined(separator: ", ")
                let after = now.documents.map(\.value).joined(separator: ", ")
                changes.append(
                    RegulatoryChange(
                        label: "phrase \(id) documents: \(before) -> \(after.isEmpty ? "none" : after)",
                        what: Message(
                            "the mandatory phrase '\(id)' is no longer required in every document it was", ko: "필수 문구 '\(id)'이(가) 원래 필요했던 문서 중 일부에서 더는 필수가 아닙니다"),
                        mark: now.id.mark))
            }
        }
        return changes
    }

    /// Words added to `quotation_warnings` exempt more quoted text from DSC-06: a weakening,
    /// named as one change listing them in the file's order.
    package static func quotationWarningChanges(from old: [Located<String>], to new: [Located<String>]) -> [RegulatoryChange] {
        let before = Set(old.map(\.value))
        let added = new.filter { !before.contains($0.value) }
        guard let first = added.first else { return [] }
        let words = added.map(\.value).joined(separator: ", ")
        return [
            RegulatoryChange(
                label: "quotation warnings added: \(words)",
                what: Message(
                    "quotation warnings were added (\(words)), so wording quoted before them is no longer checked as advertising",
                    ko: "인용 경고 단어가 추가되어(\(words)) 그 앞에 인용한 문구는 더 이상 광고 문구로 검사하지 않습니다"),
                mark: first.mark)
        ]
    }

    /// HIS-08 to HIS-11: rate tables that took effect, partners and products are records; new
    /// tables and terms versions are not backdated.
    package static func checkRecords(_ content: Content, base: Content, context: ValidationContext, into diagnostics: Diagnostics) {
        let day = context.asOf
        let newByPath = Dictionary(content.rateTables.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        let oldPaths = Set(base.rateTables.map(\.path))
        let baseTables = base.rateTablesByProduct
        for (_, tables) in baseTables {
            for (table, end) in CapRules.periods(tables) where table.effectiveFrom.value <= day {
                guard let now = newByPath[table.path] else {
                    diagnostics.report(
                        pastTable, table.path, .start,
                        Message(
                            "this rate table took effect on \(table.effectiveFrom.value) and was deleted; restore it (a table that was in force is a record) and add a new table to change the rates",
                            ko: "\(table.effectiveFrom.value)에 시행된 금리표가 지워졌습니다; 되살리고(시행된 금리표는 기록입니다) 금리를 바꾸려면 새 금리표를 추가하세요"))
                    continue
                }
                let past = end.map { $0 < day } ?? false
                if past && !sameTable(now, table) && !restatedOnItsScale(now, table) {
                    let mark = firstDifference(now, table)
                    let until = end.map { " until \($0)" } ?? ""
                    let untilKorean = end.map { "부터 \($0)까지" } ?? "부터"
                    diagnostics.report(
                        pastTable, now.path, mark,
                        Message(
                            "this rate table was in force from \(table.effectiveFrom.value)\(until) and is a record now; restore it and correct the rates in a new table dated \(day) or later",
                            ko: "이 금리표는 \(table.effectiveFrom.value)\(untilKorean) 시행되어 이제 기록입니다; 원래대로 되돌리고, 금리는 \(day) 이후 날짜의 새 금리표에서 고치세요"))
                }
            }
        }
        let partners = content.partnersByID
        var productPartner: [String: String] = [:]
        for product in content.products { productPartner[product.key] = product.partner.value }
        // A commit is judged by the day it was made, not the day it is validated on.
        let written = min(day, context.changeDay ?? day)
        for table in content.rateTables where !oldPaths.contains(table.path) {
            if let previous = baseTables[table.productKey], !previous.isEmpty, table.effectiveFrom.value < written {
                diagnostics.report(
                    backdatedTable, table.path, table.effectiveFrom.mark,
                    Message(
                        "a new rate table dated \(table.effectiveFrom.value) is backdated (before \(written)): it would change what was in force on days already past; date it \(written) or later (file name and effective_from)",
                        ko: "새 금리표의 날짜 \(table.effectiveFrom.value)은(는) 소급 날짜입니다 (\(written) 이전): 이미 지난 날에 시행되던 내용을 바꾸게 됩니다; 파일 이름과 effective_from을 \(written) 이후로 정하세요")
                )
            }
            if let partner = productPartner[table.productKey].flatMap({ partners[$0] }), partner.status.value == .terminated {
                diagnostics.report(
                    keptOnRecord, table.path, table.effectiveFrom.mark,
                    Message(
                        "partner '\(partner.id.value)' is terminated, so its products get no new rate tables; remove this new table",
                        ko: "제휴사 '\(partner.id.value)'은(는) 계약이 종료되어 그 상품에는 새 금리표를 둘 수 없습니다; 이 새 금리표를 지우세요"))
            }
        }
        // HIS-11: a new version of a document that had versions, dated before the commit's day.
        let documents = Set(base.terms.map(\.documentID))
        for version in content.terms
        where base.termsText[version.path] == nil && documents.contains(version.documentID) && version.effectiveFrom.value < written {
            diagnostics.report(
                backdatedTerms, version.path, version.effectiveFrom.mark,
                Message(
                    "a new version dated \(version.effectiveFrom.value) is backdated (before \(written)): it would say it was in force on days users were shown the version before; date it \(written) or later (effective_from)",
                    ko: "새 버전의 시행일(\(version.effectiveFrom.value))이 소급되어 있습니다 (\(written) 이전): 이용자가 이전 버전을 본 날에도 시행 중이었다고 말하게 됩니다; effective_from을 \(written) 이후로 하세요"))
        }
        let partnerFiles = content.partnerFiles
        for partner in base.partners where !partnerFiles.contains(partner.fileID) {
            diagnostics.report(
                keptOnRecord, partner.path, .start,
                Message(
                    "partner '\(partner.id.value)' was deleted; keep it on record with status: terminated and a status_reason instead",
                    ko: "제휴사 '\(partner.id.value)'이(가) 지워졌습니다; 대신 status: terminated와 status_reason을 써서 기록으로 남기세요"))
        }
        let productFiles = content.productFiles
        for product in base.products where !productFiles.contains(product.key) {
            diagnostics.report(
                keptOnRecord, product.path, .start,
                Message("product '\(product.key)' was deleted; keep it on record with status: withdrawn instead", ko: "상품 '\(product.key)'이(가) 지워졌습니다; 대신 status: withdrawn으로 기록에 남기세요"))
        }
    }

    /// Equal as published: positions aside.
    package static func sameTable(_ a: RateTable, _ b: RateTable) -> Bool {
        a.effectiveFrom.value == b.effectiveFrom.value && a.effectiveTo?.value == b.effectiveTo?.value && a.bureau.value == b.bureau.value
            && a.scale == b.scale && a.bands.count == b.bands.count && a.incompleteBands == b.incompleteBands
            && zip(a.bands, b.bands).allSatisfy { x, y in
                x.min.value == y.min.value && x.max.value == y.max.value && x.aprMin.value == y.aprMin.value
                    && x.aprMax.value == y.aprMax.value && x.limitMax.value == y.limitMax.value
            }
    }

    /// A record written with score bounds before scores existed (BND-06), restated on credit
    /// grades with every price, limit and date as it was: the only edit a past table may take,
    /// since it changes no figure a borrower was shown.
    package static func restatedOnItsScale(_ now: RateTable, _ old: RateTable) -> Bool {
        old.scale == .score && now.scale == .grade && now.effectiveFrom.value < BandRules.scoresFrom
            && now.effectiveFrom.value == old.effectiveFrom.value && now.effectiveTo?.value == old.effectiveTo?.value
            && now.bureau.value == old.bureau.value && now.bands.count == old.bands.count && !now.incompleteBands
            && zip(now.bandsBestFirst, old.bandsBestFirst).allSatisfy { x, y in
                x.aprMin.value == y.aprMin.value && x.aprMax.value == y.aprMax.value && x.limitMax.value == y.limitMax.value
            }
    }

    /// Where `now` first differs from `old`: the first band value that changed, else the top.
    package static func firstDifference(_ now: RateTable, _ old: RateTable) -> SourceMark {
        if now.effectiveTo?.value != old.effectiveTo?.value { return now.effectiveTo?.mark ?? now.effectiveFrom.mark }
        if now.bureau.value != old.bureau.value { return now.bureau.mark }
        for (x, y) in zip(now.bands, old.bands) {
            if x.min.value != y.min.value { return x.min.mark }
            if x.max.value != y.max.value { return x.max.mark }
            if x.aprMin.value != y.aprMin.value { return x.aprMin.mark }
            if x.aprMax.value != y.aprMax.value { return x.aprMax.mark }
            if x.limitMax.value != y.limitMax.value { return x.limitMax.mark }
        }
        return now.bandsMark
    }
}
