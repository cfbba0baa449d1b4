@testable import JobctlCommands
import Testing

@Suite struct BootSelectorTests {
    static let a = String(repeating: "a", count: 32)
    static let b = String(repeating: "b", count: 32)
    static let c = String(repeating: "c", count: 32)
    let boots = [a, b, c]  // oldest first
    let current = String(repeating: "f", count: 32)

    @Test func readsJournalctlDescriptors() {
        #expect(BootSelector("") == .current)
        #expect(BootSelector("current") == .current)
        #expect(BootSelector("0") == .offset(0))
        #expect(BootSelector("-1") == .offset(-1))
        #expect(BootSelector("+2") == .offset(2))
        #expect(BootSelector("1") == .offset(1))
        #expect(BootSelector(Self.b.uppercased()) == .id(Self.b, offset: 0))
        #expect(BootSelector(Self.b + "-1") == .id(Self.b, offset: -1))
        #expect(BootSelector(Self.b + "+1") == .id(Self.b, offset: 1))
        for text in ["backup", "-x", "--json", "1.5", Self.b + "x", "abc"] {
            #expect(BootSelector(text) == nil, "\(text)")
        }
    }

    /// As journalctl: 1 the first boot, 0 the last, -1 the one before the last.
    @Test func resolvesOffsetsAmongTheJournalsBoots() throws {
        #expect(try BootSelector.offset(0).resolve(boots: boots, current: current) == Self.c)
        #expect(try BootSelector.offset(-1).resolve(boots: boots, current: current) == Self.b)
        #expect(try BootSelector.offset(-2).resolve(boots: boots, current: current) == Self.a)
        #expect(try BootSelector.offset(1).resolve(boots: boots, current: current) == Self.a)
        #expect(try BootSelector.offset(3).resolve(boots: boots, current: current) == Self.c)
        #expect(try BootSelector.id(Self.b, offset: 1).resolve(boots: boots, current: current) == Self.c)
        #expect(try BootSelector.id(current, offset: 0).resolve(boots: boots, current: current) == current)
        #expect(try BootSelector.current.resolve(boots: boots, current: current) == current)
        #expect(throws: BootSelector.Failure.self) { try BootSelector.offset(-3).resolve(boots: boots, current: current) }
        #expect(throws: BootSelector.Failure.self) { try BootSelector.offset(4).resolve(boots: boots, current: current) }
        #expect(throws: BootSelector.Failure.self) { try BootSelector.id(Self.c, offset: 1).resolve(boots: boots, current: current) }
    }

    /// `-b` takes the next word only when it is a boot descriptor, as journalctl's getopt handling.
    @Test func normalizesTheOptionalValue() {
        #expect(BootSelector.normalize(["audit", "-b", "-1", "--json"]) == ["audit", "--boot=-1", "--json"])
        #expect(BootSelector.normalize(["audit", "--boot", Self.a]) == ["audit", "--boot=" + Self.a])
        #expect(BootSelector.normalize(["audit", "--boot", "--json"]) == ["audit", "--boot=current", "--json"])
        #expect(BootSelector.normalize(["logs", "-b", "backup"]) == ["logs", "--boot=current", "backup"])
        #expect(BootSelector.normalize(["audit", "-b"]) == ["audit", "--boot=current"])
        #expect(BootSelector.normalize(["audit", "--boot=-2"]) == ["audit", "--boot=-2"])
        #expect(BootSelector.normalize(["logs", "--", "-b", "1"]) == ["logs", "--", "-b", "1"])
    }
}
