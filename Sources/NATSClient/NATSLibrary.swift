import CNATSLoader

/// libnats' functions, loaded by `loadNATSLibrary()`: the first NATS connection loads
/// the library, and every call goes through this table (Sources/CNATSLoader).
var nats: UnsafePointer<juice_nats_functions> { juice_nats() }

/// Loads libnats if it is not loaded yet; throws `.unavailable` with what the loader
/// said when it cannot be (a `juice` built with NATS, run where libnats is missing).
func loadNATSLibrary() throws(NATSError) {
    guard let failure = juice_nats_load() else { return }
    throw NATSError(
        "cannot load the NATS C client (\(String(cString: failure))); install the libnats runtime that matches the libnats-dev juice was built with",
        kind: .unavailable)
}
