/// A change committed to the store through another store object than the one reporting it —
/// another `pushwired` sharing the database — as the store's change feed
/// (`PushwireStore.observeChanges`) reports it, so that a server's caches follow the others'
/// writes. Engine-neutral: it names what changed, not how the engine learnt of it.
public enum StoreChange: Sendable, Equatable {
    /// An application was created or updated (name, APNs or FCM settings, access token hash):
    /// read it again.
    case application(id: Int64)
    /// The application's categories changed; `version` is the categories version the change
    /// committed (read them again unless a newer one is already cached).
    case categories(applicationID: Int64, version: UInt64)
    /// Devices that already existed changed: registered with other values, unregistered, or
    /// their tags changed. A device inserted for the first time is not reported (nobody can
    /// hold anything about a device the store did not have); hwids as stored (compare them byte
    /// for byte).
    case devices(applicationID: Int64, hwids: [String])
    /// Changes may have been missed (the feed's connection was lost and is back, or too many
    /// arrived to keep): everything cached must be read again.
    case everything
}
