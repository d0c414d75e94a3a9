import Foundation

/// SAML's times: xs:dateTime in UTC, `YYYY-MM-DDThh:mm:ss`, an optional fraction of a second, then `Z` (or nothing:
/// SAML core §1.3.3 asks for UTC "with no time zone component"). Other offsets, and impossible dates, are refused.
enum XMLDateTime {
    static func date(_ text: String) -> Date? {
        let characters = Array(text.utf8)
        guard characters.count >= 19 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard (UInt8(ascii: "0") ... UInt8(ascii: "9")).contains(characters[index]) else { return nil }
                value = value * 10 + Int(characters[index] - UInt8(ascii: "0"))
            }
            return value
        }
        func isCharacter(_ index: Int, _ character: Unicode.Scalar) -> Bool { characters[index] == UInt8(ascii: character) }
        guard let year = number(0 ..< 4), isCharacter(4, "-"), let month = number(5 ..< 7), isCharacter(7, "-"),
              let day = number(8 ..< 10), isCharacter(10, "T"), let hour = number(11 ..< 13), isCharacter(13, ":"),
              let minute = number(14 ..< 16), isCharacter(16, ":"), let second = number(17 ..< 19),
              year >= 1, (1 ... 12).contains(month), (1 ... daysIn(month, of: year)).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }
        var end = 19
        var fraction = 0.0
        if end < characters.count, isCharacter(end, ".") {
            var scale = 0.1
            end += 1
            let start = end
            while end < characters.count, let digit = number(end ..< end + 1) {
                fraction += Double(digit) * scale
                scale /= 10
                end += 1
            }
            guard end > start else { return nil }
        }
        if end < characters.count, isCharacter(end, "Z") { end += 1 }
        guard end == characters.count else { return nil }
        let seconds = daysSinceEpoch(year: year, month: month, day: day) * 86400 + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private static func daysIn(_ month: Int, of year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = shiftedYear / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
