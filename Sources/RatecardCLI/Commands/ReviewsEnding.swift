import RatecardKit

/// `status`: the compliance reviews of the live release that end within `review_warning_days`
/// (ratecard.yaml, default 30) of today, from version.json's `review_ends`. The day after a
/// review ends, the product leaves the screens (`publish --if-stale` rebuilds that day).
enum ReviewsEnding {
    /// The warning window: ratecard.yaml's `review_warning_days` where the content is found.
    static func days(_ invocation: Invocation) -> Int {
        (try? invocation.settings())?.config.reviewWarningDays ?? ServiceConfig.defaultReviewWarningDays
    }

    /// The reviews ending within `days` of `asOf` (those already ended included), soonest first,
    /// as JSON and as a status row.
    static func row(_ info: ReleaseInfo, asOf: Day, days: Int) -> (JSON, Message) {
        let ending = info.reviewEnds.compactMap { key, text in Day(text).map { (key: key, until: $0) } }
            .filter { $0.until.ordinal - asOf.ordinal < days }
            .sorted { ($0.until, $0.key) < ($1.until, $1.key) }
        let json = JSON.array(ending.map { .object(["product": .string($0.key), "review_valid_until": .string($0.until.description)]) })
        guard !info.reviewEnds.isEmpty else {
            return (.null, Message("not recorded in this release (published before review dates were recorded, or it shows no product)", ko: "이 릴리스에는 기록이 없습니다 (심의 기간을 기록하기 전에 게시했거나 보여 주는 상품이 없습니다)"))
        }
        guard !ending.isEmpty else {
            return (json, Message("none end within \(days) days", ko: "\(days)일 안에 끝나는 심의 없음"))
        }
        let list = ending.prefix(10).map { "\($0.key) \($0.until)" }.joined(separator: ", ") + (ending.count > 10 ? ", …" : "")
        return (
            json,
            Message(
                "\(ending.count) end within \(days) days (the product leaves the screens the next day; renew the review): \(list)",
                ko: "\(days)일 안에 끝나는 심의 \(ending.count)건 (끝난 다음 날 상품이 화면에서 빠집니다; 심의를 갱신하세요): \(list)")
        )
    }
}
