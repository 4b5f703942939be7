import RatecardKit
import Testing

@Suite struct TimestampTests {
    @Test func utcTimesReadInSeoul() {
        #expect(Timestamp.seoul("2026-11-29T06:30:00Z") == "2026-11-29 15:30:00 +09:00")
        #expect(Timestamp.seoul("2026-12-31T15:00:05Z") == "2027-01-01 00:00:05 +09:00")
        #expect(Timestamp.seoul("not a time") == "not a time")
    }
}
