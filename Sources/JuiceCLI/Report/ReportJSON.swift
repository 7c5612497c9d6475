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
import JuiceMakerCore
import JuiceMakerPluginKit
import JuicePrimitives

/// `juice report --json` and `juice report picklist --json`: the same figures as the
/// text, as one object (its shape is documented in the article "The report").
enum ReportJSON {
    static func report(_ figures: ReportFigures) -> JSONValue {
        .object([
            ("window", window(figures)),
            ("throughSequence", .number(Double(figures.throughSequence))),
            (
                "sales",
                .object([
                    ("orders", .integer(figures.orders)),
                    ("cups", .integer(figures.cups)),
                    (
                        "juices",
                        .array(
                            figures.sales.map { sale in
                                .object([
                                    ("juice", .string(sale.juice.id)), ("orders", .integer(sale.orders)),
                                    ("cups", .integer(sale.cups)), ("share", .number(sale.share)),
                                ])
                            })
                    ),
                ])
            ),
            (
                "lostSales",
                .array(
                    figures.lostSales.map { lost in
                        .object([
                            ("juice", .string(lost.juice.id)), ("orders", .integer(lost.orders)), ("cups", .integer(lost.cups)),
                            (
                                "shortages",
                                .array(
                                    lost.shortages.map { short in
                                        .object([
                                            ("fruit", .string(short.fruit.id)), ("orders", .integer(short.orders)),
                                            ("missing", .integer(short.missing)),
                                        ])
                                    })
                            ),
                        ])
                    })
            ),
            (
                "consumed",
                .object([
                    ("total", .amounts(figures.consumed, includingZero: true)),
                    (
                        "periods",
                        .array(
                            figures.periods.map { period in
                                .object([
                                    ("start", .string(RFC3339.format(hourDate(period.startHour)))),
                                    ("fruits", .amounts(period.consumed, includingZero: false)),
                                ])
                            })
                    ),
                ])
            ),
            (
                "stock",
                .array(
                    figures.outlook.map { item in
                        .object([
                            ("fruit", .string(item.fruit.id)), ("quantity", .integer(item.quantity)),
                            ("consumed", .integer(item.consumed)), ("perHour", .number(item.perHour)),
                            ("hoursLeft", item.hoursLeft.map { .number($0) } ?? .null),
                            ("runsOutFirst", .bool(item.runsOutFirst)),
                        ])
                    })
            ),
            ("unknownEvents", .integer(figures.unknownEvents)),
        ])
    }

    static func picklist(_ figures: ReportFigures, mode: PicklistMode) -> JSONValue {
        let modeValue: (String, JSONValue) =
            switch mode {
            case .cover(let duration): ("coverHours", .number(Double(duration.hours)))
            case .target(let target): ("target", .integer(target))
            }
        return .object([
            ("window", window(figures)),
            ("throughSequence", .number(Double(figures.throughSequence))),
            modeValue,
            (
                "fruits",
                .array(
                    figures.picklist(mode).map { item in
                        .object([
                            ("fruit", .string(item.fruit.id)), ("have", .integer(item.have)),
                            ("need", .integer(item.need)), ("bring", .integer(item.bring)),
                        ])
                    })
            ),
        ])
    }

    private static func window(_ figures: ReportFigures) -> JSONValue {
        let window = figures.window
        return .object([
            ("since", .string(RFC3339.format(millisecondDate(window.sinceMilliseconds)))),
            ("until", .string(RFC3339.format(millisecondDate(window.untilMilliseconds)))),
            ("sinceMs", .number(Double(window.sinceMilliseconds))),
            ("untilMs", .number(Double(window.untilMilliseconds))),
            ("endMs", .number(Double(window.endMilliseconds))),
            ("hours", .number(window.hours)),
            ("by", .string(window.bucket.rawValue)),
        ])
    }

    static func hourDate(_ hour: Int64) -> Date { Date(timeIntervalSince1970: Double(hour) * 3600) }
    static func millisecondDate(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
}
