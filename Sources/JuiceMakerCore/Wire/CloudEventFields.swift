/// The fields of one structured CloudEvent as `CloudEventFormat.decode` reads them,
/// before it checks them: each optional, so that a missing one can be named.
package struct CloudEventFields: Decodable, Equatable, Sendable {
    package var specversion, type, id, sequence, time, source: String?
    package var data: Payload?

    package struct Payload: Decodable, Equatable, Sendable {
        package var changeId, fruit, reason, juice: String?
        package var from, to, count: Int?
        package var consumed, shortages: [String: Int]?

        package init() {}
    }

    package init() {}
}
