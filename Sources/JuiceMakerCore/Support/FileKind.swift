import JuicePrimitives

/// What a path names when it is not a regular file (`JuicePrimitives.FileKind`, where
/// the file gate that judges every path lives).
public typealias FileKind = JuicePrimitives.FileKind
