/// The written topics: what a user looks up about the store, delivery, the fleet, the
/// event format, files and signals. Each states behaviour that tests hold; when the
/// behaviour changes, the sentence here changes with it.
extension HelpTopics {
    static let store = HelpTopic(
        name: "store", heading: "STORE", summary: "the SQLite store: where it is, what is safe, damage and recovery",
        blocks: [
            .paragraph(
                "One SQLite file holds the stock, the journal of events and the delivery state. Chosen by, first match wins: "
                    + "--in-memory, --store, $JUICE_MAKER_STORE, the config's store.path, else "
                    + "$XDG_STATE_HOME/juice-maker/juice.db or ~/.local/state/juice-maker/juice.db (directories created "
                    + "user-only for this default location only; elsewhere a missing directory exits 74)."),
            .paragraph(
                "WAL, a busy timeout, BEGIN IMMEDIATE for writes, CHECK (quantity >= 0), a schema version with forward "
                    + "migrations and an application id, so another program's database is never mistaken for a store. The stock "
                    + "change and its journal rows commit in one transaction; several juice processes may share one file. Queries "
                    + "(stock, events, report) never wait for another process's writer. The file and everything kept beside it "
                    + "are created 0600."),
            .paragraph(
                "A store the user may only read opens read-only: queries work, a change exits 74. A foreign or newer file is "
                    + "refused and never written."),
            .paragraph(
                "A damaged store is never written. Damage is looked for when a store opens after anything but a clean close, "
                    + "in the background as the journal grows, whenever SQLite reports it, and by juice store check. Damage seen "
                    + "is marked beside the file (<store>.damaged, naming the file's device and inode); while the mark is there, "
                    + "every change exits 74 with the way out, and queries that do not reach the damage still answer."),
            .items([
                HelpItem("juice store check", "PRAGMA integrity_check; exit 74 and the mark when damage is found."),
                HelpItem(
                    "juice store backup FILE",
                    "A consistent copy taken while other processes write; written beside FILE and given its name only once complete."),
                HelpItem(
                    "juice store recover --to FILE",
                    "Saves what is readable of a damaged store into a new store: the journal in sequence order (a damaged page "
                        + "costs only its own rows), each fruit's stock, cursors, dead letters and retry states. Move FILE into "
                        + "place with no juice running."),
            ]),
        ])

    static let delivery = HelpTopic(
        name: "delivery", heading: "DELIVERY", summary: "durable subscribers (webhook, command, nats): cursors, retries, leases",
        blocks: [
            .paragraph(
                "A durable subscriber keeps a cursor under its name in the store, reads the journal after it, and moves the "
                    + "cursor only after a delivery succeeded. Bus events only wake it; the journal is the truth, so a crash, a kill "
                    + "or a dead endpoint delays delivery but never loses an event. Delivery is at least once: the event id is the "
                    + "idempotency key and is the same on every attempt; deduplicate on it."),
            .paragraph(
                "A failure is retried on retrySchedule (attempts and the next attempt are kept in the store); after the last "
                    + "attempt the event becomes a dead letter and delivery moves on. juice subscribers shows each subscriber's "
                    + "cursor, lag, next attempt and dead letters; juice subscribers retry NAME [--dead-letters] resumes it."),
            .paragraph(
                "One process delivers a subscriber's events at a time: the holder of its lease (a flock on "
                    + "<store>.lease-NAME, freed by the kernel when the holder exits). juice order and juice stock commit, print and "
                    + "exit, and leave delivery to a background juice deliver started after they exit (backgroundDelivery, on by "
                    + "default). A failing background delivery is reported by the next command, one line per subscriber."),
            .paragraph(
                "A webhook keeps up to maxInFlight requests in flight (default 16), each on a kept connection of its own, and "
                    + "moves its cursor only over the contiguous prefix of delivered events: events in flight arrive in any order, "
                    + "and a crash or kill -9 sends at most maxInFlight of them again. A failing event keeps its own retry schedule; "
                    + "the window cannot slide past it, so at most maxInFlight - 1 later events go out until it is delivered or a "
                    + "dead letter. 410 Gone stops the subscriber at once; 429 or 503 with Retry-After pauses every request to "
                    + "the endpoint until then. maxInFlight 1, or ordered: true, sends one at a time in journal order, at one "
                    + "round trip per event (20 events/s at 50 ms). Receivers deduplicate on webhook-id and sort by the body's "
                    + "sequence if they need order. juice subscribers shows each subscriber's IN FLIGHT; juice fleet deliver "
                    + "keeps the same window (fleet.maxAckPending must be at least maxInFlight)."),
            .paragraph(
                "A webhook request carries the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature "
                    + "with HMAC-SHA256 when a secret is set) and the event as CloudEvents JSON; a 2xx is success, 410 Gone stops "
                    + "the subscriber, 429 and 503 honour Retry-After. A command subscriber's program reads one event per line "
                    + "on its standard input."),
        ])

