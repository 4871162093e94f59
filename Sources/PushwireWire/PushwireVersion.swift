/// The version of Pushwire: the server runtime, the client and the three executables print and
/// announce this one value (it lives at the bottom of the target graph so that each can see it).
public enum PushwireVersion {
    /// e.g. `0.1.0`.
    public static let current = "0.1.0"
}
