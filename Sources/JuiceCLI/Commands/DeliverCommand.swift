import Dispatch
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import JuiceJSON
import JuiceDelivery
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives
import Locking
import SQLiteStore

/// `juice deliver [--follow]`: runs every enabled durable subscriber (webhook,
/// command) now.
///
/// Without `--follow` it delivers everything pending and returns when each
/// subscriber is caught up, stopped (410 Gone), or waiting for a retry further away
/// than `patience`; the oldest failed event is tried at once, whatever its schedule
/// said. Exit 0 when all caught up, 75 when some events must wait (they stay in the
/// journal). With `--follow` it keeps delivering, also events committed by other
/// `juice` processes, until Ctrl-C or SIGTERM; then it stops like any command, by the
/// flush deadline, and exits 128 + the signal (130, 143). SIGHUP makes it reload its
/// config (`DeliverReload`). A signal also
/// stops `juice deliver` without `--follow` by the flush deadline. With `--follow` and
/// `store.retention` set, it also compacts the store once a day (`FollowCompaction`).
struct DeliverCommand: JuiceCommand {
    static let configuration = CommandConfiguration(
        commandName: "deliver",
        abstract: LocalizedText(
            "Deliver the events durable subscribers (webhook, command) have not received yet.",
            ko: "내구성 구독자(webhook, command)가 아직 받지 못한 이벤트를 전달합니다."))

    struct Options: CommandOptions {
        let follow: Option<Bool>
        let noWait: Option<Bool>
        init(_ options: inout OptionList) {
            follow = options.flag(
                "follow",
                help: LocalizedText(
                    "Keep running and deliver new events as they are committed, by any process (Ctrl-C stops).",
                    ko: "계속 실행하며 어느 프로세스가 커밋한 새 이벤트든 전달합니다 (Ctrl-C로 멈춤)."))
            noWait = options.flag(
                "no-wait",
                help: LocalizedText(
                    "Leave a subscriber whose lease another process holds to that process at once, instead of waiting up to 10 s for it (what the background run of `juice order` does).",
                    ko: "다른 프로세스가 임대를 가진 구독자는 최대 10초 기다리지 않고 바로 그 프로세스에 맡깁니다 (`juice order`의 백그라운드 실행이 이렇게 합니다)."))
        }
    }
    /// Retries due within this are awaited by `juice deliver`.
    static let patience = Duration.seconds(10)

    let follow: Bool
    /// `--no-wait`: no `awaitOtherHolders`.
    let leavesHeldLeases: Bool

    init(_ invocation: Invocation) throws(CLIError) {
        let options = Options(invocation)
        follow = try options.follow.value
        leavesHeldLeases = try options.noWait.value
    }

    func run(_ session: Session) async throws(CLIError) -> ExitCode {
        let context = session.context
        // Following, SIGHUP reloads the config (`DeliverReload`) instead of stopping.
        if follow { _ = session.stopSignals(reloadsOnHangUp: true) }
        try Self.checkBookkeeping(session)
        _ = try session.maker(attachingPlugins: true)
        let runners = Self.runners(session)
        guard !runners.isEmpty else {
            if !context.settings.quiet { context.console.print(Catalog.Delivery.noDurableSubscribers) }
            return .success
        }
        let stop = session.stopSignals()
        if follow {
            for runner in runners { runner.delivery.follow() }
            if !context.settings.quiet {
                context.console.standardError.write(Catalog.Delivery.following(runners.map(\.name))(context.language) + "\n")
            }
            let compaction = FollowCompaction(session)
            async let compacted: Void = compaction?.run(stop: stop) ?? ()
            var config = context.config
            for await _ in stop.reloads where !stop.isRequested {
                config = await DeliverReload.reload(session, current: config)
            }
            await stop.requested()
            await compacted
            return .success  // the runner makes it 128 + the signal
        }
        // Read before any lease is taken: a command that commits after this and finds a
        // lease held leaves its events to this run.
        let journal = try session.journal()
        let lastBefore: Int64
        do throws(StoreError) {
            lastBefore = try journal.lastSequence()
        } catch {
            throw CLIError(.storeIO, Catalog.Errors.store(error))
        }
        var outcomes = await Self.deliverAll(runners, stop: stop, flushDeadline: context.config.flushDeadlineSeconds) { delivery in
            await delivery.deliverPending(waitingAtMost: Self.patience)
        }
        if !leavesHeldLeases { outcomes = try await Self.awaitOtherHolders(outcomes, runners, session: session, stop: stop) }
        // Events committed while this run held the leases, by commands that left them to
        // it, are handed on when it closes: after a run that moved a cursor, or one during
        // which events were committed (a run that had nothing to move, holding a lease when
        // a command committed, would otherwise strand that command's events until the next
        // command). A subscriber that cannot move starts no chain: without new commits,
        // a run that moved nothing hands nothing on.
        let moved = outcomes.contains { $0.statistics.delivered + $0.statistics.deadLettered + $0.statistics.skipped > 0 }
        let committedMeanwhile = ((try? journal.lastSequence()) ?? lastBefore) > lastBefore
        session.handsOffDelivery = moved || committedMeanwhile
        return Self.report(outcomes, context: context)
    }

