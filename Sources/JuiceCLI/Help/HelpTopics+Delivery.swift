/// The written topics on delivery: durable subscribers, and the fleet.
extension HelpTopics {
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
                "A receiver that lost data asks for it again with juice subscribers rewind NAME --to SEQUENCE|TIME: the cursor "
                    + "moves back to just before that event (or the first event at or after that time), its retry state goes, and "
                    + "the next juice deliver sends the events again with the ids the receiver already has. It never moves a "
                    + "cursor forward, nor before where history starts (store.retention; refused with one line saying where, "
                    + "exit 65), and it needs the subscriber's lease (exit 75 while a juice deliver --follow holds it). juice "
                    + "subscribers shows the last rewind and, while the events are sent again, how many are left. A fleet "
                    + "subscriber (NAME@fleet) is rewound on the server: its consumer is created again at that stream sequence "
                    + "(what juice subscribers shows as its cursor) or at the first message stored at or after that time, and the "
                    + "next juice fleet deliver sends from there; refused while a juice fleet deliver reads the consumer (exit "
                    + "75) and before where the stream's history starts (its maxAge or maxBytes dropped the messages; exit 65)."),
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
                    + "round trip per event (20 events/s at 50 ms). juice subscribers shows each subscriber's IN FLIGHT; juice fleet "
                    + "deliver keeps the same window (fleet.maxAckPending must be at least maxInFlight)."),
            .paragraph(
                "What a receiver can rely on, for local and fleet delivery alike: the body is the event as the machine that "
                    + "made it journaled it: its id, source, time, type, data and sequence are the machine's. Its id (webhook-id, the CloudEvents id) is "
                    + "unique and the same on every attempt and from every deliverer: deduplicate on it, for as long as a "
                    + "redelivery can come (a retry schedule, a dead letter retried, a stream re-read). Its source names the "
                    + "machine, and its sequence is that machine's journal position: one machine's events have sequences 1, 2, 3 and on "
                    + "without gaps, so sort by (source, sequence) for a machine's order and look for gaps to find what has not "
                    + "come yet. Arrival order is not that order: in-flight requests, retries and redeliveries come in any order. "
                    + "An event delivered by juice fleet deliver also carries streamsequence, its position in the fleet's NATS "
                    + "stream (one order across all machines, begun again if the stream is created anew); the machines' own "
                    + "sequence is never replaced."),
            .paragraph(
                "A webhook request carries the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature "
                    + "with HMAC-SHA256 when a secret is set) and the event as CloudEvents JSON; a 2xx is success, 410 Gone stops "
                    + "the subscriber, 429 and 503 honour Retry-After. A command subscriber's program reads one event per line "
                    + "on its standard input."),
            .paragraph(
                "A command subscriber's program leads a process group of its own: signals go to the whole group, and when the "
                    + "program exits or is killed, whatever it started and left running is killed too. Its stderr is relayed "
                    + "line by line, 20 lines at once and then one a second; one line says what was cut (audit: 4986 more stderr "
                    + "lines (4981014 bytes) not shown). A line longer than 64 KiB counts as one line."),
        ])

    static let fleet = HelpTopic(
        name: "fleet", heading: "FLEET", summary: "many machines on one NATS JetStream stream",
        blocks: [
            .paragraph(
                "Each machine keeps its own store, the truth for that machine; a durable nats subscriber publishes its events to "
                    + "a NATS JetStream stream (JUICEMAKER by default), to <prefix>.<machine>.<kind>.<subject> "
                    + "(juicemaker.shop-1.stock.changed.kiwi) with the headers content-type: application/cloudevents+json (lower "
                    + "case, as the CloudEvents NATS binding reads it) and Nats-Msg-Id: the event id. The fleet commands read "
                    + "that stream: juice fleet watch follows it, juice fleet stock shows each machine's last stock, juice fleet "
                    + "metrics prints each machine's figures for Prometheus (juice help metrics), juice fleet deliver feeds the webhook, command and logger subscribers from it."
            ),
            .paragraph(
                "Publishing moves the journal cursor only past events whose PubAck is in, in journal order; a resend carries the "
                    + "same Nats-Msg-Id, so the stream's duplicate window drops it."),
            .paragraph(
                "Retention is the operator's: a nats subscriber's maxAge, maxBytes and discard (old drops the oldest messages, "
                    + "new refuses new ones and publishing retries) set the stream's limits when it is created, and bring an "
                    + "existing stream to them on each new connection; limits left out stay as they are, and without any the "
                    + "stream keeps everything. What ages out is gone for every reader: juice fleet stock then says so under its "
                    + "table and no longer lists a machine idle longer than maxAge."),
            .paragraph(
                "juice fleet deliver gives each webhook, command and logger subscriber a durable consumer named after it and "
                    + "acknowledges a message only after the plugin delivered it: at least once, deduplicate on the event id. No "
                    + "exit deletes the consumer, so each run goes on where the last one stopped; it lives until an operator "
                    + "deletes it (nats consumer rm JUICEMAKER NAME). A new consumer starts at fleet.deliverPolicy: all (the "
                    + "stream's whole history, the default) or new; fleet.ackWait and fleet.maxAckPending are set on it, and on an existing one "
                    + "when they differ. An existing consumer keeps what NATS does not let change (its deliver policy and start): "
                    + "one stderr line says so, and delivery goes on. Several deliverers of one subscriber share its consumer, each message going to one of "
                    + "them. A consumer deleted under a running deliverer is created again from the ack floor it last saw, said "
                    + "in one stderr line. A deliverer knows which stream it reads (when the server created it): a stream deleted "
                    + "and created again, even within a second, is a new history, read from its first message and said in one "
                    + "line; events this deliverer already delivered (by event id) are not sent again. A stream that is gone is "
                    + "said at once and every minute while it stays gone; delivery goes on by itself when it returns (juice fleet watch "
                    + "says the same, and shows a new stream from its first message). A lost connection "
                    + "to the server is one stderr line, and its return another with how long it was away (every fleet command). A message being delivered or waiting for a retry is kept in progress. A deliverer "
                    + "that stops (done, SIGTERM, Ctrl-C) hands back what it still holds once its deliveries have stopped (by "
                    + "flushDeadlineSeconds), for another deliverer or the next run at once; a killed deliverer's "
                    + "unacknowledged messages come again after the ack wait. A message that comes back after later ones "
                    + "were delivered is still delivered. The CLI notifier is not run there "
                    + "(that is juice fleet watch)."),
            .paragraph(
                "That delivery's retry state and dead letters are kept in the local store under NAME@fleet. juice subscribers "
                    + "lists it as NAME@fleet (cursor: the consumer's ack floor; lag: its messages not yet acknowledged) and says "
                    + "what stopped a subscriber (410 Gone, NATS refused the credentials). juice subscribers retry NAME "
                    + "[--dead-letters] acts on the local journal's delivery, or on the fleet's when only that has something to "
                    + "retry (or given NAME@fleet), reading each dead letter back from the stream by its stream sequence and event "
                    + "id: a letter whose message the stream no longer holds (aged out, or the stream was created anew and the "
                    + "sequence is another event's) is said and kept, never taken for another event. Each letter "
                    + "remembers its stream (when the server created it): juice subscribers says how many letters belong to a "
                    + "stream that is gone (deadLettersOfGoneStreams in --json). A subscriber stopped by 410 "
                    + "Gone is enabled again when juice fleet deliver starts."),
            .paragraph(
                "What the stream holds came from other machines and is untrusted. Every reader takes a message only when it is "
                    + "a JuiceMaker CloudEvent on exactly the subject its event goes to (the machine its source names, its kind, "
                    + "its fruit or juice) with possible values; any other is skipped with one escaped stderr line, and juice "
                    + "fleet deliver also terminates it on the stream and keeps it as a dead letter; so is a message larger than "
                    + "fleet.maxMessageBytes (65536 by default), unread. This checks consistency, not "
                    + "who published: give each machine NATS publish permission on its own <prefix>.<machine>.> only. juice "
                    + "fleet watch --json prints a message as it came only when it is one line with no control characters."),
            .paragraph(
                "juice fleet stock shows each machine's last good stock.changed per fruit (a fruit it never changed shows -), "
                    + "aged by the stream's clock; a machine whose events are stamped more than a minute after the stream stored "
                    + "them is flagged (clock 3h ahead)."),
            .paragraph(
                "The fleet commands take --nats URL or the config's fleet.url; with neither, or with a bad value, they exit 78; "
                    + "with no server answering, or a build without the NATS client, 69; with no stream yet (no machine has "
                    + "published), 69 (juice fleet deliver --follow only when it starts); with a "
                    + "stream that takes other subjects, 78. A tls:// URL requires TLS: a server that offers none is refused (78; the nats "
                    + "subscriber stops, as for refused credentials), never used in plain text. tlsCA (the CAs the server's certificate "
                    + "is checked against) and tlsCertificate with tlsKey (a client certificate), PEM files in the fleet section "
                    + "and in a nats subscriber, mean TLS too; config check reads them, config show shows their paths only. juice fleet watch exits as it was stopped (130, 143); skipped "
                    + "messages change no exit status."),
        ])
}
