enum BenchError: Error, CustomStringConvertible {
    case unavailable(String)
    case usage(String)
    case failed(String)

    var description: String {
        switch self {
        case .unavailable(let what): "juice-bench: \(what) is not available in this build"
        case .usage(let message): "juice-bench: \(message)"
        case .failed(let message): "juice-bench: \(message)"
        }
    }
}
