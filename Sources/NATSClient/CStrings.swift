#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// C strings that live as long as this value: for libnats calls that take `const char *`
/// arrays and fields.
final class CStrings {
    private(set) var pointers: [UnsafeMutablePointer<CChar>] = []

    func make(_ text: String) -> UnsafePointer<CChar> {
        let pointer = strdup(text)!
        pointers.append(pointer)
        return UnsafePointer(pointer)
    }

    /// A `const char **` array of `texts`, alive as long as this value.
    func array(_ texts: [String]) -> UnsafeMutablePointer<UnsafePointer<CChar>?> {
        let array = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: max(1, texts.count))
        for (index, text) in texts.enumerated() { array[index] = make(text) }
        arrays.append(array)
        return array
    }

    private var arrays: [UnsafeMutablePointer<UnsafePointer<CChar>?>] = []

    deinit {
        for pointer in pointers { free(pointer) }
        for array in arrays { array.deallocate() }
    }
}
