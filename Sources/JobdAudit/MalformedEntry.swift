import JobdLogging

/// A jobd entry the audit could not read: a field it judges by is missing or not a number. Such an
/// entry may have recorded an owner's creation or release, so an instance that has one is never
/// called clean.
package struct MalformedEntry: Sendable, Hashable, Codable {
    /// When the entry was received, in microseconds since the epoch.
    package var realtimeUSec: UInt64
    /// Its `JOBD_EVENT`.
    package var event: String
    /// The field that could not be read.
    package var field: String
    /// Its value, cut to 64 characters; absent when the field is missing.
    package var value: String?

    /// Makes a finding.
    package init(realtimeUSec: UInt64, event: String, field: String, value: String?) {
        self.realtimeUSec = realtimeUSec
        self.event = event
        self.field = field
        self.value = value.map { $0.count > 64 ? String($0.prefix(64)) + "…" : $0 }
    }

    /// What is wrong, for people: `JOBD_OWNER='x1' is not a number`.
    package var problem: String {
        guard let value else { return "\(field) is missing" }
        // The one field that is not a number: the jobs of an `owners.init`.
        if field == JobdField.jobs { return "\(field)='\(value)' does not name one job per owner" }
        return "\(field)='\(value)' is not a number"
    }
}
