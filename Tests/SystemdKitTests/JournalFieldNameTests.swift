import SystemdKit
import Testing

@Suite struct JournalFieldNameTests {
    @Test(arguments: ["MESSAGE", "JOB", "JOBD_OWNER", "A", "X9_", String(repeating: "A", count: 64)])
    func acceptsJournaldNames(_ name: String) throws {
        #expect(try JournalFieldName(name).rawValue == name)
        #expect(JournalFieldName.isValid(name))
    }

    @Test(arguments: [
        ("", "is empty"),
        ("_PID", "starts with '_'"),
        ("9LIVES", "starts with a digit"),
        ("job", "contains"),
        ("JOBD-OWNER", "contains"),
        ("JOBD.OWNER", "contains"),
        ("JÖB", "contains"),
        ("A B", "contains"),
        (String(repeating: "A", count: 65), "longer than 64"),
    ])
    func rejectsNamesJournaldWouldDrop(_ name: String, _ problem: String) {
        let error = #expect(throws: SystemdError.self) { try JournalFieldName(name) }
        #expect(error?.code == .invalidFieldName)
        #expect(error?.context.contains(problem) == true, "\(error?.context ?? "")")
        #expect(!JournalFieldName.isValid(name))
    }

    @Test func aFieldWithAnInvalidNameCannotBeMade() {
        #expect(throws: SystemdError.self) { try JournalField("lower", "value") }
    }
}
