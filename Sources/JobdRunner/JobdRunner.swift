// The run's state machine is a module of its own (pure, no I/O); whoever runs jobs sees it here.
@_exported public import JobdRunLifecycle
