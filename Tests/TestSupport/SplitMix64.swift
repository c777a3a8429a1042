/// A small seeded generator (SplitMix64, Steele, Lea and Flood, "Fast splittable pseudorandom
/// number generators", OOPSLA 2014), so that a failing random case can be replayed from its seed.
///
/// Every test target that draws random cases uses this one copy; the sequence for a seed is the
/// one the former per-target copies produced, so the seeds named in tests still mean the same cases.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    /// The generator's state; the seed before the first draw.
    public var state: UInt64

    /// Creates a generator whose first draw is the SplitMix64 output for `seed`.
    ///
    /// - Parameter seed: the seed a test names so its failure can be replayed.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
