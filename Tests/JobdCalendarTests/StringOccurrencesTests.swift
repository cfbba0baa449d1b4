import JobdCalendar
import Testing

/// The string search the shipped binaries use instead of _StringProcessing's.
struct StringOccurrencesTests {
    @Test(arguments: [
        ("100%%", "%%", "%", "100%"), ("a'b'c", "'", "'\\''", "a'\\''b'\\''c"), ("{schema}.claims, {schema}.nodes", "{schema}", "jobd", "jobd.claims, jobd.nodes"),
        ("%%%", "%%", "", "%"), ("none", "x", "y", "none"), ("", "x", "y", ""), ("aaa", "aa", "b", "ba"), ("é%%é", "%%", "%", "é%é"),
    ])
    func everyOccurrenceIsReplacedLeftToRight(text: String, target: String, replacement: String, expected: String) {
        #expect(text.replacingEvery(target, with: replacement) == expected)
    }

    @Test func theFirstRangeIsFound() {
        let link = "../usr/share/zoneinfo/Europe/Berlin"
        #expect(link.firstRange(ofText: "zoneinfo/").map { String(link[$0.upperBound...]) } == "Europe/Berlin")
        #expect("abc".firstRange(ofText: "") == nil && "abc".firstRange(ofText: "abcd") == nil)
    }
}
