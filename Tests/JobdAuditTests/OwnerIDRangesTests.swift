import JobdLogging
import Testing

/// `JOBD_OWNERS=`: owner ids written as ranges and read back.
@Suite struct OwnerIDRangesTests {
    @Test func idsBecomeTheFewestRanges() {
        #expect(OwnerIDRanges([5, 1, 2, 3, 3, 7, 8, 10]).description == "1-3,5,7-8,10")
        #expect(OwnerIDRanges([UInt64]()).description == "")
        #expect(OwnerIDRanges([UInt64.max, .max - 1, 0]).description == "0,\(UInt64.max - 1)-\(UInt64.max)")
        #expect(OwnerIDRanges(Array(1...10_000).map(UInt64.init)).description == "1-10000")
    }

    @Test func textRoundTrips() throws {
        let ranges = OwnerIDRanges([1, 2, 3, 5, 9, 10, 11, 40])
        let read = try #require(OwnerIDRanges(ranges.description))
        #expect(read == ranges)
        #expect(Array(read.ids) == [1, 2, 3, 5, 9, 10, 11, 40])
        #expect(read.count == 8)
    }

    // The last two were found by the fuzzer (scripts/fuzz audit): counting them trapped.
    @Test(arguments: [
        "", "1-", "-1", "a", "1-x", "3-1", "2,1", "1-3,3", "1,,2", "1,2,", " 1", "1-2-3",
        "0-18446744073709551615", "0-4611686018427387904,4611686018427387906-9223372036854775808",
    ])
    func malformedTextIsRejected(text: String) {
        #expect(OwnerIDRanges(text) == nil)
    }

    @Test func chunksSplitTheRangesInOrder() {
        let ranges = OwnerIDRanges(stride(from: UInt64(1), through: 19, by: 2))
        let pieces = ranges.chunked(maxRanges: 4)
        #expect(pieces.map(\.description) == ["1,3,5,7", "9,11,13,15", "17,19"])
        #expect(pieces.map(\.count).reduce(0, +) == ranges.count)
        #expect(OwnerIDRanges([UInt64]()).chunked(maxRanges: 4).isEmpty)
    }
}