    static let fleet = HelpTopic(
        name: "fleet", heading: "FLEET", summary: "many machines on one NATS JetStream stream",
        blocks: [
            .paragraph(
                "Each machine keeps its own store, the truth for that machine; a durable nats subscriber publishes its events to "
                    + "a NATS JetStream stream (JUICEMAKER by default), to <prefix>.<machine>.<kind>.<subject> "
                    + "(juicemaker.shop-1.stock.changed.kiwi) with Nats-Msg-Id set to the event id. The fleet commands read that "
                    + "stream: juice fleet watch follows it, juice fleet stock shows each machine's last stock, juice fleet "
                    + "deliver feeds the webhook, command and logger subscribers from a durable JetStream consumer."),
            .paragraph(
                "Publishing moves the journal cursor only past events whose PubAck is in, in journal order; a resend carries the "
                    + "same Nats-Msg-Id, so the stream's duplicate window drops it. Delivery from the stream acknowledges a message "
                    + "only after the plugin delivered it: at least once, deduplicate on the event id."),
            .paragraph(
                "What the stream holds came from other machines and is untrusted: it is shown with control characters escaped. "
                    + "The fleet commands take --nats URL or the config's fleet.url; with neither, or with a bad value, they exit "
                    + "78; with no server answering, or a build without the NATS client, 69."),
        ])

    static let events = HelpTopic(
        name: "events", heading: "EVENT FORMAT", summary: "the CloudEvents JSON every plugin sends",
        blocks: [
            .paragraph(
                "One wire format everywhere (logger JSON lines, webhook bodies, command stdin, the fleet's stream): CloudEvents "
                    + "1.0, structured JSON. id is a time-ordered UUIDv7 and the idempotency key; sequence is the journal position "
                    + "as a zero-padded decimal string; subject names the fruit or juice; data.changeId is shared by every event "
                    + "of one change; source is /juice-maker/<machine>."),
            .items([
                HelpItem("juicemaker.stock.changed", "data: changeId, fruit, from, to, reason (order, restock or edit)."),
                HelpItem("juicemaker.juice.made", "data: changeId, juice, count, consumed (fruit id to amount)."),
                HelpItem("juicemaker.order.failed", "data: changeId, juice, count, shortages (fruit id to amount missing)."),
            ]),
            .paragraph(
                "An order writes juiceMade, then one stockChanged per fruit used (or one orderFailed); a restock or an edit "
                    + "writes one stockChanged per fruit that changed."),
        ])

    static let files = HelpTopic(
        name: "files", heading: "FILES", summary: "the files juice reads and writes",
        blocks: [
            .items([
                HelpItem("~/.local/state/juice-maker/juice.db", "The default store (under $XDG_STATE_HOME when it is set)."),
                HelpItem("<store>-wal, <store>-shm", "SQLite's write-ahead log and its index."),
                HelpItem("<store>.clean", "The record of a clean close; without it the next opener checks for damage."),
                HelpItem("<store>.damaged", "The damage mark: changes are refused while it names the store file."),
                HelpItem("<store>.lease-NAME", "The lease of durable subscriber NAME: whoever holds its lock delivers."),
                HelpItem("./config/juice-maker.json", "The config used when juice runs in the repository."),
                HelpItem("~/.config/juice-maker/config.json", "The user's config (under $XDG_CONFIG_HOME when it is set)."),
                HelpItem("config/juice-maker.schema.json", "The config's JSON Schema, as juice config schema prints it."),
            ])
        ])

    static let signals = HelpTopic(
        name: "signals", heading: "SIGNALS", summary: "what Ctrl-C, SIGTERM and SIGHUP do",
        blocks: [
            .paragraph(
                "SIGINT (Ctrl-C), SIGTERM and SIGHUP never cut a change in half. The running order or apply finishes; a screen, "
                    + "juice watch or juice deliver --follow returns at once; the bus is drained and plugins shut down by "
                    + "flushDeadlineSeconds (a durable subscriber leaves what it did not deliver in the journal); then juice exits "
                    + "with 128 plus the signal: 130, 143 or 129. A second signal during that bounded shutdown is ignored. A signal "
                    + "the process was started ignoring stays ignored (nohup juice deliver --follow survives the terminal closing). "
                    + "A command that failed keeps its own exit status."),
            .paragraph(
                "A terminal that goes away under a screen (its input ends with an error, or a hang-up) is a hang-up: exit 129."),
        ])

    static let examples = HelpTopic(
        name: "examples", heading: "EXAMPLES", summary: "a few command lines",
        blocks: [
            .literal([
                "juice order mango-kiwi --count 2",
                "juice stock set strawberry=20 kiwi=5",
                "juice events --since 10 --type juiceMade --json",
                "juice report --since 7d --by day",
                "juice deliver --follow",
                "juice config check && juice config show",
                "juice store backup /backups/juice.db",
            ])
        ])
}