    /// Reads each durable subscriber's cursor and retry state before any runner starts:
    /// a runner waits out a store that does not answer, and one whose bookkeeping holds
    /// a value the store never writes (damage) would wait for ever. Said here, once.
    private static func checkBookkeeping(_ session: Session) throws(CLIError) {
        let names = session.builtPlugins.compactMap { $0.durable == nil ? nil : $0.entry.name }
        guard !names.isEmpty else { return }
        let journal = try session.journal()
        do throws(StoreError) {
            for name in names {
                _ = try journal.cursor(named: name)
                _ = try journal.retryState(for: name)
            }
        } catch {
            throw CLIError(.storeIO, Catalog.Errors.store(error))
        }
    }

    /// A subscriber whose lease another process holds is waited for, up to `patience`,
    /// while its journal still has events after its cursor: the holder is most often
    /// the background `juice deliver` a `juice order` just started, and a person who
    /// runs `juice deliver` wants what is left delivered (or its failure seen), not
    /// "left to another process". Once the holder has delivered everything, or the
    /// lease stays held (a `juice deliver --follow` on an endpoint that is down), the
    /// outcome stays "left to another process".
    ///
    /// Between looks it waits as a following runner does, on a thread of its own: woken
    /// by any commit the store sees (the holder moving its cursor, recording a retry),
    /// and trying the lease again every `DurableDelivery.leaseRetryInterval` (a holder
    /// may let go without committing); a stop signal ends the wait at once.
    static func awaitOtherHolders(
        _ outcomes: [(name: String, phase: DeliveryPhase, statistics: DeliveryStatistics)],
        _ runners: [(name: String, delivery: DurableDelivery)], session: Session, stop: StopSignals
    ) async throws(CLIError) -> [(name: String, phase: DeliveryPhase, statistics: DeliveryStatistics)] {
        var outcomes = outcomes
        let journal = try session.journal()
        let deadline = ContinuousClock.now + patience
        while !stop.isRequested, ContinuousClock.now < deadline {
            var waiting: [Int] = []
            let version: Int64?
            do {
                // Read before the cursors, so a commit after the look ends the wait.
                version = try (journal as? SQLiteStore)?.commitVersion()
                let last = try journal.lastSequence()
                for (index, outcome) in outcomes.enumerated() where outcome.phase == .leftToAnotherRunner {
                    if try journal.cursor(named: outcome.name) < last { waiting.append(index) }
                }
            } catch {
                throw CLIError(.storeIO, Catalog.Errors.store(error))
            }
            guard !waiting.isEmpty else { break }
            let bound = min(deadline, ContinuousClock.now + DurableDelivery.leaseRetryInterval)
            await waitForCommit(journal, after: version, until: bound, stop: stop)
            let again = await deliverAll(waiting.map { runners[$0] }, stop: stop, flushDeadline: session.context.config.flushDeadlineSeconds) {
                await $0.deliverPending(waitingAtMost: patience)
            }
            for (index, outcome) in zip(waiting, again) { outcomes[index] = outcome }
        }
        return outcomes
    }

