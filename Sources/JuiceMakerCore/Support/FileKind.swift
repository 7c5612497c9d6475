#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What a path names when it is not a regular file, for messages that say so: "not a
/// regular file (a FIFO)".
public enum FileKind: String, Sendable, Equatable {
    case directory
    case fifo
    case socket
    case characterDevice
    case blockDevice
    case other

    /// The kind of a file whose `st_mode` is `mode`; nil for a regular file.
    package init?(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: self = .directory
        case S_IFIFO: self = .fifo
        case S_IFSOCK: self = .socket
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        default: self = .other
        }
    }

    /// The kind of the file `descriptor` is open on; nil for a regular file (or when
    /// `fstat` fails, which leaves the read to say why).
    package init?(descriptor: Int32) {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        self.init(mode: info.st_mode)
    }

    /// "a directory", "a FIFO", …
    package var english: String {
        switch self {
        case .directory: "a directory"
        case .fifo: "a FIFO"
        case .socket: "a socket"
        case .characterDevice: "a character device"
        case .blockDevice: "a block device"
        case .other: "neither a file nor a directory"
        }
    }

    /// The same in Korean.
    package var korean: String {
        switch self {
        case .directory: "디렉터리"
        case .fifo: "FIFO"
        case .socket: "소켓"
        case .characterDevice: "문자 장치"
        case .blockDevice: "블록 장치"
        case .other: "파일도 디렉터리도 아님"
        }
    }
}
