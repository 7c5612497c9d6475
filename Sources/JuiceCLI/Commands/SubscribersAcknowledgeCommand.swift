import JuiceMakerCore

/// `juice subscribers acknowledge <name>`: a person has taken note of the events a
/// store recovery found lost for a subscriber (it will never be sent them), so
/// `juice subscribers` stops showing them.
struct SubscribersAcknowledgeCommand: JuiceCommand {
    static let configuration = CommandConfiguration(
        commandName: "acknowledge",
        abstract: LocalizedText(
            "Take note of a subscriber's events lost in a store recovery; stop showing them.",
            ko: "저장소 복구에서 사라진 구독자의 이벤트를 확인했다고 하고, 더는 보여 주지 않습니다."))

    struct Options: CommandOptions {
        let name: Argument<String>
        init(_ options: inout OptionList) { name = options.subscriberName() }
    }

    let name: String

    init(_ invocation: Invocation) throws(CLIError) {
        name = try Options(invocation).name.value
    }

    func run(_ session: Session) throws(CLIError) -> ExitCode {
        let journal = try session.journal()
        let acknowledged: Int
        do {
            acknowledged = try journal.acknowledgeLostEvents(of: name)
        } catch {
            throw CLIError(.storeIO, Catalog.Errors.store(error))
        }
        // A subscriber gone from the config may still have losses to acknowledge.
        if acknowledged == 0, !session.context.config.subscribers.contains(where: { $0.name == name }) {
            throw CLIError(.badValue, Catalog.Delivery.unknownSubscriber(name))
        }
        session.context.console.print(Catalog.Delivery.lossesAcknowledged(name, ranges: acknowledged))
        return .success
    }
}
