import JuicePrimitives

/// Why a request got no usable answer. Every case is worth another attempt later.
package enum HTTPClientError: Error, Sendable, Equatable {
    /// The attempt's deadline passed (connecting, in the TLS handshake, writing or
    /// waiting for the answer).
    case timedOut
    /// The attempt was cancelled (shutdown, the flush deadline).
    case cancelled
    /// The name did not resolve; the resolver's words.
    case hostNotFound(String)
    /// Every address refused the connection.
    case connectionRefused
    /// No address could be connected to for another reason (`strerror`).
    case cannotConnect(String)
    /// The server closed or reset the connection before its answer was complete.
    case connectionLost
    /// The server's certificate failed verification: OpenSSL's reason.
    case certificateNotTrusted(String)
    /// The TLS handshake or a TLS record failed for another reason.
    case tlsFailed(String)
    /// The answer broke HTTP/1.1's rules.
    case malformedResponse(HTTPViolation)
    /// A system call failed unexpectedly.
    case system(String)

    /// In the words `juice` used with URLSession ("no answer within the timeout",
    /// "connection refused", …), in English and Korean.
    package var message: PluginMessage {
        switch self {
        case .timedOut: PluginMessage(english: "no answer within the timeout", korean: "제한 시간 안에 응답이 없습니다")
        case .cancelled: PluginMessage(english: "cancelled", korean: "취소되었습니다")
        case .hostNotFound(let why): PluginMessage(english: "host not found (\(why))", korean: "호스트를 찾을 수 없습니다 (\(why))")
        case .connectionRefused: PluginMessage(english: "connection refused", korean: "연결이 거부되었습니다")
        case .cannotConnect(let why): PluginMessage(english: "cannot connect (\(why))", korean: "연결할 수 없습니다 (\(why))")
        case .connectionLost: PluginMessage(english: "connection lost", korean: "연결이 끊겼습니다")
        case .certificateNotTrusted(let why):
            PluginMessage(english: "certificate not trusted: \(why)", korean: "인증서를 신뢰할 수 없습니다: \(why)")
        case .tlsFailed(let why): PluginMessage(english: "TLS failed: \(why)", korean: "TLS 실패: \(why)")
        case .malformedResponse(let violation):
            PluginMessage(english: "malformed response: \(violation.english)", korean: "잘못된 응답: \(violation.korean)")
        case .system(let why): PluginMessage(english: "system error: \(why)", korean: "시스템 오류: \(why)")
        }
    }
}

/// What in a response broke HTTP/1.1's rules.
package enum HTTPViolation: Error, Sendable, Equatable {
    case notHTTP1
    case malformedStatusLine
    case bareCarriageReturn
    case foldedField
    case malformedField
    case headTooLarge
    case tooManyFields
    case badContentLength
    case malformedChunk
    case tooManyInterimResponses
    case unexpectedSwitchingProtocols

    package var english: String {
        switch self {
        case .notHTTP1: "the status line is not HTTP/1.x"
        case .malformedStatusLine: "malformed status line"
        case .bareCarriageReturn: "a bare CR in the header section"
        case .foldedField: "a folded header line (obsolete line folding)"
        case .malformedField: "malformed header line"
        case .headTooLarge: "header section longer than \(HTTPResponseHead.maximumBytes / 1024) KiB"
        case .tooManyFields: "more than \(HTTPResponseHead.maximumFields) header fields"
        case .badContentLength: "invalid Content-Length"
        case .malformedChunk: "malformed chunked body"
        case .tooManyInterimResponses: "more than \(HTTPClient.maximumInterimResponses) interim (1xx) responses"
        case .unexpectedSwitchingProtocols: "101 Switching Protocols, which was not asked for"
        }
    }

    package var korean: String {
        switch self {
        case .notHTTP1: "상태 줄이 HTTP/1.x가 아닙니다"
        case .malformedStatusLine: "상태 줄 형식이 잘못되었습니다"
        case .bareCarriageReturn: "헤더에 CR만 단독으로 있습니다"
        case .foldedField: "헤더 줄이 접혀 있습니다(폐기된 줄 접기)"
        case .malformedField: "헤더 줄 형식이 잘못되었습니다"
        case .headTooLarge: "헤더가 \(HTTPResponseHead.maximumBytes / 1024) KiB보다 깁니다"
        case .tooManyFields: "헤더 필드가 \(HTTPResponseHead.maximumFields)개보다 많습니다"
        case .badContentLength: "Content-Length 값이 잘못되었습니다"
        case .malformedChunk: "chunked 본문 형식이 잘못되었습니다"
        case .tooManyInterimResponses: "중간(1xx) 응답이 \(HTTPClient.maximumInterimResponses)개보다 많습니다"
        case .unexpectedSwitchingProtocols: "요청하지 않은 101 Switching Protocols 응답입니다"
        }
    }
}
