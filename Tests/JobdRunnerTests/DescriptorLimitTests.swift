import JobdConfig
import JobdRunner
import Testing

/// Issue 39: under systemd's 1024:524288 a jobd could hold only about 330 runs in flight (three
/// descriptors each); it raises its own soft limit and gives every run the one it was started with.
@Suite struct DescriptorLimitTests {
    @Test(arguments: [
        // systemd's default for a service: raised to the hard limit; runs keep 1024:524288.
        (UInt64?(1_024), UInt64?(524_288), UInt64?(1_048_576), UInt64?(524_288)),
        // An infinite hard limit: as far as the kernel's fs.nr_open goes.
        (1_024, nil, 1_048_576, 1_048_576),
        // A hard limit above fs.nr_open (the kernel refuses a soft limit past it).
        (1_024, 4_000_000, 1_048_576, 1_048_576),
        // Nothing to raise: already at the hard limit, or infinite.
        (20_000, 20_000, 1_048_576, nil),
        (nil, nil, 1_048_576, nil),
        // fs.nr_open unknown and no hard limit: left as it is.
        (1_024, nil, nil, nil),
    ])
    func jobdRaisesItsSoftLimitAsFarAsItMay(soft: UInt64?, hard: UInt64?, nrOpen: UInt64?, raised: UInt64?) {
        let decision = DescriptorLimit.decide(soft: soft, hard: hard, nrOpen: nrOpen)
        #expect(decision.raise == raised)
        #expect(decision.runs == ResourceLimit(soft: soft, hard: hard), "runs keep what jobd was started with")
    }
}
