/// A calendar date (`YYYY-MM-DD`, Asia/Seoul), comparable and countable.
public struct Day: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    /// Parses `YYYY-MM-DD`, rejecting dates that do not exist (2025-02-30).
    public init?(_ text: String) {
        // Four, two and two ASCII digits joined by '-' is exactly ten bytes "DDDD-DD-DD"
        // (read here without splitting: 6,000 rate tables are dated twice).
        var fields = (year: 0, month: 0, day: 0)
        var index = 0
        for byte in text.utf8 {
            switch index {
            case 4, 7: guard byte == UInt8(ascii: "-") else { return nil }
            case 0..<10:
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                let digit = Int(byte - UInt8(ascii: "0"))
                if index < 4 { fields.year = fields.year * 10 + digit } else if index < 7 { fields.month = fields.month * 10 + digit } else { fields.day = fields.day * 10 + digit }
            default: return nil
            }
            index += 1
        }
        let (y, m, d) = fields
        guard index == 10, (1...12).contains(m), d >= 1, d <= Day.daysIn(month: m, year: y) else { return nil }
        self.year = y
        self.month = m
        self.day = d
    }

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    public var description: String {
        let y = String(year)
        let m = month < 10 ? "0\(month)" : "\(month)"
        let d = day < 10 ? "0\(day)" : "\(day)"
        return "\(y)-\(m)-\(d)"
    }

    /// Days since 1970-01-01 (proleptic Gregorian).
    public var ordinal: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// The date `ordinal` days after 1970-01-01.
    public init(ordinal: Int) {
        let z = ordinal + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        self.init(year: yoe + era * 400 + (m <= 2 ? 1 : 0), month: m, day: d)
    }

    public func adding(days: Int) -> Day { Day(ordinal: ordinal + days) }

    /// The same day of the month `months` later (the month's last day when it is shorter).
    public func adding(months: Int) -> Day {
        let index = year * 12 + (month - 1) + months
        let (newYear, newMonth) = (index / 12, index % 12 + 1)
        return Day(year: newYear, month: newMonth, day: Swift.min(day, Day.daysIn(month: newMonth, year: newYear)))
    }

    /// Today in Asia/Seoul (UTC+9, no daylight saving), from the system clock.
    public static func todayInSeoul(now seconds: Double) -> Day {
        Day(ordinal: Int(((seconds + 9 * 3600) / 86400).rounded(.down)))
    }

    public static func < (lhs: Day, rhs: Day) -> Bool { lhs.ordinal < rhs.ordinal }

    package static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