    /// Returns at a commit after `version` in the SQLite store (another store has no
    /// other process to wait for), at `deadline`, or at a stop signal.
    private static func waitForCommit(
        _ journal: any DeliveryJournal, after version: Int64?, until deadline: ContinuousClock.Instant, stop: StopSignals
    ) async {
        guard let store = journal as? SQLiteStore, let version else { return }
        // A stop ends the wait; the thread looking at the store ends by `deadline`.
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    startDetachedThread(named: "juice.deliver.wait") {
                        _ = try? store.waitForCommit(after: version, timeout: deadline - .now)
                        continuation.resume()
                    }
                }
            }
            group.addTask { await stop.requested() }
            await group.next()
            group.cancelAll()
        }
    }

    /// The enabled durable subscribers, attached, in config order.
    static func runners(_ session: Session) -> [(name: String, delivery: DurableDelivery)] {
        session.builtPlugins.compactMap { built in
            guard let delivery = built.durable?.delivery else { return nil }
            return (built.entry.name, delivery)
        }
    }

    /// Runs `body` for every runner at once; outcomes in the runners' order. A stop
    /// signal meanwhile shuts the runners down by `flushDeadline` seconds, so `body`
    /// returns then (what was not delivered stays in the journal).
    static func deliverAll(
        _ runners: [(name: String, delivery: DurableDelivery)],
        stop: StopSignals,
        flushDeadline: Double,
        _ body: @escaping @Sendable (DurableDelivery) async -> DeliveryPhase
    ) async -> [(name: String, phase: DeliveryPhase, statistics: DeliveryStatistics)] {
        var phases: [Int: DeliveryPhase] = [:]
        await withTaskGroup(of: (index: Int, phase: DeliveryPhase)?.self) { group in
            for (index, runner) in runners.enumerated() {
                let delivery = runner.delivery
                group.addTask { (index, await body(delivery)) }
            }
            group.addTask {
                await stop.requested()  // cancelled below once every runner answered
                guard stop.isRequested else { return nil }
                let deadline = ContinuousClock.now + .milliseconds(Int(flushDeadline * 1000))
                for runner in runners { await runner.delivery.shutdown(deadline: deadline) }
                return nil
            }
            var answered = 0
            while answered < runners.count, let next = await group.next() {
                guard let answer = next else { continue }
                phases[answer.index] = answer.phase
                answered += 1
            }
            group.cancelAll()
        }
        return runners.enumerated().map { index, runner in
            (runner.name, phases[index] ?? .stopped, runner.delivery.statistics)
        }
    }

    /// One line per subscriber (or a JSON array); the exit code.
    static func report(_ outcomes: [(name: String, phase: DeliveryPhase, statistics: DeliveryStatistics)], context: CommandContext) -> ExitCode {
        var allCaughtUp = true
        var items: [JSONValue] = []
        for outcome in outcomes {
            let delivered = outcome.statistics.delivered
            var members: [(key: String, value: JSONValue)] = [
                ("name", .string(outcome.name)), ("delivered", .integer(delivered)),
                ("deadLettered", .integer(outcome.statistics.deadLettered)),
                ("redelivered", .integer(outcome.statistics.redelivered)),
            ]
            let line: LocalizedText
            switch outcome.phase {
            case .caughtUp:
                members.append(("state", .string("caughtUp")))
                line = Catalog.Delivery.caughtUp(outcome.name, delivered: delivered, deadLettered: outcome.statistics.deadLettered)
            case .waitingForRetry(let until):
                allCaughtUp = false
                members += [("state", .string("waiting")), ("nextAttempt", .string(RFC3339.format(Date(timeIntervalSince1970: until))))]
                line = Catalog.Delivery.waiting(outcome.name, delivered: delivered, until: until)
            case .disabled(let reason):
                allCaughtUp = false
                members += [("state", .string("stopped")), ("reason", .string(reason))]
                line = Catalog.Delivery.disabled(outcome.name, reason: reason)
            case .leftToAnotherRunner:
                members.append(("state", .string("leftToAnotherProcess")))
                line = Catalog.Delivery.leftToAnotherProcess(outcome.name)
            case .starting, .delivering, .stopped:
                allCaughtUp = false
                members.append(("state", .string("unfinished")))
                line = Catalog.Delivery.waiting(outcome.name, delivered: delivered, until: Date().timeIntervalSince1970)
            }
            items.append(.object(members))
            if outcome.statistics.redelivered > 0, !context.settings.json, !context.settings.quiet {
                context.console.print(Catalog.Delivery.redelivered(outcome.name, count: outcome.statistics.redelivered))
            }
            if !context.settings.json, !context.settings.quiet { context.console.print(line) }
        }
        if context.settings.json { context.console.print(JSONWriter.compact(.array(items))) }
        return allCaughtUp ? .success : .tryLater
    }
}
