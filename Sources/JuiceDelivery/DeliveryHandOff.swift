#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CStartAfterExit
import JuiceMakerCore
import JuiceMakerPluginKit

/// How a short command leaves its events' delivery to a background `juice deliver`,
/// as `git` leaves its housekeeping to a detached `git gc --auto`: the command returns
/// once its change is committed, and nothing waits on a webhook or a program.
///
/// The journal stays the truth and each subscriber's lease still admits one runner at
/// a time, so nothing changes in what is delivered, only in which process does it:
/// 1. After its change, the command looks at each durable subscriber. It has work when
///    the journal holds events of its kinds after its cursor and it is not waiting
///    for a retry (nor stopped by a 410).
/// 2. If such a subscriber's lease is free, the command starts `juice deliver --quiet --no-wait`
///    for the same config and store, detached (its own process group, so the
///    terminal's Ctrl-C and hang-up do not reach it; no terminal streams), and exits.
///    That process runs once the command has exited (`start`).
/// 3. If the lease is held, its holder delivers the event. `juice deliver --follow`
///    sees every commit while it runs. `juice deliver` and the screens look again once
///    they have let their leases go, and start a background `juice deliver` themselves
///    when they find work; `juice deliver` only when it moved a cursor in its own run or
///    events were committed during it, so a subscriber that cannot move (one the store
///    refuses) never starts a chain of its own.
///
/// A command stopped by a signal starts nothing (the person stopped it). Whatever is not
/// delivered waits in the journal with its retry state, as before: `juice subscribers`
/// shows it and the next command, or `juice deliver`, sends it.
///
/// The delivery service decides and starts; the command says what it reports, in its
/// words, and names the command line (`arguments`), which only it knows.
package enum DeliveryHandOff {
    /// A durable subscriber, as the hand-off sees it.
    package struct Subscriber: Sendable {
        package let name: String
        package let kinds: Set<EventKind>?

        package init(name: String, kinds: Set<EventKind>?) {
            self.name = name
            self.kinds = kinds
        }
    }

    /// What the command says when it exits: a subscriber whose delivery is failing or
    /// stopped (the background run has no terminal to say it on), or why no background
    /// run could start (the change stays committed, its events in the journal).
    package enum Report: Sendable {
        case failing(name: String, waiting: Int64, retry: DeliveryRetryState)
        /// The store could not say who has work.
        case storeFailed(StoreError)
        /// The background run could not be started: the system's error number.
        case notStarted(errorNumber: Int32)
    }

    /// Starts this executable with `arguments` (a `juice deliver` of the same config and
    /// store) in the background if one of `subscribers` has work and a free lease;
    /// returns what the command should report.
    package static func handOn(
        _ subscribers: [Subscriber], journal: any DeliveryJournal, arguments: [String], environment: [String: String]
    ) -> [Report] {
        var due: [String] = []
        var reports: [Report] = []
        do throws(StoreError) {
            (due, reports) = try look(at: subscribers, journal: journal, now: Date().timeIntervalSince1970)
        } catch {
            return [.storeFailed(error)]
        }
        guard !due.isEmpty, let code = start(arguments: arguments, environment: environment) else { return reports }
        return reports + [.notStarted(errorNumber: code)]
    }

    /// The subscribers in `subscribers` that have work now and whose lease is free, and
    /// those whose oldest waiting event has failed (waiting for a retry, or stopped).
    package static func look(
        at subscribers: [Subscriber], journal: any DeliveryJournal, now: Double
    ) throws(StoreError) -> (due: [String], failing: [Report]) {
        let last = try journal.lastSequence()
        var names: [String] = []
        var failing: [Report] = []
        for subscriber in subscribers {
            let cursor = try journal.cursor(named: subscriber.name)
            guard last > cursor else { continue }
            if let retry = try DurableSubscriberStatus.retryState(subscriber.name, after: cursor, from: journal) {
                failing.append(.failing(name: subscriber.name, waiting: last - cursor, retry: retry))
                if retry.disabled || retry.nextAttemptAt > now { continue }
            }
            if let kinds = subscriber.kinds,
                try journal.entries(after: cursor, kinds: kinds, limit: 1, newest: false).isEmpty
            {
                continue
            }
            // Held: its holder looks again once it lets go (see above).
            guard let lease = try journal.takeDeliveryLease(for: subscriber.name) else { continue }
            lease.release()
            names.append(subscriber.name)
        }
        return (names, failing)
    }

    /// Starts this executable with `arguments` and `environment` once this process has
    /// exited (`juice_start_after_exit`): detached from the terminal, its standard
    /// streams on `/dev/null`, and not running beside this process, whose last
    /// milliseconds it would otherwise slow (start-up rule "delivery after exit", the
    /// Performance article). Nobody waits for it; the system reaps it. Returns
    /// the system's error number when it could not be started.
    package static func start(arguments: [String], environment: [String: String]) -> Int32? {
        guard let executable = currentExecutable() else { return ENOENT }
        let argv = (["juice"] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0.key + "=" + $0.value) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        let failure = juice_start_after_exit(executable, argv, envp)
        return failure == 0 ? nil : failure
    }

    /// The file this process runs.
    private static func currentExecutable() -> String? {
        #if os(Linux)
        // The running image itself, also when its path was replaced since.
        return "/proc/self/exe"
        #elseif canImport(Darwin)
        var size: UInt32 = 0
        _ = _NSGetExecutablePath(nil, &size)
        var buffer = [CChar](repeating: 0, count: Int(size) + 1)
        guard _NSGetExecutablePath(&buffer, &size) == 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #else
        return nil
        #endif
    }
}
