/// Why a ``StreamingGet`` could not be opened.
package struct StreamingGetError: Error, CustomStringConvertible {
    package let description: String

    init(_ description: String) { self.description = description }
}
