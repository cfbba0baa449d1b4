/// One local time type of a zone: what the clock reads relative to UTC and what it is called.
package struct LocalTimeType: Sendable, Hashable {
    /// Seconds east of UTC.
    package var offset: Int
    /// Whether this is daylight saving ("summer") time.
    package var isDaylightSaving: Bool
    /// The abbreviation, such as `CEST`.
    package var abbreviation: String

    /// Creates a local time type.
    package init(offset: Int, isDaylightSaving: Bool, abbreviation: String) {
        self.offset = offset
        self.isDaylightSaving = isDaylightSaving
        self.abbreviation = abbreviation
    }
}
