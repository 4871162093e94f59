// The tests' shared helpers (Tests/PushwireTestSupport: the raw-protocol TestClient, the pushwired
// and executable launchers, the fake server, Scripts/postgres), visible in every file of this suite.
@_exported import PushwireTestSupport
