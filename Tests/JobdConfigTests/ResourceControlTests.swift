import JobdConfig
import Testing

/// `MemoryMax=`, `MemoryHigh=`, `MemorySwapMax=`, `CPUWeight=`, `CPUQuota=` and `IOWeight=` read as
/// systemd 252 reads them (issue 27: a run's cgroup is limited as a service's).
struct ResourceControlTests {
    static func read(_ lines: String) -> Result<JobDefinition, ConfigErrors> {
        JobFileReader.read(name: "limited", path: "/j/limited.job", text: "[Job]\nExecStart=/bin/true\n" + lines)
    }

    @Test(arguments: [
        ("50M", ResourceControl.MemoryLimit.bytes(50 << 20)), ("512K", .bytes(512 << 10)), ("1G", .bytes(1 << 30)),
        ("2T", .bytes(2 << 40)), ("4096", .bytes(4_096)), ("100B", .bytes(100)), ("1.5G", .bytes(3 << 29)),
        ("1G 512M", .bytes(3 << 29)), ("10.M", .bytes(10 << 20)), ("25%", .permyriad(2_500)), ("12.5%", .permyriad(1_250)),
        ("100%", .permyriad(10_000)), ("125‰", .permyriad(1_250)), ("1250‱", .permyriad(1_250)),
    ])
    func aMemoryLimitIsBytesOrAShareOfTheMemory(text: String, limit: ResourceControl.MemoryLimit) throws {
        #expect(try Self.read("MemoryMax=\(text)\n").get().resourceControl.memoryMax == limit, "\(text)")
        #expect(try Self.read("MemoryHigh=\(text)\n").get().resourceControl.memoryHigh == limit, "\(text)")
    }

    @Test(arguments: ["0", "0%", "-1", "lots", "50m", "1Gi", "101%", "512M 1G", "5 3", "16E", "1.5.0G", "M", "12.345%"])
    func anythingElseIsNotAndSaysWhatIs(text: String) {
        guard case .failure(let errors) = Self.read("MemoryMax=\(text)\n") else {
            Issue.record("MemoryMax=\(text) was accepted")
            return
        }
        #expect(errors.errors.first?.line == 3)
        #expect(errors.errors.first?.message.hasPrefix("MemoryMax=: '\(text)' ") == true, "\(errors.errors)")
        #expect(errors.errors.first?.hint?.contains("512M") == true)
    }

    @Test func infinityOrAnEmptyValueSetsNoLimitAndOnlySwapMayBeZero() throws {
        let reset = try Self.read("MemoryMax=1G\nMemoryMax=\nMemoryHigh=infinity\nCPUQuota=20%\nCPUQuota=\n").get().resourceControl
        #expect(reset.isEmpty && reset == ResourceControl())
        let noSwap = try Self.read("MemorySwapMax=0\n").get().resourceControl
        #expect(noSwap.memorySwapMax == .bytes(0) && noSwap.keys == [.memorySwapMax] && noSwap.line(of: .memorySwapMax) == 3)
    }

    @Test(arguments: [("1", UInt64(1)), ("100", 100), ("10000", 10_000), ("idle", 0)])
    func aCPUWeightIsOneToTenThousandOrIdle(text: String, weight: UInt64) throws {
        #expect(try Self.read("CPUWeight=\(text)\n").get().resourceControl.cpuWeight == weight)
        if text != "idle" { #expect(try Self.read("IOWeight=\(text)\n").get().resourceControl.ioWeight == weight) }
    }

    @Test(arguments: ["0", "10001", "-5", "+5", "high", "1.5", "0x10"])
    func aWeightOutOfRangeIsNot(text: String) {
        for key in ["CPUWeight", "IOWeight"] {
            guard case .failure(let errors) = Self.read("\(key)=\(text)\n") else {
                Issue.record("\(key)=\(text) was accepted")
                continue
            }
            #expect(errors.errors.map(\.message) == ["\(key)=: '\(text)' is not a weight"])
        }
        #expect((try? Self.read("IOWeight=idle\n").get()) == nil, "idle is a CPU weight only")
    }

    @Test(arguments: [("20%", UInt64(2_000)), ("150%", 15_000), ("0.5%", 50), ("12.25%", 1_225), ("5‰", 50), ("1000%", 100_000)])
    func aCPUQuotaIsAShareOfOneCPUAndMayPassIt(text: String, permyriad: UInt64) throws {
        #expect(try Self.read("CPUQuota=\(text)\n").get().resourceControl.cpuQuota == permyriad)
    }

    @Test(arguments: ["0%", "20", "20 %", "%", "-5%", "1.234%", "half"])
    func aCPUQuotaIsNeverAnythingElse(text: String) {
        guard case .failure(let errors) = Self.read("CPUQuota=\(text)\n") else {
            Issue.record("CPUQuota=\(text) was accepted")
            return
        }
        #expect(errors.errors.map(\.description) == [
            "/j/limited.job:3: error: CPUQuota=: '\(text)' is not a CPU quota\n"
                + "/j/limited.job:3: note: write a percentage of one CPU such as 20%, or above 100% for more than one CPU, such as 150%",
        ])
    }

    @Test func aShareOfMemoryIsWholePagesOfThePhysicalMemory() {
        let gigabyte: UInt64 = 1 << 30
        #expect(ResourceControl.MemoryLimit.permyriad(2_500).resolved(physicalMemory: 4 * gigabyte, pageSize: 4_096) == gigabyte)
        #expect(ResourceControl.MemoryLimit.permyriad(10_000).resolved(physicalMemory: 4_097, pageSize: 4_096) == 4_097)
        #expect(ResourceControl.MemoryLimit.permyriad(1).resolved(physicalMemory: 3 * 4_096, pageSize: 4_096) == 0)
        #expect(ResourceControl.MemoryLimit.bytes(7).resolved(physicalMemory: 1, pageSize: 4_096) == 7)
    }

    @Test func aDefinitionWithLimitsDiffersFromOneWithoutButNotByTheirLines() throws {
        let limited = try Self.read("MemoryMax=50M\n").get()
        let moved = try Self.read("\nMemoryMax=50M\n").get()
        let plain = try Self.read("").get()
        #expect(limited == moved, "a line moved is the same job: a reload keeps its owner")
        #expect(limited != plain)
        #expect(moved.resourceControl.line(of: .memoryMax) == 4)
    }
}
