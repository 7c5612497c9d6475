import CNATSLoader

/// libnats' functions, loaded by `loadNATSLibrary()`: the first NATS connection loads
/// the library, and every call goes through this table (Sources/CNATSLoader).
var nats: UnsafePointer<juice_nats_functions> { juice_nats() }

/// Loads libnats if it is not loaded yet; throws `.unavailable` with what the loader
/// said when it cannot be: libnats is not on this machine, or it is one juice cannot
/// use. juice looks for it each time a process first connects, so installing it is
/// the whole fix: the same binary then has the fleet.
func loadNATSLibrary() throws(NATSError) {
    guard let failure = juice_nats_load() else { return }
    let reason = String(cString: failure)
    let fix = "sudo apt-get install libnats-dev, or brew install cnats; no rebuild is needed"
    let message =
        juice_nats_found()
        ? "the NATS C client on this machine cannot be used (\(reason)): install libnats 3.4 to 3.12 (\(fix))"
        : "the NATS C client (libnats) is not installed on this machine, or does not load (\(reason)): install it (\(fix))"
    throw NATSError(message, kind: .unavailable)
}
