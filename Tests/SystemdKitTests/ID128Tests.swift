import Foundation
import SystemdKit
import Testing

@Suite struct ID128Tests {
    @Test func bootIDIsTheKernels() throws {
        let kernel = try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "-", with: "")
        #expect(try ID128.bootID() == kernel)
    }

    @Test func randomIDsAre32HexDigitsAndDiffer() throws {
        let a = try ID128.random(), b = try ID128.random()
        #expect(ID128.isValid(a) && ID128.isValid(b))
        #expect(a != b)
    }

    @Test func validity() {
        #expect(!ID128.isValid("6A0BD7E51C2F4D1E9B3A7C5D8E2F1001"))
        #expect(!ID128.isValid("6a0bd7e5"))
        #expect(ID128.isValid("6a0bd7e51c2f4d1e9b3a7c5d8e2f1001"))
    }
}
