import RatecardSupport

/// The history rules that keep the regulatory data and the published records intact
/// (HIS-05 to HIS-10), against the commit before.
extension HistoryRules {
    /// HIS-05 to HIS-07: loosening the caps or weakening a mandatory phrase needs a sign-off
    /// naming the change; sign-offs themselves are never changed or removed.
    package static func checkRegulatory(_ content: Content, base: Content, into diagnostics: Diagnostics) {
        let signed = Set(content.signoffs.map { "\($0.file.value)\u{0}\($0.change.value)" })
        func signedOff(_ file: String, _ change: String) -> Bool { signed.contains("\(file)\u{0}\(change)") }
        func hint(_ file: String, _ change: String) -> String {
            "; if compliance approved it, add to regulatory/signoffs.yaml: {file: \(file), change: \"\(change)\", approved_by, approved_on, reference}"
        }
        if let old = base.limits, let new = content.limits {
            let file = "regulatory/limits.yaml"
            for change in limitChanges(from: old, to: new) where !signedOff(file, change.label) {
                diagnostics.report(regulatoryLimits, new.path, change.mark, "\(change.what) (\(change.label))" + hint(file, change.label))
            }
        }
        if let old = base.phrases, let new = content.phrases {
            let file = "regulatory/phrases.yaml"
            let path = content.root.path(file)
            let changes = phraseChanges(from: old, to: new) + quotationWarningChanges(from: base.quotationWarnings, to: content.quotationWarnings)
            for change in changes where !signedOff(file, change.label) {
                diagnostics.report(regulatoryPhrases, path, change.mark, "\(change.what) (\(change.label))" + hint(file, change.label))
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
                "the sign-off for \"\(old.change.value)\" (\(old.approvedBy.value), \(old.approvedOn.value)) was \(same == nil ? "removed" : "changed"); restore it as committed and add a new sign-off instead"
            )
        }
    }

    private static func signoffKey(_ signoff: Signoff) -> String {
        [signoff.file.value, signoff.change.value, signoff.approvedBy.value, signoff.approvedOn.value.description, signoff.reference.value].joined(separator: "\u{0}")
    }

    package struct RegulatoryChange {
        /// How a sign-off names it.
        package var label: String
        /// What happened, for the editor.
        package var what: String
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
                        what: "the \(entry.kind.rawValue) period from \(entry.effectiveFrom) (\(entry.value)) was removed; the dated history of every limit is kept", mark: .start))
                continue
            }
            if looser(now.value, than: entry.value, entry.kind) {
                changes.append(
                    RegulatoryChange(
                        label: "\(entry.label): \(entry.value) -> \(now.value)", what: "\(entry.kind.rawValue) from \(entry.effectiveFrom) was loosened from \(entry.value) to \(now.value)",
                        mark: now.valueMark))
            }
        }
        for entry in new.entries where !oldKeys.contains(key(entry)) {
            let before = old.inForce(entry.kind, on: entry.effectiveFrom, program: entry.program)
            guard let before, looser(entry.value, than: before.value, entry.kind) else { continue }
            changes.append(
                RegulatoryChange(
                    label: "\(entry.label): \(before.value) -> \(entry.value)", what: "a new \(entry.kind.rawValue) period from \(entry.effectiveFrom) loosens \(before.value) to \(entry.value)",
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
                changes.append(RegulatoryChange(label: "phrase \(id): deleted", what: "the mandatory phrase '\(id)' was removed", mark: .start))
                continue
            }
            if now.ko.value != phrase.ko.value {
                changes.append(
                    RegulatoryChange(label: "phrase \(id) ko: \"\(phrase.ko.value)\" -> \"\(now.ko.value)\"", what: "the wording of the mandatory phrase '\(id)' changed", mark: now.ko.mark))
            }
            let pages = Set(now.pages.map(\.value))
            if !phrase.pages.allSatisfy({ pages.contains($0.value) }) {
                let before = phrase.pages.map(\.value.rawValue).joined(separator: ", ")
                let after = now.pages.map(\.value.rawValue).joined(separator: ", ")
                changes.append(
                    RegulatoryChange(
                        label: "phrase \(id) pages: \(before) -> \(after.isEmpty ? "none" : after)", what: "the mandatory phrase '\(id)' is no longer required on every page it was", mark: now.id.mark)
                )
            }
            let categories = Set(now.requiredForCategories)
            if !phrase.requiredForCategories.allSatisfy(categories.contains) {
                let before = phrase.requiredForCategories.map(\.rawValue).joined(separator: ", ")
                let after = now.requiredForCategories.map(\.rawValue).joined(separator: ", ")
                changes.append(
                    RegulatoryChange(
                        label: "phrase \(id) partner categories: \(before) -> \(after.isEmpty ? "none" : after)",
                        what: "the mandatory phrase '\(id)' is no longer required on the products of every partner category it was", mark: now.id.mark))
            }
            let documents = Set(now.documents.map(\.value))
            if !phrase.documents.allSatisfy({ documents.contains($0.value) }) {
                let before = phrase.documents.map(\.value).joined(separator: ", ")
                let after = now.documents.map(\.value).joined(separator: ", ")
                changes.append(
                    RegulatoryChange(
                        label: "phrase \(id) documents: \(before) -> \(after.isEmpty ? "none" : after)", what: "the mandatory phrase '\(id)' is no longer required in every document it was",
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
                what: "quotation warnings were added (\(words)), so wording quoted before them is no longer checked as advertising", mark: first.mark)
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
                        "this rate table took effect on \(table.effectiveFrom.value) and was deleted; restore it (a table that was in force is a record) and add a new table to change the rates")
                    continue
                }
                let past = end.map { $0 < day } ?? false
                if past && !sameTable(now, table) && !restatedOnItsScale(now, table) {
                    let mark = firstDifference(now, table)
                    let until = end.map { " until \($0)" } ?? ""
                    diagnostics.report(
                        pastTable, now.path, mark,
                        "this rate table was in force from \(table.effectiveFrom.value)\(until) and is a record now; restore it and correct the rates in a new table dated \(day) or later")
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
                    "a new rate table dated \(table.effectiveFrom.value) is backdated (before \(written)): it would change what was in force on days already past; date it \(written) or later (file name and effective_from)"
                )
            }
            if let partner = productPartner[table.productKey].flatMap({ partners[$0] }), partner.status.value == .terminated {
                diagnostics.report(keptOnRecord, table.path, table.effectiveFrom.mark, "partner '\(partner.id.value)' is terminated, so its products get no new rate tables; remove this new table")
            }
        }
        // HIS-11: a new version of a document that had versions, dated before the commit's day.
        let documents = Set(base.terms.map(\.documentID))
        for version in content.terms
        where base.termsText[version.path] == nil && documents.contains(version.documentID) && version.effectiveFrom.value < written {
            diagnostics.report(
                backdatedTerms, version.path, version.effectiveFrom.mark,
                "a new version dated \(version.effectiveFrom.value) is backdated (before \(written)): it would say it was in force on days users were shown the version before; date it \(written) or later (effective_from)"
            )
        }
        let partnerFiles = content.partnerFiles
        for partner in base.partners where !partnerFiles.contains(partner.fileID) {
            diagnostics.report(keptOnRecord, partner.path, .start, "partner '\(partner.id.value)' was deleted; keep it on record with status: terminated and a status_reason instead")
        }
        let productFiles = content.productFiles
        for product in base.products where !productFiles.contains(product.key) {
            diagnostics.report(keptOnRecord, product.path, .start, "product '\(product.key)' was deleted; keep it on record with status: withdrawn instead")
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
