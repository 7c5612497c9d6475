import Locking

/// Up to `size` requests to one endpoint at once, each on a persistent HTTP/1.1
/// connection of its own (no pipelining: a receiver answers one request per
/// connection at a time, so connections are the concurrency).
///
/// - Each connection is an `HTTPClient` owned by one worker thread (blocking I/O off
///   the cooperative pool). Workers are started when a request finds none idle, up to
///   `size`, and kept with their kept-alive connection until `close()`: an idle worker
///   waits on its own condition and costs no CPU.
/// - A request goes to an idle worker directly (one wake-up), or waits in order for
///   the next worker to finish when all `size` are busy.
/// - `completion` is called once per request, on the worker's thread.
package final class HTTPClientPool: Sendable {
    package typealias Completion = @Sendable (Result<HTTPResponseHead, HTTPClientError>) -> Void

    /// One request: made on the worker (`make`, so signing happens when it is sent).
    struct Job: Sendable {
        let make: @Sendable () -> HTTPRequest
        let deadline: ContinuousClock.Instant
        let completion: Completion
    }

    /// One connection's thread and what it is asked.
    final class Worker: Sendable {
        struct Mailbox {
            var job: Job?
            var closed = false
            /// The number of the request under way (`HTTPCancellation.begin`).
            var current: UInt64?
        }

        let mailbox = LockedCondition(Mailbox())
        let cancellation = HTTPCancellation()
    }

    private struct State {
        var workers: [Worker] = []
        var idle: [Worker] = []
        var queue: [Job] = []
        var queueHead = 0
        var closed = false
    }

    package let target: HTTPTarget
    /// Connections (and requests in flight), at most.
    package let size: Int
    private let trustedCertificatesFile: String?
    private let state = Locked(State())
    private let opened = Locked(0)

    /// A pool for `target` of at most `size` connections. `trustedCertificatesFile` as
    /// for `HTTPClient` (tests only).
    package init(target: HTTPTarget, size: Int, trustedCertificatesFile: String? = nil) {
        self.target = target
        self.size = max(1, size)
        self.trustedCertificatesFile = trustedCertificatesFile
    }

    /// Connections opened so far, by every worker.
    package var connectionsOpened: Int { opened.withLock { $0 } }

    /// Sends the request `make` builds (on the worker, when it is sent) by `deadline`;
    /// `completion` hears the final answer's head, or why there is none. After
    /// `close()`, fails at once with `cancelled`.
    package func submit(
        until deadline: ContinuousClock.Instant, _ make: @escaping @Sendable () -> HTTPRequest, completion: @escaping Completion
    ) {
        let job = Job(make: make, deadline: deadline, completion: completion)
        enum Route {
            case refused
            case handed(Worker)
            case started(Worker)
            case queued
        }
        let route = state.withLock { state -> Route in
            if state.closed { return .refused }
            if let worker = state.idle.popLast() { return .handed(worker) }
            if state.workers.count < size {
                let worker = Worker()
                state.workers.append(worker)
                return .started(worker)
            }
            state.queue.append(job)
            return .queued
        }
        switch route {
        case .refused: completion(.failure(.cancelled))
        case .handed(let worker): worker.mailbox.change { $0.job = job }
        case .started(let worker):
            worker.mailbox.withLock { $0.job = job }
            startDetachedThread(named: "juice.http.pool") { [self] in work(worker) }
        case .queued: break
        }
    }

    /// Cancels the requests under way now (each completes with `cancelled`); requests
    /// sent later are not affected.
    package func cancelInFlight() {
        for worker in state.withLock({ $0.workers }) {
            if let number = worker.mailbox.withLock({ $0.current }) { worker.cancellation.cancel(number) }
        }
    }

    /// Ends every request (those waiting fail with `cancelled`), closes the connections
    /// and lets the workers end. Later requests fail at once.
    package func close() {
        let (workers, waiting) = state.withLock { state -> ([Worker], [Job]) in
            state.closed = true
            defer {
                state.queue = []
                state.queueHead = 0
                state.idle = []
            }
            return (state.workers, Array(state.queue[state.queueHead...]))
        }
        for worker in workers {
            worker.cancellation.cancelAll()
            worker.mailbox.change { $0.closed = true }
        }
        for job in waiting { job.completion(.failure(.cancelled)) }
    }

    /// A worker's life: its jobs one at a time on its own connection, then the next
    /// queued one, or wait idle.
    private func work(_ worker: Worker) {
        let client = HTTPClient(target: target, trustedCertificatesFile: trustedCertificatesFile)
        defer { client.close() }
        var opened = 0
        while true {
            _ = worker.mailbox.wait(until: nil) { $0.job != nil || $0.closed }
            let (taken, closed) = worker.mailbox.withLock { mailbox -> (Job?, Bool) in
                defer { mailbox.job = nil }
                return (mailbox.job, mailbox.closed)
            }
            guard let job = taken, !closed else {
                // Handed over as the pool closed: it still hears its answer.
                taken?.completion(.failure(.cancelled))
                return
            }
            var next: Job? = job
            while let job = next {
                let number = worker.cancellation.begin()
                worker.mailbox.withLock { $0.current = number }
                let result = Result { () throws(HTTPClientError) in
                    try client.send(job.make(), until: job.deadline, cancellation: worker.cancellation, number: number)
                }
                worker.mailbox.withLock { $0.current = nil }
                if client.connectionsOpened != opened {
                    let more = client.connectionsOpened - opened
                    opened = client.connectionsOpened
                    self.opened.withLock { $0 += more }
                }
                job.completion(result)
                next = state.withLock { state -> Job? in
                    if state.queueHead < state.queue.count {
                        defer {
                            state.queueHead += 1
                            if state.queueHead == state.queue.count {
                                state.queue.removeAll(keepingCapacity: true)
                                state.queueHead = 0
                            }
                        }
                        return state.queue[state.queueHead]
                    }
                    if !state.closed { state.idle.append(worker) }
                    return nil
                }
            }
        }
    }
}
