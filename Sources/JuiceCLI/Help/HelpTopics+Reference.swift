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
                HelpItem(
                    "juice store check",
                    "PRAGMA integrity_check, then the rollups (every row a sum of one of the report's kinds, no journal row "
                        + "at or before where history starts); exit 74 and the mark when damage is found. Says where history "
                        + "starts once compaction has run."),
                HelpItem(
                    "juice store backup FILE",
                    "A consistent copy taken while other processes write, written into FILE.partial-<pid> beside FILE, checked "
                        + "with PRAGMA quick_check, and given the name FILE only once complete (never over a file that appeared "
                        + "meanwhile). A store marked damaged is not backed up (exit 74): the copy would carry the damage. Damage "
                        + "found in the copy marks the store and removes the copy."),
                HelpItem(
                    "juice store recover --to FILE",
                    "Saves what is readable of a damaged store into a new store: the journal in sequence order, each fruit's "
                        + "stock, cursors, dead letters and retry states. Where SQLite stops (a damaged page, a file cut short) "
                        + "every page of the file is read directly, so a damaged page costs only its own rows; a header whose "
                        + "page size does not fit the pages is said and read past. Every row, whichever way it was read, is "
                        + "checked before it is written (its columns' types and ranges, UTF-8, an event that agrees with its "
                        + "columns): one that fails is counted as damaged and left out, and never stops the run. New events are "
                        + "numbered after the last sequence the old file was seen to reach, so no number is given twice; for "
                        + "each durable subscriber, the events it had not been sent that are gone are listed, and juice "
                        + "subscribers shows them until juice subscribers acknowledge NAME. Move FILE into place with no juice "
                        + "running; the mark applies to the old file only. A recovery that fails removes every file it made."),
            ]),
            .paragraph(
                "Retention (store.retention, e.g. 400d; default: keep every event). juice store compact, and juice deliver "
                    + "--follow at most once a day while store.retention is set, sort the journal into three parts:"),
            .items([
                HelpItem(
                    "kept",
                    "Every event newer than the retention; every event a durable subscriber (any cursor, and every durable "
                        + "subscriber in the config, one without a cursor counting as at 0) has not passed; every event "
                        + "from the oldest a dead letter or retry state names on; and always the newest event, so numbering "
                        + "goes on after it and no sequence is given twice."),
                HelpItem(
                    "folded",
                    "The older events' sums, per hour, as the report reads them (sales, lost sales, shortages, fruit used), "
                        + "go into the store's rollups before the events go: juice report and juice metrics read the same "
                        + "before and after, and a report's projection started over starts from the rollups. store recover "
                        + "keeps them."),
                HelpItem(
                    "gone",
                    "The events themselves: their ids, times to the millisecond and data. juice events, juice watch --since "
                        + "and a new or rewound subscriber start where history starts. Each write transaction deletes at most "
                        + "500 events, so an order waits at most one such transaction. The freed pages go back to the file "
                        + "system, 256 at a time. A store an older juice created reuses them for new events instead (the file "
                        + "stops growing, it does not shrink) until juice store compact --rewrite rewrites it once; orders wait "
                        + "while that runs."),
            ]),
            .paragraph("A store file that is not whole, command by command:"),
            .items([
                HelpItem(
                    "cut short (a partial copy)",
                    "store recover saves what its pages hold and says how many bytes are missing (later events may be lost); "
                        + "every other command exits 74 (the file is cut short), pointing to store recover."),
                HelpItem(
                    "empty (0 bytes)",
                    "store recover, check and backup exit 74 (the file is empty) and create nothing; any other command makes it "
                        + "a new store, mode 0600."),
                HelpItem(
                    "header damaged",
                    "store recover saves what the other pages hold; every other command exits 74 (not a database), "
                        + "pointing to store recover."),
                HelpItem(
                    "nothing readable",
                    "Not a database, too short for a header, or no page readable: every command exits 74; store recover says to "
                        + "restore a backup or move the file aside, and writes no new file."),
                HelpItem(
                    "marked damaged",
                    "store recover saves what is readable; store check lists the problems; store backup exits 74; queries "
                        + "answer and changes exit 74."),
            ]),
            .paragraph(
                "A full disk is said as such (the disk is full) whether SQLite was writing the file, its -wal or its -shm."),
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
                HelpItem(
                    "FILE.partial-<pid>",
                    "A backup or recovery being written; a killed copy's can be deleted. It is never taken for a store."),
                HelpItem(
                    "<store>-wal.from-damaged-<inode>",
                    "With <store>-shm.from-damaged-<inode> and <store>.damaged.from-damaged-<inode>: a damaged file's -wal, -shm "
                        + "and mark, set aside by the first process to open alone the recovered store moved into place."),
                HelpItem("juice-maker.prom", "The metrics subscriber's textfile (its path), in the store's directory by default."),
                HelpItem("./config/juice-maker.json", "The config used when juice runs in the repository."),
                HelpItem("~/.config/juice-maker/config.json", "The user's config (under $XDG_CONFIG_HOME when it is set)."),
                HelpItem("config/juice-maker.schema.json", "The config's JSON Schema, as juice config schema prints it."),
                HelpItem(
                    "config/juice-deliver.service",
                    "A systemd unit that runs juice deliver --follow; its comments say how to install it (juice help metrics)."),
            ]),
            .paragraph(
                "Every file juice opens passes one gate, and nothing waits to open. What juice reads (the config, the store, "
                    + "TLS files, NATS credentials) must be a regular file: a directory, a FIFO (a pipe such as /dev/stdin too) "
                    + "or a device is refused at once, named in the error (exit 78 for a config or a file it names, 74 for a "
                    + "store). TLS files must be PEM, credentials a NATS .creds file."),
            .paragraph(
                "What juice writes (report --svg, the logger's and the metrics subscriber's path, a backup, a recovered "
                    + "store) goes to a regular file, a character device such as /dev/null, or a FIFO that a process is reading "
                    + "(report --svg >(gzip > charts.svg.gz)); a FIFO nobody reads is refused at once, and a write to one whose "
                    + "reader stops gives up after 10 s. Output never goes onto the store or its -wal, -shm and -journal files, "
                    + "compared by device and inode, so a link or another spelling of the path is refused too (exit 74 for a "
                    + "command's output, 78 for a subscriber's path in the config; a subscriber's path that is no file it can "
                    + "write is said once when it is opened, and orders go on)."),
        ])

    static let signals = HelpTopic(
        name: "signals", heading: "SIGNALS", summary: "what Ctrl-C, SIGTERM and SIGHUP do",
        blocks: [
            .paragraph(
                "SIGINT (Ctrl-C), SIGTERM and SIGHUP never cut a change in half. The running order or apply finishes; a screen, "
                    + "juice watch or juice deliver --follow returns at once; the bus is drained and plugins shut down by "
                    + "flushDeadlineSeconds (a durable subscriber leaves what it did not deliver in the journal); then juice exits "
                    + "with 128 plus the signal: 130, 143 or 129. A second signal during that bounded shutdown is ignored, except "
                    + "that a SIGINT or SIGTERM replaces a SIGHUP as the exit status: the SIGHUP a service manager sends right "
                    + "after its SIGTERM (systemd's SendSIGHUP=yes) may arrive first, and SIGTERM with SIGHUP exits 143 either "
                    + "way. A signal the process was started ignoring stays ignored (nohup juice deliver --follow survives the "
                    + "terminal closing). A command that failed keeps its own exit status."),
            .paragraph(
                "A screen whose terminal hung up (a read ends or fails with EIO and the terminal's attributes can no longer be "
                    + "read) stops as if SIGHUP had come, exit 129, also when the SIGHUP comes late or never."),
            .paragraph(
                "Except juice deliver --follow, where SIGHUP reloads the config. It is a daemon: under systemd it has no "
                    + "terminal to lose, and SIGHUP is how daemons are told to reload (systemctl reload, ExecReload). It reads "
                    + "the config file it started with again and applies what changed among its durable subscribers: an added "
                    + "one starts from its cursor, a removed one stops as at exit, a changed one stops and starts again from "
                    + "its cursor, an unchanged one is not touched. No event is lost, and at most the deliveries a changed or "
                    + "removed subscriber had in flight (its maxInFlight) are sent again, once. A config that does not pass "
                    + "the checks of juice config check is refused with one line on stderr and the one in use stays. Other "
                    + "keys (store, retention, language, flushDeadlineSeconds, subscribers that are not durable) take effect "
                    + "at the next start. Stop it with Ctrl-C or SIGTERM; run from a terminal you close, it keeps running."),
            .paragraph(
                "Under systemd, a juice deliver --follow service stopped with SIGTERM exits 143: count it as success "
                    + "(SuccessExitStatus=143), as config/juice-deliver.service does; systemctl reload sends it SIGHUP "
                    + "(ExecReload)."),
        ])

    static let report = HelpTopic(
        name: "report", heading: "REPORT", summary: "the report's window, its dates and where --svg writes",
        blocks: [
            .paragraph(
                "juice report shows one window of the journal (--since 7d by default; 24h, 30d, 2w or a date 2026-11-01, UTC): "
                    + "sales per juice, lost sales, fruit consumed per period (--by hour, day or week), the stock now and how long "
                    + "it lasts at the window's rate. A window is made of whole hours: it starts at the beginning of the hour "
                    + "that held its start (or at the date's midnight) and ends now; --at TIME ends it at the end of that hour "
                    + "instead (a time in the future exits 65). A date is bounded as a duration is: from the day 3650 days before "
                    + "the window's end up to today; an earlier one exits 65 naming the first day allowed, a later one exits 65 "
                    + "too. A window given as a date reads at the rate since that date."),
            .paragraph(
                "A report never waits for another process's writer: when the store's write lock is taken (or the store may "
                    + "not be written) it folds the journal's new events in memory for that answer instead: the same figures, "
                    + "nothing stored."),
            .paragraph("--svg FILE writes the same charts as one standalone SVG (no scripts, no external resources). FILE may be:"),
            .items([
                HelpItem(
                    "missing, or a regular file",
                    "Replaced atomically: a temporary file beside it, renamed over it; a file replaced keeps its mode and owner."),
                HelpItem(
                    "a symbolic link", "Followed, and these rules apply to its target; the link stays a link (--svg /dev/stdout)."),
                HelpItem("a FIFO or a device", "Written through: its reader gets the SVG, /dev/null stays a device."),
                HelpItem("a directory or a socket", "Refused, exit 74. Nothing that is not a regular file is ever renamed over."),
                HelpItem("-", "The SVG alone on standard output; not with --json (exit 64)."),
            ]),
        ])

    static let metrics = HelpTopic(
        name: "metrics", heading: "METRICS",
        summary: "Prometheus figures: the metrics subscriber, juice metrics, juice fleet metrics, the service unit",
        blocks: [
            .paragraph(
                "A metrics subscriber ({\"type\": \"metrics\", \"path\": \"juice-maker.prom\"}; a relative path is in the store's "
                    + "directory) writes the store's figures in Prometheus' text format, for node_exporter's textfile collector, "
                    + "after each change committed by any process while it runs. Each write goes to a temporary file in the same "
                    + "directory, renamed into place, so a reader never sees half a file. The path follows the rules of "
                    + "juice report --svg (juice help report): a symbolic link is followed and stays a link, and the file replaced "
                    + "keeps its mode and owner (a 0600 file stays private). juice metrics prints the same text, read now."),
            .items([
                HelpItem("juicemaker_juices_made_total{juice}", "Counter: cups made, over the whole journal."),
                HelpItem("juicemaker_orders_failed_total{juice}", "Counter: orders refused for lack of fruit."),
                HelpItem("juicemaker_fruit_consumed_total{fruit}", "Counter: fruit used by the juices made."),
                HelpItem("juicemaker_journal_events_total", "Counter: the journal's length."),
                HelpItem("juicemaker_fruit_in_stock{fruit}", "Gauge: the stock."),
                HelpItem("juicemaker_store_size_bytes", "Gauge: the store file and its -wal on disk."),
                HelpItem("juicemaker_subscriber_lag_events{subscriber}", "Gauge: journal events after a durable subscriber's cursor."),
                HelpItem("juicemaker_subscriber_dead_letters{subscriber}", "Gauge: its dead letters."),
                HelpItem(
                    "juicemaker_subscriber_last_success_timestamp_seconds{subscriber}", "Gauge: when it last delivered (Unix time)."),
            ]),
            .paragraph(
                "Counters are sums over the whole journal: a restart never resets them. A store recovered from damage "
                    + "(juice store recover) sums its recovered journal again: where events were lost, its counters are lower "
                    + "than the damaged store's were, which a scraper reads as a counter reset (rate() and increase() handle "
                    + "it); they never count an event twice. The subscriber gauges cover each "
                    + "durable subscriber with a cursor or dead letters; in the textfile, lag and last success are as of the last "
                    + "change, and juice metrics reads them now."),
            .paragraph(
                "juice fleet metrics prints the fleet's figures, read from every message the fleet's stream retains, under the "
                    + "same names with a machine label first: juicemaker_juices_made_total{machine,juice}, "
                    + "juicemaker_orders_failed_total{machine,juice}, juicemaker_fruit_consumed_total{machine,fruit}, "
                    + "juicemaker_fruit_in_stock{machine,fruit} (after the machine's last stock.changed there; none for a fruit it "
                    + "did not change) and juicemaker_fleet_events_total{machine}. An event stored twice is counted once; a "
                    + "message that is not a machine's event is skipped with one stderr line and counted nowhere. Its counters "
                    + "count what the stream retains, not the machines' journals: when retention (maxAge, maxBytes) drops old "
                    + "messages they go down, which a rate reads as a reset; their HELP says so. Exit codes as juice fleet "
                    + "stock (juice help fleet)."),
            .paragraph(
                "config/juice-deliver.service runs juice deliver --follow under systemd: the store in /var/lib/juice-maker "
                    + "(StateDirectory=), the config in /etc/juice-maker, SIGTERM's 143 counted as success, restarted on failure, "
                    + "hardened (ProtectSystem=strict, ProtectHome=yes), with /var/lib/prometheus/node-exporter writable for the "
                    + "textfile. Its comments say how to install it."),
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
