import CCrypto

/// HMAC-SHA256 (RFC 2104) from the system's libcrypto.
enum HMACSHA256 {
    /// The 32-byte authentication code of `message` under `key`.
    static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var code = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let keyLength = Int32(clamping: key.count)
        let messageLength = message.count
        // A zero-length key or message still needs a valid pointer: pad the buffer,
        // keep the length.
        let keyBuffer = key.isEmpty ? [0] : key
        let messageBuffer = message.isEmpty ? [0] : message
        keyBuffer.withUnsafeBufferPointer { keyBytes in
            messageBuffer.withUnsafeBufferPointer { messageBytes in
                code.withUnsafeMutableBufferPointer { codeBytes in
                    _ = HMAC(
                        EVP_sha256(), keyBytes.baseAddress, keyLength, messageBytes.baseAddress, messageLength,
                        codeBytes.baseAddress, &length)
                }
            }
        }
        return Array(code.prefix(Int(length)))
    }
}
