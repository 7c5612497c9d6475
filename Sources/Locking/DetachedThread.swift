#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `body` on a new detached thread named `name` (for debuggers; Linux keeps the
/// first 15 bytes), so blocking work never holds a thread of the cooperative pool.
///
/// A pthread, not Foundation's `Thread`: the modules `juice` links use only
/// FoundationEssentials, which has no `Thread`. Stops the process if the system
/// cannot create a thread (as `Thread.start()` does).
public func startDetachedThread(named name: String, _ body: @escaping @Sendable () -> Void) {
    let start = Unmanaged.passRetained(ThreadStart(name: name, body: body)).toOpaque()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    #if canImport(Darwin)
    var thread: pthread_t?
    #else
    var thread = pthread_t()
    #endif
    let created = pthread_create(
        &thread, &attributes,
        { argument in
            #if canImport(Darwin)
            let start = Unmanaged<ThreadStart>.fromOpaque(argument).takeRetainedValue()
            #else
            let start = Unmanaged<ThreadStart>.fromOpaque(argument!).takeRetainedValue()
            #endif
            #if canImport(Darwin)
            _ = pthread_setname_np(start.name)
            #else
            if let setName = setThreadName { _ = setName(pthread_self(), String(decoding: start.name.utf8.prefix(15), as: UTF8.self)) }
            #endif
            start.body()
            return nil
        }, start)
    guard created == 0 else {
        Unmanaged<ThreadStart>.fromOpaque(start).release()
        fatalError("cannot start thread \(name): error \(created)")
    }
}

#if !canImport(Darwin)
/// `pthread_setname_np`, looked up at run time: the Glibc module leaves GNU extensions out.
private let setThreadName: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32)? = {
    guard let address = dlsym(nil, "pthread_setname_np") else { return nil }
    return unsafeBitCast(address, to: (@convention(c) (pthread_t, UnsafePointer<CChar>) -> Int32).self)
}()
#endif

/// What a new thread runs, handed to it through `pthread_create`'s argument.
private final class ThreadStart {
    let name: String
    let body: @Sendable () -> Void

    init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }
}
