import RatecardSupport

/// One change people care about between two snapshots of the content.
public enum SemanticChange: Sendable, Equatable {
    case partnerAdded(id: String, name: String)
    case partnerRemoved(id: String, name: String)
    case partnerStatus(id: String, name: String, from: String, to: String, reason: String?)
    case productAdded(key: String, name: String)
    case productRemoved(key: String, name: String)
    case productStatus(key: String, name: String, from: String, to: String)
    case bandChanged(BandChange)
    case tableScheduled(key: String, name: String, effectiveFrom: Day)
    case termsAdded(document: String, version: String, title: String, summary: String, requiresReconsent: Bool)
    case limitChanged(id: String, effectiveFrom: Day, old: String?, new: String?)
    case phraseChanged(id: String, old: String?, new: String?)

    /// A rate band whose APR or limit moved in the table in force.
    public struct BandChange: Sendable, Equatable {
        public var key: String
        public var name: String
        /// The band's bounds on its table's scale.
        public var scale: RateTable.Scale
        public var min: Int
        public var max: Int
        public var aprMin: (old: Percent, new: Percent)
        public var aprMax: (old: Percent, new: Percent)
        public var limit: (old: Int, new: Int)

        /// The largest APR move in percentage points (absolute).
        public var largestMove: Percent {
            Percent(thousandths: Swift.max(abs((aprMin.new - aprMin.old).thousandths), abs((aprMax.new - aprMax.old).thousandths)))
        }

        public static func == (lhs: BandChange, rhs: BandChange) -> Bool {
            lhs.key == rhs.key && lhs.scale == rhs.scale && lhs.min == rhs.min && lhs.max == rhs.max
                && lhs.aprMin == rhs.aprMin && lhs.aprMax == rhs.aprMax && lhs.limit == rhs.limit
        }
    }

    /// Whether a protected environment needs `--approve` for this change.
    public func isRisky(threshold: Percent) -> Message? {
        switch self {
        case .bandChanged(let band) where band.largestMove > threshold:
            let range = band.scale.describe(band.min, band.max)
            return Message(
                "\(band.key) \(range): APR moves \(band.largestMove)pp, over the \(threshold)pp threshold", ko: "\(band.key) \(range): 금리가 \(band.largestMove)%p 움직여 기준 \(threshold)%p를 넘습니다")
        case .partnerRemoved(let id, _):
            return Message("partner \(id) is removed", ko: "제휴사 \(id) 삭제")
        case .partnerStatus(let id, _, _, "terminated", _):
            return Message("partner \(id) is terminated", ko: "제휴사 \(id) 계약 종료")
        case .termsAdded(let document, let version, _, _, true):
            return Message("terms \(document) \(version) needs re-consent", ko: "약관 \(document) \(version) 재동의 필요")
        // The regulatory data is compliance's, not content: a change to it (signed off in
        // regulatory/signoffs.yaml when it loosens, HIS-05/06) ships to a protected environment
        // only with its own recorded approval.
        case .limitChanged(let id, let day, let old, let new):
            return Message("regulatory limit \(id) from \(day): \(old ?? "none") -> \(new ?? "removed")", ko: "규제 한도 \(id) (\(day)부터): \(old ?? "없음") -> \(new ?? "삭제")")
        case .phraseChanged(let id, let old, let new):
            return old == nil
                ? Message("mandatory phrase \(id) added", ko: "필수 문구 \(id) 추가")
                : new == nil ? Message("mandatory phrase \(id) removed", ko: "필수 문구 \(id) 삭제") : Message("mandatory phrase \(id) reworded", ko: "필수 문구 \(id) 문구 변경")
        default:
            return nil
        }
    }

    /// Which thing the change is about, for `ratecard log`.
    public var subject: (kind: String, id: String) {
        switch self {
        case .partnerAdded(let id, _), .partnerRemoved(let id, _), .partnerStatus(let id, _, _, _, _): return ("partner", id)
        case .productAdded(let key, _), .productRemoved(let key, _), .productStatus(let key, _, _, _), .tableScheduled(let key, _, _): return ("product", key)
        case .bandChanged(let band): return ("product", band.key)
        case .termsAdded(let document, _, _, _, _): return ("terms", document)
        case .limitChanged(let id, _, _, _): return ("limit", id)
        case .phraseChanged(let id, _, _): return ("phrase", id)
        }
    }
}
