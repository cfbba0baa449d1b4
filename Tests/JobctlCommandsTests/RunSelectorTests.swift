@testable import JobctlCommands
import Testing

@Suite struct RunSelectorTests {
    static let id = "0123456789abcdef0123456789abcdef"

    @Test func readsEachForm() {
        #expect(RunSelector("last") == .last)
        #expect(RunSelector(Self.id.uppercased()) == .id(Self.id))
        #expect(RunSelector(Self.id + ":7") == .instanceRun(instance: Self.id, run: 7))
        #expect(RunSelector("12") == .number(12))
        for text in ["", "first", "-1", "abc:7", Self.id + ":x", "1.5"] {
            #expect(RunSelector(text) == nil, "\(text)")
        }
    }

    /// A run.start with JOBD_RUN_ID is matched by it, one without by its instance and counter.
    @Test func matchesARunByItsIdWhereLogged() {
        let old = RunSelector.matches(runStart: ["JOBD_INSTANCE": Self.id, "JOBD_RUN": "3"])
        #expect(old.map(\.0) == ["JOBD_INSTANCE", "JOBD_RUN"] && old.map(\.1) == [Self.id, "3"])
        let new = RunSelector.matches(runStart: ["JOBD_INSTANCE": Self.id, "JOBD_RUN": "3", "JOBD_RUN_ID": "ff"])
        #expect(new.map(\.0) == ["JOBD_RUN_ID"] && new.map(\.1) == ["ff"])
    }
}
