import RatecardCore
import RatecardOutput

/// Whether a release is still current on a day: what it shows changes when something scheduled
/// takes effect (`stale_from` in its version.json). Decided here only, for `status` and for
/// `publish --if-stale`.
public enum Freshness: Equatable {
    /// Nothing scheduled after the release's as-of date.
    case nothingScheduled
    /// Current until the day before `changesOn`.
    case current(changesOn: Day)
    /// Something scheduled took effect on `since`; a rebuild shows it.
    case stale(since: Day)

    /// `info`'s freshness on `asOf`.
    public init(_ info: ReleaseInfo, asOf: Day) {
        guard let from = info.staleFrom.flatMap(Day.init) else {
            self = .nothingScheduled
            return
        }
        self = from <= asOf ? .stale(since: from) : .current(changesOn: from)
    }

    /// The first day the release is stale (nil: nothing scheduled).
    public var staleFrom: Day? {
        switch self {
        case .nothingScheduled: return nil
        case .current(let day), .stale(let day): return day
        }
    }

    public var isStale: Bool {
        if case .stale = self { return true }
        return false
    }
}
