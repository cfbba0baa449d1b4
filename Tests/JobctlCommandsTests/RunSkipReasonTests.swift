import JobctlCommands
import Testing

/// Issue 37: a run skipped for a budget of jobd.conf says which, and that it may be asked again.
@Suite struct RunSkipReasonTests {
    @Test func aSkipForAWaitingRunsBudgetNamesTheSetting() {
        #expect(Jobctl.Run.explaining("user-waiting-runs-max").hasPrefix("user-waiting-runs-max (as many runs of your jobs already wait"))
        #expect(Jobctl.Run.explaining("user-waiting-runs-max").contains("UserWaitingRunsMax= of jobd.conf"))
        #expect(Jobctl.Run.explaining("job-waiting-runs-max").contains("JobWaitingRunsMax= of jobd.conf"))
        #expect(Jobctl.Run.explaining("overlap") == "overlap")
    }
}
